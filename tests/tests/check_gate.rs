//! The CI gate end to end: real kernels lowered with the project's compiler, counted and
//! predicted, compared with a baseline. A planted regression (the same copy kernel made
//! uncoalesced) exits 1, the unchanged kernel exits 0, a kernel that does not compile exits 2,
//! a corrupt baseline exits 2 naming file:line, and the SARIF log validates against the
//! SARIF 2.1.0 schema (vendored from the OASIS spec repository via the serde-sarif crate).

use kerncast::lower::LowerArgs;
use kerncast::ops::analyze::Inputs;
use kerncast::ops::check::{check, Args};
use std::path::{Path, PathBuf};

const COALESCED: &str = r#"// A copy kernel: lane i reads element i, so a warp reads one contiguous 128-byte line.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void copy(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}
"#;

/// The planted regression: lane i reads element 32*i (mod n), one sector per lane.
const UNCOALESCED: &str = r#"// A copy kernel: lane i reads element i, so a warp reads one contiguous 128-byte line.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void copy(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[(i * 32) % n];
}
"#;

const BROKEN: &str = r#"// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void copy(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x
    y[i] = x[i];
}
"#;

fn args(dir: &Path, sarif: Option<PathBuf>, update: bool) -> Args {
    Args {
        inputs: Inputs {
            files: vec![dir.join("copy.cu")],
            config: None,
            devices: vec!["gtx-titan-x".into()],
            model: None,
            jobs: 1,
            no_cache: true,
            lower: LowerArgs::default(),
            params: vec![],
            size_chart: false,
            sass_in_context: false,
            host: Default::default(),
        },
        baseline: dir.join("kerncast-baseline.json"),
        update_baseline: update,
        sarif,
        time_threshold: None,
        energy_threshold: None,
        out: None,
    }
}

fn validate_sarif(path: &Path) {
    // The published 2.1.0 schema's `run.language` pattern has a stray `]`
    // (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) that strict ECMA-262 regex checking rejects
    // when the schema itself is validated; use the intended pattern. kerncast never writes
    // `language`, so no check on our output is weakened.
    let text = include_str!("check-sarif-schema-2.1.0.json").replace(
        "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$",
        "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$",
    );
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema parses");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("sarif written"))
            .expect("sarif is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF schema violations: {errors:#?}");
}

#[test]
fn gate_exit_codes_and_sarif() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("copy.cu"), COALESCED).unwrap();

    // No baseline yet: an error, never a pass.
    let r = check(&args(d, None, false));
    assert_eq!(r.exit_code, 2, "{}", r.text);
    assert!(r.text.contains("kerncast-baseline.json"), "{}", r.text);

    let r = check(&args(d, None, true));
    assert_eq!(r.exit_code, 0, "{}", r.text);
    let base = std::fs::read_to_string(d.join("kerncast-baseline.json")).unwrap();
    assert!(
        base.contains("copy.cu::copy::n=1048576@gtx-titan-x"),
        "{base}"
    );

    // Unchanged kernel: pass.
    let sarif = d.join("ok.sarif");
    let r = check(&args(d, Some(sarif.clone()), false));
    assert_eq!(r.exit_code, 0, "{}", r.text);
    validate_sarif(&sarif);

    // Planted regression: exit 1, SARIF points at the kernel's source line.
    std::fs::write(d.join("copy.cu"), UNCOALESCED).unwrap();
    let sarif = d.join("regression.sarif");
    let r = check(&args(d, Some(sarif.clone()), false));
    assert_eq!(r.exit_code, 1, "{}", r.text);
    assert!(r.text.contains("REGRESS"), "{}", r.text);
    validate_sarif(&sarif);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let res = &log["runs"][0]["results"][0];
    assert_eq!(res["level"], "error");
    assert!(res["ruleId"].as_str().unwrap().ends_with("-regression"));
    let loc = &res["locations"][0]["physicalLocation"];
    assert!(loc["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("copy.cu"));
    assert_eq!(
        loc["region"]["startLine"], 3,
        "the kernel's definition line"
    );

    // A kernel that does not compile: exit 2, and the SARIF names the error.
    std::fs::write(d.join("copy.cu"), BROKEN).unwrap();
    let sarif = d.join("broken.sarif");
    let r = check(&args(d, Some(sarif.clone()), false));
    assert_eq!(r.exit_code, 2, "{}", r.text);
    validate_sarif(&sarif);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(
        log["runs"][0]["results"][0]["ruleId"],
        "kerncast/analysis-error"
    );

    // --update-baseline refuses to record a broken analysis.
    let r = check(&args(d, None, true));
    assert_eq!(r.exit_code, 2, "{}", r.text);
    assert_eq!(
        std::fs::read_to_string(d.join("kerncast-baseline.json")).unwrap(),
        base,
        "baseline unchanged"
    );

    // A corrupt baseline: exit 2, naming file:line.
    std::fs::write(d.join("copy.cu"), COALESCED).unwrap();
    std::fs::write(
        d.join("kerncast-baseline.json"),
        "{\n  \"schema_version\": 1,\n  \"entries\": {,\n}\n",
    )
    .unwrap();
    let r = check(&args(d, None, false));
    assert_eq!(r.exit_code, 2, "{}", r.text);
    assert!(r.text.contains("kerncast-baseline.json:3:"), "{}", r.text);
}
