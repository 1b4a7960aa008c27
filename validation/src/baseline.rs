//! The trivial, code-agnostic baseline of notes/seed-003 §12: at every clock pair, predict the mean
//! of the micro-benchmarks' scaling factors (geometric means would be a different baseline; the
//! arithmetic mean is the one whose figures the notes quote). Energy is predicted the same way.

use crate::data::Benchmark;
use crate::metrics::Curve;
use crate::model::{Predictor, TrainSet};

pub struct Baseline {
    curve: Curve,
}

impl Baseline {
    pub fn fit(t: &TrainSet) -> Baseline {
        let n = t.targets.len() as f64;
        let mut curve = vec![[0.0; 3]; t.grid.len()];
        for c in &t.targets {
            for (acc, v) in curve.iter_mut().zip(c) {
                for k in 0..3 {
                    acc[k] += v[k] / n;
                }
            }
        }
        Baseline { curve }
    }
}

impl Predictor for Baseline {
    fn name(&self) -> &str {
        "baseline (per-clock mean of micro-benchmarks)"
    }
    fn predict(&self, _b: &Benchmark) -> Curve {
        self.curve.clone()
    }
}
