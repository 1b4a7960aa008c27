//! The GitHub Actions example's gate step (`docs/ci/kerncast-gate.sh`, which
//! `docs/ci/github-actions-kerncast.yml` runs) run locally, as GitHub would: in a scratch project
//! with a committed baseline and `$GITHUB_STEP_SUMMARY` set. It passes, then fails on a planted
//! regression with the verdict and why in the step summary, a valid SARIF log whose message
//! names the counts that moved, and a workflow `::error` annotation.

use std::path::Path;
use std::process::{Command, Output};

const KERNEL: &str = r#"// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void scale(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}
"#;

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

fn gate_step(proj: &Path, summary: &Path) -> Output {
    let root = kerncast_tests::workspace_root();
    Command::new("bash")
        .arg(root.join("docs/ci/kerncast-gate.sh"))
        .args(["--config", "kerncast.toml"])
        .current_dir(proj)
        .env("KERNCAST", env!("CARGO_BIN_EXE_kerncast-gate"))
        .env("GITHUB_STEP_SUMMARY", summary)
        .env("CI", "true")
        .output()
        .expect("bash runs")
}

#[test]
fn the_workflow_runs_the_gate_script() {
    let root = kerncast_tests::workspace_root();
    let yml = std::fs::read_to_string(root.join("docs/ci/github-actions-kerncast.yml")).unwrap();
    assert!(yml.contains("run: bash ci/kerncast-gate.sh"), "{yml}");
    assert!(
        yml.contains("sarif_file: target/kerncast/kerncast.sarif"),
        "{yml}"
    );
}

#[test]
fn the_gate_step_passes_then_explains_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path();
    std::fs::create_dir_all(proj.join("kernels")).unwrap();
    std::fs::write(proj.join("kernels/scale.cu"), KERNEL).unwrap();
    std::fs::write(
        proj.join("kerncast.toml"),
        "devices = [\"gtx-titan-x\"]\n[[kernel]]\npath = \"kernels/scale.cu\"\n",
    )
    .unwrap();
    // the committed baseline, as a developer writes it
    let o = Command::new(env!("CARGO_BIN_EXE_kerncast-gate"))
        .args(["check", "--config", "kerncast.toml", "--update-baseline"])
        .current_dir(proj)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));

    let summary = proj.join("summary.md");
    let o = gate_step(proj, &summary);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("## kerncast gate: pass (exit 0)"), "{md}");
    assert!(md.contains("| ok | `kernels/scale.cu::scale"), "{md}");

    std::fs::write(
        proj.join("kernels/scale.cu"),
        KERNEL.replace("x[i]", "x[(i * 32) % n]"),
    )
    .unwrap();
    std::fs::remove_file(&summary).unwrap();
    let o = gate_step(proj, &summary);
    let log = text(&o);
    assert_eq!(o.status.code(), Some(1), "{log}");
    assert!(
        log.contains("::error title=kerncast::predicted regression"),
        "{log}"
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("## kerncast gate: regression (exit 1)"), "{md}");
    assert!(md.contains("### Why `kernels/scale.cu::scale"), "{md}");
    assert!(md.contains("| count | baseline | now | change |"), "{md}");
    let why = &md[md.find("### Why").unwrap()..];
    assert!(
        why.contains("| `sectors.global.load` | 131072 | 1048576 | x8.00 |"),
        "{md}"
    );

    // the published schema's `run.language` pattern has a stray `]` that strict regex checking
    // rejects (see check_gate.rs); kerncast never writes `language`
    let schema: serde_json::Value =
        serde_json::from_str(&include_str!("check-sarif-schema-2.1.0.json").replace(
            "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$",
            "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$",
        ))
        .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(proj.join("target/kerncast/kerncast.sarif")).unwrap(),
    )
    .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let message = sarif["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("counts moved:"), "{message}");
}
