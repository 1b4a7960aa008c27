//! Diagnostic: how well model A fits its own training data (the micro-benchmarks). A model that
//! cannot place its training kernels' energy minima is mis-trained whatever its test figures say.
//! Prints per-head in-sample errors, the energy saved at the predicted minimum vs the oracle, how
//! often each clock pair is chosen, and the mean predicted vs measured energy curve.
//! `cargo run --release -p kerncast-validation --example lstm_fit [-- WEIGHTS]`

use kerncast_validation::data::{default_root, DEFAULT_GPU};
use kerncast_validation::lstm::Lstm;
use kerncast_validation::metrics::{mean, score_app};
use kerncast_validation::Dataset;
use std::collections::BTreeMap;

fn main() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ds = Dataset::load(&default_root(&ws).expect("data set"), DEFAULT_GPU).expect("loads");
    let w = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| ws.join("validation/weights/lstm_gtxtitanx.safetensors"));
    let m = Lstm::load(&w, &ds.grid).expect("weights load");
    let g = ds.grid.len();
    let mut pred_mean = vec![[0.0; 3]; g];
    let mut meas_mean = vec![[0.0; 3]; g];
    let mut chosen: BTreeMap<String, usize> = BTreeMap::new();
    let (mut errs, mut saved, mut oracle) = (vec![Vec::new(); 3], Vec::new(), Vec::new());
    for b in &ds.micro {
        let p = m.try_predict(b).expect("predicts");
        let y = ds.scaling(b);
        let s = score_app(&ds, b, &p);
        for (k, e) in errs.iter_mut().enumerate() {
            e.push(s.mean_err(k));
        }
        saved.push(s.saved_vs_fmax);
        oracle.push(s.oracle_vs_fmax);
        let c = ds.grid[s.chosen];
        *chosen
            .entry(format!("{}/{}", c.mem_mhz, c.core_mhz))
            .or_default() += 1;
        for i in 0..g {
            for k in 0..3 {
                pred_mean[i][k] += p[i][k] / ds.micro.len() as f64;
                meas_mean[i][k] += y[i][k] / ds.micro.len() as f64;
            }
        }
    }
    println!("weights {}", w.display());
    println!(
        "in-sample ({} micro-benchmarks): time {:.1} %, power {:.1} %, energy {:.1} %; saved {:.1} % vs F_max (oracle {:.1} %)",
        ds.micro.len(),
        mean(&errs[0]),
        mean(&errs[1]),
        mean(&errs[2]),
        mean(&saved),
        mean(&oracle)
    );
    println!("chosen clocks: {chosen:?}");
    println!(
        "{:>10} {:>8} {:>8} {:>8} {:>8}",
        "clock", "pE", "mE", "pT", "mT"
    );
    for i in 0..g {
        let c = ds.grid[i];
        println!(
            "{:>10} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            format!("{}/{}", c.mem_mhz, c.core_mhz),
            pred_mean[i][2],
            meas_mean[i][2],
            pred_mean[i][0],
            meas_mean[i][0]
        );
    }
}
