//! What every model sees: the training view of the data set (micro-benchmarks only, so that no
//! fitting or model selection can peek at the test applications) and one trait to predict a
//! benchmark's scaling curve from its instruction sequences alone.

use crate::data::{Benchmark, Clock, Dataset};
use crate::features::IssueCosts;
use crate::metrics::Curve;

/// The micro-benchmarks with their measured scaling factors, plus the device's clock grid.
pub struct TrainSet<'a> {
    pub grid: &'a [Clock],
    pub reference: usize,
    pub idle_power_w: &'a [f64],
    /// The GPU's issue costs, with which every model computes its features.
    pub costs: IssueCosts,
    pub benches: &'a [Benchmark],
    /// Measured scaling factors of each benchmark (same order as `benches`).
    pub targets: Vec<Curve>,
}

impl<'a> TrainSet<'a> {
    /// The training view: only `ds.micro`.
    pub fn micro(ds: &'a Dataset) -> TrainSet<'a> {
        Self::of(ds, &ds.micro)
    }

    /// A training view over an arbitrary subset (cross-validation folds).
    pub fn of(ds: &'a Dataset, benches: &'a [Benchmark]) -> TrainSet<'a> {
        TrainSet {
            grid: &ds.grid,
            reference: ds.reference,
            idle_power_w: &ds.idle_power_w,
            costs: ds.issue_costs,
            benches,
            targets: benches.iter().map(|b| ds.scaling(b)).collect(),
        }
    }
}

/// A fitted DVFS model: instruction sequences in, scaling factors at every grid point out.
pub trait Predictor {
    fn name(&self) -> &str;
    fn predict(&self, b: &Benchmark) -> Curve;
}
