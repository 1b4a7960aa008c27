//! Model B: kerncast's analytical DVFS and power model, calibrated on the micro-benchmarks only.
//!
//! Time: a roofline of the core domain and the DRAM domain joined by a smooth maximum,
//! T(f) ∝ ‖(f_c0/f_c, m·f_m0/f_m)‖_p, where m, the DRAM-to-core time ratio at the reference
//! clocks, comes from the static counts: m = κ · h · (global bytes / core issue cost) · (lanes·f_c0 /
//! BW_0), with lanes the chip's FP32 lanes and BW_0 its DRAM bandwidth at the reference memory clock
//! (from the GPU's device profile, `profile::Peak`), and h the share of a kernel's n global
//! accesses per thread that miss the caches: the first accesses of a thread stream from DRAM, the
//! many accesses of an unrolled loop mostly reuse lines already on chip. Two forms are tried, h = c_0/(c_0 + n) and h = min(1, c_0/n) (c_0
//! compulsory misses per thread); κ, c_0, the form and p are calibrated.
//! Power: the physical form P = P_idle(f) + u_c(f)·g(f_c)·Σ_k w_k·share_k + u_m(f)·a_m·f_m/f_m0,
//! with u_c, u_m the domain utilisations of the time model, share_k the class shares of the core
//! issue cost, P_idle the measured idle power per clock pair, and g(f_c) = (f_c/f_c0)(V/V_0)² fitted
//! per core level (the V–f curve of the GTX Titan X is not published). Fitting alternates linear
//! least squares for (w, a_m) and for g, on relative errors.
//!
//! This lives here rather than in kerncast-models because that crate had no DVFS/power model yet
//! when this was written; it is self-contained so it can move there (see docs/validation.md).

use crate::data::{Benchmark, Clock};
use crate::features::{Features, IssueCosts};
use crate::isa::Class;
use crate::linalg::weighted_ridge;
use crate::metrics::Curve;
use crate::model::{Predictor, TrainSet};
use crate::profile::Peak;

/// Groups of the core issue cost with their own energy weight.
const GROUPS: [&[Class]; 7] = [
    &[Class::Sp],
    &[Class::Dp],
    &[Class::Int],
    &[Class::Sfu],
    &[Class::Shared],
    &[
        Class::GlobalLd,
        Class::GlobalSt,
        Class::Local,
        Class::Atomic,
    ],
    &[Class::Param, Class::Control, Class::Move],
];

#[derive(Debug, Clone)]
pub struct Analytic {
    pub kappa: f64,
    pub c0: f64,
    /// `true`: h = min(1, c_0/n); `false`: h = c_0/(c_0 + n).
    pub knee: bool,
    pub p: f64,
    /// Energy weight (W at full core utilisation, reference clocks) per cost group.
    pub w: [f64; 7],
    /// DRAM power at full utilisation, reference memory clock (W).
    pub a_mem: f64,
    /// g(f_c) per grid point (1 at the reference core clock).
    pub g: Vec<f64>,
    /// Core issue rate over DRAM bandwidth at the reference clocks (FP32 instructions per byte).
    pub peak_ratio: f64,
    costs: IssueCosts,
    grid: Vec<Clock>,
    reference: usize,
    idle: Vec<f64>,
}

/// The DRAM-to-core time ratio m at the reference clocks; `peak_ratio` is lanes·f_c0/BW_0.
fn ratio_m(f: &Features, kappa: f64, c0: f64, knee: bool, peak_ratio: f64) -> f64 {
    let n = f.global_accesses / f.kernels.max(1.0);
    let miss = match (c0.is_finite(), knee) {
        (false, _) => 1.0,
        (true, true) => (c0 / n.max(1e-9)).min(1.0),
        (true, false) => c0 / (c0 + n),
    };
    kappa * miss * f.bytes_per_cost() * peak_ratio
}

fn shares(f: &Features) -> [f64; 7] {
    GROUPS.map(|g| g.iter().map(|c| f.cost_share(*c)).sum())
}

/// (time scaling, u_core, u_mem) at every grid point, for a DRAM/core ratio m.
fn time_curve(grid: &[Clock], reference: usize, m: f64, p: f64) -> Vec<(f64, f64, f64)> {
    let (fm0, fc0) = (
        grid[reference].mem_mhz as f64,
        grid[reference].core_mhz as f64,
    );
    let norm = |r: f64, s: f64| (r.powf(p) + s.powf(p)).powf(1.0 / p);
    let t0 = norm(1.0, m);
    grid.iter()
        .map(|c| {
            let r = fc0 / c.core_mhz as f64;
            let s = m * fm0 / c.mem_mhz as f64;
            let t = norm(r, s);
            (t / t0, r / t, s / t)
        })
        .collect()
}

impl Analytic {
    pub fn fit(t: &TrainSet, peak: &Peak) -> Analytic {
        let feats: Vec<Features> = t
            .benches
            .iter()
            .map(|b| Features::of(b, &t.costs))
            .collect();
        let fc0 = t.grid[t.reference].core_mhz as f64;
        let peak_ratio = peak.fp32_lanes * fc0 * 1e6 / peak.bw0_bytes_per_s;
        // 1. time: grid search over (κ, c_0, p) on the mean relative time error.
        let mut best = (f64::INFINITY, 1.0, f64::INFINITY, false, 2.0);
        let c0s = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 256.0, f64::INFINITY];
        for (c0, knee) in c0s.iter().flat_map(|c| [(*c, false), (*c, true)]) {
            for ki in 0..=50 {
                let kappa = 10f64.powf(-4.0 + ki as f64 * 0.1);
                for p in [1.0, 2.0, 3.0, 4.0, 6.0, 8.0] {
                    let mut err = 0.0;
                    for (f, y) in feats.iter().zip(&t.targets) {
                        let m = ratio_m(f, kappa, c0, knee, peak_ratio);
                        let c = time_curve(t.grid, t.reference, m, p);
                        err += c
                            .iter()
                            .zip(y)
                            .map(|(c, y)| (c.0 - y[0]).abs() / y[0])
                            .sum::<f64>();
                    }
                    if err < best.0 {
                        best = (err, kappa, c0, knee, p);
                    }
                }
            }
        }
        let (_, kappa, c0, knee, p) = best;
        let mut model = Analytic {
            kappa,
            c0,
            knee,
            p,
            w: [0.0; 7],
            a_mem: 0.0,
            g: vec![1.0; t.grid.len()],
            peak_ratio,
            costs: t.costs,
            grid: t.grid.to_vec(),
            reference: t.reference,
            idle: t.idle_power_w.to_vec(),
        };
        model.fit_power(t, &feats);
        model
    }

    fn fit_power(&mut self, t: &TrainSet, feats: &[Features]) {
        let fm0 = t.grid[t.reference].mem_mhz as f64;
        // Rows: (bench, grid point) with u_c, u_m, shares, measured absolute power.
        struct Row {
            gi: usize,
            uc: f64,
            um: f64,
            sh: [f64; 7],
            dyn_w: f64,
            p_w: f64,
        }
        let mut rows = Vec::new();
        for ((f, b), _) in feats.iter().zip(t.benches).zip(&t.targets) {
            let curve = time_curve(
                t.grid,
                t.reference,
                ratio_m(f, self.kappa, self.c0, self.knee, self.peak_ratio),
                self.p,
            );
            let sh = shares(f);
            for (gi, (c, m)) in curve.iter().zip(&b.meas).enumerate() {
                rows.push(Row {
                    gi,
                    uc: c.1,
                    um: c.2 * t.grid[gi].mem_mhz as f64 / fm0,
                    sh,
                    dyn_w: m.power_w - t.idle_power_w[gi],
                    p_w: m.power_w,
                });
            }
        }
        let wts: Vec<f64> = rows.iter().map(|r| 1.0 / (r.p_w * r.p_w)).collect();
        for _ in 0..30 {
            // (w, a_mem) given g.
            let x: Vec<Vec<f64>> = rows
                .iter()
                .map(|r| {
                    let mut v: Vec<f64> = r.sh.iter().map(|s| s * r.uc * self.g[r.gi]).collect();
                    v.push(r.um);
                    v
                })
                .collect();
            let y: Vec<f64> = rows.iter().map(|r| r.dyn_w).collect();
            if let Some(beta) = weighted_ridge(&x, &y, &wts, 1e-9) {
                self.w.copy_from_slice(&beta[..7]);
                self.a_mem = beta[7];
            }
            // g per core level given (w, a_mem); tie levels with equal core clock.
            let mut g = vec![1.0; t.grid.len()];
            for (gv, clock) in g.iter_mut().zip(t.grid) {
                let core = clock.core_mhz;
                let (mut num, mut den) = (0.0, 0.0);
                for (r, wt) in rows.iter().zip(&wts) {
                    if t.grid[r.gi].core_mhz != core {
                        continue;
                    }
                    let a = r.uc * r.sh.iter().zip(&self.w).map(|(s, w)| s * w).sum::<f64>();
                    num += wt * a * (r.dyn_w - self.a_mem * r.um);
                    den += wt * a * a;
                }
                if den > 0.0 {
                    *gv = num / den;
                }
            }
            let g0 = g[t.reference];
            if g0 > 0.0 {
                self.g = g.iter().map(|v| v / g0).collect();
                self.w.iter_mut().for_each(|w| *w *= g0);
            }
        }
    }

    /// Absolute power (W) and time scaling at every grid point.
    fn absolute(&self, f: &Features) -> Vec<(f64, f64)> {
        let fm0 = self.grid[self.reference].mem_mhz as f64;
        let m = ratio_m(f, self.kappa, self.c0, self.knee, self.peak_ratio);
        let sh = shares(f);
        let a: f64 = sh.iter().zip(&self.w).map(|(s, w)| s * w).sum();
        time_curve(&self.grid, self.reference, m, self.p)
            .iter()
            .enumerate()
            .map(|(gi, c)| {
                let um = c.2 * self.grid[gi].mem_mhz as f64 / fm0;
                // Never below the measured idle power of the clock pair.
                let p = self.idle[gi] + (c.1 * self.g[gi] * a + self.a_mem * um).max(0.0);
                (c.0, p)
            })
            .collect()
    }

    /// Predicted DRAM/core time ratio at the reference clocks (for reports).
    pub fn memory_ratio(&self, b: &Benchmark) -> f64 {
        ratio_m(
            &Features::of(b, &self.costs),
            self.kappa,
            self.c0,
            self.knee,
            self.peak_ratio,
        )
    }
}

impl Predictor for Analytic {
    fn name(&self) -> &str {
        "B analytical roofline DVFS + physical power"
    }
    fn predict(&self, b: &Benchmark) -> Curve {
        let abs = self.absolute(&Features::of(b, &self.costs));
        let p0 = abs[self.reference].1;
        abs.iter().map(|(t, p)| [*t, p / p0, t * p / p0]).collect()
    }
}
