//! `cargo xtask validate`: the models against real GPU measurements (the gpuPTXModel data sets;
//! the released one is the GTX Titan X's).
//!
//! Runs the `kerncast-validate` binary of the `kerncast-validation` crate in release mode (model
//! fitting, cross-validation and the LSTM are far too slow unoptimised) and passes the arguments
//! through: `--gpu NAME`, `--device PROFILE`, `--out DIR`, `--data DIR`, `--weights FILE`,
//! `--train-lstm`, `--train-lstm-cv`, `--cv-folds F1,F2`, `--epochs N`, `--seed N`, `--lr-scale X`,
//! `--no-lstm`.
//! Without arguments it loads the saved LSTM weights and only predicts.

use anyhow::Result;
use std::path::Path;

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let mut c = crate::cmd::cargo(root);
    c.args([
        "run",
        "--release",
        "--quiet",
        "-p",
        "kerncast-validation",
        "--bin",
        "kerncast-validate",
        "--",
    ])
    .args(args);
    crate::cmd::run_checked(c)
}
