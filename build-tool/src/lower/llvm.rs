//! LLVM IR (`.ll` text or `.bc` bitcode) to PTX through LLVM 19's NVPTX target machine, run by
//! `kerncast-llvm` (the `llvm-lower` crate, inkwell). No nvcc or clang is involved, so IR from
//! any front end (clang, rustc, Triton, a JIT) can be analysed on a machine without them.
//!
//! A process of its own because an executable that links LLVM loads and relocates it (about
//! 17 ms and 50 MB) before `main` on every run, and only this front end needs it.

use super::{normalize_file_paths, ptx_feature, Frontend, LowerError, LowerOptions, Lowered};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The helper's name, and the variable that names it where it is not found by itself.
const HELPER: &str = "kerncast-llvm";
const HELPER_VAR: &str = "KERNCAST_LLVM";

pub fn lower(path: &Path, opts: &LowerOptions) -> Result<Lowered, LowerError> {
    let helper = helper().ok_or_else(|| LowerError::ToolMissing {
        tool: HELPER.into(),
        path: path.to_path_buf(),
        install: "cargo build --release -p kerncast-llvm (it is looked for beside kerncast, then on PATH; KERNCAST_LLVM names it)",
    })?;
    let features = ptx_feature(&opts.arch);
    let opt = opts.opt_level.min(3);
    let mut cmd = Command::new(&helper);
    cmd.arg(path)
        .args(["--arch", &opts.arch, "--features", features])
        .arg(format!("--opt={opt}"));
    let out = cmd.output().map_err(|source| LowerError::Io {
        context: format!("running {}", helper.display()),
        source,
    })?;
    if !out.status.success() {
        return Err(LowerError::Llvm {
            path: path.to_path_buf(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let ptx = String::from_utf8_lossy(&out.stdout);
    Ok(Lowered {
        ptx: normalize_file_paths(&ptx, None),
        frontend: Frontend::Llvm,
        command: format!(
            "LLVM 19 NVPTX ({}): cpu {}, {features}, passes default<O{opt}>, file {}",
            helper.display(),
            opts.arch,
            path.display()
        ),
        notes: Vec::new(),
    })
}

/// `kerncast-llvm`: where `KERNCAST_LLVM` says, else beside the running executable (or one
/// folder up, where cargo puts a test's binaries), else on PATH.
pub fn helper() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(HELPER_VAR) {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let beside = exe.parent().into_iter().flat_map(|d| {
        [
            d.join(HELPER),
            d.parent().map(|u| u.join(HELPER)).unwrap_or_default(),
        ]
    });
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(HELPER))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    beside.chain(on_path).find(|p| p.is_file())
}
