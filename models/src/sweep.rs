//! DVFS sweep: predict every clock pair of a device's grid, then pick the minimum-energy and
//! minimum-EDP settings and the Pareto front of (time, energy) — the decisions Guerreiro et al.
//! make from predicted scaling factors.

use crate::device::{Clocks, Device};
use crate::model::{Model, ModelInput, Prediction, Result};
use crate::power::{apply_physical, PhysicalPowerParams};
use serde::{Deserialize, Serialize};

/// A time model's prediction completed with the physical power model.
pub fn predict_full(
    model: &dyn Model,
    input: &ModelInput,
    d: &Device,
    clocks: Clocks,
    power: Option<&PhysicalPowerParams>,
) -> Result<Prediction> {
    let mut p = model.predict(input, d, clocks)?;
    if p.power_w.is_none() {
        apply_physical(&mut p, d, power);
    }
    Ok(p)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub device: String,
    pub kernel: String,
    /// Ascending by memory clock, then core clock.
    pub points: Vec<Prediction>,
    /// Index into `points` of the minimum-energy pair (None without power data).
    pub min_energy: Option<usize>,
    pub min_edp: Option<usize>,
    /// Indices of the Pareto-optimal points in (time, energy), ascending by time.
    pub pareto: Vec<usize>,
}

pub fn sweep(
    model: &dyn Model,
    input: &ModelInput,
    d: &Device,
    power: Option<&PhysicalPowerParams>,
) -> Result<Sweep> {
    let points = d
        .clock_grid()?
        .into_iter()
        .map(|c| predict_full(model, input, d, c, power))
        .collect::<Result<Vec<_>>>()?;
    let argmin = |key: &dyn Fn(&Prediction) -> Option<f64>| {
        points
            .iter()
            .enumerate()
            .filter_map(|(i, p)| key(p).map(|v| (i, v)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    };
    let min_energy = argmin(&|p| p.energy_j);
    let min_edp = argmin(&|p| p.edp());
    let pareto = pareto_front(
        &points
            .iter()
            .map(|p| p.energy_j.map(|e| (p.time_s, e)))
            .collect::<Vec<_>>(),
    );
    Ok(Sweep {
        device: d.name.clone(),
        kernel: input.stats.kernel.clone(),
        points,
        min_energy,
        min_edp,
        pareto,
    })
}

/// Indices of the points no other point dominates (≤ in both, < in one), ascending by time.
pub fn pareto_front(pts: &[Option<(f64, f64)>]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..pts.len()).filter(|&i| pts[i].is_some()).collect();
    idx.sort_by(|&a, &b| {
        let (pa, pb) = (pts[a].unwrap_or_default(), pts[b].unwrap_or_default());
        pa.0.total_cmp(&pb.0).then(pa.1.total_cmp(&pb.1))
    });
    let mut front = Vec::new();
    let mut best_e = f64::INFINITY;
    for i in idx {
        let (_, e) = pts[i].unwrap_or_default();
        if e < best_e {
            front.push(i);
            best_e = e;
        }
    }
    front
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_keeps_non_dominated_points() {
        let pts = vec![
            Some((1.0, 10.0)),
            Some((2.0, 5.0)),
            Some((2.5, 6.0)), // dominated by (2, 5)
            Some((3.0, 4.0)),
            None,
            Some((1.0, 12.0)), // dominated by (1, 10)
        ];
        assert_eq!(pareto_front(&pts), vec![0, 1, 3]);
    }
}
