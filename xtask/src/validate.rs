//! `cargo xtask validate`: the models against real GTX Titan X measurements.

use anyhow::{bail, Result};
use std::path::Path;

pub fn run(_root: &Path, _args: &[String]) -> Result<()> {
    bail!("validate is not implemented yet")
}
