//! The cargo path as a new user takes it, from a scratch folder outside the repository:
//! `cargo install --path cli` (into a temporary root) gives `kerncast` and
//! `cargo-kerncast`; a fresh crate written as docs/build-integration.md says (a `build.rs` with
//! `kerncast-build`, `[package.metadata.kerncast]`) builds, writes its baseline on the first
//! build and says so once, is quiet on the next, passes `cargo kerncast check`, and fails both
//! on a planted regression with an explanation naming the counts that moved.
//!
//! The install builds in the dev profile into the workspace's target folder (cargo does not hold
//! its lock while tests run), so it reuses what the tests' own build compiled.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KERNEL: &str = r#"// scale: y = a*x over n floats, one thread per element, coalesced.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void scale(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}
"#;

/// The same kernel reading `x` with a stride of 32 floats: every warp's load touches 32 sectors
/// instead of 4.
const UNCOALESCED: &str = r#"// scale: y = a*x over n floats, one thread per element, coalesced.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void scale(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[(i * 32) % n];
}
"#;

const BUILD_RS: &str = r#"fn main() {
    kerncast_build::Kerncast::new()
        .config("kerncast.toml")
        .baseline("kerncast-baseline.json")
        .fail_on_regression(true)
        .run()
        .unwrap_or_else(|e| panic!("{e}"));
}
"#;

const CONFIG: &str = r#"devices = ["gtx-titan-x"]

[[kernel]]
path = "kernels/scale.cu"
"#;

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// A command run in `dir` with the installed binaries first on PATH, as after `cargo install`,
/// and none of the outer build's variables that would point elsewhere.
fn user_command(program: &str, dir: &Path, bin: &Path) -> Command {
    let mut c = Command::new(program);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    c.current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env_remove("KERNCAST")
        .env_remove("CI")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS");
    c
}

#[test]
fn cargo_install_then_a_fresh_crate_gates_its_kernels() {
    let root = kerncast_tests::workspace_root();
    let tmp = tempfile::tempdir().unwrap();
    assert!(
        !tmp.path().starts_with(&root),
        "the scratch folder is outside the checkout"
    );

    // 1. the documented install
    let install_root = tmp.path().join("cargo-root");
    // as the README says, from the checkout; into a temporary root, in the dev profile and the
    // workspace's target folder so the dependencies the tests built are reused
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let o = Command::new(cargo())
        .args([
            "install",
            "--offline",
            "--locked",
            "--debug",
            "--path",
            "cli",
        ])
        .arg("--root")
        .arg(&install_root)
        .env("CARGO_TARGET_DIR", target)
        .current_dir(&root)
        .output()
        .expect("cargo runs");
    assert!(o.status.success(), "cargo install failed:\n{}", text(&o));
    let bin = install_root.join("bin");
    for b in ["kerncast", "cargo-kerncast"] {
        assert!(
            bin.join(b).is_file(),
            "cargo install gave no {b}:\n{}",
            text(&o)
        );
    }

    // 2. a fresh crate, written as the docs say
    let o = user_command(&cargo(), tmp.path(), &bin)
        .args(["new", "--vcs", "none", "gpu-app"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let app: PathBuf = tmp.path().join("gpu-app");
    let manifest = std::fs::read_to_string(app.join("Cargo.toml")).unwrap()
        + &format!(
            "\n[package.metadata.kerncast]\nconfig = \"kerncast.toml\"\nbaseline = \"kerncast-baseline.json\"\n\n\
             [build-dependencies]\nkerncast-build = {{ path = {:?} }}\n",
            root.join("kerncast-build").display().to_string()
        );
    // `cargo new` put [dependencies] last; the build dependency follows it
    std::fs::write(app.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(app.join("build.rs"), BUILD_RS).unwrap();
    std::fs::write(app.join("kerncast.toml"), CONFIG).unwrap();
    std::fs::create_dir_all(app.join("kernels")).unwrap();
    std::fs::write(app.join("kernels/scale.cu"), KERNEL).unwrap();
    let build = || {
        user_command(&cargo(), &app, &bin)
            .args(["build", "--offline"])
            .output()
            .unwrap()
    };

    // 3. the first build writes the baseline and says so, once
    let o = build();
    let log = text(&o);
    assert!(o.status.success(), "first build failed:\n{log}");
    assert_eq!(
        log.matches("no baseline yet").count(),
        1,
        "the first build says once that it wrote the baseline:\n{log}"
    );
    let baseline = std::fs::read_to_string(app.join("kerncast-baseline.json")).unwrap();
    assert!(baseline.contains("kernels/scale.cu::scale"), "{baseline}");

    // 4. the next build (the kernel touched, so build.rs runs again) is quiet
    std::fs::write(app.join("kernels/scale.cu"), KERNEL).unwrap();
    let o = build();
    let log = text(&o);
    assert!(o.status.success(), "{log}");
    assert!(
        !log.contains("kerncast"),
        "a passing build prints nothing of kerncast's:\n{log}"
    );

    // 5. `cargo kerncast` is a cargo subcommand now
    let o = user_command(&cargo(), &app, &bin)
        .args(["kerncast", "check"])
        .output()
        .unwrap();
    let log = text(&o);
    assert_eq!(o.status.code(), Some(0), "{log}");
    assert!(log.contains("== gpu-app"), "{log}");
    assert!(log.contains("verdict: pass"), "{log}");

    // 6. a planted regression fails the build and the subcommand, saying which counts moved
    std::fs::write(app.join("kernels/scale.cu"), UNCOALESCED).unwrap();
    let o = build();
    let log = text(&o);
    assert!(!o.status.success(), "the build must fail:\n{log}");
    assert!(log.contains("predicted regression"), "{log}");
    assert!(log.contains("REGRESS"), "{log}");
    assert!(log.contains("counts moved:"), "{log}");
    assert!(log.contains("sectors"), "the sector counts moved:\n{log}");
    let o = user_command(&cargo(), &app, &bin)
        .args(["kerncast", "check"])
        .output()
        .unwrap();
    let log = text(&o);
    assert_eq!(o.status.code(), Some(1), "{log}");
    assert!(log.contains("counts moved:"), "{log}");
    let sarif =
        std::fs::read_to_string(app.join("target/kerncast/gpu-app/kerncast.sarif")).unwrap();
    assert!(sarif.contains("counts moved:"), "{sarif}");
}
