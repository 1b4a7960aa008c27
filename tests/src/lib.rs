//! Shared helpers for the integration tests: where the corpus lives, and insta settings that
//! keep every snapshot in the workspace's `snapshots/` folder.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// `tests/kernels/`: our own CUDA and OpenCL sources.
pub fn kernels_dir() -> PathBuf {
    workspace_root().join("tests/kernels")
}

/// `tests/ptx/`: PTX lowered from the corpus by `cargo xtask regen`, checked in.
pub fn ptx_dir() -> PathBuf {
    workspace_root().join("tests/ptx")
}

/// Every checked-in PTX file, sorted, so tests see them in a stable order.
pub fn ptx_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walk(&ptx_dir())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// insta settings with snapshots under `<workspace>/snapshots/<group>/`.
pub fn snapshot_settings(group: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(workspace_root().join("snapshots").join(group));
    s.set_prepend_module_to_snapshot(false);
    s
}
