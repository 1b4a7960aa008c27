//! Applies the head-refit phase of `Lstm::train` to saved weights trained before that phase
//! existed (same seed, so the same held-out split), and saves the result. Equivalent to
//! `--train-lstm` when the saved weights are that command's joint phase.
//! `cargo run --release -p kerncast-validation --example lstm_refit -- IN OUT [SEED]`

use kerncast_validation::data::{default_root, DEFAULT_GPU};
use kerncast_validation::lstm::Lstm;
use kerncast_validation::model::TrainSet;
use kerncast_validation::run::SEED;
use kerncast_validation::Dataset;

fn main() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ds = Dataset::load(&default_root(&ws).expect("data set"), DEFAULT_GPU).expect("loads");
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (inp, out) = (a.first().expect("IN"), a.get(1).expect("OUT"));
    let seed = a.get(2).map(|s| s.parse().expect("seed")).unwrap_or(SEED);
    let m = Lstm::load(std::path::Path::new(inp), &ds.grid).expect("weights load");
    m.refit_saved(&TrainSet::micro(&ds), seed, 1.0, |l| println!("{l}"))
        .expect("refit");
    m.save(std::path::Path::new(out)).expect("save");
    println!("saved {out}");
}
