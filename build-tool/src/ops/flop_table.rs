//! `kerncast flop-table --arch sm_86 [--out FILE]`: the table of what each floating-point PTX
//! instruction becomes on SASS, in FLOPs as Nsight counts them, made by compiling one probe
//! kernel per form with ptxas and reading it back with nvdisasm (see [`crate::sass_flops`]).
//! `devices/sass/<arch>.toml` ships its output.

use crate::lower::{find_tool, sass};
use crate::sass_flops::probe;
use crate::Error;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Target architecture (`sm_86`).
    #[arg(long, default_value = "sm_86")]
    pub arch: String,
    /// Write the table here (TOML) instead of printing it.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The version line of a tool (`ptxas --version`'s last line), for the table's source.
fn version(tool: &str) -> String {
    find_tool(tool)
        .and_then(|p| std::process::Command::new(p).arg("--version").output().ok())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .rev()
                .find(|l| l.contains("release") || l.contains("Build"))
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "version unknown".into())
}

/// The FLOP table of `args.arch`, as TOML with its header.
pub fn generate(args: &Args) -> crate::Result<String> {
    let tools = format!("ptxas ({}) and nvdisasm", version("ptxas"));
    let arch = args.arch.clone();
    let run = |ptx: &str| -> Result<String, String> {
        match sass(ptx, &arch) {
            Ok(Ok(s)) => Ok(s),
            Ok(Err(why)) => Err(why),
            Err(e) => Err(e.to_string()),
        }
    };
    if find_tool("ptxas").is_none() || find_tool("nvdisasm").is_none() {
        return Err(Error::Input("ptxas and nvdisasm are needed to probe SASS; install them with `cargo xtask bootstrap`".to_string()));
    }
    let table =
        probe::generate(&args.arch, &tools, &run).map_err(|e| Error::Analysis(e.to_string()))?;
    let text = table.to_toml().map_err(|e| Error::Output(e.to_string()))?;
    let text = format!(
        "# FLOPs per PTX instruction on {} SASS, as Nsight Compute counts them. Made by `kerncast flop-table --arch {}`; do not edit.\n{text}",
        args.arch, args.arch
    );
    Ok(text)
}
