//! `kerncast-llvm FILE --arch sm_80 --features +ptx78 --opt 3`: LLVM IR (`.ll` text or `.bc`
//! bitcode) to PTX on stdout, through inkwell and LLVM 19's NVPTX target machine. IR from any
//! front end (clang, rustc, Triton, a JIT) lowers without nvcc or clang.
//!
//! Why a process of its own: an executable that links LLVM pays for loading and relocating it
//! (about 17 ms and 50 MB) before `main`, on every run. kerncast runs it only for `.ll`/`.bc`
//! sources (`kerncast::lower`), so `predict`, `count` and `check` start without LLVM.
//!
//! On failure, LLVM's message goes to stderr and the exit status is 1 (2 for bad arguments).

use clap::Parser;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetTriple,
};
use inkwell::OptimizationLevel;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    version,
    about = "LLVM IR to PTX through LLVM 19's NVPTX back end (kerncast's .ll/.bc front end)"
)]
struct Args {
    /// The `.ll` or `.bc` file.
    file: PathBuf,
    /// The target GPU (`sm_80`).
    #[arg(long, default_value = "sm_80")]
    arch: String,
    /// Target features (`+ptx78`).
    #[arg(long, default_value = "")]
    features: String,
    /// Optimisation level, 0 to 3 (the `default<ON>` pass pipeline).
    #[arg(long, default_value_t = 3)]
    opt: u8,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match lower(&args.file, &args.arch, &args.features, args.opt) {
        Ok(ptx) => match std::io::stdout().lock().write_all(ptx.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("writing the PTX: {e}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The PTX of `file` for `arch`, or LLVM's message. The pass pipeline is `default<O{opt}>`;
/// a module without an `nvptx64` triple is retargeted to `nvptx64-nvidia-cuda`.
fn lower(file: &Path, arch: &str, features: &str, opt: u8) -> Result<String, String> {
    Target::initialize_nvptx(&InitializationConfig::default());
    let buf = MemoryBuffer::create_from_file(file).map_err(|e| e.to_string())?;
    let ctx = Context::create();
    let module = ctx.create_module_from_ir(buf).map_err(|e| e.to_string())?;
    let module_triple = module.get_triple();
    let module_triple = module_triple.as_str().to_string_lossy().into_owned();
    let triple_name = if module_triple.starts_with("nvptx64") {
        module_triple
    } else {
        "nvptx64-nvidia-cuda".to_string()
    };
    let triple = TargetTriple::create(&triple_name);
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let level = match opt {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let tm = target
        .create_target_machine(
            &triple,
            arch,
            features,
            level,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| format!("no NVPTX target machine for {arch}"))?;
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    module.verify().map_err(|e| e.to_string())?;
    let passes = format!("default<O{}>", opt.min(3));
    module
        .run_passes(&passes, &tm, PassBuilderOptions::create())
        .map_err(|e| e.to_string())?;
    let out = tm
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(out.as_slice()).into_owned())
}
