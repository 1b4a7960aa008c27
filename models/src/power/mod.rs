//! Power and energy. (a) A physical model: P = P_idle(f) + Σ_i u_i · e_i · s_i(f), with u_i the
//! utilisation of activity class i that the time model reports, e_i the dynamic power of that
//! class at full utilisation at the reference clocks, and s_i the clock scaling:
//! (V/V₀)²·f/f₀ for core-domain classes, written (f/f₀)^γ because no public V–f table exists for
//! these GPUs (γ = 1: constant voltage; γ ≈ 3: V ∝ f), and f_mem/f_mem₀ for `dram`.
//! (b) The thesis' static power model (`features`, `gbrt`). Energy = power × time.

pub mod features;
pub mod gbrt;

use crate::device::{Clocks, Device};
use crate::model::{Prediction, Result};
use crate::nnls::nnls;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const NAME: &str = "power";

/// Coefficients of the physical model; fitted by [`fit_physical`] and stored in the device's
/// `[power]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhysicalPowerParams {
    pub reference: Clocks,
    /// W at full utilisation, by activity class (`sp`, `sfu`, `dpu`, `lsu`, `dram`).
    pub dynamic_w: BTreeMap<String, f64>,
    pub core_exponent: f64,
}

impl PhysicalPowerParams {
    pub fn from_device(d: &Device) -> Result<PhysicalPowerParams> {
        let r = d.need(&d.power.reference_mhz, "power.reference_mhz", NAME)?;
        Ok(PhysicalPowerParams {
            reference: Clocks::new(r[0], r[1]),
            dynamic_w: d.need(&d.power.dynamic_w, "power.dynamic_w", NAME)?.clone(),
            core_exponent: *d.need(&d.power.core_exponent, "power.core_exponent", NAME)?,
        })
    }

    /// Clock scaling of one activity class.
    pub fn scale(&self, class: &str, c: Clocks) -> f64 {
        if class == "dram" {
            c.mem_mhz / self.reference.mem_mhz
        } else {
            (c.core_mhz / self.reference.core_mhz).powf(self.core_exponent)
        }
    }

    /// Dynamic power (W) for the given utilisations at clocks `c`.
    pub fn dynamic(&self, activity: &BTreeMap<String, f64>, c: Clocks) -> f64 {
        activity
            .iter()
            .filter_map(|(k, u)| self.dynamic_w.get(k).map(|e| u * e * self.scale(k, c)))
            .sum()
    }
}

/// Fill power and energy of a time prediction with the physical model of the device. When the
/// device lacks a value, power stays `None` and a note names the missing key.
pub fn apply_physical(p: &mut Prediction, d: &Device, params: Option<&PhysicalPowerParams>) {
    let params = match params {
        Some(pp) => Ok(pp.clone()),
        None => PhysicalPowerParams::from_device(d),
    };
    let idle = d.idle_power(p.clocks);
    match (params, idle) {
        (Ok(pp), Ok(idle)) => {
            let w = idle + pp.dynamic(&p.activity, p.clocks);
            p.power_w = Some(w);
            p.energy_j = Some(w * p.time_s);
        }
        (Err(e), _) => p.notes.push(format!("no power: {e}")),
        (_, Err(e)) => p.notes.push(format!("no power: {e}")),
    }
}

/// One power measurement for fitting: utilisations, clocks, idle and measured power.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerRow {
    pub clocks: Clocks,
    pub activity: BTreeMap<String, f64>,
    pub idle_w: f64,
    pub measured_w: f64,
}

/// Fit e_i ≥ 0 (NNLS) for each γ of `gammas`, keep the γ with the smallest squared error.
/// Returns the parameters and the RMS error (W).
pub fn fit_physical(
    rows: &[PowerRow],
    reference: Clocks,
    gammas: &[f64],
) -> Option<(PhysicalPowerParams, f64)> {
    let classes: Vec<String> = rows
        .iter()
        .flat_map(|r| r.activity.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if rows.is_empty() || classes.is_empty() {
        return None;
    }
    let mut best: Option<(PhysicalPowerParams, f64)> = None;
    for &g in gammas {
        let probe = PhysicalPowerParams {
            reference,
            dynamic_w: BTreeMap::new(),
            core_exponent: g,
        };
        let a = DMatrix::from_fn(rows.len(), classes.len(), |i, j| {
            rows[i].activity.get(&classes[j]).copied().unwrap_or(0.0)
                * probe.scale(&classes[j], rows[i].clocks)
        });
        let b = DVector::from_iterator(rows.len(), rows.iter().map(|r| r.measured_w - r.idle_w));
        let x = nnls(&a, &b);
        let rms = ((&a * &x - &b).norm_squared() / rows.len() as f64).sqrt();
        if best.as_ref().is_none_or(|(_, e)| rms < *e) {
            let dynamic_w = classes.iter().cloned().zip(x.iter().copied()).collect();
            best = Some((
                PhysicalPowerParams {
                    reference,
                    dynamic_w,
                    core_exponent: g,
                },
                rms,
            ));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_coefficients_and_exponent() {
        let truth = PhysicalPowerParams {
            reference: Clocks::new(975.0, 3505.0),
            dynamic_w: [("dram".to_string(), 40.0), ("sp".to_string(), 90.0)].into(),
            core_exponent: 2.0,
        };
        let mut rows = Vec::new();
        for (i, core) in [595.0, 785.0, 975.0, 1164.0].into_iter().enumerate() {
            for mem in [810.0, 3505.0] {
                let act: BTreeMap<String, f64> = [
                    ("dram".to_string(), 0.2 + 0.2 * i as f64),
                    ("sp".to_string(), 0.9 - 0.2 * i as f64),
                ]
                .into();
                let c = Clocks::new(core, mem);
                rows.push(PowerRow {
                    clocks: c,
                    idle_w: 40.0,
                    measured_w: 40.0 + truth.dynamic(&act, c),
                    activity: act,
                });
            }
        }
        let gammas: Vec<f64> = (0..=12).map(|k| k as f64 * 0.25).collect();
        let (p, rms) = fit_physical(&rows, truth.reference, &gammas).unwrap();
        assert_eq!(p.core_exponent, 2.0);
        assert!(rms < 1e-9);
        assert!((p.dynamic_w["sp"] - 90.0).abs() < 1e-9);
        assert!((p.dynamic_w["dram"] - 40.0).abs() < 1e-9);
    }
}
