//! The example projects build with kerncast in their builds, produce reports, and fail on a
//! planted regression (the example's coalesced kernel made uncoalesced).
//!
//! The kerncast binary is `kerncast-gate` (this crate's bin: the CLI's analyze/check on the same
//! library). Nested builds use their own folder under the workspace's target/ (the outer
//! `cargo test` holds the lock on target/debug); the example crate links only `kerncast-build`,
//! which runs the binary, so no kerncast crate is compiled a second time.

use std::path::{Path, PathBuf};
use std::process::Command;

const UNCOALESCED: &str = r#"// scale: y = a*x over n floats, one thread per element, coalesced.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void scale(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[(i * 32) % n];
}
"#;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "target" || name == "build" || name == "Cargo.lock" {
            continue;
        }
        if p.is_dir() {
            copy_dir(&p, &to.join(&name));
        } else {
            std::fs::copy(&p, to.join(&name)).unwrap();
        }
    }
}

fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

fn gate() -> &'static str {
    env!("CARGO_BIN_EXE_kerncast-gate")
}

#[test]
fn cargo_project_builds_reports_and_fails_on_regression() {
    let root = kerncast_tests::workspace_root();
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("cargo-project");
    copy_dir(&root.join("examples/cargo-project"), &proj);
    // The copy points at this workspace's kerncast-build.
    let manifest = std::fs::read_to_string(proj.join("Cargo.toml"))
        .unwrap()
        .replace(
            "path = \"../../kerncast-build\"",
            &format!("path = \"{}\"", root.join("kerncast-build").display()),
        );
    std::fs::write(proj.join("Cargo.toml"), manifest).unwrap();
    let target = root.join("target/example-cargo-project");
    let build = || {
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--offline", "--manifest-path"])
            .arg(proj.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env("KERNCAST", gate())
            .env_remove("CI")
            .output()
            .expect("cargo runs")
    };
    let o = build();
    let log = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "example build failed:\n{log}");
    assert!(
        !log.contains("warning: kerncast"),
        "a build within the thresholds prints no kerncast warning:\n{log}"
    );
    let report = find(&target, "kerncast-report.html").expect("the build wrote a report");
    assert!(std::fs::read_to_string(report).unwrap().contains("<svg"));

    // `cargo kerncast check` finds the package through its metadata and passes.
    let (code, text) =
        kerncast_cli::cargo_kerncast::run_all("check", Some(&proj.join("Cargo.toml")), &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("== kerncast-cargo-example"), "{text}");

    // Planted regression: the build fails, naming it.
    std::fs::write(proj.join("kernels/scale.cu"), UNCOALESCED).unwrap();
    let o = build();
    let log = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!o.status.success(), "the build must fail:\n{log}");
    assert!(log.contains("predicted regression"), "{log}");
    // the committed baseline records the counts, so the failure says which moved
    assert!(log.contains("counts moved:"), "{log}");
    let (code, text) =
        kerncast_cli::cargo_kerncast::run_all("check", Some(&proj.join("Cargo.toml")), &[]);
    assert_eq!(code, 1, "{text}");
}

#[test]
fn cmake_project_builds_reports_and_fails_on_regression() {
    let root = kerncast_tests::workspace_root();
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("cmake-project");
    copy_dir(&root.join("examples/cmake-project"), &proj);
    let build_dir = proj.join("build");
    let nvcc = root.join(".toolchain/bin/nvcc");
    let cfg = Command::new("cmake")
        .arg("-S")
        .arg(&proj)
        .arg("-B")
        .arg(&build_dir)
        .arg(format!("-DNVCC={}", nvcc.display()))
        .arg(format!("-DKERNCAST_EXECUTABLE={}", gate()))
        .arg(format!(
            "-DKERNCAST_CMAKE_DIR={}",
            root.join("cmake").display()
        ))
        .output()
        .expect("cmake runs");
    assert!(
        cfg.status.success(),
        "{}",
        String::from_utf8_lossy(&cfg.stderr)
    );
    let cmake_build = |target: Option<&str>| {
        let mut c = Command::new("cmake");
        c.arg("--build").arg(&build_dir);
        if let Some(t) = target {
            c.args(["--target", t]);
        }
        c.output().expect("cmake --build runs")
    };
    let o = cmake_build(None);
    let log = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{log}");
    assert!(
        build_dir.join("scale.ptx").is_file(),
        "nvcc compiled the device code"
    );
    assert!(
        build_dir
            .join("kerncast/app/kerncast-report.html")
            .is_file(),
        "{log}"
    );

    let o = cmake_build(Some("kerncast-check"));
    let log = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{log}");

    std::fs::write(proj.join("kernels/scale.cu"), UNCOALESCED).unwrap();
    let o = cmake_build(Some("kerncast-check"));
    let log = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the gate must fail:\n{log}");
    assert!(log.contains("REGRESS"), "{log}");
    assert!(log.contains("counts moved:"), "{log}");
}
