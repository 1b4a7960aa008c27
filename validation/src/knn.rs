//! Nearest micro-benchmarks in a standardised feature space; the prediction is the neighbours'
//! measured scaling curves averaged, so the curve's shape (how far time rises at 810 MHz memory,
//! how power falls with it) comes whole from measured kernels rather than from a per-point fit.
//!
//! Three feature spaces. `Mix`: the instruction-mix vector of [`Features::vector`]. `Mem`: only what
//! bears on DRAM-boundness: global bytes per unit of core work, global accesses per thread (how
//! much an unrolled loop can reuse lines on chip) and instructions per kernel (a short streaming
//! kernel has no work to hide memory latency behind). A mix-space neighbour of a streaming kernel
//! is often a compute kernel with the same share of loads; the memory space groups by the quantities
//! that set the DRAM/core time ratio. `Both`: the two side by side. [`Knn::over`] takes the
//! caller's features instead (the `memory_number` diagnostic).
//!
//! Two averages. `Geo`: geometric mean per point (E = P·T holds exactly for the average).
//! `Arith`: arithmetic mean, i.e. the expected curve over the neighbours; its energy minimum is the
//! clock pair with the least expected energy, which steers away from 810 MHz memory whenever a
//! sizeable share of the neighbours is DRAM-bound, where the geometric mean would discount them.

use crate::data::Benchmark;
use crate::features::{Features, IssueCosts};
use crate::metrics::Curve;
use crate::model::{Predictor, TrainSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Mix,
    Mem,
    /// Both vectors side by side: the memory features for the time curve, the mix for the power
    /// level of each unit (DP, INT and SP kernels without global traffic coincide in `Mem`).
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Avg {
    Geo,
    Arith,
    /// Per point and factor, the median of the neighbours' values weighted by 1/value: the value
    /// that minimises the expected relative error |p − y|/y over the neighbours, i.e. the point
    /// estimate the paper's error measure rewards when the neighbours disagree.
    RelMedian,
}

/// The minimiser of Σ |p − y_i| / y_i: the weighted median of the y_i with weights 1/y_i.
fn rel_median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let total: f64 = v.iter().map(|y| 1.0 / y).sum();
    let mut acc = 0.0;
    for y in v.iter() {
        acc += 1.0 / y;
        if acc >= total / 2.0 {
            return *y;
        }
    }
    v.last().copied().unwrap_or(1.0)
}

/// The memory-boundness features (see the module comment).
pub fn mem_vector(f: &Features) -> Vec<f64> {
    let k = f.kernels.max(1.0);
    vec![
        (f.bytes_per_cost() + 1e-3).ln(),
        (f.global_accesses / k + 1.0).ln(),
        (f.instructions / k).max(1.0).ln(),
    ]
}

fn vector(space: Space, costs: &IssueCosts, b: &Benchmark) -> Vec<f64> {
    let f = Features::of(b, costs);
    match space {
        Space::Mix => f.vector(),
        Space::Mem => mem_vector(&f),
        Space::Both => {
            let mut v = mem_vector(&f);
            v.extend(f.vector());
            v
        }
    }
}

/// The features of one benchmark, as the kNN measures distances in.
pub type FeatureFn = Box<dyn Fn(&Benchmark) -> Vec<f64> + Send + Sync>;

pub struct Knn {
    k: usize,
    /// `None` when the features come from the caller ([`Knn::over`]).
    space: Option<Space>,
    features: FeatureFn,
    avg: Avg,
    mu: Vec<f64>,
    sd: Vec<f64>,
    points: Vec<(Vec<f64>, Curve)>,
    /// Raw (unstandardised) features and names of the training points, for export.
    raw: Vec<(String, Vec<f64>)>,
    name: String,
}

impl Knn {
    pub fn fit(t: &TrainSet, k: usize, space: Space, avg: Avg) -> Knn {
        let what = match space {
            Space::Mix => "instruction mix",
            Space::Mem => "memory features",
            Space::Both => "memory features + mix",
        };
        let costs = t.costs;
        let mut m = Knn::over(t, k, avg, what, Box::new(move |b| vector(space, &costs, b)));
        m.space = Some(space);
        m
    }

    /// A kNN over the caller's features of each benchmark; `what` names them.
    pub fn over(t: &TrainSet, k: usize, avg: Avg, what: &str, features: FeatureFn) -> Knn {
        let xs: Vec<Vec<f64>> = t.benches.iter().map(&features).collect();
        let d = xs[0].len();
        let n = xs.len() as f64;
        let mu: Vec<f64> = (0..d)
            .map(|j| xs.iter().map(|x| x[j]).sum::<f64>() / n)
            .collect();
        let sd: Vec<f64> = (0..d)
            .map(|j| (xs.iter().map(|x| (x[j] - mu[j]).powi(2)).sum::<f64>() / n).sqrt() + 1e-9)
            .collect();
        let raw = t
            .benches
            .iter()
            .map(|b| b.name.clone())
            .zip(xs.iter().cloned())
            .collect();
        let points = xs
            .iter()
            .map(|x| (0..d).map(|j| (x[j] - mu[j]) / sd[j]).collect())
            .zip(t.targets.iter().cloned())
            .collect();
        let how = match avg {
            Avg::Geo => "geo",
            Avg::Arith => "mean",
            Avg::RelMedian => "rel-median",
        };
        Knn {
            k,
            space: None,
            features,
            avg,
            mu,
            sd,
            points,
            raw,
            name: format!("kNN over {what} (k={k}, {how})"),
        }
    }
}

impl Knn {
    pub fn k(&self) -> usize {
        self.k
    }
    pub fn space(&self) -> Option<Space> {
        self.space
    }
    pub fn avg(&self) -> Avg {
        self.avg
    }
    /// Mean and standard deviation of each feature over the training points.
    pub fn scaling(&self) -> (&[f64], &[f64]) {
        (&self.mu, &self.sd)
    }
    /// Per training point: name, raw features, measured scaling curve.
    pub fn training_points(&self) -> impl Iterator<Item = (&str, &[f64], &Curve)> {
        self.raw
            .iter()
            .zip(&self.points)
            .map(|((n, x), (_, c))| (n.as_str(), x.as_slice(), c))
    }
}

impl Predictor for Knn {
    fn name(&self) -> &str {
        &self.name
    }
    fn predict(&self, b: &Benchmark) -> Curve {
        let z: Vec<f64> = (self.features)(b)
            .iter()
            .enumerate()
            .map(|(j, v)| (v - self.mu[j]) / self.sd[j])
            .collect();
        let mut d: Vec<(f64, usize)> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (p.iter().zip(&z).map(|(a, b)| (a - b).powi(2)).sum(), i))
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let k = self.k.min(d.len());
        let n = self.points[0].1.len();
        if self.avg == Avg::RelMedian {
            return (0..n)
                .map(|g| {
                    [0, 1, 2].map(|c| {
                        let mut v: Vec<f64> = d[..k]
                            .iter()
                            .map(|&(_, i)| self.points[i].1[g][c])
                            .collect();
                        rel_median(&mut v)
                    })
                })
                .collect();
        }
        let mut out = vec![[0.0; 3]; n];
        for &(_, i) in &d[..k] {
            for (o, v) in out.iter_mut().zip(&self.points[i].1) {
                for c in 0..3 {
                    o[c] += match self.avg {
                        Avg::Geo => v[c].ln(),
                        _ => v[c],
                    } / k as f64;
                }
            }
        }
        match self.avg {
            Avg::Geo => out.iter().map(|o| o.map(f64::exp)).collect(),
            _ => out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::rel_median;

    #[test]
    fn rel_median_minimises_the_mean_relative_error() {
        let ys = [1.0, 1.1, 3.8, 4.0, 1.05];
        let cost = |p: f64| ys.iter().map(|y| (p - y).abs() / y).sum::<f64>();
        let m = rel_median(&mut ys.to_vec());
        assert_eq!(m, 1.05);
        for i in 0..=500 {
            let p = 0.5 + i as f64 * 0.01;
            assert!(cost(m) <= cost(p) + 1e-12, "p = {p}");
        }
    }
}
