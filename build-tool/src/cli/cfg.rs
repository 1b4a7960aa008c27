//! `kerncast cfg`.

use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PTX (or source) file to read.
    pub file: PathBuf,
}

pub fn run(_args: Args) -> miette::Result<()> {
    Err(miette::miette!("`kerncast cfg` is not implemented yet"))
}
