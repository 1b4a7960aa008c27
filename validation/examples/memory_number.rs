//! Diagnostic, not a model: what one number per application that the instruction sequences do not
//! carry (its memory sensitivity: the measured time factor at 810/975 against the default clocks)
//! would buy. The neighbours are chosen by that number alone, with model C's k and averaging as
//! cross-validation picks them; each application's own number is read from its measurements, so
//! the figures are a ceiling for what an address-based analysis could deliver, not a test score
//! (docs/validation.md, "What one number is worth").
//! `cargo run --release -p kerncast-validation --example memory_number`

use kerncast_validation::combined::{Pool, Recipe, Selected};
use kerncast_validation::data::{default_root, DEFAULT_GPU};
use kerncast_validation::knn::{Avg, Knn};
use kerncast_validation::model::TrainSet;
use kerncast_validation::profile::Physics;
use kerncast_validation::report::{evaluate, overall, per_app};
use kerncast_validation::run::Options;
use kerncast_validation::Dataset;

fn main() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut ds = Dataset::load(&default_root(&ws).expect("data set"), DEFAULT_GPU).expect("loads");
    let i810 = ds
        .grid
        .iter()
        .position(|c| c.mem_mhz == 810 && c.core_mhz == 975)
        .expect("grid point 810/975");
    let reference = ds.reference;
    let phys = Physics::of(&ds.gpu, None, ds.grid[reference].mem_mhz as f64);
    if let Ok(costs) = phys.issue_costs {
        ds.issue_costs = costs;
    }
    eprintln!("selecting model C by cross-validation on the micro-benchmarks (about 30 s)");
    // The same pool as `cargo xtask validate`'s, so that the pick is its model C.
    let learned = Options::new(&ws).saved_learned(&ds).ok();
    let pool = Pool {
        phys: &phys,
        learned: learned.as_ref(),
    };
    let c = Selected::select(&ds, pool);
    let (k, avg) = match c.recipe {
        Recipe::Knn(k, _, avg) => (k, avg),
        other => {
            eprintln!("model C is {other:?}, not a kNN: using k = 10, rel-median");
            (10, Avg::RelMedian)
        }
    };
    let t = TrainSet::micro(&ds);
    // The ratio of two measurements of the same benchmark (what `Dataset::scaling` computes).
    let sensitivity = move |b: &kerncast_validation::Benchmark| {
        vec![(b.meas[i810].time_s / b.meas[reference].time_s).ln()]
    };
    let number = Knn::over(&t, k, avg, "t(810/975) measured", Box::new(sensitivity));
    let summaries = [
        evaluate(&ds, &kerncast_validation::baseline::Baseline::fit(&t)),
        evaluate(&ds, &c),
        evaluate(&ds, &number),
    ];
    println!("{}", overall(&ds, &summaries));
    println!("{}", per_app(&ds, &summaries[2]));
}
