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

#[cfg(feature = "validation")]
pub fn run(a: Args) -> miette::Result<()> {
    use kerncast_validation::run::{run, Options};
    let Suite::Gpuptxmodel = a.suite;
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let mut o = Options::new(&a.workspace);
    o.data = a.data;
    o.gpu = a.gpu;
    o.device = a.device;
    o.out = a.out;
    o.weights = a.weights;
    o.train_lstm = a.train_lstm;
    o.epochs = a.epochs;
    o.seed = a.seed;
    o.lr_scale = a.lr_scale;
    o.no_lstm = a.no_lstm;
    // The LSTM's backward pass walks a deep graph recursively: run on a large stack.
    let h = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || run(&o, |l| eprintln!("{l}")).map_err(|e| e.to_string()))
        .map_err(|e| miette::miette!("could not start the validation thread: {e}"))?;
    match h.join() {
        Ok(Ok(text)) => {
            print!("{text}");
            Ok(())
        }
        Ok(Err(e)) => Err(miette::miette!("validate: {e}")),
        Err(_) => Err(miette::miette!("validate: the validation thread panicked")),
    }
}

#[cfg(not(feature = "validation"))]
pub fn run(a: Args) -> miette::Result<()> {
    let _ = a;
    Err(miette::miette!(
        help = "run `cargo xtask validate`, or build kerncast with `--features validation`",
        "this kerncast was built without the `validation` feature (it pulls in candle)"
    ))
}
