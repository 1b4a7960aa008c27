//! Writes model C, as cross-validation on the micro-benchmarks picks it, into the table that
//! kerncast's `auto` model uses on the GTX Titan X (`models/src/dvfs_knn_gtx_titan_x.json`).
//! Refuses when the pick is not a kNN over the memory features: kerncast has no port of the
//! other candidates, and exporting a second-best would not be model C.
//! `cargo run --release -p kerncast-validation --example export_default_model`

use kerncast_validation::combined::{Pool, Recipe, Selected};
use kerncast_validation::data::{default_root, DEFAULT_GPU};
use kerncast_validation::export::{knn_table, TABLE_PATH};
use kerncast_validation::knn::{Knn, Space};
use kerncast_validation::model::TrainSet;
use kerncast_validation::profile::Physics;
use kerncast_validation::run::Options;
use kerncast_validation::Dataset;
use std::process::ExitCode;

fn main() -> ExitCode {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut ds = Dataset::load(&default_root(&ws).expect("data set"), DEFAULT_GPU).expect("loads");
    let phys = Physics::of(&ds.gpu, None, ds.grid[ds.reference].mem_mhz as f64);
    if let Ok(costs) = phys.issue_costs {
        ds.issue_costs = costs;
    }
    eprintln!("{}", phys.describe());
    // The same pool as `cargo xtask validate`'s, so that the pick is its model C.
    let learned = Options::new(&ws).saved_learned(&ds).ok();
    let pool = Pool {
        phys: &phys,
        learned: learned.as_ref(),
    };
    let sel = Selected::select(&ds, pool);
    let Recipe::Knn(k, Space::Mem, avg) = sel.recipe else {
        eprintln!(
            "the CV pick is {:?}, not a kNN over the memory features: nothing exported",
            sel.recipe
        );
        return ExitCode::FAILURE;
    };
    let m = Knn::fit(&TrainSet::micro(&ds), k, Space::Mem, avg);
    let path = ws.join(TABLE_PATH);
    match knn_table(&ds, &m).and_then(|t| {
        std::fs::write(&path, t).map_err(|e| kerncast_validation::Error::Model(e.to_string()))
    }) {
        Ok(()) => {
            println!("CV pick {:?} written to {}", sel.recipe, path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
