//! Running cargo and other tools from the build system's commands.

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// A `cargo` command that sees the project-local toolchain (nvcc, ptxas) through `KERNCAST_TOOLCHAIN`.
pub fn cargo(root: &Path) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root)
        .env("KERNCAST_TOOLCHAIN", root.join(".toolchain"));
    c
}

pub fn run_checked(mut c: Command) -> Result<()> {
    let status = c
        .status()
        .with_context(|| format!("could not start {c:?}"))?;
    if !status.success() {
        bail!("{c:?} failed with {status}");
    }
    Ok(())
}

/// Builds `kerncast` and its LLVM IR front end `kerncast-llvm` (which kerncast runs from its
/// own folder) with `profile_args` (`--release`, or none for debug).
pub fn build_kerncast(root: &Path, profile_args: &[&str]) -> Result<()> {
    let mut build = cargo(root);
    build
        .arg("build")
        .args(profile_args)
        .args(["--package", "kerncast-cli", "--bin", "kerncast"])
        .args(["--package", "kerncast-llvm", "--bin", "kerncast-llvm"]);
    run_checked(build)
}
