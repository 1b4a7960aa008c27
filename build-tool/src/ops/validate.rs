//! `kerncast validate --suite gpuptxmodel`: accuracy against real GPU measurements.
//!
//! The validation pulls in candle (for the paper's LSTM) and fits several models, so it is behind
//! the cargo feature `validation` (off by default, to keep the everyday build small). Without it,
//! this subcommand says how to get it; `cargo xtask validate` runs the same code in release mode.

use clap::ValueEnum;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Suite {
    /// Guerreiro et al. 2019, DVFS measurements in the gpuPTXModel layout (shared/data/gpuptxmodel:
    /// the GTX Titan X).
    Gpuptxmodel,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Measurement suite to validate against.
    #[arg(long, value_enum, default_value = "gpuptxmodel")]
    pub suite: Suite,
    /// Workspace root (default data, weights and output locations are relative to it).
    #[arg(long, default_value = ".")]
    pub workspace: PathBuf,
    /// Data set root (default: $KERNCAST_GPUPTXMODEL_DATA or <workspace>/../shared/data/gpuptxmodel).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The data set's GPU, a folder of <data>/datasets (default: gtxtitanx, or the only one).
    #[arg(long)]
    pub gpu: Option<String>,
    /// Device profile (name or path) for the physical models (default: the one named like the GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Output folder for the plots and index.md (default <workspace>/target/validation).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// LSTM weights (default <workspace>/validation/weights/lstm_<gpu>.safetensors).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Train the LSTM and save its weights instead of loading them.
    #[arg(long)]
    pub train_lstm: bool,
    /// LSTM training epochs (the shipped weights: 60).
    #[arg(long, default_value_t = 60)]
    pub epochs: usize,
    /// Seed of the LSTM training (the shipped weights: 42).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Multiplies the paper's learning rates (encoder 0.005, heads 0.01).
    #[arg(long, default_value_t = 1.0)]
    pub lr_scale: f64,
    /// Skip the LSTM (model A).
    #[arg(long)]
    pub no_lstm: bool,
}
