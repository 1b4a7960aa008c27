//! The helper as kerncast runs it: PTX on stdout, or LLVM's message and exit status 1.

use std::path::Path;
use std::process::Command;

const HELPER: &str = env!("CARGO_BIN_EXE_kerncast-llvm");

fn corpus(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/ptx/llvm")
        .join(name)
}

#[test]
fn ir_becomes_ptx_for_the_asked_target() {
    let out = Command::new(HELPER)
        .arg(corpus("saxpy.ll"))
        .args(["--arch", "sm_86", "--features", "+ptx78", "--opt", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ptx = String::from_utf8(out.stdout).unwrap();
    assert!(ptx.contains(".target sm_86"), "{ptx}");
    assert!(ptx.contains(".visible .entry saxpy("), "{ptx}");
}

#[test]
fn malformed_ir_fails_with_llvms_message() {
    let dir = std::env::temp_dir().join(format!("kerncast-llvm-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ll");
    std::fs::write(&bad, "define void @f( {\n").unwrap();
    let out = Command::new(HELPER).arg(&bad).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected"), "{err}");
    assert!(out.stdout.is_empty());
}
