//! `kerncast lower`: the lowering pass on its own. Prints (or writes) the PTX a source lowers
//! to, the command that produced it, and optionally ptxas's per-kernel resources, so the first
//! arrow of the pipeline can be inspected like every other one. `cargo xtask regen` drives it.

use crate::lower::LowerArgs;
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
