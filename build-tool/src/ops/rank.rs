//! `kerncast rank FILE --kernel K --vary TILE=8,16,32 --vary UNROLL=1,2,4`: predict every
//! combination and print them best first, with the ratio of the objective to the first
//! combination's (a speed-up under `time`), and a note on points that tie; `--json` for
//! autotuners. Thin over [`crate::rank`].

use crate::lower::LowerArgs;
use crate::rank::Objective;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Kernel source (.cu, .cl, .ll, .ptx) with a workload: a `// kerncast: workload` annotation, or a `<<<>>>` launch of the kernel in its host code.
    pub file: PathBuf,
    /// Kernel (source name); optional when the file defines one.
    #[arg(long)]
    pub kernel: Option<String>,
    /// NAME=V1,V2,…: a -D macro, or a workload parameter when the workload has one by that name
    /// (repeatable; every combination is ranked).
    #[arg(long, value_name = "NAME=V1,V2,...")]
    pub vary: Vec<String>,
    #[arg(long, value_enum, default_value = "time")]
    pub objective: Objective,
    /// Show the best k.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Print the ranking as JSON.
    #[arg(long)]
    pub json: bool,
    #[arg(long, default_value = "gtx-titan-x")]
    pub device: String,
    #[arg(long, default_value = "auto")]
    pub model: String,
    /// Which annotated workload (name or index); default the first.
    #[arg(long)]
    pub workload: Option<String>,
    #[command(flatten)]
    pub lower: LowerArgs,
}

/// Parses `NAME=V1,V2`.
pub fn parse_vary(s: &str) -> Result<(String, Vec<String>), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("--vary `{s}`: expected NAME=V1,V2,..."))?;
    let vals: Vec<String> = v
        .split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect();
    if k.is_empty() || vals.is_empty() {
        return Err(format!("--vary `{s}`: expected NAME=V1,V2,..."));
    }
    Ok((k.to_string(), vals))
}
