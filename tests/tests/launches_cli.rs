//! `kerncast launches`: what a program launches, a size read from a file named so `--param`
//! gives it, and an unknown `--param` refused with the names the program has.

use std::path::Path;
use std::process::{Command, Output};

const CLI: &str = env!("CARGO_BIN_EXE_kerncast-cli");

const PROGRAM: &str = "#include <cstdio>\n#include <cuda_runtime.h>\n\
__global__ void k(float *x, int n) {}\n\
int main() {\n  int n = 1024;\n  FILE *f = fopen(\"sizes.txt\", \"r\");\n  fscanf(f, \"%d\", &n);\n\
  k<<<n / 256, 256>>>(0, n);\n  k<<<4, 32>>>(0, 1);\n}\n";

fn launches(dir: &Path, extra: &[&str]) -> Output {
    Command::new(CLI)
        .arg("launches")
        .arg(dir.join("sizes.cu"))
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("kerncast-cli runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("--json prints JSON")
}

#[test]
fn a_size_read_from_a_file_is_unknown_until_given_and_a_bad_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sizes.cu"), PROGRAM).unwrap();

    let read = json(&launches(dir.path(), &["--json"]));
    let first = &read[0];
    assert_eq!(first["kernel"], "k(float*, int)");
    assert_eq!(first["line"], 8);
    assert!(first["grid"][0].is_null(), "{first}");
    assert_eq!(first["block"], serde_json::json!([256, 1, 1]));
    assert_eq!(first["count"], 1);
    assert_eq!(read[1]["grid"], serde_json::json!([4, 1, 1]));

    let given = json(&launches(dir.path(), &["--json", "--param", "n=4096"]));
    assert_eq!(given[0]["grid"], serde_json::json!([16, 1, 1]), "{given}");
    assert_eq!(given[0]["args"]["n"], 4096);

    let bad = launches(dir.path(), &["--param", "nn=4096"]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--param nn") && err.contains("the names it has: n"),
        "{err}"
    );
}

/// Each launch lists the device allocations its pointer arguments point into: as JSON
/// (`buffer_bytes`, `null` where unknown) and as a `buffers:` line with why a size is unknown.
#[test]
fn a_launch_lists_the_sizes_of_the_device_buffers_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let program = "#include <cstdio>\n#include <cuda_runtime.h>\n\
__global__ void k(float *x, float *y, int n) {}\n\
int main() {\n  int n = 1024, m = 8;\n  FILE *f = fopen(\"sizes.txt\", \"r\");\n  fscanf(f, \"%d\", &m);\n\
  float *x, *y;\n  cudaMalloc(&x, n * sizeof(float));\n  cudaMalloc(&y, m);\n\
  k<<<n / 256, 256>>>(x + 256, y, n);\n}\n";
    std::fs::write(dir.path().join("sizes.cu"), program).unwrap();
    let read = json(&launches(dir.path(), &["--json"]));
    assert_eq!(read[0]["buffer_bytes"]["x"], 3072, "{read}");
    assert!(read[0]["buffer_bytes"]["y"].is_null(), "{read}");
    let text = launches(dir.path(), &[]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("buffers: x=3072 B, y=? (`m`: it comes from `fscanf`"),
        "{text}"
    );
}

/// A kernel file named alone has its `main` in a source beside it (`main.cpp` calls the
/// launcher): that file is read too. Beside a file whose folder has no `main` (a folder of
/// kernel files), the other files' launchers are not read as the named file's program.
#[test]
fn main_is_looked_for_beside_the_named_file_and_only_main() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scale.cu"),
        "#include <cuda_runtime.h>\n__global__ void scale(float *x, int n) {}\n\
         void run_scale(float *x, int n) { scale<<<n / 128, 128>>>(x, n); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("main.cpp"),
        "void run_scale(float *x, int n);\nint main() { run_scale(0, 4096); return 0; }\n",
    )
    .unwrap();
    let run = |file: &Path| {
        let out = Command::new(CLI)
            .arg("launches")
            .arg(file)
            .arg("--json")
            .env("NO_COLOR", "1")
            .output()
            .expect("kerncast-cli runs");
        json(&out)
    };
    let read = run(&dir.path().join("scale.cu"));
    assert_eq!(read.as_array().map(Vec::len), Some(1), "{read}");
    assert_eq!(read[0]["grid"], serde_json::json!([32, 1, 1]), "{read}");
    assert_eq!(read[0]["args"]["n"], 4096, "{read}");

    // without `main` beside it, the named file's own launcher is its program, not the
    // launchers of the files beside it
    let lone = tempfile::tempdir().unwrap();
    std::fs::write(
        lone.path().join("scale.cu"),
        "#include <cuda_runtime.h>\n__global__ void scale(float *x, int n) {}\n\
         void run_scale(float *x) { scale<<<8, 128>>>(x, 1024); }\n",
    )
    .unwrap();
    std::fs::write(
        lone.path().join("other.cu"),
        "#include <cuda_runtime.h>\n__global__ void other(float *x) {}\n\
         void run_other(float *x) { other<<<2, 64>>>(x); }\n",
    )
    .unwrap();
    let read = run(&lone.path().join("scale.cu"));
    let kernels: Vec<&str> = read
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["kernel"].as_str())
        .collect();
    assert_eq!(kernels, ["scale(float*, int)"], "{read}");
}

/// A helper the program's `main` calls but its file does not define (`blocks_for`, in a
/// `util.cpp` the build links) is looked for beside it, as the link finds it: its body gives
/// the grid. A file beside it with a `main` of its own is not read into the program.
#[test]
fn a_helper_defined_beside_the_named_file_is_read_as_the_link_would() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("util.h"),
        "#pragma once\nint blocks_for(int n, int block);\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("util.cpp"),
        "#include \"util.h\"\nint blocks_for(int n, int block) { return (n + block - 1) / block; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("other_main.cpp"),
        "int blocks_for(int n, int block) { return 1; }\nint main() { return 0; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("scale.cu"),
        "#include <cuda_runtime.h>\n#include \"util.h\"\n__global__ void scale(float *x, int n) {}\n\
         int main() { int n = 5000; scale<<<blocks_for(n, 128), 128>>>(0, n); return 0; }\n",
    )
    .unwrap();
    let out = Command::new(CLI)
        .arg("launches")
        .arg(dir.path().join("scale.cu"))
        .arg("--json")
        .env("NO_COLOR", "1")
        .output()
        .expect("kerncast-cli runs");
    let read = json(&out);
    assert_eq!(read.as_array().map(Vec::len), Some(1), "{read}");
    // ⌈5000 / 128⌉ = 40, from util.cpp's body, not other_main.cpp's
    assert_eq!(read[0]["grid"], serde_json::json!([40, 1, 1]), "{read}");
}
