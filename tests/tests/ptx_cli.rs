//! Snapshots of `kerncast ptx` and `kerncast cfg` (through the library functions the CLI prints),
//! and the CLI's rendering of malformed PTX.
//!
//! Snapshotted: every kernel of the front end's fixtures (nvcc 13.5 and clang 19 output of
//! passes/tests/fixtures/kernels.cu), plus a fixed set of corpus kernels from tests/ptx once that
//! directory holds files (then each listed file must exist).

use kerncast::ops::{cfg, ptx};
use std::path::{Path, PathBuf};

/// Corpus kernels with distinct shapes: guards, shared-memory tiles, warp shuffles, atomics,
/// triangular and data-dependent loops, padding, stencils.
const CORPUS: &[&str] = &[
    "nvcc/saxpy.ptx",
    "nvcc/matmul_tiled.ptx",
    "nvcc/reduce_warp.ptx",
    "nvcc/reduce_shared.ptx",
    "nvcc/transpose_padded.ptx",
    "nvcc/stencil5.ptx",
    "nvcc/triangular.ptx",
    "nvcc/spmv_csr.ptx",
    "nvcc/while_collatz.ptx",
    "nvcc/histogram.ptx",
    "nvcc/pb_gemm.ptx",
    "clang/matmul_tiled.ptx",
    "clang/cl_matmul_tiled.ptx",
];

fn fixtures() -> Vec<PathBuf> {
    let dir = kerncast_tests::workspace_root().join("passes/tests/fixtures");
    vec![dir.join("nvcc_sm80.ptx"), dir.join("clang_sm80.ptx")]
}

fn corpus() -> Vec<PathBuf> {
    if kerncast_tests::ptx_files().is_empty() {
        println!("tests/ptx is empty: snapshotting the front-end fixtures only");
        return Vec::new();
    }
    CORPUS
        .iter()
        .map(|rel| {
            let p = kerncast_tests::ptx_dir().join(rel);
            assert!(p.is_file(), "corpus kernel {} missing", p.display());
            p
        })
        .collect()
}

fn snap_name(p: &Path) -> String {
    let root = kerncast_tests::workspace_root();
    let rel = p.strip_prefix(&root).unwrap_or(p);
    rel.with_extension("")
        .to_string_lossy()
        .replace(['/', '\\'], "__")
}

fn rel(p: &Path) -> String {
    let root = kerncast_tests::workspace_root();
    p.strip_prefix(&root).unwrap_or(p).display().to_string()
}

fn load(p: &Path) -> kerncast_passes::ptx::Module {
    let text = std::fs::read_to_string(p).unwrap();
    ptx::parse_named(&rel(p), &text).unwrap_or_else(|e| panic!("{}", ptx::render_report(&e)))
}

#[test]
fn ptx_summary_snapshots() {
    let files: Vec<PathBuf> = fixtures().into_iter().chain(corpus()).collect();
    let mut kernels = 0;
    for p in &files {
        let m = load(p);
        kernels += m.kernels().count();
        let text = ptx::render(&rel(p), &m, None).unwrap();
        kerncast_tests::snapshot_settings("ptx").bind(|| {
            insta::assert_snapshot!(snap_name(p), text);
        });
    }
    assert!(kernels >= 10, "only {kernels} kernels snapshotted");
}

#[test]
fn cfg_snapshots() {
    let files: Vec<PathBuf> = fixtures().into_iter().chain(corpus()).collect();
    let mut kernels = 0;
    for p in &files {
        let m = load(p);
        for k in m.kernels() {
            kernels += 1;
            let text = cfg::render(&m, Some(&k.name), false).unwrap();
            let name = format!("{}__{}", snap_name(p), k.name);
            kerncast_tests::snapshot_settings("cfg").bind(|| {
                insta::assert_snapshot!(name, text);
            });
        }
    }
    assert!(kernels >= 10, "only {kernels} kernels snapshotted");
}

#[test]
fn json_summary_is_valid_and_filters_by_kernel() {
    let m = load(&fixtures()[0]);
    let j = ptx::render_json(&m, Some("matmul")).unwrap();
    assert!(j.contains("\"name\": \"matmul\""));
    assert!(j.contains("\"shared_bytes\": 2048"));
    assert!(!j.contains("\"name\": \"saxpy\""));
    let err = ptx::render_json(&m, Some("nope")).unwrap_err();
    assert!(err.contains("saxpy, matmul, reduce, callk"), "{err}");
}

#[test]
fn dot_output_is_a_digraph_per_kernel() {
    let m = load(&fixtures()[0]);
    let dot = cfg::render(&m, Some("matmul"), true).unwrap();
    assert!(dot.starts_with("digraph \"matmul\" {"));
    assert!(dot.contains("subgraph cluster_loop0"));
    assert!(dot.trim_end().ends_with('}'));
    assert!(cfg::render(&m, Some("missing"), true).is_err());
}

#[test]
fn malformed_ptx_is_reported_with_file_line_col_and_caret() {
    let src = ".version 8.0\n.target sm_80\n.entry k()\n{\n\tadd.s32 %r1, %r2 %r3;\n}\n";
    let err = ptx::parse_named("bad.ptx", src).unwrap_err();
    let out = ptx::render_report(&err);
    assert!(out.contains("bad.ptx:5:19"), "{out}");
    assert!(
        out.contains("expected `,` or `;` after an operand"),
        "{out}"
    );
    // The caret line under the offending token.
    let caret = out
        .lines()
        .find(|l| l.contains('┬'))
        .unwrap_or_else(|| panic!("no caret in:\n{out}"));
    let src_line = out.lines().find(|l| l.contains("add.s32")).unwrap();
    let tok_col = src_line.find("%r3").unwrap();
    assert_eq!(
        caret.chars().position(|c| c == '┬'),
        Some(src_line[..tok_col].chars().count() + 1)
    );
}

/// `kerncast ptx … | head`: the reader closes the pipe before kerncast writes, and kerncast
/// ends at its first write as `cat` would, with no panic message.
#[test]
fn a_closed_output_pipe_ends_the_command_without_a_panic() {
    use std::process::{Command, Stdio};
    let fixture = &fixtures()[0];
    let mut child = Command::new(env!("CARGO_BIN_EXE_kerncast-cli"))
        .arg("ptx")
        .arg(fixture)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kerncast-cli starts");
    // closed before the child, still loading its libraries, can have written a byte
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("kerncast-cli ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && out.status.code() != Some(101),
        "status {:?}, stderr:\n{stderr}",
        out.status
    );
}
