//! CUDA through NVIDIA's nvcc: `nvcc -ptx -lineinfo -arch=…`. This is the default for `.cu`
//! when nvcc is present, because its PTX is what real builds run. nvcc always optimises device
//! code (its `-O` flag is for host code), so `opt_level` does not apply here.

use super::Frontend;
use super::{
    normalize_file_paths, preprocessor_flags, run_compiler, tools::find_tool, LowerError,
    LowerOptions, Lowered, INSTALL_HINT,
};
use std::path::Path;
use std::process::Command;

pub fn lower(path: &Path, opts: &LowerOptions) -> Result<Lowered, LowerError> {
    let nvcc = find_tool("nvcc").ok_or_else(|| LowerError::ToolMissing {
        tool: "nvcc".into(),
        path: path.to_path_buf(),
        install: INSTALL_HINT,
    })?;
    let tmp = tempfile::tempdir().map_err(|source| LowerError::Io {
        context: "creating a temp dir for nvcc".into(),
        source,
    })?;
    let out = tmp.path().join("out.ptx");
    let mut cmd = Command::new(&nvcc);
    cmd.arg("-ptx")
        .arg("-lineinfo")
        .arg(format!("-arch={}", opts.arch))
        .args(preprocessor_flags(opts))
        .args(&opts.extra_args)
        .arg("-o")
        .arg(&out)
        .arg(path);
    let (ptx, command) = run_compiler(cmd, path, Frontend::Nvcc, &out)?;
    Ok(Lowered {
        ptx: normalize_file_paths(&ptx, Some(tmp.path())),
        frontend: Frontend::Nvcc,
        command: command.replace(&*tmp.path().to_string_lossy(), "$TMP"),
    })
}
