//! LLVM IR (`.ll` text or `.bc` bitcode) to PTX in process, through inkwell and LLVM 19's NVPTX
//! target machine. No external tool is involved, so IR from any front end (clang, rustc, Triton,
//! a JIT) can be analysed on a machine without nvcc or clang.

use super::{normalize_file_paths, ptx_feature, Frontend, LowerError, LowerOptions, Lowered};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetTriple,
};
use inkwell::OptimizationLevel;
use std::path::Path;

pub fn lower(path: &Path, opts: &LowerOptions) -> Result<Lowered, LowerError> {
    let err = |message: String| LowerError::Llvm {
        path: path.to_path_buf(),
        message,
    };
    Target::initialize_nvptx(&InitializationConfig::default());
    let buf = MemoryBuffer::create_from_file(path).map_err(|e| err(e.to_string()))?;
    let ctx = Context::create();
    let module = ctx
        .create_module_from_ir(buf)
        .map_err(|e| err(e.to_string()))?;
    let module_triple = module.get_triple();
    let module_triple = module_triple.as_str().to_string_lossy().into_owned();
    let triple_name = if module_triple.starts_with("nvptx64") {
        module_triple
    } else {
        "nvptx64-nvidia-cuda".to_string()
    };
    let triple = TargetTriple::create(&triple_name);
    let target = Target::from_triple(&triple).map_err(|e| err(e.to_string()))?;
    let level = match opts.opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let features = ptx_feature(&opts.arch);
    let tm = target
        .create_target_machine(
            &triple,
            &opts.arch,
            features,
            level,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| err(format!("no NVPTX target machine for {}", opts.arch)))?;
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    module.verify().map_err(|e| err(e.to_string()))?;
    let passes = format!("default<O{}>", opts.opt_level.min(3));
    module
        .run_passes(&passes, &tm, PassBuilderOptions::create())
        .map_err(|e| err(e.to_string()))?;
    let out = tm
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| err(e.to_string()))?;
    let ptx = String::from_utf8_lossy(out.as_slice()).into_owned();
    Ok(Lowered {
        ptx: normalize_file_paths(&ptx, None),
        frontend: Frontend::Llvm,
        command: format!(
            "in-process LLVM 19 NVPTX: triple {triple_name}, cpu {}, {features}, passes {passes}, file {}",
            opts.arch,
            path.display()
        ),
        notes: Vec::new(),
    })
}
