//! Shared helpers for the integration tests: where the corpus lives, and insta settings that
//! keep every snapshot in the workspace's `snapshots/` folder.

use std::path::{Path, PathBuf};

pub mod bench;
pub mod gpuptxmodel;

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

/// A corpus kernel with the block size of its first annotated workload.
pub struct CorpusKernel {
    /// `<compiler>.<kernel>`, e.g. `nvcc.saxpy`
    pub id: String,
    pub module: kerncast_passes::ptx::Module,
    pub kernel: String,
    pub block: [u64; 3],
}

/// Every kernel of the checked-in PTX whose source annotates a workload, in file order.
pub fn corpus_kernels() -> Vec<CorpusKernel> {
    let mut out = Vec::new();
    for p in ptx_files() {
        let compiler = p
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
            .unwrap_or("ptx")
            .to_string();
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let Some(src) = ["cu", "cl"]
            .iter()
            .map(|e| kernels_dir().join(format!("{stem}.{e}")))
            .find(|s| s.exists())
        else {
            continue;
        };
        let Ok(kernels) =
            kerncast::annotations::scan(&std::fs::read_to_string(&src).expect("source reads"))
        else {
            continue;
        };
        let module = kerncast_passes::inline::inline_calls(
            &kerncast_passes::ptx::Module::parse(&std::fs::read_to_string(&p).expect("PTX reads"))
                .expect("PTX parses"),
        )
        .module;
        for f in module.kernels() {
            let plain = kerncast::pipeline::demangle(&f.name);
            let Some(block) = kernels
                .iter()
                .find(|k| k.name == f.name || k.name == plain)
                .and_then(|k| k.workloads.first())
                .and_then(|w| w.resolve().ok())
                .map(|w| w.block)
            else {
                continue;
            };
            out.push(CorpusKernel {
                id: format!("{compiler}.{}", f.name),
                module: module.clone(),
                kernel: f.name.clone(),
                block,
            });
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
