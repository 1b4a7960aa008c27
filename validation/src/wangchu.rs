//! Model B2: kerncast's own DVFS and power models from `kerncast-models`, the Wang & Chu time
//! model (`dvfs::t_active`) and the physical power model (`power::fit_physical`), fed with what
//! the released instruction sequences tell and calibrated on the micro-benchmarks only.
//!
//! The sequences give per-thread counts but no launch geometry, no addresses and no profiled
//! counters, so the model's inputs are filled as follows (per kernel of a benchmark, averaged):
//!
//! | Wang & Chu input | from the sequence |
//! |---|---|
//! | `gld_trans` per warp | global/local/atomic bytes per thread × 32 lanes / 128-byte lines (full coalescing) |
//! | `comp_inst` per warp | core issue cost of the other instructions (FP32 equivalents, `features::IssueCosts`) |
//! | `shared_trans` | shared accesses per thread |
//! | `l2_hr` | 1 − min(1, c₀/n) for n global accesses per thread (c₀ compulsory misses, calibrated) |
//! | `#Aw` | calibrated, one value for all kernels (occupancy is not in the data) |
//! | `phases` | barriers that close a stretch of the sequence with a global load (`load_periods`) |
//! | blocks, warps per block | 8-warp blocks, 1000 of them: the scaling factors do not depend on the count |
//!
//! Calibrated: the four constants `dvfs_fit` fits (DRAM latency slope and offset, DRAM delay,
//! cycles per instruction) by Nelder–Mead on the mean relative error of the time scaling factor,
//! for each (c₀, #Aw) of a small grid; then the power model's per-class dynamic powers and core
//! exponent by NNLS on the measured watts, with the utilisations this time model gives.
//! The starting constants are those of the data set's GPU's device profile (`profile`), for the
//! released data `devices/gtx-titan-x.toml`.

use crate::data::{Benchmark, Clock, Kernel};
use crate::features::{Features, IssueCosts};
use crate::isa::Class;
use crate::metrics::Curve;
use crate::model::{Predictor, TrainSet};
use kerncast_models::device::{Clocks, Device};
use kerncast_models::dvfs::{
    core_utilisation, dram_utilisation, t_active, t_exec, DvfsKernel, DvfsParams,
};
use kerncast_models::dvfs_fit::{from_log, nelder_mead, to_log};
use kerncast_models::power::{fit_physical, PhysicalPowerParams, PowerRow};
use std::collections::BTreeMap;

const WARPS_PER_BLOCK: f64 = 8.0;
const BLOCKS: f64 = 1000.0;
/// Candidate compulsory misses per thread (∞: every access misses L2) and active warps per SM.
const C0S: [f64; 6] = [1.0, 2.0, 4.0, 16.0, 64.0, f64::INFINITY];
const ACTIVE_WARPS: [f64; 3] = [16.0, 32.0, 64.0];
/// Starting multiples of the device's DRAM delay (see `WangChu::fit`).
const DEL_STARTS: [f64; 2] = [1.0, 1e-3];

/// What one benchmark looks like to the time and power models.
#[derive(Debug, Clone)]
struct Inputs {
    gld_trans: f64,
    comp_inst: f64,
    shared_trans: f64,
    accesses: f64,
    phases: f64,
    /// Shares of the core issue cost by power class (`sp`, `dpu`, `lsu`).
    shares: [(&'static str, f64); 3],
}

impl Inputs {
    fn of(b: &Benchmark, costs: &IssueCosts) -> Inputs {
        let f = Features::of(b, costs);
        let per_kernel = 1.0 / f.kernels.max(1.0);
        let global = [
            Class::GlobalLd,
            Class::GlobalSt,
            Class::Local,
            Class::Atomic,
        ];
        let global_cost: f64 = global
            .iter()
            .map(|c| f.counts[c.index()] * costs.of(*c))
            .sum();
        let share = |cs: &[Class]| cs.iter().map(|c| f.cost_share(*c)).sum::<f64>();
        let lsu: Vec<Class> = global.iter().copied().chain([Class::Shared]).collect();
        Inputs {
            gld_trans: f.global_bytes * per_kernel * 32.0 / 128.0,
            comp_inst: (f.core_cost - global_cost).max(1.0) * per_kernel,
            shared_trans: f.counts[Class::Shared.index()] * per_kernel,
            accesses: f.global_accesses * per_kernel,
            phases: (load_periods(&b.kernels) * per_kernel).max(1.0),
            shares: [
                (
                    "sp",
                    share(&[
                        Class::Sp,
                        Class::Int,
                        Class::Sfu,
                        Class::Param,
                        Class::Control,
                        Class::Move,
                    ]),
                ),
                ("dpu", share(&[Class::Dp])),
                ("lsu", share(&lsu)),
            ],
        }
    }

    fn kernel(&self, c0: f64, active_warps: f64) -> DvfsKernel {
        let miss = if c0.is_finite() && self.accesses > 0.0 {
            (c0 / self.accesses).min(1.0)
        } else {
            1.0
        };
        DvfsKernel {
            blocks: BLOCKS,
            warps_per_block: WARPS_PER_BLOCK,
            active_warps,
            sm_count: 24.0,
            gld_trans: self.gld_trans,
            comp_inst: self.comp_inst,
            shared_trans: self.shared_trans,
            l2_hr: 1.0 - miss,
            phases: self.phases,
            // The sequences give no registers to find the loads' consumers: the paper's one
            // transaction in flight per warp.
            exposed: 1.0,
            // Nor addresses to tell how much of a line a miss fetches: full lines, as the paper.
            sector_fill: 1.0,
        }
    }
}

/// Load periods of the shared-memory cases, as `kerncast_models::periods` counts them on a
/// kernel's PTX: the barriers that close a stretch of a kernel's sequence holding a global load.
fn load_periods(kernels: &[Kernel]) -> f64 {
    let mut periods = 0;
    for k in kernels {
        let mut loaded = false;
        for i in &k.insts {
            if i.class() == Class::GlobalLd {
                loaded = true;
            } else if i.opcode_name() == "bar" && loaded {
                periods += 1;
                loaded = false;
            }
        }
    }
    periods as f64
}

fn clocks(c: &Clock) -> Clocks {
    Clocks::new(c.core_mhz as f64, c.mem_mhz as f64)
}

/// Execution time in seconds at one clock pair (for `BLOCKS` blocks).
fn seconds(p: &DvfsParams, k: &DvfsKernel, c: Clocks) -> f64 {
    t_exec(t_active(p, k, c).0, k) / (c.core_mhz * 1e6)
}

/// Core issue and DRAM utilisations at one clock pair, given the time there.
fn activity(
    p: &DvfsParams,
    k: &DvfsKernel,
    x: &Inputs,
    c: Clocks,
    time_s: f64,
    bw0: f64,
    mem0: f64,
) -> BTreeMap<String, f64> {
    let u_core = core_utilisation(p, k, c, time_s);
    let u_dram = dram_utilisation(k, time_s, bw0 * c.mem_mhz / mem0);
    let mut a: BTreeMap<String, f64> = x
        .shares
        .iter()
        .map(|(name, s)| (name.to_string(), u_core * s))
        .collect();
    a.insert("dram".into(), u_dram);
    a
}

/// What the device profile contributes: the starting constants and the DRAM bandwidth at the
/// reference memory clock.
#[derive(Debug, Clone)]
pub struct Start {
    pub params: DvfsParams,
    pub bw0: f64,
}

impl Start {
    /// From a device profile; `mem0_mhz` is the data set's reference memory clock.
    pub fn from_device(dev: &Device, mem0_mhz: f64) -> Result<Start, String> {
        Ok(Start {
            params: DvfsParams::from_device(dev).map_err(|e| e.to_string())?,
            bw0: dev
                .dram_bandwidth(mem0_mhz, "B2")
                .map_err(|e| e.to_string())?,
        })
    }

    /// From `devices/gtx-titan-x.toml`, the GPU of the released measurements.
    pub fn gtx_titan_x(mem0_mhz: f64) -> Result<Start, String> {
        let dev = Device::load("gtx-titan-x").map_err(|e| format!("model B2: {e}"))?;
        Start::from_device(&dev, mem0_mhz).map_err(|e| format!("model B2: {e}"))
    }
}

#[derive(Debug, Clone)]
pub struct WangChu {
    pub params: DvfsParams,
    pub c0: f64,
    pub active_warps: f64,
    pub power: PhysicalPowerParams,
    /// Mean relative error of the time scaling factor on the training set.
    pub train_time_error: f64,
    grid: Vec<Clock>,
    reference: usize,
    idle: Vec<f64>,
    bw0: f64,
    mem0: f64,
    costs: IssueCosts,
}

/// Mean relative error of the predicted time scaling factors over the training curves.
fn time_loss(p: &DvfsParams, ks: &[DvfsKernel], t: &TrainSet, grid: &[Clocks]) -> f64 {
    let mut err = 0.0;
    for (k, y) in ks.iter().zip(&t.targets) {
        let t0 = seconds(p, k, grid[t.reference]);
        for (c, y) in grid.iter().zip(y) {
            err += (seconds(p, k, *c) / t0 - y[0]).abs() / y[0];
        }
    }
    err / (ks.len() * grid.len()).max(1) as f64
}

impl WangChu {
    /// Fits on the training view (at least one benchmark); the device profile supplies the
    /// starting constants, the DRAM bandwidth and nothing else.
    pub fn fit(t: &TrainSet, from: &Start) -> WangChu {
        let (start, bw0) = (&from.params, from.bw0);
        let mem0 = t.grid[t.reference].mem_mhz as f64;
        let grid: Vec<Clocks> = t.grid.iter().map(clocks).collect();
        let inputs: Vec<Inputs> = t.benches.iter().map(|b| Inputs::of(b, &t.costs)).collect();
        let x0 = to_log(start);
        let mut best: Option<(f64, DvfsParams, f64, f64)> = None;
        for &c0 in &C0S {
            for &aw in &ACTIVE_WARPS {
                let ks: Vec<DvfsKernel> = inputs.iter().map(|x| x.kernel(c0, aw)).collect();
                let f = |x: &[f64]| time_loss(&from_log(start, x), &ks, t, &grid);
                // Two starts: the device's DRAM delay, and almost none. The loss has a valley
                // for each regime (memory sensitivity from the DRAM queue, or from the DRAM
                // latency alone), and a simplex started in one does not cross to the other.
                for del_scale in DEL_STARTS {
                    let mut x = x0.to_vec();
                    x[2] += del_scale.ln();
                    for step in [1.0, 0.3, 0.1] {
                        x = nelder_mead(&f, &x, step, 150);
                    }
                    let l = f(&x);
                    if best.as_ref().is_none_or(|b| l < b.0) {
                        best = Some((l, from_log(start, &x), c0, aw));
                    }
                }
            }
        }
        // The grid is not empty, so `best` is set.
        let (train_time_error, params, c0, active_warps) =
            best.unwrap_or((f64::NAN, start.clone(), f64::INFINITY, ACTIVE_WARPS[0]));
        let mut rows = Vec::new();
        for ((x, b), _) in inputs.iter().zip(t.benches).zip(&t.targets) {
            let k = x.kernel(c0, active_warps);
            for ((gi, c), m) in grid.iter().enumerate().zip(&b.meas) {
                let ts = seconds(&params, &k, *c);
                rows.push(PowerRow {
                    clocks: *c,
                    activity: activity(&params, &k, x, *c, ts, bw0, mem0),
                    idle_w: t.idle_power_w[gi],
                    measured_w: m.power_w,
                });
            }
        }
        let gammas: Vec<f64> = (0..=40).map(|i| i as f64 * 0.1).collect();
        // Rows and activity classes exist for any non-empty training set.
        let power = fit_physical(&rows, grid[t.reference], &gammas)
            .map(|(p, _rms)| p)
            .unwrap_or(PhysicalPowerParams {
                reference: grid[t.reference],
                dynamic_w: BTreeMap::new(),
                core_exponent: 1.0,
            });
        WangChu {
            params,
            c0,
            active_warps,
            power,
            train_time_error: train_time_error * 100.0,
            grid: t.grid.to_vec(),
            reference: t.reference,
            idle: t.idle_power_w.to_vec(),
            costs: t.costs,
            bw0,
            mem0,
        }
    }
}

impl Predictor for WangChu {
    fn name(&self) -> &str {
        "B2 Wang & Chu DVFS + physical power (models/)"
    }
    fn predict(&self, b: &Benchmark) -> Curve {
        let x = Inputs::of(b, &self.costs);
        let k = x.kernel(self.c0, self.active_warps);
        let abs: Vec<(f64, f64)> = self
            .grid
            .iter()
            .enumerate()
            .map(|(gi, c)| {
                let c = clocks(c);
                let ts = seconds(&self.params, &k, c);
                let a = activity(&self.params, &k, &x, c, ts, self.bw0, self.mem0);
                (ts, self.idle[gi] + self.power.dynamic(&a, c))
            })
            .collect();
        let (t0, p0) = abs[self.reference];
        abs.iter()
            .map(|(t, p)| [t / t0, p / p0, t * p / (t0 * p0)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Inst, OPCODES, SPACES};

    fn inst(opcode: &str, space: Option<&str>) -> Inst {
        let id = |names: &[&str], n: &str| names.iter().position(|x| *x == n).unwrap() as u8;
        Inst {
            opcode: id(&OPCODES, opcode),
            space: space.map_or(0, |s| id(&SPACES, s) + 1),
            ty: 0,
            n_ops: 0,
            dep_dist: 0,
            dep_kind: 0,
        }
    }

    /// A tree reduction's sequence (a load, a barrier, then shared steps with a barrier each)
    /// has one period; a tiled product's, one per tile. A barrier in the next kernel does not
    /// close the last kernel's load, and stores open no period.
    #[test]
    fn a_period_is_a_barrier_after_a_global_load() {
        let (ld, bar) = (inst("ld", Some("global")), inst("bar", None));
        let (sh, st) = (inst("ld", Some("shared")), inst("st", Some("global")));
        let kernel = |insts: Vec<Inst>| Kernel { index: 0, insts };
        let reduction = kernel(vec![ld, sh, bar, sh, sh, bar, sh, sh, bar, sh, st]);
        assert_eq!(load_periods(&[reduction]), 1.0);
        let tile = [ld, ld, bar, sh, sh, bar];
        let product = kernel(tile.iter().cycle().take(4 * tile.len()).copied().collect());
        assert_eq!(load_periods(&[product]), 4.0);
        let two = [kernel(vec![st, ld]), kernel(vec![bar, sh, bar])];
        assert_eq!(load_periods(&two), 0.0);
    }
}
