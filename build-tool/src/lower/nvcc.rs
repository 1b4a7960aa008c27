//! CUDA through NVIDIA's nvcc: `nvcc -ptx -lineinfo -arch=…`. This is the default for `.cu`
//! when nvcc is present, because its PTX is what real builds run. nvcc always optimises device
//! code (its `-O` flag is for host code), so `opt_level` does not apply here. A PyTorch
//! extension is lowered with kerncast's declarations of the extension API where PyTorch's
//! headers are not on the include path ([`super::torch`]).

use super::Frontend;
use super::{
    normalize_file_paths, preprocessor_flags, run_compiler, tools::find_tool, torch, LowerError,
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
    let (extension, torch_dir) = torch_headers(path, opts, tmp.path())?;
    let mut cmd = Command::new(&nvcc);
    cmd.arg("-ptx")
        .arg("-lineinfo")
        .arg(format!("-arch={}", opts.arch))
        .args(preprocessor_flags(opts));
    // an extension is built with PyTorch's flags; the user's come after them
    if extension {
        cmd.args(torch::NVCC_FLAGS);
    }
    cmd.args(&opts.extra_args);
    // last, so that PyTorch's own headers win wherever an include directory has them
    if let Some(dir) = &torch_dir {
        cmd.arg(format!("-I{}", dir.display()));
    }
    cmd.arg("-o").arg(&out).arg(path);
    let (ptx, command) = match run_compiler(cmd, path, Frontend::Nvcc, &out) {
        Err(LowerError::Compile {
            path,
            frontend,
            status,
            command,
            diagnostics,
        }) if torch_dir.is_some() => {
            return Err(LowerError::Compile {
                path,
                frontend,
                status,
                command: command.replace(&*tmp.path().to_string_lossy(), "$TMP"),
                diagnostics: format!("{}\n{}", diagnostics.trim_end(), torch::HINT),
            })
        }
        r => r?,
    };
    Ok(Lowered {
        ptx: normalize_file_paths(&ptx, Some(tmp.path())),
        frontend: Frontend::Nvcc,
        command: command.replace(&*tmp.path().to_string_lossy(), "$TMP"),
        notes: extension
            .then(torch::flags_note)
            .into_iter()
            .chain(torch_dir.map(|_| torch::NOTE.to_string()))
            .collect(),
    })
}

/// Whether `path` is a PyTorch extension (it or a header of its own includes PyTorch's), and
/// the directory of kerncast's PyTorch headers for it, written under `tmp`, when no include
/// directory has PyTorch's.
fn torch_headers(
    path: &Path,
    opts: &LowerOptions,
    tmp: &Path,
) -> Result<(bool, Option<std::path::PathBuf>), LowerError> {
    let Ok(text) = std::fs::read_to_string(path) else {
        // nvcc says why it cannot read the file
        return Ok((false, None));
    };
    let display = path.display().to_string();
    let headers = crate::includes::local_headers(path, &display, &text, &opts.include_dirs);
    let names = torch::torch_includes(
        std::iter::once(text.as_str()).chain(headers.iter().map(|h| h.text.as_str())),
    );
    let dir =
        torch::write_headers(&names, &opts.include_dirs, tmp).map_err(|source| LowerError::Io {
            context: "writing kerncast's PyTorch extension headers to a temp dir".into(),
            source,
        })?;
    Ok((!names.is_empty(), dir))
}
