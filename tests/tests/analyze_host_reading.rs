//! `kerncast analyze` reads a file's host code only where something needs it: a kernel whose
//! workloads the source's annotations give takes none from it, so a host side that does not
//! compile costs nothing and says nothing; a `--param`, which must name something the program
//! has, has the host code read, and its compile error shown.

use std::path::Path;
use std::process::{Command, Output};

const CLI: &str = env!("CARGO_BIN_EXE_kerncast-cli");

const SOURCE: &str = "// kerncast: workload n=4096 grid=(n/256) block=256\n\
__global__ void scale(float *x, int n) {\n\
    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
    if (i < n) x[i] *= 2.0f;\n\
}\n\
#ifndef __CUDA_ARCH__\n\
static int host_only = undefined_name;\n\
#endif\n";

fn analyze(dir: &Path, extra: &[&str]) -> (Output, serde_json::Value) {
    let out_dir = dir.join(format!("out{}", extra.len()));
    let out = Command::new(CLI)
        .arg("analyze")
        .arg(dir.join("k.cu"))
        .args(["--no-cache", "--device", "gtx-titan-x", "--out"])
        .arg(&out_dir)
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("kerncast-cli runs");
    let report = std::fs::read(out_dir.join("kerncast-report.json"))
        .map(|b| serde_json::from_slice(&b).expect("the report is JSON"))
        .unwrap_or_default();
    (out, report)
}

#[test]
fn the_host_code_is_read_only_where_a_workload_or_a_param_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), SOURCE).unwrap();

    let (out, report) = analyze(dir.path(), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(report["kernels"].as_array().map(Vec::len), Some(1), "{err}");
    assert_eq!(report["errors"], serde_json::json!([]), "{err}");

    let (_, report) = analyze(dir.path(), &["--param", "n=8192"]);
    let errors = report["errors"].as_array().cloned().unwrap_or_default();
    assert!(
        errors
            .iter()
            .any(|e| e["stage"] == "host" && e["message"].to_string().contains("undefined_name")),
        "{errors:?}"
    );
}
