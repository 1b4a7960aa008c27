//! Which front end lowers a source, and running it: a compile command of the build where
//! there is one, else the front end the options or the source's kind choose.

use super::llvm;
use super::{
    clang, compile_command, default_frontend, nvcc, Frontend, LowerError, LowerOptions, Lowered,
    SourceKind,
};
use std::path::Path;

/// Lower one source file to PTX.
pub fn lower_file(path: &Path, opts: &LowerOptions) -> Result<Lowered, LowerError> {
    let kind = SourceKind::of(path).ok_or_else(|| LowerError::UnknownKind {
        path: path.to_path_buf(),
    })?;
    if !path.is_file() {
        return Err(LowerError::Read {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    if let Some(cmd) = &opts.command {
        let cuda = kerncast_host::Toolchain::discover().cuda_path;
        return compile_command::lower_command(cmd, cuda.as_deref());
    }
    let frontend = match opts.frontend {
        Some(f) => f,
        None => default_frontend(kind),
    };
    let unsupported = |k: &'static str| LowerError::Unsupported {
        path: path.to_path_buf(),
        frontend,
        kind: k,
    };
    match (frontend, kind) {
        (Frontend::Ptx, SourceKind::Ptx) => {
            let ptx = std::fs::read_to_string(path).map_err(|source| LowerError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            Ok(Lowered {
                ptx,
                frontend,
                command: format!("read {}", path.display()),
                notes: Vec::new(),
            })
        }
        (Frontend::Nvcc, SourceKind::Cuda) => nvcc::lower(path, opts),
        (Frontend::Clang, SourceKind::Cuda) => clang::lower_cuda(path, opts),
        (Frontend::Clang, SourceKind::OpenCl) => clang::lower_opencl(path, opts),
        (Frontend::Llvm, SourceKind::LlvmIr) => llvm::lower(path, opts),
        (_, SourceKind::Cuda) => Err(unsupported("CUDA")),
        (_, SourceKind::OpenCl) => Err(unsupported("OpenCL")),
        (_, SourceKind::LlvmIr) => Err(unsupported("LLVM IR")),
        (_, SourceKind::Ptx) => Err(unsupported("PTX")),
    }
}
