//! CUDA and OpenCL C through clang-19's NVPTX back end, with no CUDA SDK.
//!
//! CUDA: `-x cuda --cuda-device-only -nocudainc -nocudalib -include <prelude>`; the prelude
//! (build-tool/prelude/cuda_prelude.h, embedded here) declares what the SDK headers would.
//! OpenCL: libclc's NVPTX bitcode resolves the work-item built-ins when it is installed, else
//! a macro prelude maps them onto NVPTX builtins; either way a second prelude maps the native_*
//! math functions onto the approx instructions (libclc's forms do not select on NVPTX). `-gline-tables-only -gdwarf-4` gives `.loc`
//! lines and the one-string `.file` form that ptxas accepts.

use super::{
    normalize_file_paths, preprocessor_flags, ptx_feature, run_compiler, tools, Frontend,
    LowerError, LowerOptions, Lowered, INSTALL_HINT,
};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CUDA prelude header, embedded so the binary works from anywhere.
pub const CUDA_PRELUDE: &str = include_str!("../../prelude/cuda_prelude.h");
/// The OpenCL prelude header, used when libclc is absent.
pub const OPENCL_PRELUDE: &str = include_str!("../../prelude/opencl_prelude.h");
/// The native_* math functions, included in every OpenCL lowering.
pub const OPENCL_NATIVE: &str = include_str!("../../prelude/opencl_native.h");

fn clang_or_err(path: &Path) -> Result<PathBuf, LowerError> {
    tools::clang().ok_or_else(|| LowerError::ToolMissing {
        tool: tools::clang_wanted(),
        path: path.to_path_buf(),
        install: INSTALL_HINT,
    })
}

fn temp_with(name: &str, text: &str) -> Result<(tempfile::TempDir, PathBuf), LowerError> {
    let io = |source| LowerError::Io {
        context: format!("writing the {name} prelude to a temp dir"),
        source,
    };
    let dir = tempfile::tempdir().map_err(io)?;
    let file = dir.path().join(name);
    std::fs::write(&file, text).map_err(io)?;
    Ok((dir, file))
}

fn common(cmd: &mut Command, opts: &LowerOptions) {
    cmd.arg("-S")
        .arg(format!("-O{}", opts.opt_level.min(3)))
        .arg("-gline-tables-only")
        .arg("-gdwarf-4")
        .args(preprocessor_flags(opts));
}

fn finish(
    cmd: Command,
    path: &Path,
    out: &Path,
    tmp: &tempfile::TempDir,
) -> Result<Lowered, LowerError> {
    let (ptx, command) = run_compiler(cmd, path, Frontend::Clang, out)?;
    // The prelude's temp path also appears in LLVM IR debug metadata, not only in `.file`.
    let ptx = ptx.replace(&*tmp.path().to_string_lossy(), "kerncast-prelude");
    Ok(Lowered {
        ptx: normalize_file_paths(&ptx, Some(tmp.path())),
        frontend: Frontend::Clang,
        command: command.replace(&*tmp.path().to_string_lossy(), "$TMP"),
        notes: Vec::new(),
    })
}

pub fn lower_cuda(path: &Path, opts: &LowerOptions) -> Result<Lowered, LowerError> {
    let clang = clang_or_err(path)?;
    let (tmp, prelude) = temp_with("cuda_prelude.h", CUDA_PRELUDE)?;
    let out = tmp.path().join("out.ptx");
    let mut cmd = Command::new(clang);
    cmd.args([
        "-x",
        "cuda",
        "--cuda-device-only",
        "-nocudainc",
        "-nocudalib",
    ])
    .arg(format!("--cuda-gpu-arch={}", opts.arch))
    .arg("-include")
    .arg(&prelude)
    // Without a CUDA install clang does not know which PTX ISA to allow (shfl.sync needs 6.0+).
    .args([
        "-Xclang",
        "-target-feature",
        "-Xclang",
        ptx_feature(&opts.arch),
    ]);
    common(&mut cmd, opts);
    cmd.args(&opts.extra_args).arg("-o").arg(&out).arg(path);
    finish(cmd, path, &out, &tmp)
}

pub fn lower_opencl(path: &Path, opts: &LowerOptions) -> Result<Lowered, LowerError> {
    let clang = clang_or_err(path)?;
    let libclc = tools::libclc();
    let text = match libclc {
        Some(_) => OPENCL_NATIVE.to_string(),
        None => format!("{OPENCL_PRELUDE}\n{OPENCL_NATIVE}"),
    };
    let (tmp, prelude) = temp_with("opencl_prelude.h", &text)?;
    let out = tmp.path().join("out.ptx");
    let mut cmd = Command::new(clang);
    match libclc {
        Some(bc) => {
            // The nvidiacl triple makes clang emit full DWARF for `__local` arrays, whose
            // symbol names ptxas rejects; the CUDA triple keeps line tables only.
            cmd.args([
                "-target",
                "nvptx64-nvidia-cuda",
                "-x",
                "cl",
                "-Wno-linker-warnings",
            ])
            .arg(format!("-march={}", opts.arch))
            .arg("-cl-std=CL1.2")
            .args(["-Xclang", "-mlink-builtin-bitcode", "-Xclang"])
            .arg(bc)
            .arg("-include")
            .arg(&prelude);
        }
        None => {
            cmd.args(["-target", "nvptx64-nvidia-cuda", "-x", "cl"])
                .arg(format!("-march={}", opts.arch))
                .arg("-cl-std=CL1.2")
                .arg("-include")
                .arg(&prelude);
        }
    }
    common(&mut cmd, opts);
    cmd.args(&opts.extra_args).arg("-o").arg(&out).arg(path);
    finish(cmd, path, &out, &tmp)
}

/// Emit LLVM IR text instead of PTX (for the `.ll` route of `cargo xtask regen` and tests).
pub fn emit_llvm_ir(path: &Path, opts: &LowerOptions) -> Result<String, LowerError> {
    let mut o = opts.clone();
    o.extra_args.push("-emit-llvm".into());
    let lowered = match super::SourceKind::of(path) {
        Some(super::SourceKind::OpenCl) => lower_opencl(path, &o)?,
        _ => lower_cuda(path, &o)?,
    };
    // Keep the IR free of this host's working directory, so checked-in .ll files are stable.
    let mut ir = lowered.ptx;
    if let Ok(cwd) = std::env::current_dir() {
        ir = ir.replace(
            &format!("directory: \"{}\"", cwd.display()),
            "directory: \".\"",
        );
    }
    Ok(ir)
}
