//! `kerncast lower`.

use kerncast::lower::ResourceProbe;
use kerncast::ops::lower::*;
use miette::{IntoDiagnostic, WrapErr};

pub fn run(args: Args) -> miette::Result<()> {
    let opts = args.options().map_err(|e| miette::miette!("{e}"))?;
    let (text, command) = if args.emit_llvm {
        let ir =
            kerncast::lower::emit_llvm_ir(&args.file, &opts).map_err(|e| miette::miette!("{e}"))?;
        (ir, "clang -emit-llvm".to_string())
    } else {
        let l =
            kerncast::lower::lower_file(&args.file, &opts).map_err(|e| miette::miette!("{e}"))?;
        (l.ptx, l.command)
    };
    if args.verbose {
        eprintln!("{command}");
    }
    if args.resources && !args.emit_llvm {
        match kerncast::lower::ptxas_resources(&text, &opts.arch)
            .map_err(|e| miette::miette!("{e}"))?
        {
            ResourceProbe::Measured(kernels) => {
                for (name, r) in kernels {
                    eprintln!(
                        "{name}: {} registers, {} bytes smem, {} barriers, {} bytes stack, {} bytes spilled",
                        r.regs_per_thread,
                        r.shared_bytes,
                        r.barriers,
                        r.stack_frame_bytes,
                        r.spill_store_bytes
                    );
                }
            }
            ResourceProbe::Unavailable { reason } => eprintln!("resources unavailable: {reason}"),
        }
    }
    let text = if args.sass {
        kerncast::lower::sass(&text, &opts.arch)
            .map_err(|e| miette::miette!("{e}"))?
            .map_err(|reason| miette::miette!("no SASS: {reason}"))?
    } else {
        text
    };
    match &args.output {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .into_diagnostic()
                    .wrap_err_with(|| format!("creating {}", dir.display()))?;
            }
            std::fs::write(path, text)
                .into_diagnostic()
                .wrap_err_with(|| format!("writing {}", path.display()))?;
        }
        None => print!("{text}"),
    }
    Ok(())
}
