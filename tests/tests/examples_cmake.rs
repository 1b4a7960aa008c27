//! The CMake paths as a new user takes them, from scratch folders outside the repository:
//! (b) a fresh project that finds kerncast with `find_package(Kerncast)` and hands its target
//! to `kerncast_add_kernels`, whose kernel needs the target's include folder and definitions;
//! (c) a CUDA project configured with `CMAKE_EXPORT_COMPILE_COMMANDS=ON`, analysed as is through
//! its `build/compile_commands.json`. Each gates against a baseline and fails on a planted
//! regression (a definition that makes a coalesced read strided), naming the counts that moved.
//!
//! The kerncast binary is `kerncast-gate` (this crate's bin: the CLI's analyze/check).

use std::path::Path;
use std::process::{Command, Output};

/// Reads `x` with the stride the build defines; `index.h` comes from the target's include folder.
const KERNEL: &str = r#"// kerncast: workload n=1048576 grid=(n/256) block=256
#include "index.h"
extern "C" __global__ void scale(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[INDEX(i, n)];
}
"#;

const HEADER: &str = "#pragma once\n#ifndef STRIDE\n#error \"STRIDE must be defined by the build\"\n#endif\n#define INDEX(i, n) (((i) * STRIDE) % (n))\n";

fn gate() -> &'static str {
    env!("CARGO_BIN_EXE_kerncast-gate")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

fn run(c: &mut Command) -> Output {
    c.env_remove("CI")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("runs")
}

fn write_project(dir: &Path, cmakelists: &str) {
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    std::fs::create_dir_all(dir.join("include")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("kernels/scale.cu"), KERNEL).unwrap();
    std::fs::write(dir.join("include/index.h"), HEADER).unwrap();
    std::fs::write(dir.join("src/main.cpp"), "int main() { return 0; }\n").unwrap();
    std::fs::write(dir.join("CMakeLists.txt"), cmakelists).unwrap();
}

/// Asserts a failed gate explains itself: the regression, the counts that moved (the sectors
/// of the strided read), and the bottleneck.
fn assert_explained(log: &str) {
    assert!(log.contains("REGRESS"), "{log}");
    assert!(log.contains("counts moved:"), "{log}");
    assert!(log.contains("sectors"), "the sector counts moved:\n{log}");
    assert!(log.contains("bottleneck"), "{log}");
}

/// (b): include folders and definitions reach the kernel through `kerncast_add_kernels`.
#[test]
fn fresh_cmake_project_with_include_folders_and_definitions() {
    let root = kerncast_tests::workspace_root();
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("fresh");
    let lists = |stride: u32| {
        format!(
            "cmake_minimum_required(VERSION 3.20)\n\
             project(fresh LANGUAGES CXX)\n\
             find_package(Kerncast 0.1 REQUIRED)\n\
             add_executable(app src/main.cpp)\n\
             target_include_directories(app PRIVATE include)\n\
             target_compile_definitions(app PRIVATE STRIDE={stride})\n\
             kerncast_add_kernels(TARGET app SOURCES kernels/scale.cu DEVICE gtx-titan-x\n\
             \x20                    BASELINE kerncast-baseline.json)\n"
        )
    };
    write_project(&proj, &lists(1));
    let build_dir = proj.join("build");
    let configure = || {
        run(Command::new("cmake")
            .arg("-S")
            .arg(&proj)
            .arg("-B")
            .arg(&build_dir)
            .arg(format!("-DKerncast_DIR={}", root.join("cmake").display()))
            .arg(format!("-DKERNCAST_EXECUTABLE={}", gate())))
    };
    let cmake_build = |target: Option<&str>| {
        let mut c = Command::new("cmake");
        c.arg("--build").arg(&build_dir);
        if let Some(t) = target {
            c.args(["--target", t]);
        }
        run(&mut c)
    };
    let o = configure();
    assert!(o.status.success(), "{}", text(&o));
    let o = cmake_build(None);
    assert!(o.status.success(), "{}", text(&o));
    let report =
        std::fs::read_to_string(build_dir.join("kerncast/app/kerncast-report.json")).unwrap();
    assert!(report.contains("\"kernel\": \"scale\""), "{report}");

    let o = cmake_build(Some("kerncast-update-baseline"));
    assert!(o.status.success(), "{}", text(&o));
    assert!(proj.join("kerncast-baseline.json").is_file());
    let o = cmake_build(Some("kerncast-check"));
    assert!(o.status.success(), "{}", text(&o));

    // The definition changes in CMakeLists.txt only: the gate sees it through the target.
    std::fs::write(proj.join("CMakeLists.txt"), lists(32)).unwrap();
    let o = configure();
    assert!(o.status.success(), "{}", text(&o));
    let o = cmake_build(Some("kerncast-check"));
    let log = text(&o);
    assert!(!o.status.success(), "the gate must fail:\n{log}");
    assert_explained(&log);
    let md = std::fs::read_to_string(build_dir.join("kerncast/app/kerncast-check.md")).unwrap();
    assert!(md.contains("### Why `kernels/scale.cu::scale"), "{md}");
}

/// (c): a CUDA project's compilation database is all kerncast needs.
#[test]
fn cmake_project_analysed_through_compile_commands() {
    let root = kerncast_tests::workspace_root();
    let nvcc = root.join(".toolchain/bin/nvcc");
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("cuda-app");
    let lists = |stride: u32| {
        format!(
            "cmake_minimum_required(VERSION 3.20)\n\
             project(cuda_app LANGUAGES CXX CUDA)\n\
             add_library(kernels OBJECT kernels/scale.cu)\n\
             target_include_directories(kernels PRIVATE include)\n\
             target_compile_definitions(kernels PRIVATE STRIDE={stride})\n\
             add_executable(app src/main.cpp)\n"
        )
    };
    write_project(&proj, &lists(1));
    let configure = || {
        run(Command::new("cmake")
            .current_dir(&proj)
            .args([
                "-S",
                ".",
                "-B",
                "build",
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            ])
            .arg(format!("-DCMAKE_CUDA_COMPILER={}", nvcc.display())))
    };
    let o = configure();
    assert!(o.status.success(), "{}", text(&o));
    assert!(proj.join("build/compile_commands.json").is_file());
    let kerncast = |args: &[&str]| run(Command::new(gate()).current_dir(&proj).args(args));

    // found by itself in build/
    let o = kerncast(&[
        "check",
        "--device",
        "gtx-titan-x",
        "--baseline",
        "kerncast-baseline.json",
        "--update-baseline",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let baseline = std::fs::read_to_string(proj.join("kerncast-baseline.json")).unwrap();
    assert!(
        baseline.contains("\"kernels/scale.cu::scale"),
        "the entry names the file relative to the project:\n{baseline}"
    );
    let check = |inputs: &[&str]| {
        let gate_args = [
            "--device",
            "gtx-titan-x",
            "--baseline",
            "kerncast-baseline.json",
        ];
        kerncast(&[&["check"], inputs, &gate_args[..]].concat())
    };
    let o = check(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // a file named beside the database is lowered with the flags the database builds it with
    // (without them `index.h` is not found and STRIDE is not defined)
    let db = ["--compile-commands", "build/compile_commands.json"];
    let o = check(&[&["kernels/scale.cu"], &db[..]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    std::fs::write(proj.join("CMakeLists.txt"), lists(32)).unwrap();
    let o = configure();
    assert!(o.status.success(), "{}", text(&o));
    let o = check(&db);
    let log = text(&o);
    assert_eq!(o.status.code(), Some(1), "{log}");
    assert_explained(&log);
}

/// The version find_package(Kerncast X.Y) checks is the workspace's.
#[test]
fn the_config_version_is_the_workspace_version() {
    let root = kerncast_tests::workspace_root();
    let cmake = std::fs::read_to_string(root.join("cmake/KerncastConfigVersion.cmake")).unwrap();
    let want = format!("set(PACKAGE_VERSION \"{}\")", env!("CARGO_PKG_VERSION"));
    assert!(
        cmake.contains(&want),
        "{want} not in KerncastConfigVersion.cmake"
    );
}
