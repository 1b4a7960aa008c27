//! `kerncast lower`: the lowering pass on its own. Prints (or writes) the PTX a source lowers
//! to, the command that produced it, and optionally ptxas's per-kernel resources, so the first
//! arrow of the pipeline can be inspected like every other one. `cargo xtask regen` drives it.

use crate::lower::{self, LowerArgs, ResourceProbe};
use miette::{miette, IntoDiagnostic, WrapErr};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Source file: .cu, .cl, .ll, .bc or .ptx.
    pub file: PathBuf,
    #[command(flatten)]
    pub lower: LowerArgs,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Emit LLVM IR text instead of PTX (clang front end only).
    #[arg(long)]
    pub emit_llvm: bool,
    /// Also run `ptxas -v` and print registers, shared memory and barriers per kernel (stderr).
    #[arg(long)]
    pub resources: bool,
    /// Print SASS (ptxas + nvdisasm) instead of PTX.
    #[arg(long, conflicts_with = "emit_llvm")]
    pub sass: bool,
    /// Print the compiler command that ran (stderr).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

pub fn run(args: Args) -> miette::Result<()> {
    let opts = args.lower.options();
    let (text, command) = if args.emit_llvm {
        let ir = lower::emit_llvm_ir(&args.file, &opts).map_err(|e| miette!("{e}"))?;
        (ir, "clang -emit-llvm".to_string())
    } else {
        let l = lower::lower_file(&args.file, &opts).map_err(|e| miette!("{e}"))?;
        (l.ptx, l.command)
    };
    if args.verbose {
        eprintln!("{command}");
    }
    if args.resources && !args.emit_llvm {
        match lower::ptxas_resources(&text, &opts.arch).map_err(|e| miette!("{e}"))? {
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
        lower::sass(&text, &opts.arch)
            .map_err(|e| miette!("{e}"))?
            .map_err(|reason| miette!("no SASS: {reason}"))?
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
