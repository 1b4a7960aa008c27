//! The paper's error definitions (notes/seed-003 §5, §10.6): its "MAE" is the mean of
//! |predicted − measured| / measured × 100 over the scaling factors of every (application, clock)
//! point; the energy saved is 1 − E(F_pred)/E(F_ref) with F_pred the argmin of the predicted
//! energy scaling factor. We report it against F_max (the paper's Table 3) and the default clocks.

use crate::data::{Benchmark, Dataset};

/// Predicted scaling factors (time, power, energy) per grid point, relative to the reference clocks.
pub type Curve = Vec<[f64; 3]>;

/// Relative error in percent.
pub fn rel_err_pct(pred: f64, meas: f64) -> f64 {
    (pred - meas).abs() / meas.abs() * 100.0
}

pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Index of the smallest predicted energy scaling factor (first one on ties).
pub fn argmin_energy(c: &Curve) -> usize {
    let mut best = 0;
    for (i, p) in c.iter().enumerate() {
        if p[2] < c[best][2] {
            best = i;
        }
    }
    best
}

/// Scores of one application.
#[derive(Debug, Clone)]
pub struct AppScore {
    pub name: String,
    /// Relative errors (%) per grid point, [time, power, energy].
    pub errors: Vec<[f64; 3]>,
    pub chosen: usize,
    pub oracle: usize,
    /// Energy saved at the chosen / oracle clocks, vs F_max and vs the default clocks (%).
    pub saved_vs_fmax: f64,
    pub oracle_vs_fmax: f64,
    pub saved_vs_default: f64,
    pub oracle_vs_default: f64,
}

impl AppScore {
    pub fn mean_err(&self, k: usize) -> f64 {
        mean(&self.errors.iter().map(|e| e[k]).collect::<Vec<_>>())
    }
}

pub fn score_app(ds: &Dataset, b: &Benchmark, pred: &Curve) -> AppScore {
    let meas = ds.scaling(b);
    let errors = pred
        .iter()
        .zip(&meas)
        .map(|(p, m)| [0, 1, 2].map(|k| rel_err_pct(p[k], m[k])))
        .collect();
    let chosen = argmin_energy(pred);
    let oracle = argmin_energy(&meas);
    let e = |i: usize| b.meas[i].energy_j;
    let saved = |i: usize, r: usize| (1.0 - e(i) / e(r)) * 100.0;
    AppScore {
        name: b.name.clone(),
        errors,
        chosen,
        oracle,
        saved_vs_fmax: saved(chosen, ds.fmax),
        oracle_vs_fmax: saved(oracle, ds.fmax),
        saved_vs_default: saved(chosen, ds.reference),
        oracle_vs_default: saved(oracle, ds.reference),
    }
}

/// Scores over all applications.
#[derive(Debug, Clone)]
pub struct Summary {
    pub model: String,
    pub apps: Vec<AppScore>,
}

impl Summary {
    fn all(&self, k: usize) -> Vec<f64> {
        self.apps
            .iter()
            .flat_map(|a| a.errors.iter().map(move |e| e[k]))
            .collect()
    }
    /// Mean relative error (%) over every (application, clock) point: the paper's "MAE".
    pub fn mean_err(&self, k: usize) -> f64 {
        mean(&self.all(k))
    }
    pub fn median_err(&self, k: usize) -> f64 {
        median(&self.all(k))
    }
    /// Share (%) of points with error under 10 % (the paper's Fig. 6).
    pub fn under_10(&self, k: usize) -> f64 {
        let a = self.all(k);
        a.iter().filter(|e| **e < 10.0).count() as f64 / a.len() as f64 * 100.0
    }
    pub fn saved_vs_fmax(&self) -> f64 {
        mean(
            &self
                .apps
                .iter()
                .map(|a| a.saved_vs_fmax)
                .collect::<Vec<_>>(),
        )
    }
    pub fn oracle_vs_fmax(&self) -> f64 {
        mean(
            &self
                .apps
                .iter()
                .map(|a| a.oracle_vs_fmax)
                .collect::<Vec<_>>(),
        )
    }
    pub fn saved_vs_default(&self) -> f64 {
        mean(
            &self
                .apps
                .iter()
                .map(|a| a.saved_vs_default)
                .collect::<Vec<_>>(),
        )
    }
    pub fn oracle_vs_default(&self) -> f64 {
        mean(
            &self
                .apps
                .iter()
                .map(|a| a.oracle_vs_default)
                .collect::<Vec<_>>(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_and_median_on_hand_made_examples() {
        assert_eq!(rel_err_pct(1.1, 1.0), 10.000000000000009);
        assert_eq!(rel_err_pct(0.5, 2.0), 75.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        let c: Curve = vec![[1.0, 1.0, 0.9], [1.0, 1.0, 0.7], [1.0, 1.0, 0.7]];
        assert_eq!(argmin_energy(&c), 1);
    }
}
