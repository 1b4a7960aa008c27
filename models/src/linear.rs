//! Stevens & Klöckner's unified linear model: time = Σ w_i · p_i(kernel, workload), with a
//! feature set shared by every GPU and per-device weights fitted by least squares on *relative*
//! error (each measurement row divided by its measured time, fitted against a vector of ones).
//!
//! Features (names are stable keys of the device's `[linear]` table):
//! - `flop.{add,mul,div,exp,special}.{f32,f64}`: thread-level float ops (fma counts as one add
//!   and one mul; `special` = sqrt, rsqrt, rcp; `exp` = ex2/lg2/sin/cos/tanh);
//! - `gmem.{load,store}.b{bits}.{stride class}`: thread-level global accesses by width, direction
//!   and amortized stride class, and `min(gmem.load.X,gmem.store.X)` where both exist;
//! - `lmem.load.b{bits}`: shared ("local" in OpenCL) loads, stride not tracked (as in the paper);
//! - `barriers` (thread level), `groups` (work-groups), `const` (1: launch overhead).
//!
//! Integer arithmetic is not a feature, as in the paper.
//!
//! Weights with `sched.*` keys are of the scheduler form instead ([`crate::sched_terms`]):
//! launch overhead, the roofline's time and the latency of each warp's chain per wave, fitted
//! by [`fit_log_l1`]. The device's weights say which form it ships.

use crate::device::{Clocks, Device};
use crate::model::{largest, ErrorBand, Model, ModelError, ModelInput, Prediction, Result};
use crate::nnls::{lstsq, nnls};
use crate::roofline::RooflineModel;
use crate::sched_terms;
use kerncast_passes::stats::{BoundStats, DType, Dir, Feature, Granularity, OpKind, Space};
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const NAME: &str = "linear";

/// The feature vector of one kernel bound to one workload.
pub fn features(s: &BoundStats) -> BTreeMap<String, f64> {
    let mut p: BTreeMap<String, f64> = BTreeMap::new();
    let mut add = |k: String, v: f64| *p.entry(k).or_default() += v;
    for (f, &v) in &s.features {
        match f {
            Feature::Op {
                kind,
                ty: ty @ (DType::F32 | DType::F64),
                gran: Granularity::Thread,
            } => {
                let t = if *ty == DType::F32 { "f32" } else { "f64" };
                let names: &[&str] = match kind {
                    OpKind::AddSub => &["add"],
                    OpKind::Mul => &["mul"],
                    OpKind::Fma => &["add", "mul"],
                    OpKind::Div => &["div"],
                    OpKind::Special => &["exp"],
                    OpKind::Sqrt | OpKind::Rsqrt | OpKind::Rcp => &["special"],
                    _ => &[],
                };
                for n in names {
                    add(format!("flop.{n}.{t}"), v);
                }
            }
            Feature::Mem {
                space: Space::Global,
                dir,
                bits,
                stride,
                gran: Granularity::Thread,
                ..
            } => {
                let d = match dir {
                    Dir::Load => "load",
                    Dir::Store => "store",
                    Dir::Atomic => "atomic",
                };
                add(format!("gmem.{d}.b{bits}.{stride}"), v);
            }
            Feature::Mem {
                space: Space::Shared,
                dir: Dir::Load,
                bits,
                gran: Granularity::Thread,
                ..
            } => add(format!("lmem.load.b{bits}"), v),
            Feature::Barrier {
                gran: Granularity::Thread,
            } => add("barriers".into(), v),
            Feature::Blocks => add("groups".into(), v),
            _ => {}
        }
    }
    let loads: Vec<(String, f64)> = p
        .iter()
        .filter_map(|(k, &v)| k.strip_prefix("gmem.load.").map(|r| (r.to_string(), v)))
        .collect();
    for (rest, lv) in loads {
        if let Some(&sv) = p.get(&format!("gmem.store.{rest}")) {
            p.insert(
                format!("min(gmem.load.{rest},gmem.store.{rest})"),
                lv.min(sv),
            );
        }
    }
    if let Some(l) = s.launch {
        p.entry("groups".into()).or_insert(l.blocks() as f64);
    }
    p.insert("const".into(), 1.0);
    p
}

/// One measurement: a kernel's features and its measured time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub kernel: String,
    pub workload: String,
    pub features: BTreeMap<String, f64>,
    pub seconds: f64,
}

impl Measurement {
    /// A measurement row from counts (the features are computed here).
    pub fn from_stats(kernel: &str, workload: &str, stats: &BoundStats, seconds: f64) -> Self {
        Measurement {
            kernel: kernel.to_string(),
            workload: workload.to_string(),
            features: features(stats),
            seconds,
        }
    }
}

/// Fitted weights and the fit's residuals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub weights: BTreeMap<String, f64>,
    /// (kernel, workload, relative error (pred − meas)/meas) per row.
    pub residuals: Vec<(String, String, f64)>,
    /// Geometric mean of |relative error| over the rows (0 when a row is exact).
    pub geomean_rel_error: f64,
    pub non_negative: bool,
}

/// Least squares on relative error; `non_negative` uses Lawson–Hanson NNLS.
pub fn fit(rows: &[Measurement], non_negative: bool) -> Result<Fit> {
    let names: Vec<String> = rows
        .iter()
        .flat_map(|r| r.features.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if rows.is_empty() || names.is_empty() {
        return Err(ModelError::Fit("no measurements or no features".into()));
    }
    if let Some(r) = rows.iter().find(|r| r.seconds.is_nan() || r.seconds <= 0.0) {
        return Err(ModelError::Fit(format!(
            "{} / {}: measured time {} is not positive",
            r.kernel, r.workload, r.seconds
        )));
    }
    let a = DMatrix::from_fn(rows.len(), names.len(), |i, j| {
        rows[i].features.get(&names[j]).copied().unwrap_or(0.0) / rows[i].seconds
    });
    // Column scaling keeps the SVD well conditioned when counts span many magnitudes.
    let scale: Vec<f64> = (0..names.len())
        .map(|j| {
            let n = a.column(j).norm();
            if n > 0.0 {
                n
            } else {
                1.0
            }
        })
        .collect();
    let a_s = DMatrix::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)] / scale[j]);
    let ones = DVector::from_element(rows.len(), 1.0);
    let x = if non_negative {
        nnls(&a_s, &ones)
    } else {
        lstsq(&a_s, &ones)
    };
    let weights: BTreeMap<String, f64> = names
        .iter()
        .enumerate()
        .map(|(j, n)| (n.clone(), x[j] / scale[j]))
        .collect();
    let (residuals, geomean_rel_error) = residuals(rows, &weights);
    Ok(Fit {
        weights,
        residuals,
        geomean_rel_error,
        non_negative,
    })
}

/// The fit that [`fit_log_l1`] minimises: Σ |ln(pred / meas)| over rows of features scaled by
/// their measured times.
struct LogL1<'a> {
    /// Row-major: `scaled[i][j]` = feature j of row i / row i's time.
    scaled: &'a [Vec<f64>],
}

impl argmin::core::CostFunction for LogL1<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, log_w: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        let w: Vec<f64> = log_w.iter().map(|x| x.exp()).collect();
        Ok(self
            .scaled
            .iter()
            .map(|row| {
                let ratio: f64 = row.iter().zip(&w).map(|(a, b)| a * b).sum();
                ratio.max(f64::MIN_POSITIVE).ln().abs()
            })
            .sum())
    }
}

/// Nelder–Mead from `start`, restarted with a fresh simplex at its best point until a restart
/// gains nothing: the point and its cost.
fn descend(scaled: &[Vec<f64>], start: Vec<f64>) -> Result<(Vec<f64>, f64)> {
    let err = |e: argmin::core::Error| ModelError::Fit(e.to_string());
    let mut best_cost = argmin::core::CostFunction::cost(&LogL1 { scaled }, &start).map_err(err)?;
    let mut best = start;
    for _ in 0..8 {
        let mut simplex = vec![best.clone()];
        for k in 0..best.len() {
            let mut v = best.clone();
            v[k] += 0.5;
            simplex.push(v);
        }
        let solver = argmin::solver::neldermead::NelderMead::new(simplex)
            .with_sd_tolerance(1e-12)
            .map_err(err)?;
        let res = argmin::core::Executor::new(LogL1 { scaled }, solver)
            .configure(|state| state.max_iters(4000))
            .run()
            .map_err(err)?;
        use argmin::core::State;
        let (Some(p), c) = (res.state().get_best_param(), res.state().get_best_cost()) else {
            break;
        };
        if c >= best_cost - 1e-12 {
            break;
        }
        best = p.clone();
        best_cost = c;
    }
    Ok((best, best_cost))
}

/// Least absolute log error over positive weights: Σ |ln(pred / meas)|. An over- and an
/// under-estimate by the same factor weigh the same, and the few launches the features cannot
/// explain (an atomic storm on one address, a loop the counts got wrong) pull the weights no
/// harder than any other row, where squared relative errors let them decide the fit.
/// Nelder–Mead over the logarithms of the weights, from the NNLS fit on relative error; a
/// feature that is zero on every row keeps weight 0. Deterministic: fixed start, fixed simplex,
/// fixed iteration budget.
pub fn fit_log_l1(rows: &[Measurement]) -> Result<Fit> {
    let start = fit(rows, true)?;
    let names: Vec<String> = start.weights.keys().cloned().collect();
    let scaled_all: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            names
                .iter()
                .map(|n| r.features.get(n).copied().unwrap_or(0.0) / r.seconds)
                .collect()
        })
        .collect();
    // only features some row has take part; the largest share a feature has of a row sets
    // how small a weight may start (a thousandth of that row's time)
    let largest: Vec<f64> = (0..names.len())
        .map(|j| scaled_all.iter().map(|r| r[j]).fold(0.0, f64::max))
        .collect();
    let live: Vec<usize> = (0..names.len()).filter(|&j| largest[j] > 0.0).collect();
    let scaled: Vec<Vec<f64>> = scaled_all
        .iter()
        .map(|r| live.iter().map(|&j| r[j]).collect())
        .collect();
    let from_nnls: Vec<f64> = live
        .iter()
        .map(|&j| start.weights[&names[j]].max(1e-3 / largest[j]).ln())
        .collect();
    // The loss has local minima: descend from the NNLS start and from it with each weight
    // ten times larger and smaller, and keep the lowest (the first of equals).
    let mut starts = vec![from_nnls.clone()];
    for k in 0..from_nnls.len() {
        for step in [10f64.ln(), -(10f64.ln())] {
            let mut s = from_nnls.clone();
            s[k] += step;
            starts.push(s);
        }
    }
    let mut best: Option<(Vec<f64>, f64)> = None;
    for s in starts {
        let (p, c) = descend(&scaled, s)?;
        if best.as_ref().is_none_or(|(_, b)| c < *b) {
            best = Some((p, c));
        }
    }
    let best = best.map(|(p, _)| p).unwrap_or(from_nnls);
    let mut weights: BTreeMap<String, f64> = names.iter().map(|n| (n.clone(), 0.0)).collect();
    for (k, &j) in live.iter().enumerate() {
        weights.insert(names[j].clone(), best[k].exp());
    }
    let (residuals, geomean_rel_error) = residuals(rows, &weights);
    Ok(Fit {
        weights,
        residuals,
        geomean_rel_error,
        non_negative: true,
    })
}

/// Each row's relative error (pred − meas)/meas under `weights`, and their geometric mean.
fn residuals(
    rows: &[Measurement],
    weights: &BTreeMap<String, f64>,
) -> (Vec<(String, String, f64)>, f64) {
    let residuals: Vec<(String, String, f64)> = rows
        .iter()
        .map(|r| {
            let pred = predict_time(weights, &r.features).0;
            (
                r.kernel.clone(),
                r.workload.clone(),
                (pred - r.seconds) / r.seconds,
            )
        })
        .collect();
    let geomean_rel_error = geomean(residuals.iter().map(|r| r.2.abs()));
    (residuals, geomean_rel_error)
}

/// Geometric mean (0 if any value is 0, NaN for an empty input).
pub fn geomean(v: impl Iterator<Item = f64>) -> f64 {
    let (n, s) = v.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x.ln()));
    (s / n as f64).exp()
}

/// Σ w_i p_i, with the time per feature and the features that have no weight.
pub fn predict_time(
    w: &BTreeMap<String, f64>,
    p: &BTreeMap<String, f64>,
) -> (f64, BTreeMap<String, f64>, Vec<String>) {
    let mut parts = BTreeMap::new();
    let mut unweighted = Vec::new();
    for (k, &v) in p {
        match w.get(k) {
            Some(&wk) => {
                parts.insert(k.clone(), wk * v);
            }
            None if v != 0.0 => unweighted.push(k.clone()),
            None => {}
        }
    }
    (parts.values().sum(), parts, unweighted)
}

/// The linear model with weights from the device (`[linear]`) or given explicitly.
#[derive(Clone, Debug, Default)]
pub struct LinearModel {
    pub weights: Option<BTreeMap<String, f64>>,
    /// Geometric-mean relative error of the fit the weights came from, for the error band.
    pub fit_error: Option<f64>,
}

impl Model for LinearModel {
    fn name(&self) -> &'static str {
        NAME
    }

    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
        let w = match &self.weights {
            Some(w) => w.clone(),
            None if !d.linear.is_empty() => {
                d.linear.iter().map(|(k, v)| (k.clone(), v.value)).collect()
            }
            None => return Err(d.missing("linear.*", NAME).into()),
        };
        let scheduler_form = sched_terms::is_scheduler_form(&w);
        // what the roofline term assumed (an L2 hit rate of 0 where the addresses are unknown,
        // the share of local memory that reaches DRAM) is this prediction's assumption too
        let mut throughput_notes = Vec::new();
        let p = if scheduler_form {
            let roofline = RooflineModel.predict(input, d, clocks)?;
            throughput_notes = roofline.notes;
            let chain = crate::schedule::chain::per_warp(&input.stats, &input.chains);
            let serial = crate::schedule::atomics::serial_lanes(&input.stats, &input.atomics);
            sched_terms::features(
                &input.stats,
                roofline.time_s,
                chain,
                serial,
                d,
                clocks,
                NAME,
            )?
        } else {
            features(&input.stats)
        };
        let (time_s, parts, unweighted) = predict_time(&w, &p);
        let mut breakdown: BTreeMap<String, f64> = BTreeMap::new();
        for (k, v) in parts {
            let cat = if k == sched_terms::ROOFLINE {
                "throughput"
            } else if k.starts_with("sched.chain") {
                "latency"
            } else if k.starts_with("flop") {
                "compute"
            } else if k.contains("gmem") {
                "global memory"
            } else if k.starts_with("lmem") {
                "shared memory"
            } else if k == "barriers" {
                "sync"
            } else {
                "launch"
            };
            *breakdown.entry(cat.to_string()).or_default() += v;
        }
        let mut notes: Vec<String> = unweighted
            .iter()
            .map(|k| format!("feature `{k}` has no weight on {}: not counted", d.name))
            .collect();
        if scheduler_form {
            notes.push(
                "scheduler form: launch overhead + roofline time + waves × each warp's dependent chains (arithmetic steps and chained global loads), weights fitted on measured launches at the default clocks; at other clocks the latency terms scale with the core clock and the roofline term with the resource that bounds it".into(),
            );
        } else {
            notes.push("weights are for the device's default clocks; no clock scaling".into());
        }
        notes.extend(
            throughput_notes
                .into_iter()
                .map(|n| format!("roofline term: {n}")),
        );
        let error_band = ErrorBand {
            rel: self.fit_error.unwrap_or(0.4),
            source: match self.fit_error {
                Some(_) => "geometric-mean relative error of the weights' fit".into(),
                None if scheduler_form => format!(
                    "a rough band: the cross-validated error of {}'s weights is in their source (`kerncast devices {}`)",
                    d.name, d.name
                ),
                None => "Stevens & Klöckner 2016 §7: per-kernel geometric-mean errors up to ~40 % across GPUs".into(),
            },
        };
        Ok(Prediction {
            model: NAME.into(),
            clocks,
            time_s,
            power_w: None,
            energy_j: None,
            bottleneck: largest(&breakdown),
            breakdown,
            error_band,
            activity: BTreeMap::new(),
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::reuse::Reuse;
    use kerncast_passes::stats::Launch;

    /// The scheduler form's throughput term is the roofline's time, so what the roofline
    /// assumed to get it (no reuse profile, so every sector from DRAM) is said with the
    /// prediction, not dropped.
    #[test]
    fn the_scheduler_form_says_what_its_roofline_term_assumed() {
        let d = Device::load("rtx-3080").unwrap();
        let stats = BoundStats {
            kernel: "k".into(),
            launch: Some(Launch {
                grid: [1024, 1, 1],
                block: [256, 1, 1],
            }),
            features: [
                (Feature::Warps, 8192.0),
                (
                    Feature::Sectors {
                        space: Space::Global,
                        dir: Dir::Load,
                    },
                    1e6,
                ),
            ]
            .into_iter()
            .collect(),
            reuse: Some(Reuse::Unavailable("the addresses depend on data".into())),
            block_execs: [(
                0,
                kerncast_passes::stats::BlockExecs {
                    threads: 8192.0 * 32.0,
                    warps: 8192.0,
                },
            )]
            .into_iter()
            .collect(),
            ..Default::default()
        };
        let clocks = d.default_clocks().unwrap();
        let mut input = ModelInput::new(stats);
        input.chains = [(
            0,
            crate::schedule::chain::Chain {
                alu: 10.0,
                gmem: 1.0,
            },
        )]
        .into_iter()
        .collect();
        let p = LinearModel::default().predict(&input, &d, clocks).unwrap();
        assert!(
            p.notes.iter().any(|n| n.starts_with(
                "roofline term: l2_hit_rate not given and no reuse profile (the addresses depend on data)"
            )),
            "{:?}",
            p.notes
        );
    }
}
