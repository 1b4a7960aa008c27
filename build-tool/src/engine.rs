//! The one place where the build tool meets the engine (`kerncast-passes` counting and
//! `kerncast-models` prediction). Why a seam: reports, gates and rank only need "counts of a
//! kernel for a workload" and "a prediction for counts on a device"; keeping that behind two small
//! traits lets the counting back end change (functional emulator today, the symbolic counter when
//! it lands) without touching any renderer, and lets rank reuse a prepared kernel across
//! thousands of workloads.

use crate::report::{Ceiling, Component, DramTraffic, DvfsPoint, L2Level, ModelResult, Roofline};
use crate::workload::{Workload, WorkloadSpec};
use kerncast_models::model::Model;
use kerncast_models::power::PhysicalPowerParams;
use kerncast_models::schedule::adapter::blocks_from_cfg;
use kerncast_models::schedule::chain::{block_chains, Chain};
use kerncast_models::schedule::dag::SchedInst;
use kerncast_models::{sweep, Device, ModelInput};
use kerncast_passes::cfg::Cfg;
use kerncast_passes::count::{dynamic_shared_assumption, DYNAMIC_SHARED_BYTES};
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::points_to::PointsTo;
use kerncast_passes::ptx::{AddrBase, Function, Module, Operand, PtxType};
use kerncast_passes::reuse::{
    from_touches, Reuse, ReuseProfile, MAX_SAMPLE_BLOCKS, MIN_SAMPLE_BLOCKS,
};
use kerncast_passes::stats::{Assumption, BoundStats, DType, Feature, Launch, OpKind, Space};
use kerncast_passes::taint::Taint;
use std::collections::BTreeMap;

/// Counts one kernel of a module for workloads.
pub trait Counter: Send + Sync {
    /// Short name, recorded in every report (`emulator`, `symbolic`).
    fn name(&self) -> &'static str;
    /// Prepares a kernel once; the result binds workloads.
    fn prepare(&self, m: &Module, kernel: &str) -> Result<Box<dyn Prepared>, String>;
}

/// Counts bound to one workload, with caveats about how they were obtained.
pub struct Bound {
    pub stats: BoundStats,
    pub notes: Vec<String>,
    /// The back end that produced these counts (a counter may fall back to another).
    pub counter: String,
}

/// A kernel ready to be bound to workloads.
pub trait Prepared: Send + Sync {
    /// Counts for one resolved workload; `params` names the kernel's parameters in declaration
    /// order (from the source), so workload values reach the right PTX parameter.
    fn bind(&self, w: &Workload, params: &[String]) -> Result<BoundStats, String>;

    /// Counts for a workload spec with some parameters overridden. A back end that can trade
    /// exactness for speed on large launches (the emulator) uses the spec to scale sizes.
    fn bind_spec(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        params: &[String],
    ) -> Result<Bound, String> {
        let w = spec.resolve_launch(overrides)?;
        Ok(Bound {
            stats: self.bind(&w, params)?,
            notes: Vec::new(),
            counter: self.counter().to_string(),
        })
    }
    /// Counts with the size parameters (see [`WorkloadSpec::size_roots`]) scaled by each factor,
    /// for the time-vs-size chart. Back ends that sample (the emulator) share the samples.
    fn bind_sizes(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        params: &[String],
        scales: &[f64],
    ) -> Result<Vec<Bound>, String> {
        let base = spec.resolve_launch(overrides)?;
        scales
            .iter()
            .map(|f| {
                let o = scaled_overrides(spec, &base, overrides, *f);
                self.bind_spec(spec, &o, params)
            })
            .collect()
    }

    /// Whether binding is cheap (symbolic) or runs the kernel (emulation): decides how many
    /// extra workloads the time-vs-size chart and rank sweeps evaluate.
    fn cheap(&self) -> bool;

    /// Name of the back end that binds (`symbolic`, `emulator`).
    fn counter(&self) -> &'static str;
}

/// Counting by running the kernel in the functional PTX emulator on zero-filled buffers: the
/// stand-in until the symbolic counter is wired in.
///
/// Exact for kernels whose control flow does not depend on buffer contents. Every launch is
/// counted within a fixed work budget that does not grow with the launch ([`Self::spread_steps`]
/// per run, a few runs per launch): a launch that runs whole within it is emulated whole; one
/// whose grid is fixed (no size the workload scales) or whose sizes do not scale down is
/// estimated from as many of its own blocks as the budget runs, spread evenly over its grid,
/// scaled to the whole grid, with the spread of the blocks' work shown
/// ([`EmuPrepared::estimate`]). A launch of at most
/// `direct_threads` threads is emulated whole. A larger one is emulated at five smaller sizes
/// (the size parameters the grid depends on, at consecutive multiples of lcm(32, block sizes)
/// that fit the budget), each count is interpolated as a cubic along that ray through the four
/// largest samples, checked against the fifth, and evaluated at the real size. Counts of affine kernels are (quasi-)polynomials of degree ≤ 3 in
/// the sizes, so the check passes exactly when the sizes keep their residues; when it fails the
/// report's notes name the features that did not fit. Every report made with it says so.
pub struct EmulatorCounter {
    /// Warp-instruction steps per run before giving up.
    pub max_steps: u64,
    /// Largest launch (threads) emulated directly, and the budget of the largest sample.
    pub direct_threads: u64,
    /// Warp steps one sample (or a small launch) may take before a smaller size is used.
    pub sample_steps: u64,
    /// Warp steps after which a run that samples a launch's blocks (or tries it whole, or
    /// traces its first blocks for the reuse profile) starts no further block (a traced run once
    /// it has traced the blocks the profile wants, at most [`MAX_SAMPLE_BLOCKS`]); a run may go
    /// on to three times this (then it fails, naming the budget).
    pub spread_steps: u64,
}

impl Default for EmulatorCounter {
    fn default() -> Self {
        let max_steps = kerncast_passes::budget::get().emu_steps;
        EmulatorCounter {
            max_steps,
            // Unoptimised builds (tests) emulate about a hundred times slower.
            direct_threads: if cfg!(debug_assertions) {
                1 << 13
            } else {
                1 << 16
            },
            // never more than the budget: `--emu-steps` bounds every run, samples included
            sample_steps: if cfg!(debug_assertions) {
                2_000_000
            } else {
                20_000_000
            }
            .min(max_steps),
            // under a second in a release build: the two runs of a launch stay far under the
            // ten seconds it may take, whatever its size, for a program's every launch
            spread_steps: if cfg!(debug_assertions) {
                100_000
            } else {
                1_000_000
            }
            .min(max_steps),
        }
    }
}

/// (What the buffers held, zeros or the data given, the symbolic counter's note says.)
const EMULATED: &str = "counts from emulating the whole launch (functionally)";

/// An emulation run's outcome: what it ran, or whether it stopped at its step budget and why.
type RunOutcome = Result<Ran, (bool, String)>;

/// A finished emulation run: its counts (of the blocks it ran, unscaled), how many blocks it
/// ran, and the warp steps of each.
#[derive(Clone)]
struct Ran {
    stats: BoundStats,
    blocks_run: u64,
    block_steps: Vec<u64>,
}

/// Which blocks one emulation run runs, in which order, within which budgets.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Warp steps after which the run fails (`emu::Options::max_steps`).
    max_steps: u64,
    /// Warp steps after which it starts no further block (`emu::Options::soft_steps`).
    soft_steps: Option<u64>,
    /// Only this many leading blocks, their global sectors traced for the reuse profile.
    trace: Option<u64>,
    /// Every this-many-th block.
    every: u64,
    /// In an order spread over the grid at every prefix (`emu::Options::spread_order`), and
    /// only until the blocks run estimate the launch's work closely
    /// (`emu::Options::stop_when_settled`).
    spread: bool,
    /// Stop once the blocks it traces are run and the whole launch would pass twice the soft
    /// limit (`emu::Options::stop_when_over`).
    stop_when_over: bool,
}

impl Plan {
    /// The whole launch in dispatch order within `max_steps`.
    fn whole(max_steps: u64) -> Plan {
        Plan {
            max_steps,
            soft_steps: None,
            trace: None,
            every: 1,
            spread: false,
            stop_when_over: false,
        }
    }
}

struct EmuPrepared {
    module: Module,
    kernel: String,
    max_steps: u64,
    direct_threads: u64,
    sample_steps: u64,
    spread_steps: u64,
    /// Samples by ray (spec, non-size overrides, ratios of the sizes), shared by every workload
    /// point on that ray: rank and the size sweep emulate five times, not once per point.
    memo: std::sync::Mutex<BTreeMap<String, std::sync::Arc<Samples>>>,
    /// Every emulation run so far, by what it read (see `run_inner`).
    runs: std::sync::Mutex<BTreeMap<String, RunOutcome>>,
    /// The runs that stopped at their step budget, by what they read.
    overruns: std::sync::Mutex<BTreeMap<String, Overrun>>,
    /// PTX lines of the global accesses whose address depends on data (`taint`): on zero-filled
    /// buffers their addresses are not the real ones, so no reuse profile is made of them.
    /// Worked out when first needed: the symbolic counter prepares this fallback for every
    /// kernel, and most never use it.
    data_addresses: std::sync::OnceLock<Vec<u32>>,
}

/// A run that stopped at its step budget: the blocks it had finished, and the reuse profile of
/// those of them it traced.
#[derive(Clone)]
struct Overrun {
    blocks_done: u64,
    profile: Option<ReuseProfile>,
}

/// Exact counts at a few sizes along one ray: (value of the first size root, counts).
struct Samples {
    /// Empty where the sizes cannot be scaled down: then every workload is sampled by blocks
    /// spread over its own grid, and `how` says why.
    pts: Vec<(f64, BoundStats)>,
    roots: Vec<String>,
    /// How the counts of a single sample (a fixed grid) were obtained.
    how: String,
}

impl Counter for EmulatorCounter {
    fn name(&self) -> &'static str {
        "emulator"
    }
    fn prepare(&self, m: &Module, kernel: &str) -> Result<Box<dyn Prepared>, String> {
        if m.kernels().all(|k| k.name != kernel) {
            return Err(format!("kernel `{kernel}` not found in the PTX"));
        }
        Ok(Box::new(EmuPrepared {
            module: m.clone(),
            kernel: kernel.to_string(),
            max_steps: self.max_steps,
            direct_threads: self.direct_threads,
            sample_steps: self.sample_steps,
            spread_steps: self.spread_steps,
            memo: Default::default(),
            runs: Default::default(),
            overruns: Default::default(),
            data_addresses: Default::default(),
        }))
    }
}

/// `overrides` plus every size root of `spec` at `factor` × its value in `base` (at least 1).
pub fn scaled_overrides(
    spec: &WorkloadSpec,
    base: &Workload,
    overrides: &BTreeMap<String, i64>,
    factor: f64,
) -> BTreeMap<String, i64> {
    let mut o = overrides.clone();
    for r in spec.size_roots() {
        if let Some(v) = base.params.get(&r) {
            o.insert(r, ((*v as f64 * factor).round() as i64).max(1));
        }
    }
    o
}

fn threads(w: &Workload) -> u64 {
    let l = Launch {
        grid: w.grid,
        block: w.block,
    };
    l.blocks().saturating_mul(l.threads_per_block())
}

impl Prepared for EmuPrepared {
    fn cheap(&self) -> bool {
        false
    }

    fn counter(&self) -> &'static str {
        "emulator"
    }

    fn bind(&self, w: &Workload, params: &[String]) -> Result<BoundStats, String> {
        let (mut stats, _) = self.estimate(w, params, &self.too_long())?;
        stats.reuse = Some(self.reuse(w, params));
        Ok(stats)
    }

    fn bind_spec(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        params: &[String],
    ) -> Result<Bound, String> {
        let mut v = self.bind_sizes(spec, overrides, params, &[1.0])?;
        v.pop().ok_or_else(|| "no result".to_string())
    }

    fn bind_sizes(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        params: &[String],
        scales: &[f64],
    ) -> Result<Vec<Bound>, String> {
        let w = spec.resolve_launch(overrides)?;
        let mut samples: Option<std::sync::Arc<Samples>> = None;
        let mut out = Vec::new();
        for &f in scales {
            let ws = spec.resolve_with(&scaled_overrides(spec, &w, overrides, f))?;
            let (mut stats, notes) =
                self.counts_at(spec, overrides, &w, &ws, params, &mut samples)?;
            stats.reuse = Some(self.reuse(&ws, params));
            out.push(Bound {
                stats,
                notes,
                counter: "emulator".into(),
            });
        }
        Ok(out)
    }
}

impl EmuPrepared {
    /// The counts of workload `ws` (a size of `w` along the spec's size ray) and how they were
    /// obtained: the whole launch emulated when it is small, else interpolated from the
    /// samples, which `samples` keeps for the other sizes.
    fn counts_at(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        w: &Workload,
        ws: &Workload,
        params: &[String],
        samples: &mut Option<std::sync::Arc<Samples>>,
    ) -> Result<(BoundStats, Vec<String>), String> {
        // A fixed grid (no size to scale down): the launch itself, whole or sampled.
        if spec.size_roots().is_empty() {
            let (stats, how) = self.estimate(ws, params, &self.too_long())?;
            return Ok((stats, vec![how]));
        }
        if threads(ws) <= self.direct_threads {
            // Small launches run whole, unless they do so much work per thread that the
            // sample budget runs out; then they are interpolated like large ones.
            match self.run_steps(ws, params, self.sample_steps) {
                Ok(stats) => return Ok((stats, vec![EMULATED.into()])),
                Err((false, m)) => return Err(m),
                Err((true, _)) => {}
            }
        }
        if samples.is_none() {
            *samples = Some(self.samples_for(spec, overrides, w, params)?);
        }
        let smp = samples.as_ref().ok_or("no samples")?;
        if smp.pts.is_empty() {
            let (stats, how) = self.estimate(ws, params, &smp.how)?;
            return Ok((stats, vec![how]));
        }
        let x = smp
            .roots
            .first()
            .and_then(|r| ws.params.get(r))
            .copied()
            .unwrap_or(1) as f64;
        let (mut stats, bad) = interpolate(&smp.pts, x, ws.grid, ws.block);
        let sizes: Vec<String> = smp.pts.iter().map(|(x, _)| format!("{x}")).collect();
        let mut notes = vec![format!(
            "counts interpolated (cubic in the size) from exact emulation at {} = {}",
            smp.roots.first().map(String::as_str).unwrap_or(""),
            sizes.join(", ")
        )];
        if !bad.is_empty() {
            notes.push(format!(
                "the interpolation check failed for {} feature(s) ({}): their counts are not one polynomial in the size over the samples (they depend on the data, or on the size's residues), so they are scaled by the whole power of the size their samples grow with, and are approximate",
                bad.len(),
                bad.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        stats.kernel = self.kernel.clone();
        stats.assumptions = smp.pts[0].1.assumptions.clone();
        Ok((stats, notes))
    }

    /// Why a launch is not emulated whole: it takes more than the sampling budget.
    fn too_long(&self) -> String {
        format!(
            "the whole launch takes more than {} warp steps, the emulator's budget per run",
            self.soft_steps()
        )
    }
}

/// How many times the sampling budget the first run of an estimate may take, in dispatch order,
/// to trace the blocks the reuse profile wants (two rows of the grid, at most
/// [`MAX_SAMPLE_BLOCKS`]): a 2-D stencil's reuse between rows shows only with both rows.
const TRACE_LIMIT: u64 = 5;

/// Key of the assumption that says accesses fell outside the buffers (`emu::mem::Global`).
const OUTSIDE: &str = "emulator.outside";
/// Key of the assumption that says the counts are estimated from a sample of blocks.
const SAMPLED: &str = "emulator.sample";

impl EmuPrepared {
    fn samples_for(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        w: &Workload,
        params: &[String],
    ) -> Result<std::sync::Arc<Samples>, String> {
        let roots = spec.size_roots();
        let mut rest = overrides.clone();
        for r in &roots {
            rest.remove(r);
        }
        let first = roots
            .first()
            .and_then(|r| w.params.get(r))
            .copied()
            .unwrap_or(1) as f64;
        let ratios: Vec<String> = roots
            .iter()
            .map(|r| format!("{:.9}", *w.params.get(r).unwrap_or(&0) as f64 / first))
            .collect();
        let key = format!("{spec:?}|{rest:?}|{ratios:?}|{params:?}");
        if let Some(s) = self.memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(s);
        }
        let s = std::sync::Arc::new(self.samples(spec, overrides, w, params)?);
        if let Ok(mut m) = self.memo.lock() {
            m.insert(key, s.clone());
        }
        Ok(s)
    }

    /// Five exact emulations at the size roots halved until the launch fits the budget.
    fn samples(
        &self,
        spec: &WorkloadSpec,
        overrides: &BTreeMap<String, i64>,
        w: &Workload,
        params: &[String],
    ) -> Result<Samples, String> {
        let roots = spec.size_roots();
        if roots.is_empty() {
            // `counts_at` estimates fixed grids from their own blocks
            return Ok(Samples {
                pts: Vec::new(),
                roots,
                how: "no size of the launch scales".into(),
            });
        }
        // Every size root of a sample is a multiple of g = lcm(32, block sizes), the others at
        // their ratio to the first, so every sample has whole blocks and whole 128-byte lines,
        // the condition under which counts of affine kernels are one polynomial in the size.
        let v0 = *w.params.get(&roots[0]).ok_or("size root without a value")? as f64;
        let g = w.block.iter().fold(32u64, |a, b| lcm(a, (*b).max(1)));
        // The first root steps so that every root, kept at its ratio p/q to the first, is a
        // multiple of g too (h = w/2 needs w in multiples of 2g).
        let step = roots.iter().try_fold(g, |step, r| {
            let (v, first) = (*w.params.get(r)?, v0 as i64);
            let d = gcd(v.unsigned_abs(), first.unsigned_abs()).max(1);
            let (p, q) = (v.unsigned_abs() / d, first.unsigned_abs() / d);
            Some(lcm(step, q * g / gcd(g, p).max(1)))
        });
        let g = step.ok_or("size root without a value")? as i64;
        let at = |s: i64| -> Option<(f64, Workload)> {
            let x = s.checked_mul(g)?;
            let mut o = overrides.clone();
            for r in &roots {
                let v = *w.params.get(r)? as f64;
                let sv = (v / v0 * x as f64).round() as i64;
                // A root rounded off its ratio to the first (nz = 64 beside nx = 512 at x = 96)
                // makes the samples no polynomial in one size; extrapolating them gave nonsense.
                if sv < 1 || (sv as f64 * v0 - v * x as f64).abs() > 1e-9 * v * x as f64 {
                    return None;
                }
                o.insert(r.clone(), sv);
            }
            let ws = spec.resolve_with(&o).ok()?;
            Some((x as f64, ws))
        };
        // Largest multiple whose launch fits the thread budget (at least 5, for five samples).
        let mut top = ((v0 as i64) / g).max(5);
        while top > 5 && at(top).is_none_or(|(_, ws)| threads(&ws) > self.direct_threads) {
            top = (top / 2).max(5);
        }
        let too_small = || {
            format!(
                "{} cannot be scaled down far enough to emulate, in proportion and in multiples of {g}",
                roots.join(", ")
            )
        };
        // samples larger than the launch itself would extrapolate downwards from far away;
        // sizes that do not scale (`n = 1 << log2n`) leave the launch's own blocks to sample
        let unscalable = || Samples {
            pts: Vec::new(),
            roots: roots.clone(),
            how: too_small(),
        };
        if at(top).is_none_or(|(x, _)| x > v0) {
            return Ok(unscalable());
        }
        // The largest sample must also fit the step budget (work per thread grows with the
        // size), tried at most three sizes: the samples' cost is bounded, whatever the launch.
        let over_budget = || Samples {
            how: format!(
                "samples of {} small enough to emulate in proportion take more than {} warp steps",
                roots.join(", "),
                self.sample_steps
            ),
            ..unscalable()
        };
        let mut tries = 0;
        let first = loop {
            let Some((x, ws)) = at(top) else {
                return Ok(unscalable());
            };
            tries += 1;
            match self.run_steps(&ws, params, self.sample_steps) {
                Ok(s) => break (x, s),
                Err((true, _)) if top > 5 && tries < 3 => top = (top / 2).max(5),
                Err((true, _)) => return Ok(over_budget()),
                Err((_, m)) => return Err(m),
            }
        };
        let mut pts = vec![first];
        for s in (top - 4..top).rev() {
            let Some((x, ws)) = at(s) else {
                return Ok(unscalable());
            };
            // smaller than the first, each fits its budget unless its work is not monotone
            match self.run_steps(&ws, params, self.sample_steps) {
                Ok(stats) => pts.push((x, stats)),
                Err((true, _)) => return Ok(over_budget()),
                Err((_, m)) => return Err(m),
            }
        }
        Ok(Samples {
            pts,
            roots,
            how: EMULATED.into(),
        })
    }

    /// The first run of an estimate: the launch in dispatch order until the sampling budget,
    /// tracing its leading blocks for the reuse profile.
    fn first_plan(&self) -> Plan {
        Plan {
            max_steps: self
                .soft_steps()
                .saturating_mul(TRACE_LIMIT)
                .min(self.max_steps),
            soft_steps: Some(self.soft_steps()),
            // a launch that cannot run whole within the budget is estimated by the spread run:
            // this one then only traces the leading blocks
            stop_when_over: true,
            ..Plan::whole(self.max_steps)
        }
    }

    /// Warp steps a sampling run fails at: a block may run on past the budget, not forever;
    /// never more than `--emu-steps`.
    fn hard_steps(&self) -> u64 {
        self.soft_steps().saturating_mul(3).min(self.max_steps)
    }

    /// Warp steps after which a sampling run starts no further block:
    /// [`EmulatorCounter::spread_steps`], or a fifth of `--emu-steps` where that is less.
    fn soft_steps(&self) -> u64 {
        self.spread_steps.min(self.max_steps / TRACE_LIMIT).max(1)
    }

    /// The counts of launch `w` within the sampling budget, whatever its size (`why`: why it
    /// may not run whole), and the note that says how they were obtained. Two runs, each of
    /// which starts no block after [`EmulatorCounter::spread_steps`] warp steps:
    /// 1. the launch in dispatch order, tracing its leading blocks for the reuse profile; where
    ///    every block ran, the counts are exact;
    /// 2. else its blocks in an order spread over the grid at every prefix (by steps of the
    ///    golden section of the grid), until they agree on the launch's work within
    ///    `emu::SETTLED_REL_SE` or the budget is spent: the counts of the blocks that ran,
    ///    scaled by blocks / blocks run. How much their
    ///    work (warp steps) varies gives the estimate's spread, shown in the note and kept as the
    ///    assumption `emulator.sample` so every output lists it.
    ///
    /// Why not the size ray here: it needs sizes that scale, and where it applies `counts_at`
    /// uses it first (its counts are exact where the kernel is affine); a fixed grid, or sizes
    /// that do not scale, leave only the launch's own blocks.
    fn estimate(
        &self,
        w: &Workload,
        params: &[String],
        why: &str,
    ) -> Result<(BoundStats, String), String> {
        let launch = Launch {
            grid: w.grid,
            block: w.block,
        };
        let blocks = launch.blocks();
        let hard = self.hard_steps();
        let too_long = |limit: u64| {
            move |(over, m): (bool, String)| match over {
                true => format!(
                    "emulator: a run of the launch's blocks took more than {limit} warp steps, \
                     a few times the emulator's sampling budget per run or the budget \
                     --emu-steps (`emu_steps` under [budgets] in kerncast.toml), whichever is \
                     less, before one block ended: a loop that never ends, or a block too long \
                     to sample"
                ),
                false => m,
            }
        };
        // The first run goes on until it has traced the blocks the reuse profile wants (a
        // number that does not grow with the launch), within its hard limit; one that stops
        // there has traced those it finished, and the profile takes them.
        match self.run_inner(w, params, self.first_plan()) {
            Ok(first) if first.blocks_run >= blocks => return Ok((first.stats, EMULATED.into())),
            // it ran half the launch within the budget: the whole launch takes about twice
            // that, within the limit of a run, and its counts are exact
            Ok(first) if first.blocks_run.saturating_mul(2) >= blocks => {
                match self.run_inner(w, params, Plan::whole(hard)) {
                    Ok(whole) => return Ok((whole.stats, EMULATED.into())),
                    Err((true, _)) => {}
                    Err(e) => return Err(too_long(hard)(e)),
                }
            }
            Ok(_) => {}
            Err((true, m)) => {
                let key = run_key(w, params, self.first_plan());
                let none = |m: &BTreeMap<String, Overrun>| m.get(&key).map(|o| o.blocks_done == 0);
                // not one block within the limit: the spread run starts with the same block
                if self.overruns.lock().ok().and_then(|m| none(&m)) != Some(false) {
                    return Err(too_long(self.first_plan().max_steps)((true, m)));
                }
            }
            Err(e) => return Err(too_long(hard)(e)),
        }
        let plan = Plan {
            spread: true,
            stop_when_over: false,
            ..self.first_plan()
        };
        let ran = self.run_inner(w, params, plan).map_err(too_long(hard))?;
        let n = ran.blocks_run.max(1);
        let mut stats = ran.stats;
        if n >= blocks {
            return Ok((stats, EMULATED.into()));
        }
        let scale = blocks as f64 / n as f64;
        // the launch's own sizes are the whole grid's already
        let launch_sizes = [Feature::Blocks, Feature::Warps, Feature::Threads];
        for (f, v) in stats.features.iter_mut() {
            if !launch_sizes.contains(f) {
                *v *= scale;
            }
        }
        stats.scale_execs(scale);
        let spread = Spread::of(&ran.block_steps, blocks);
        let how = format!(
            "counts estimated from {n} of the launch's {blocks} blocks, spread evenly over the \
             grid (as many as {} warp steps run, or fewer blocks once they agree on the \
             launch's work within {:.3} %), scaled by {scale:.2}: {why}; {}",
            self.soft_steps(),
            emu::SETTLED_REL_SE * 100.0,
            spread.said()
        );
        stats.assumptions.push(Assumption {
            hint_key: SAMPLED.into(),
            what: format!(
                "counts estimated from {n} of {blocks} blocks spread over the grid; {}",
                spread.said()
            ),
            default: (spread.rel_se * 1e4).round() / 1e4,
            from_user: false,
            at: None,
        });
        Ok((stats, how))
    }
}

/// How the work of the sampled blocks varies, and what that makes of the estimate of the
/// whole launch's.
struct Spread {
    min: u64,
    max: u64,
    /// Relative standard error of the estimated total (the blocks taken as a simple random
    /// sample of the grid's, with the finite-population correction).
    rel_se: f64,
}

impl Spread {
    fn of(steps: &[u64], blocks: u64) -> Spread {
        Spread {
            min: steps.iter().copied().min().unwrap_or(0),
            max: steps.iter().copied().max().unwrap_or(0),
            rel_se: emu::sample_rel_se(steps, blocks),
        }
    }

    /// In words, for the notes.
    fn said(&self) -> String {
        let se = format!(
            "a relative standard error of {:.2} % on the total work",
            self.rel_se * 100.0
        );
        match self.min == self.max {
            true => format!(
                "every sampled block took {} warp steps: {se}, for blocks like the sampled ones",
                self.min
            ),
            false => format!(
                "the sampled blocks took {} to {} warp steps each: {se}",
                self.min, self.max
            ),
        }
    }
}

/// The size of a zero-filled buffer the emulator passes for a pointer nothing sizes: room for
/// every element the sizes can address, 16 bytes per thread and per point of the product of
/// the positive parameters (a matrix of n×m float4s), plus 64 KiB, at most 256 MiB.
fn default_buffer_bytes(threads: u64, params: impl Iterator<Item = i64>) -> u64 {
    let volume = params
        .filter(|v| *v > 0)
        .fold(1u64, |a, b| a.saturating_mul(b as u64));
    16u64
        .saturating_mul(threads.max(volume))
        .saturating_add(65536)
        .min(1 << 28)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b).max(1) * b
}

/// Lagrange interpolation through the first four samples (t, value), evaluated at t.
fn lagrange(pts: &[(f64, f64)], t: f64) -> f64 {
    let mut sum = 0.0;
    for (i, (ti, vi)) in pts.iter().enumerate() {
        let mut l = 1.0;
        for (k, (tk, _)) in pts.iter().enumerate() {
            if k != i {
                l *= (t - tk) / (ti - tk);
            }
        }
        sum += vi * l;
    }
    sum
}

/// Per-feature cubic through the four largest samples, evaluated at `at` (the real size);
/// returns the features whose fifth sample disagrees with the fit. Those are not one polynomial
/// in the size over the samples (their work depends on the data, or on the size's residues):
/// a cubic through four samples a fraction of a percent apart would carry their noise to the
/// real size many times over, so they are scaled by the power of the size their samples grow
/// with instead ([`power_law`]).
fn interpolate(
    samples: &[(f64, BoundStats)],
    at: f64,
    grid: [u64; 3],
    block: [u64; 3],
) -> (BoundStats, Vec<String>) {
    let mut out = BoundStats {
        launch: Some(Launch { grid, block }),
        regs_per_thread: samples[0].1.regs_per_thread,
        shared_bytes_per_block: samples[0].1.shared_bytes_per_block,
        local_bytes_per_thread: samples[0].1.local_bytes_per_thread,
        ..Default::default()
    };
    let mut bad = Vec::new();
    let mut keys: Vec<&Feature> = samples
        .iter()
        .flat_map(|(_, s)| s.features.keys())
        .collect();
    keys.sort();
    keys.dedup();
    for f in keys {
        let pts: Vec<(f64, f64)> = samples.iter().map(|(t, s)| (*t, s.get(f))).collect();
        let (v, exact) = extrapolate(&pts, at);
        if !exact {
            bad.push(f.to_string());
        }
        if v > 0.0 {
            out.features.insert(f.clone(), v);
        }
    }
    let mut blocks: Vec<usize> = samples
        .iter()
        .flat_map(|(_, s)| s.block_execs.keys().copied())
        .collect();
    blocks.sort();
    blocks.dedup();
    for b in blocks {
        let e = extrapolate_execs(samples, at, |s| s.block_execs.get(&b).copied());
        out.block_execs.insert(b, e);
    }
    let mut guarded: Vec<(usize, usize)> = samples
        .iter()
        .flat_map(|(_, s)| {
            s.guarded_execs
                .iter()
                .flat_map(|(b, m)| m.keys().map(move |k| (*b, *k)))
        })
        .collect();
    guarded.sort();
    guarded.dedup();
    for (b, k) in guarded {
        let e = extrapolate_execs(samples, at, |s| s.inst_execs(b, k));
        out.guarded_execs.entry(b).or_default().insert(k, e);
    }
    (out, bad)
}

/// Thread and warp executions at size `at`, each extrapolated from those `get` reads off the
/// samples (none: 0).
fn extrapolate_execs(
    samples: &[(f64, BoundStats)],
    at: f64,
    get: impl Fn(&BoundStats) -> Option<kerncast_passes::stats::BlockExecs>,
) -> kerncast_passes::stats::BlockExecs {
    let along = |part: fn(&kerncast_passes::stats::BlockExecs) -> f64| {
        let pts: Vec<(f64, f64)> = samples
            .iter()
            .map(|(t, s)| (*t, get(s).as_ref().map_or(0.0, part)))
            .collect();
        extrapolate(&pts, at).0
    };
    kerncast_passes::stats::BlockExecs {
        threads: along(|e| e.threads),
        warps: along(|e| e.warps),
    }
}

/// One count at size `at` from its five samples (size, count), largest first: the cubic
/// through the first four when it predicts the fifth exactly, else [`power_law`]; and whether
/// it was the exact cubic.
fn extrapolate(pts: &[(f64, f64)], at: f64) -> (f64, bool) {
    let (fit, check) = (&pts[..4], pts[4]);
    let exact = (lagrange(fit, check.0) - check.1).abs() <= 0.5 + 1e-6 * check.1.abs();
    let v = if exact {
        lagrange(fit, at)
    } else {
        power_law(pts, at)
    };
    (v.max(0.0).round(), exact)
}

/// The samples scaled to `at` by the whole power of the size they grow with: the least-squares
/// slope of log count over log size, rounded to 0..=3 (counts are polynomials of at most cubic
/// degree in the sizes when the data does not steer them), averaged over the samples.
fn power_law(pts: &[(f64, f64)], at: f64) -> f64 {
    let logs: Vec<(f64, f64)> = pts
        .iter()
        .filter(|(t, v)| *t > 0.0 && *v > 0.0)
        .map(|(t, v)| (t.ln(), v.ln()))
        .collect();
    if logs.len() < 2 {
        return pts.first().map_or(0.0, |p| p.1);
    }
    let n = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / n,
        logs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = logs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = logs.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let power = slope.round().clamp(0.0, 3.0);
    pts.iter()
        .map(|(t, v)| v * (at / t).powf(power))
        .sum::<f64>()
        / pts.len() as f64
}

impl EmuPrepared {
    /// One emulation of the whole launch with a step budget; the flag says whether the
    /// budget ran out.
    fn run_steps(
        &self,
        w: &Workload,
        params: &[String],
        max_steps: u64,
    ) -> Result<BoundStats, (bool, String)> {
        self.run_inner(w, params, Plan::whole(max_steps))
            .map(|r| r.stats)
    }

    /// The PTX lines of the global accesses whose address depends on data the workload does
    /// not give (none where it gives buffers): a reuse profile of zero-filled buffers would be
    /// wrong.
    fn addresses_needing_data(&self, w: &Workload) -> &[u32] {
        if !w.buffers.is_empty() {
            return &[];
        }
        self.data_addresses
            .get_or_init(|| data_addresses(&self.module, &self.kernel))
    }

    /// The reuse profile of the global sectors of the launch's first blocks, from a run of
    /// those blocks at the workload's own size (their addresses as the kernel computes them),
    /// for the L2 hit rate; or why there is none.
    fn reuse(&self, w: &Workload, params: &[String]) -> Reuse {
        let unset = self
            .module
            .kernels()
            .find(|k| k.name == self.kernel)
            .map(|f| crate::param_fields::unset_fields(w, f, params))
            .unwrap_or_default();
        if !unset.is_empty() {
            return Reuse::Unavailable(crate::param_fields::unset_fields_reason(&unset));
        }
        let data = self.addresses_needing_data(w);
        if !data.is_empty() {
            let n = data.len();
            let mut lines: Vec<String> = data.iter().take(4).map(u32::to_string).collect();
            if n > 4 {
                lines.push("…".into());
            }
            return Reuse::Unavailable(format!(
                "the addresses of {n} global access(es) (PTX line {}) depend on data, which the emulator runs as zeros; give it data with --buffer to profile them",
                lines.join(", ")
            ));
        }
        // A run of the launch's leading blocks in dispatch order traced them already: the whole
        // launch's at the sample budget, or the first run of an estimate (as many as it ran).
        let traced_runs = [Plan::whole(self.sample_steps), self.first_plan()];
        for plan in traced_runs {
            let key = run_key(w, params, plan);
            let kept = self.runs.lock().ok().and_then(|m| match m.get(&key) {
                Some(Ok(Ran {
                    stats:
                        BoundStats {
                            reuse: Some(Reuse::Profile(profile)),
                            ..
                        },
                    ..
                })) => Some(profile.clone()),
                _ => None,
            });
            if let Some(profile) = kept {
                return Reuse::Profile(profile);
            }
        }
        let wanted = profiled_blocks(w);
        // A run that stops at its budget has traced the blocks it finished, as a run of those
        // alone would, since blocks run in dispatch order.
        let overrun = |plan: Plan| {
            let key = run_key(w, params, plan);
            self.overruns.lock().ok()?.get(&key).cloned()
        };
        let traced = |plan: Plan| {
            let o = overrun(plan)?;
            (o.blocks_done >= 1).then_some(o.profile).flatten()
        };
        if let Some(p) = traced_runs.into_iter().find_map(traced) {
            return Reuse::Profile(p);
        }
        let plan = Plan {
            trace: Some(wanted),
            ..self.first_plan()
        };
        let unavailable = || {
            Reuse::Unavailable(format!(
                "emulating one block takes more than {} warp steps (the budget: --emu-steps, or `emu_steps` under [budgets] in kerncast.toml)",
                plan.max_steps
            ))
        };
        // a run of the launch stopped before its first block ended
        if traced_runs.into_iter().any(|p| overrun(p).is_some()) {
            return unavailable();
        }
        match self.run_inner(w, params, plan) {
            Ok(ran) => ran
                .stats
                .reuse
                .unwrap_or_else(|| Reuse::Unavailable("the traced run recorded nothing".into())),
            Err((true, _)) => traced(plan).map(Reuse::Profile).unwrap_or_else(unavailable),
            Err((false, m)) => {
                Reuse::Unavailable(format!("emulating the first {wanted} blocks: {m}"))
            }
        }
    }

    /// One emulation run of the blocks `plan` chooses; with `plan.trace`, of that many leading
    /// blocks only, recording their global sectors into the stats' reuse profile (the other
    /// counts are then of those blocks alone). The counts are those of the blocks run, unscaled.
    ///
    /// Runs are kept: a launch tried whole that runs past its budget is tried again as the first
    /// sample, and a size sweep's points include the samples' sizes. The emulator is
    /// deterministic, so the same run gives the same outcome.
    fn run_inner(&self, w: &Workload, params: &[String], plan: Plan) -> RunOutcome {
        let key = run_key(w, params, plan);
        if let Some(done) = self.runs.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return done;
        }
        let done = self.run_uncached(&key, w, params, plan);
        if let Ok(mut m) = self.runs.lock() {
            m.insert(key, done.clone());
        }
        done
    }

    fn run_uncached(&self, key: &str, w: &Workload, params: &[String], plan: Plan) -> RunOutcome {
        let Plan {
            max_steps,
            trace,
            every,
            ..
        } = plan;
        let f = self
            .module
            .kernels()
            .find(|k| k.name == self.kernel)
            .ok_or_else(|| (false, format!("kernel `{}` not found", self.kernel)))?;
        let launch = Launch {
            grid: w.grid,
            block: w.block,
        };
        let threads = launch.blocks().saturating_mul(launch.threads_per_block());
        let mut assumptions = Vec::new();
        let mut args = Vec::new();
        let given_fields = crate::param_fields::field_values(w, f, params);
        // the struct analyses only where there is a struct: this runs once per sample
        let has_structs = f.params.iter().any(|p| p.is_aggregate());
        let (pointer_fields, deciding_fields, computed_offsets) = match has_structs {
            true => (
                crate::param_fields::global_pointer_fields(f),
                kerncast_passes::taint::fields_deciding_counts(f),
                kerncast_passes::taint::computed_param_reads_deciding(f),
            ),
            false => Default::default(),
        };
        let locals = emu::local_args::local_pointer_params(f);
        let default_buffer = default_buffer_bytes(threads, w.params.values().copied()) as f64;
        let dynamic_shared = w.hints.get(DYNAMIC_SHARED_BYTES).map(|b| *b as u64);
        for (i, p) in f.params.iter().enumerate() {
            let name = params.get(i).cloned().unwrap_or_else(|| p.name.clone());
            if locals.contains(&i) {
                // sized as the dynamic shared memory below, whose assumption names it
                args.push(KernelArg::Local(
                    dynamic_shared.unwrap_or(EMULATED_DYNAMIC_SHARED),
                ));
                continue;
            }
            if p.is_aggregate() {
                use crate::param_fields::FieldValue;
                if computed_offsets.contains(&i) {
                    return Err((
                        false,
                        format!(
                            "the counts depend on what the kernel reads of the by-value \
                             parameter `{name}` at offsets it computes (an array inside a \
                             struct, indexed at run time), bytes a workload cannot set; running \
                             them as 0 would be a guess"
                        ),
                    ));
                }
                let hint = |off: u64| {
                    let key = crate::param_fields::offset_key(&name, off);
                    w.hints
                        .get(&format!("param.{key}"))
                        .map(|x| FieldValue::Float(*x))
                };
                let (bytes, unset) = crate::param_fields::struct_bytes(f, i, |off| {
                    given_fields
                        .iter()
                        .find(|(gi, o, _)| *gi == i && *o == off)
                        .map(|(_, _, v)| FieldValue::Int(*v))
                        .or_else(|| hint(off))
                });
                // a pointer field gets a zero-filled buffer, as a pointer parameter does
                let (pointers, values): (Vec<_>, Vec<_>) = unset
                    .into_iter()
                    .partition(|fd| pointer_fields.contains(&(i, fd.offset)));
                let mut buffers = Vec::new();
                for fd in pointers {
                    let key = format!(
                        "buffer_bytes.{}",
                        crate::param_fields::offset_key(&name, fd.offset)
                    );
                    let given = w.hints.get(&key).copied();
                    assumptions.push(Assumption {
                        hint_key: key.clone(),
                        what: format!(
                            "size of the buffer the field at byte {} of `{name}` points to, for \
                             the emulator (zero-filled)",
                            fd.offset
                        ),
                        default: default_buffer,
                        from_user: given.is_some(),
                        at: None,
                    });
                    let bytes = given.unwrap_or(default_buffer).max(0.0) as u64;
                    emu::check_bytes(
                        &format!("the buffer `{key}`"),
                        bytes,
                        kerncast_passes::budget::get().emu_bytes,
                    )
                    .map_err(|e| (false, e.to_string()))?;
                    buffers.push((fd.offset, vec![0u8; bytes as usize]));
                }
                // run as 0, a field that decides a count would be a guess, as a scalar's
                let keys: Vec<String> = values
                    .iter()
                    .filter(|fd| !fd.ty.is_float())
                    .filter(|fd| deciding_fields.contains(&(i, fd.offset as i64)))
                    .map(|fd| crate::param_fields::offset_key(&name, fd.offset))
                    .collect();
                if let Some(first) = keys.first() {
                    return Err((
                        false,
                        format!(
                            "the counts depend on the fields {} of the by-value parameter \
                             `{name}`, which the workload does not set; they decide a branch or \
                             an address, so running them as 0 would be a guess: give them values \
                             (`--param {first}=VALUE`, or by the source's field names)",
                            keys.join(", ")
                        ),
                    ));
                }
                for fd in values {
                    let key = crate::param_fields::offset_key(&name, fd.offset);
                    assumptions.push(Assumption {
                        hint_key: format!("param.{key}"),
                        what: format!(
                            "value of field `{key}` of the by-value parameter `{name}` (not in the workload)"
                        ),
                        default: 0.0,
                        from_user: false,
                        at: None,
                    });
                }
                args.push(match buffers.is_empty() {
                    true => KernelArg::Bytes(bytes),
                    false => KernelArg::Struct { bytes, buffers },
                });
                continue;
            }
            // A `param.NAME` hint stands in for a missing value, as the assumption below offers.
            let given = w
                .params
                .get(&name)
                .copied()
                .or_else(|| w.hints.get(&format!("param.{name}")).map(|v| *v as _));
            let is_ptr = p.ptr.is_some() || (given.is_none() && p.ty.bits() == 64);
            if is_ptr {
                if let Some(gen) = w.buffers.get(&name) {
                    // zeros are mapped, not written: the run pays for the pages it touches
                    let zeros = crate::buffers::zeros_bytes(gen, &w.params)
                        .map_err(|e| (false, format!("buffer `{name}`: {e}")))?;
                    if let Some(n) = zeros {
                        emu::check_zeroed(&format!("the zero-filled buffer `{name}`"), n)
                            .map_err(|e| (false, e.to_string()))?;
                        args.push(KernelArg::Zeros(n));
                        continue;
                    }
                    let bytes = crate::buffers::generate(gen, &w.params, BUFFER_SEED)
                        .map_err(|e| (false, format!("buffer `{name}`: {e}")))?;
                    args.push(KernelArg::Buffer(bytes));
                    continue;
                }
                let key = format!("buffer_bytes.{name}");
                let default = default_buffer;
                let bytes = w.hints.get(&key).copied();
                assumptions.push(Assumption {
                    hint_key: key,
                    what: format!(
                        "size of the buffer passed as `{name}` to the emulator (zero-filled)"
                    ),
                    default,
                    from_user: bytes.is_some(),
                    at: None,
                });
                let bytes = bytes.unwrap_or(default).max(0.0) as u64;
                // mapped, not written: the run pays for the pages it touches
                emu::check_zeroed(&format!("the zero-filled buffer `{name}`"), bytes)
                    .map_err(|e| (false, e.to_string()))?;
                args.push(KernelArg::Zeros(bytes));
                continue;
            }
            let v = match given {
                Some(v) => v,
                // run as 0, a count the value decides would be a guess: asked for, as the
                // symbolic counter asks for what its closed forms need
                None if !p.ty.is_float()
                    && kerncast_passes::taint::params_deciding_counts(f).contains(&i) =>
                {
                    return Err((
                        false,
                        format!(
                            "the counts depend on parameter `{name}`, which the workload does \
                             not set; it decides a branch or an address, so running it as 0 \
                             would be a guess: give it a value (`--param {name}=VALUE`, or \
                             `{name}=…` in the workload)"
                        ),
                    ))
                }
                None => {
                    assumptions.push(Assumption {
                        hint_key: format!("param.{name}"),
                        what: format!("value of scalar parameter `{name}` (not in the workload)"),
                        default: 0.0,
                        from_user: false,
                        at: None,
                    });
                    0
                }
            };
            // a floating-point value given as such (`param.NAME`) keeps its fraction
            let float = w.hints.get(&format!("param.{name}")).copied();
            let f32_or_f64 = matches!(p.ty.as_str(), "f32" | "f64");
            args.push(match (f32_or_f64, float, w.params.contains_key(&name)) {
                (true, Some(x), false) => float_arg(p.ty, x),
                _ => crate::param_fields::scalar_arg(p.ty, v),
            });
        }
        let shared = self.module.kernel_shared(f);
        let sized_by_launch: Vec<String> = shared
            .dynamic
            .iter()
            .cloned()
            .chain(locals.iter().map(|i| {
                params
                    .get(*i)
                    .cloned()
                    .unwrap_or_else(|| f.params[*i].name.clone())
            }))
            .collect();
        if !sized_by_launch.is_empty() {
            let mut a = dynamic_shared_assumption(&sized_by_launch);
            a.from_user = dynamic_shared.is_some();
            a.default = dynamic_shared.unwrap_or(0) as f64;
            if dynamic_shared.is_none() {
                a.what.push_str(&format!(
                    " (the emulator runs the kernel with {} KiB of it, the most a block gets by default)",
                    EMULATED_DYNAMIC_SHARED / 1024
                ));
            }
            assumptions.push(a);
        }
        let opts = emu::Options {
            // unsized, the kernel still needs room to run: its counts do not depend on how much
            // (`__local` arguments carry their bytes themselves)
            dynamic_shared: if shared.dynamic.is_empty() {
                0
            } else {
                dynamic_shared.unwrap_or(EMULATED_DYNAMIC_SHARED)
            },
            max_steps,
            max_bytes: kerncast_passes::budget::get().emu_bytes,
            max_blocks: trace,
            every,
            // a whole run traces the blocks the reuse profile wants, as a run of those alone
            // would, so the profile needs no second run; none where `reuse` will refuse one
            trace_blocks: match trace {
                Some(first) => first,
                None if every == 1 && !plan.spread && self.addresses_needing_data(w).is_empty() => {
                    profiled_blocks(w)
                }
                None => 0,
            },
            // counts only
            keep_buffers: false,
            soft_steps: plan.soft_steps,
            spread_order: plan.spread,
            stop_when_over: plan.stop_when_over,
            stop_when_settled: plan.spread,
        };
        let r = crate::progress::emulate(&self.module, &self.kernel, &launch, &args, &opts)
            .map_err(|e| {
                let message = name_overrun(format!("emulator: {e}"), f, params);
                let emu::EmuError::StepLimit {
                    blocks_done,
                    traced,
                    ..
                } = e
                else {
                    return (false, message);
                };
                let walked = blocks_done.min(opts.trace_blocks);
                let profile =
                    (walked > 0).then(|| from_touches(traced, &[1.0], walked, launch.blocks()));
                if let Ok(mut m) = self.overruns.lock() {
                    m.insert(
                        key.to_string(),
                        Overrun {
                            blocks_done,
                            profile,
                        },
                    );
                }
                (true, message)
            })?;
        // What the data made the loops do: the mean trips per entry of each loop as run here
        // (the symbolic counter keeps those of its data-dependent loops, see `symbolic`).
        for (key, l) in emu::loops::hint_keys(&r.loops).into_iter().zip(&r.loops) {
            let at =
                l.at.clone()
                    .unwrap_or_else(|| format!("PTX line {}", l.ptx_line));
            assumptions.push(Assumption {
                from_user: false,
                hint_key: key,
                what: format!(
                    "mean trips per entry of the loop at {at}, as the emulator ran it on its buffers"
                ),
                default: (l.mean_trips * 100.0).round() / 100.0,
                at: l.at.clone(),
            });
        }
        let outside = &r.outside;
        if outside.loads + outside.stores > 0 {
            let near: Vec<String> = outside
                .near
                .iter()
                .map(|n| format!("`{}`", source_buffer_name(f, params, n)))
                .collect();
            assumptions.push(Assumption {
                hint_key: OUTSIDE.into(),
                what: format!(
                    "{} load(s) and {} store(s) of the emulated blocks ({} bytes) fell outside \
                     the buffers kerncast gave the kernel, near {}, within the 2 MiB a GPU maps \
                     with an allocation: the loads read zero and the stores were dropped, so the \
                     counts are an estimate (--buffer NAME=TYPE:GEN gives the kernel data like \
                     the program's, --hint buffer_bytes.NAME=BYTES its size)",
                    outside.loads,
                    outside.stores,
                    outside.bytes,
                    near.join(", ")
                ),
                default: (outside.loads + outside.stores) as f64,
                from_user: false,
                at: None,
            });
        }
        let mut stats = r.stats;
        if opts.trace_blocks > 0 {
            stats.reuse = Some(Reuse::Profile(from_touches(
                r.touches,
                &[1.0],
                r.blocks_traced,
                launch.blocks(),
            )));
        }
        stats.kernel = self.kernel.clone();
        stats.launch = Some(launch);
        // as the symbolic counter counts it: what the kernel names, not every array of the module
        stats.shared_bytes_per_block = Some(shared.static_bytes + dynamic_shared.unwrap_or(0));
        stats.assumptions.extend(assumptions);
        Ok(Ran {
            stats,
            blocks_run: r.blocks_run,
            block_steps: r.block_steps,
        })
    }
}

/// The launch's leading blocks the reuse profile traces: two rows of the grid (the distance at
/// which a 2-D grid's blocks share rows or columns), within the sample bounds.
fn profiled_blocks(w: &Workload) -> u64 {
    let blocks = w.grid.iter().product::<u64>();
    blocks.min((2 * w.grid[0]).clamp(MIN_SAMPLE_BLOCKS, MAX_SAMPLE_BLOCKS))
}

/// What an emulation run reads, as the key it is kept under; the workload's name is not read.
fn run_key(w: &Workload, params: &[String], plan: Plan) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{params:?}|{plan:?}",
        w.grid, w.block, w.params, w.hints, w.buffers
    )
}

/// Module variables up to this size (libdevice's `sin`/`cos` coefficient tables, a kernel's
/// lookup table) are indexed by data without spoiling the reuse profile: their sectors miss the
/// L2 once each at most, 2048 sectors for the largest, which the profile of zeros leaves out.
const SMALL_TABLE_BYTES: u64 = 64 * 1024;

/// PTX lines of `kernel`'s global (and generic) accesses whose address register depends on
/// data ([`Taint`]), other than those that can only land in a small module variable or the
/// thread's own stack frame.
fn data_addresses(m: &Module, kernel: &str) -> Vec<u32> {
    let Some(f) = m.kernels().find(|k| k.name == kernel) else {
        return Vec::new();
    };
    let cfg = Cfg::build(f);
    let points_to = PointsTo::new(m, f);
    let small_table = |name: &String| {
        let global = m.globals.iter().find(|g| &g.name == name);
        match global {
            Some(g) => g.size_bytes().is_some_and(|b| b <= SMALL_TABLE_BYTES),
            // the kernel's own `.local` array: its stack frame, no global memory
            None => f.var_decls().any(|d| &d.name == name),
        }
    };
    // whether an access runs may depend on data (the counts say so); only an address whose
    // value does is refused
    let taint = Taint::addresses(&cfg);
    let mut lines: Vec<u32> = cfg
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, bb)| bb.insts.iter().enumerate().map(move |(k, i)| (b, k, i)))
        .filter(|(_, _, i)| {
            kerncast_passes::classify::mem_access(i)
                .is_some_and(|(space, ..)| matches!(space, Space::Global | Space::Generic))
        })
        .filter(|&(b, k, i)| {
            i.operands.iter().any(|o| {
                o.leaves().iter().any(|l| {
                    matches!(l, Operand::Addr { base: AddrBase::Reg(r), .. }
                        if taint.reads_tainted(b, k, r))
                })
            })
        })
        // wherever the data sends it, an access into a small table stays in its few sectors,
        // and one into the thread's stack frame is no global traffic
        .filter(|(_, _, i)| {
            !points_to
                .accessed_vars(i)
                .is_some_and(|vars| vars.iter().all(small_table))
        })
        .map(|(_, _, i)| i.span.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The source's name of the buffer the emulator calls `ptx` (a PTX parameter's name, or
/// `param+offset` for a struct's pointer field); a module variable keeps its own.
fn source_buffer_name(f: &kerncast_passes::ptx::Function, params: &[String], ptx: &str) -> String {
    let (base, field) = match ptx.split_once('+') {
        Some((b, o)) => (b, Some(o)),
        None => (ptx, None),
    };
    let Some(i) = f.params.iter().position(|p| p.name == base) else {
        return ptx.to_string();
    };
    let name = params.get(i).map_or(base, String::as_str);
    match field {
        Some(o) => format!("{name}+{o}"),
        None => name.to_string(),
    }
}

/// An access past the end of a buffer names the buffer by its PTX parameter; say it as the
/// source does, and how to give it the size (or the data) the kernel reads.
fn name_overrun(message: String, f: &kerncast_passes::ptx::Function, params: &[String]) -> String {
    for (i, p) in f.params.iter().enumerate() {
        let ptx = format!("past the end of `{}`", p.name);
        if message.contains(&ptx) {
            let name = params.get(i).unwrap_or(&p.name);
            return format!(
                "{}; give `{name}` the data the kernel reads with --buffer {name}=TYPE:GEN (or its size with --hint buffer_bytes.{name}=BYTES)",
                message.replace(&ptx, &format!("past the end of `{name}`"))
            );
        }
    }
    message
}

/// Seed of the generated buffers (`--buffer … rand(…)`): the same data on every run.
const BUFFER_SEED: u64 = 1;

/// Dynamic shared memory the emulator gives a kernel whose workload does not size it: the
/// 48 KiB a block may have without opting in to more (every CUDA GPU since Fermi).
const EMULATED_DYNAMIC_SHARED: u64 = 48 * 1024;

/// A floating-point kernel argument of type `ty`.
fn float_arg(ty: PtxType, x: f64) -> KernelArg {
    match ty.as_str() {
        "f64" => KernelArg::F64(x),
        _ => KernelArg::F32(x as f32),
    }
}

pub use crate::symbolic::default_counter;

/// A prediction at the default clocks, plus the DVFS sweep when the device has clock levels.
pub struct Predicted {
    pub model: String,
    pub time_s: f64,
    pub power_w: Option<f64>,
    pub energy_j: Option<f64>,
    pub bottleneck: String,
    pub error_band: Option<[f64; 2]>,
    pub breakdown: Vec<Component>,
    pub dvfs: Vec<DvfsPoint>,
    pub notes: Vec<String>,
    /// Every model at the default clocks (see [`ModelResult`]).
    pub models: Vec<ModelResult>,
}

/// The scheduler's view of a kernel: instructions per CFG block (keys as in
/// `BoundStats::block_execs`), with latencies of one device.
pub type Blocks = BTreeMap<usize, Vec<SchedInst>>;

/// What the models read of a kernel's code besides its counts ([`Target::blocks`]): the
/// scheduler's instructions per block, or why the device cannot give them (a latency it
/// lacks), and each block's dependent chains, which need no device.
#[derive(Clone, Debug)]
pub struct KernelBlocks {
    pub sched: Result<Blocks, String>,
    pub chains: BTreeMap<usize, Chain>,
    /// The atomics whose lanes address one place by construction, and how ptxas applies them.
    pub atomics: Vec<kerncast_models::schedule::atomics::SerialAtomic>,
    /// How the FP64 pipe's SASS differs from one instruction per PTX f64 op, where the
    /// architecture has an expansion table.
    pub fp64_pipe: Option<crate::sass_flops::Fp64Pipe>,
}

impl KernelBlocks {
    /// What the models read of kernel `f`'s code on `device`, its FP64 pipe as the SASS of
    /// `arch` (`sm_86`) runs it; the scheduler's error (a latency the device lacks) is reported
    /// by the schedule model when it is asked to predict.
    pub fn of(f: &Function, device: &Device, arch: &str) -> KernelBlocks {
        let cfg = Cfg::build(f);
        KernelBlocks {
            sched: blocks_from_cfg(&cfg, device).map_err(|e| e.to_string()),
            chains: block_chains(&cfg),
            atomics: kerncast_models::schedule::atomics::serial_atomics(&cfg),
            fp64_pipe: crate::sass_flops::FlopTable::for_arch(arch)
                .ok()
                .map(|(table, _)| crate::sass_flops::Fp64Pipe::of(&cfg, table)),
        }
    }
}

/// A model's input; blocks the device cannot give are empty, and the reason goes with them for
/// the schedule model to report.
pub fn model_input(
    stats: &BoundStats,
    blocks: &KernelBlocks,
    hints: &BTreeMap<String, f64>,
) -> ModelInput {
    ModelInput {
        stats: stats.clone(),
        blocks: blocks.sched.clone().unwrap_or_default(),
        blocks_missing: blocks.sched.as_ref().err().cloned(),
        chains: blocks.chains.clone(),
        hints: hints.clone(),
        fp64_sass_extra: blocks.fp64_pipe.as_ref().map(|p| p.extra_warp_insts(stats)),
        atomics: blocks.atomics.clone(),
    }
}

/// A device with its model and power data, loaded once per run.
/// [`Target::quick`]'s answer: the bottleneck comes along so that rank can say why variants
/// tie (every one bound by the same part, which the varied values do not move).
#[derive(Clone, Debug, PartialEq)]
pub struct Quick {
    pub time_s: f64,
    pub energy_j: Option<f64>,
    /// The part that limits the kernel (`dram`, `compute`, `l2` …), as the model names it.
    pub bottleneck: String,
}

pub struct Target {
    pub device: Device,
    pub model: Box<dyn Model + Send + Sync>,
    pub power: Option<PhysicalPowerParams>,
    pub model_name: String,
}

impl Target {
    pub fn load(device: &str, model: &str) -> Result<Target, String> {
        let d = Device::load(device).map_err(|e| e.to_string())?;
        let m = model_by_name(model).ok_or_else(|| {
            format!("unknown model `{model}` (expected auto, linear, schedule, dvfs or roofline)")
        })?;
        let power = PhysicalPowerParams::from_device(&d).ok();
        Ok(Target {
            device: d,
            model: m,
            power,
            model_name: model.to_string(),
        })
    }

    /// Time, power and energy at the default clocks only (rank and the size sweep).
    pub fn quick(
        &self,
        stats: &BoundStats,
        blocks: &KernelBlocks,
        hints: &BTreeMap<String, f64>,
    ) -> Result<Quick, String> {
        let input = model_input(stats, blocks, hints);
        let clocks = self.device.default_clocks().map_err(|e| e.to_string())?;
        let p = sweep::predict_full(
            self.model.as_ref(),
            &input,
            &self.device,
            clocks,
            self.power.as_ref(),
        )
        .map_err(|e| e.to_string())?;
        Ok(Quick {
            time_s: p.time_s,
            energy_j: p.energy_j,
            bottleneck: p.bottleneck,
        })
    }

    /// [`KernelBlocks::of`] `kernel` on this device, its SASS for `arch`.
    pub fn blocks(&self, m: &Module, kernel: &str, arch: &str) -> KernelBlocks {
        match m.kernels().find(|k| k.name == kernel) {
            Some(f) => KernelBlocks::of(f, &self.device, arch),
            None => KernelBlocks {
                sched: Err(format!("kernel `{kernel}` not found in the PTX")),
                chains: BTreeMap::new(),
                atomics: Vec::new(),
                fp64_pipe: None,
            },
        }
    }

    pub fn predict(
        &self,
        stats: &BoundStats,
        blocks: &KernelBlocks,
        hints: &BTreeMap<String, f64>,
    ) -> Result<Predicted, String> {
        let input = model_input(stats, blocks, hints);
        let clocks = self.device.default_clocks().map_err(|e| e.to_string())?;
        let p = sweep::predict_full(
            self.model.as_ref(),
            &input,
            &self.device,
            clocks,
            self.power.as_ref(),
        )
        .map_err(|e| e.to_string())?;
        let mut notes = p.notes.clone();
        let breakdown = p
            .breakdown
            .iter()
            .map(|(k, v)| Component {
                name: k.clone(),
                time_s: *v,
                energy_j: match (p.energy_j, p.time_s > 0.0) {
                    (Some(e), true) => e * v / p.time_s,
                    _ => 0.0,
                },
            })
            .collect();
        let dvfs = match sweep::sweep(
            self.model.as_ref(),
            &input,
            &self.device,
            self.power.as_ref(),
        ) {
            Ok(sw) => sw
                .points
                .iter()
                .enumerate()
                .filter_map(|(i, q)| {
                    Some(DvfsPoint {
                        core_mhz: q.clocks.core_mhz,
                        mem_mhz: q.clocks.mem_mhz,
                        time_s: q.time_s,
                        power_w: q.power_w?,
                        energy_j: q.energy_j?,
                        pareto: sw.pareto.contains(&i),
                    })
                })
                .collect(),
            Err(e) => {
                notes.push(format!("no DVFS sweep: {e}"));
                Vec::new()
            }
        };
        let models = every_model()
            .into_iter()
            .map(|m| match m.predict(&input, &self.device, clocks) {
                Ok(q) => ModelResult {
                    model: q.model,
                    time_s: Some(q.time_s),
                    bottleneck: Some(q.bottleneck),
                    error: None,
                },
                Err(e) => ModelResult {
                    model: m.name().to_string(),
                    time_s: None,
                    bottleneck: None,
                    error: Some(e.to_string()),
                },
            })
            .collect();
        Ok(Predicted {
            models,
            model: p.model.clone(),
            time_s: p.time_s,
            power_w: p.power_w,
            energy_j: p.energy_j,
            bottleneck: p.bottleneck.clone(),
            error_band: Some([-p.error_band.rel, p.error_band.rel]),
            breakdown,
            dvfs,
            notes,
        })
    }

    /// The DRAM traffic the kernel's global sectors and the L2 model give, with the local
    /// sectors whose frames outgrow the L2.
    pub fn dram_traffic(&self, stats: &BoundStats, hints: &BTreeMap<String, f64>) -> DramTraffic {
        let sector_bytes = 32.0
            * stats.sum_where(|f| {
                matches!(
                    f,
                    Feature::Sectors {
                        space: Space::Global,
                        ..
                    }
                )
            });
        let mut input = ModelInput::new(stats.clone());
        input.hints = hints.clone();
        // where no hit rate can be had the models take 0 (and say so in their notes)
        let l2_hit_rate = kerncast_models::l2::l2_hit_rate(
            &input,
            &self.device,
            sector_bytes,
            "roofline",
            &mut Vec::new(),
        )
        .unwrap_or(0.0);
        let local_bytes =
            kerncast_models::l2::local_dram_bytes(&input, &self.device, &mut Vec::new());
        let global_bytes = sector_bytes * (1.0 - l2_hit_rate);
        let dirty_at_exit_bytes = kerncast_models::l2::dirty_at_exit_bytes(
            &self.device,
            kerncast_models::l2::written_sector_bytes(stats),
            global_bytes,
        );
        DramTraffic {
            sector_bytes,
            l2_hit_rate,
            local_bytes,
            dirty_at_exit_bytes,
            bytes: global_bytes - dirty_at_exit_bytes + local_bytes,
        }
    }

    /// Roofline position: flops from the floating-point op counts (fma = 2) and the
    /// tensor-core multiply–adds (× 2); DRAM bytes from the global sectors that miss the L2, at
    /// the hit rate the models take ([`Target::dram_traffic`]); the device's compute
    /// ceilings for the work the kernel does.
    pub fn roofline(
        &self,
        stats: &BoundStats,
        dram: &DramTraffic,
        time_s: f64,
    ) -> Option<Roofline> {
        let (mut flops, mut f64_flops, mut tensor_flops) = (0.0, 0.0, 0.0);
        // the tensor work the profile's one tensor rate is for: f16 or bf16 into f32
        let mut f16_tensor_flops = 0.0;
        for (f, v) in &stats.features {
            match f {
                Feature::Op { kind, ty, gran }
                    if is_float(*ty) && *gran == kerncast_passes::stats::Granularity::Thread =>
                {
                    let per = match kind {
                        OpKind::Fma => 2.0,
                        OpKind::AddSub
                        | OpKind::Mul
                        | OpKind::Div
                        | OpKind::Rcp
                        | OpKind::Sqrt
                        | OpKind::Rsqrt
                        | OpKind::Special
                        | OpKind::MinMax => 1.0,
                        _ => 0.0,
                    };
                    flops += per * v;
                    if *ty == DType::F64 {
                        f64_flops += per * v;
                    }
                }
                Feature::TensorMma { input, acc, fmas } => {
                    let f = 2.0 * *fmas as f64 * v;
                    tensor_flops += f;
                    if kerncast_models::roofline::at_tensor_rate(*input, *acc) {
                        f16_tensor_flops += f;
                    }
                }
                _ => {}
            }
        }
        flops += tensor_flops;
        let (l2_hit_rate, bytes) = (dram.l2_hit_rate, dram.bytes);
        let hw = &self.device.hw;
        let clocks = self.device.default_clocks().ok()?;
        let sms = hw.sm_count.as_ref()?.value as f64;
        let per_second = |per_sm_per_clock: f64| sms * per_sm_per_clock * clocks.core_mhz * 1e6;
        let peak_flops = per_second(hw.cores_per_sm.as_ref()?.value as f64 * 2.0);
        let mut ceilings = Vec::new();
        if let (true, Some(dpu)) = (f64_flops > 0.0, &hw.dpu_per_sm) {
            ceilings.push(Ceiling {
                name: "fp64".into(),
                flops_per_s: per_second(dpu.value as f64 * 2.0),
            });
        }
        if let (true, Some(tc)) = (f16_tensor_flops > 0.0, &hw.tensor_f16_f32_fma_per_sm) {
            ceilings.push(Ceiling {
                name: "tensor f16→f32".into(),
                flops_per_s: per_second(tc.value as f64 * 2.0),
            });
        }
        let peak_bw = self
            .device
            .dram_bandwidth(clocks.mem_mhz, "roofline")
            .ok()?;
        if flops <= 0.0 || bytes <= 0.0 || time_s <= 0.0 {
            return None;
        }
        let l2 = kerncast_models::roofline::l2_traffic(stats)
            .ok()
            .zip(self.device.l2_bandwidths(clocks.core_mhz))
            .map(|(t, bw)| (t.load_bytes + t.write_bytes, t.time(bw)))
            .filter(|(bytes, t)| *bytes > 0.0 && *t > 0.0)
            .map(|(bytes, t)| L2Level {
                bytes,
                intensity: flops / bytes,
                peak_bytes_per_s: bytes / t,
            });
        Some(Roofline {
            flops,
            tensor_flops,
            dram_bytes: bytes,
            l2_hit_rate,
            intensity: flops / bytes,
            flops_per_s: flops / time_s,
            peak_flops_per_s: peak_flops,
            peak_bytes_per_s: peak_bw,
            ceilings,
            l2,
        })
    }
}

fn is_float(t: DType) -> bool {
    matches!(t, DType::F16 | DType::Bf16 | DType::F32 | DType::F64)
}

/// The concrete models, in the order `auto` tries them.
fn every_model() -> Vec<Box<dyn Model + Send + Sync>> {
    kerncast_models::capability::MODELS
        .into_iter()
        .filter_map(model_by_name)
        .collect()
}

fn model_by_name(name: &str) -> Option<Box<dyn Model + Send + Sync>> {
    use kerncast_models::{
        auto::AutoModel, dvfs::DvfsModel, linear::LinearModel, roofline::RooflineModel,
        schedule::ScheduleModel,
    };
    Some(match name {
        "auto" => Box::new(AutoModel),
        "linear" => Box::new(LinearModel::default()),
        "schedule" => Box::new(ScheduleModel::default()),
        "dvfs" => Box::new(DvfsModel::default()),
        "roofline" => Box::new(RooflineModel),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Expr;

    /// The count of the feature named `name` (its key as the reports print it).
    fn feature(stats: &BoundStats, name: &str) -> f64 {
        stats
            .features
            .iter()
            .filter(|(f, _)| f.to_string() == name)
            .map(|(_, v)| *v)
            .sum()
    }

    /// A count that is a polynomial in the size extrapolates exactly; one that depends on
    /// random data (noise of a few counts around a line) is scaled by its power of the size,
    /// where the cubic through four samples 0.4 % apart flies off.
    #[test]
    fn counts_that_are_no_polynomial_scale_by_their_power_of_the_size() {
        let sizes = [65536.0, 65280.0, 65024.0, 64768.0, 64512.0];
        let cubic: Vec<(f64, f64)> = sizes.iter().map(|&x| (x, 3.0 * x * x + x)).collect();
        let (v, exact) = extrapolate(&cubic, 1048576.0);
        assert!(exact);
        assert_eq!(v, 3.0 * 1048576.0f64.powi(2) + 1048576.0);
        let noise = [13.0, -7.0, 2.0, -11.0, 5.0];
        let noisy: Vec<(f64, f64)> = sizes
            .iter()
            .zip(noise)
            .map(|(&x, e)| (x, 16.0 * x + e))
            .collect();
        let (v, exact) = extrapolate(&noisy, 1048576.0);
        assert!(!exact);
        let truth = 16.0 * 1048576.0;
        assert!((v - truth).abs() / truth < 1e-3, "{v} against {truth}");
        assert!((lagrange(&noisy[..4], 1048576.0) - truth).abs() / truth > 1.0);
    }

    /// `out[(z·ny + y)·nx + x] = 1` inside the box, on a 3D grid.
    const BOX_STORE: &str =
        "// kerncast: workload nx=256 ny=32 nz=32 grid=(nx/8,ny/8,nz/4) block=(8,8,4)
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_nx, .param .u32 k_ny, .param .u32 k_nz, .param .u64 k_out)
{
.reg .pred %p<4>;
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
ld.param.u32 %r1, [k_nx];
ld.param.u32 %r2, [k_ny];
ld.param.u32 %r3, [k_nz];
ld.param.u64 %rd1, [k_out];
mov.u32 %r4, %ctaid.x;
mov.u32 %r5, %tid.x;
mad.lo.s32 %r6, %r4, 8, %r5;
mov.u32 %r7, %ctaid.y;
mov.u32 %r8, %tid.y;
mad.lo.s32 %r9, %r7, 8, %r8;
mov.u32 %r10, %ctaid.z;
mov.u32 %r11, %tid.z;
mad.lo.s32 %r12, %r10, 4, %r11;
setp.ge.s32 %p1, %r6, %r1;
@%p1 bra DONE;
mad.lo.s32 %r13, %r12, %r2, %r9;
mad.lo.s32 %r14, %r13, %r1, %r6;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.s32 %rd3, %r14, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], 1;
DONE:
ret;
}
";

    /// At ny = nz = nx / 8 the samples' sizes can all be multiples of 32 in the same ratio only
    /// with nx in steps of 256, and five such steps do not fit the budget; rounding nz apart
    /// from nx made counts no polynomial, and their extrapolation gave a time of 0. The real
    /// launch is emulated instead: its first run within the sampling budget runs more than half
    /// of it, so the whole launch fits the limit of a run, and every thread of the box stores
    /// once.
    #[test]
    fn sizes_that_cannot_keep_their_ratio_are_sampled_not_extrapolated() {
        let m = Module::parse(BOX_STORE).unwrap();
        let spec = crate::annotations::scan(BOX_STORE).unwrap()[0].workloads[0].clone();
        let counter = EmulatorCounter {
            direct_threads: 1 << 13,
            ..EmulatorCounter::default()
        };
        let p = counter.prepare(&m, "k").unwrap();
        let params: Vec<String> = ["nx", "ny", "nz", "out"].map(String::from).to_vec();
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        assert_eq!(bound.notes, [EMULATED]);
        let stores: f64 = bound
            .stats
            .features
            .iter()
            .map(|(f, v)| (f.to_string(), v))
            .filter(|(f, _)| f.starts_with("mem.global.store") && f.ends_with(".thread"))
            .map(|(_, v)| v)
            .sum();
        assert_eq!(stores, (256 * 32 * 32) as f64);
    }

    /// A 2-D launch of w × w/2 whose grid divides by its block size `t`: the samples step w by
    /// 64 so that h = w/2 stays a multiple of 32, and `t`, a block size, is not scaled. Before,
    /// w stepped by 32, h rounded off its ratio at every odd step, and t was scaled with them:
    /// no samples at all.
    #[test]
    fn samples_keep_every_size_a_multiple_of_32_at_its_ratio_and_block_sizes_fixed() {
        let text = BOX_STORE.replace(
            "// kerncast: workload nx=256 ny=32 nz=32 grid=(nx/8,ny/8,nz/4) block=(8,8,4)",
            "// kerncast: workload t=8 nx=1024 ny=512 nz=1 grid=(nx/t,ny/t,1) block=(t,t,1)",
        );
        let m = Module::parse(&text).unwrap();
        let spec = crate::annotations::scan(&text).unwrap()[0].workloads[0].clone();
        assert_eq!(spec.size_roots(), ["nx", "ny"]);
        // a release build's budget, so that the test is the same in both
        let counter = EmulatorCounter {
            direct_threads: 1 << 16,
            ..EmulatorCounter::default()
        };
        let p = counter.prepare(&m, "k").unwrap();
        let params: Vec<String> = ["nx", "ny", "nz", "out"].map(String::from).to_vec();
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        assert!(
            bound.notes[0].contains("nx = 320, 256, 192, 128, 64"),
            "{:?}",
            bound.notes
        );
        // one store per thread of the 1024 × 512 inside the box (x < nx)
        let stores: f64 = bound
            .stats
            .features
            .iter()
            .map(|(f, v)| (f.to_string(), v))
            .filter(|(f, _)| f.starts_with("mem.global.store") && f.ends_with(".thread"))
            .map(|(_, v)| v)
            .sum();
        assert_eq!(stores, (1024 * 512) as f64, "{:?}", bound.stats.features);
    }

    /// Blocks of 64 threads that count to `iters` and store the count at their index.
    const LOOP_THEN_STORE: &str = ".version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_iters, .param .u64 k_out)
{
.reg .pred %p<4>;
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
ld.param.u32 %r1, [k_iters];
ld.param.u64 %rd1, [k_out];
mov.u32 %r2, 0;
LOOP:
add.s32 %r2, %r2, 1;
setp.lt.s32 %p1, %r2, %r1;
@%p1 bra LOOP;
mov.u32 %r4, %ctaid.x;
mov.u32 %r5, %tid.x;
mad.lo.s32 %r6, %r4, 64, %r5;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.s32 %rd3, %r6, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], %r2;
ret;
}
";

    /// A fixed grid, each thread looping `iters` times: too long to emulate whole within the
    /// sampling budget, so as many blocks as the budget runs are, spread over the grid, and
    /// their counts scaled to it; the launch's own sizes are not scaled. The budget, not the
    /// grid, decides how many: 40 blocks or 4000, the same number run. Every block does the
    /// same work here, so the counts are exact and the estimate's spread is 0.
    #[test]
    fn a_fixed_grid_too_long_to_emulate_whole_is_sampled_over_the_grid() {
        for grid in [40u64, 4000] {
            let text =
                &format!("// kerncast: workload iters=100 grid={grid} block=64\n{LOOP_THEN_STORE}");
            let m = Module::parse(text).unwrap();
            let spec = crate::annotations::scan(text).unwrap()[0].workloads[0].clone();
            assert!(spec.size_roots().is_empty());
            // a block: 2 warps x (100 trips x 3 + 11) = 622 steps; the first run, tracing,
            // stops at its limit of 20000 in the 33rd block, the spread run starts no block
            // after 4000, so it runs 7
            let counter = EmulatorCounter {
                spread_steps: 4_000,
                ..EmulatorCounter::default()
            };
            let p = counter.prepare(&m, "k").unwrap();
            let params: Vec<String> = ["iters", "out"].map(String::from).to_vec();
            let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
            let scale = grid as f64 / 7.0;
            assert!(
                bound.notes[0].starts_with(&format!(
                    "counts estimated from 7 of the launch's {grid} blocks, spread evenly over \
                     the grid (as many as 4000 warp steps run, or fewer blocks once they agree \
                     on the launch's work within 0.001 %), scaled by {scale:.2}: the whole \
                     launch takes more than 4000 warp steps"
                )),
                "{:?}",
                bound.notes
            );
            assert!(
                bound.notes[0].contains("; every sampled block took 622 warp steps"),
                "{:?}",
                bound.notes
            );
            let get = |name: &str| feature(&bound.stats, name);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
            assert_eq!(get("threads"), grid as f64 * 64.0);
            assert_eq!(get("blocks"), grid as f64);
            let stores = get("mem.global.store.b32.stride1.thread");
            assert!(close(stores, grid as f64 * 64.0), "{stores}");
            let adds = get("op.add_sub.s32.thread");
            assert!(close(adds, grid as f64 * 64.0 * 100.0), "{adds}");
            let sampled = bound
                .stats
                .assumptions
                .iter()
                .find(|a| a.hint_key == SAMPLED);
            assert_eq!(sampled.map(|a| a.default), Some(0.0));
        }
    }

    /// Blocks whose work grows with their index (block b loops b times): the blocks sampled
    /// over the grid estimate the total within a few percent, and the note gives the range of
    /// their work and the standard error, which is no longer 0.
    #[test]
    fn a_sample_of_blocks_whose_work_varies_says_how_much() {
        let text = &format!(
            "// kerncast: workload iters=0 grid=256 block=64\n{}",
            LOOP_THEN_STORE.replace("ld.param.u32 %r1, [k_iters];", "mov.u32 %r1, %ctaid.x;")
        );
        let m = Module::parse(text).unwrap();
        let spec = crate::annotations::scan(text).unwrap()[0].workloads[0].clone();
        // blocks take 22 to 1552 steps, 200000 in all: the spread run takes about 40
        let counter = EmulatorCounter {
            spread_steps: 30_000,
            ..EmulatorCounter::default()
        };
        let p = counter.prepare(&m, "k").unwrap();
        let params: Vec<String> = ["iters", "out"].map(String::from).to_vec();
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        assert!(
            bound.notes[0].starts_with("counts estimated from "),
            "{:?}",
            bound.notes
        );
        assert!(
            bound.notes[0].contains("; the sampled blocks took "),
            "{:?}",
            bound.notes
        );
        // each thread of block b adds max(b, 1) times
        let truth: f64 = (0..256u64).map(|b| 64.0 * b.max(1) as f64).sum();
        let adds = feature(&bound.stats, "op.add_sub.s32.thread");
        let err = (adds / truth - 1.0).abs();
        let se = bound
            .stats
            .assumptions
            .iter()
            .find(|a| a.hint_key == SAMPLED)
            .map(|a| a.default)
            .unwrap();
        assert!(se > 0.0 && se < 0.2, "{se}");
        // the error is within what the standard error says
        assert!(
            err < 0.1 && err <= 3.0 * se,
            "{adds} vs {truth}, standard error {se}"
        );
    }

    #[test]
    fn a_default_buffer_holds_the_sizes_product_up_to_its_cap() {
        assert_eq!(
            default_buffer_bytes(256, [64, 4096].into_iter()),
            16 * 64 * 4096 + 65536
        );
        assert_eq!(
            default_buffer_bytes(1024, [-1, 0, 8].into_iter()),
            16 * 1024 + 65536
        );
        // sizes whose product overflows get the cap, not a wrapped 64 KiB (the accessors of
        // an LSTM cell: a dozen sizes and strides of 4096)
        let many = std::iter::repeat_n(4096, 12);
        assert_eq!(default_buffer_bytes(1 << 18, many), 1 << 28);
    }

    /// A struct of a pointer and a bound, as `struct Rows { float *x; int n; }`: the pointer
    /// gets a buffer of its own, and the bound, which decides the guard, is asked for rather
    /// than run as 0.
    #[test]
    fn a_struct_s_pointer_gets_a_buffer_and_its_deciding_bound_is_asked_for() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
                    .visible .entry k(.param .align 8 .b8 k_r[16])\n{\n\
                    .reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<6>;\n\
                    ld.param.u64 %rd1, [k_r];\nld.param.u32 %r1, [k_r+8];\n\
                    cvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r2, %tid.x;\n\
                    setp.ge.s32 %p1, %r2, %r1;\n@%p1 bra DONE;\n\
                    mul.wide.s32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
                    st.global.f32 [%rd4], 0f3F800000;\nDONE:\nret;\n}\n";
        let m = Module::parse(text).unwrap();
        let p = EmulatorCounter::default().prepare(&m, "k").unwrap();
        let params = vec!["r".to_string()];
        let mut spec = WorkloadSpec::empty();
        spec.grid = crate::workload::Dims(vec![Expr::Int(1)]);
        spec.block = crate::workload::Dims(vec![Expr::Int(64)]);
        let Err(asked) = p.bind_spec(&spec, &BTreeMap::new(), &params) else {
            panic!("a bound run as 0")
        };
        assert!(
            asked.contains("the fields r+8 of the by-value parameter `r`"),
            "{asked}"
        );
        spec.params.push(("r+8".into(), Expr::Int(40)));
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        // 40 of the 64 threads store, into the struct's buffer
        assert_eq!(
            feature(&bound.stats, "mem.global.store.b32.stride1.thread"),
            40.0
        );
        assert!(bound
            .stats
            .assumptions
            .iter()
            .any(|a| a.hint_key == "buffer_bytes.r+0"));
    }

    /// The reuse profile traces the launch's first blocks: in the run of the whole launch where
    /// there is one, else in a run of those blocks within the sample budget. Where they would
    /// run past it, it traces as many as a run finished within it, not none.
    #[test]
    fn the_reuse_profile_traces_the_blocks_that_fit_the_budget() {
        let text = &format!("// kerncast: workload iters=100 grid=40 block=64\n{LOOP_THEN_STORE}");
        let m = Module::parse(text).unwrap();
        let spec = crate::annotations::scan(text).unwrap()[0].workloads[0].clone();
        // 2 warps x (100 trips x 3 + 11) steps a block: the whole launch runs past the
        // sampling budget (its counts come from spread blocks); the first run, in dispatch
        // order, goes on for the 40 blocks the profile wants, but stops at its limit of five
        // times the budget, having traced 32
        let counter = EmulatorCounter {
            spread_steps: 4_000,
            ..EmulatorCounter::default()
        };
        let p = counter.prepare(&m, "k").unwrap();
        let params: Vec<String> = ["iters", "out"].map(String::from).to_vec();
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        let Some(Reuse::Profile(profile)) = &bound.stats.reuse else {
            panic!("no reuse profile: {:?}", bound.stats.reuse);
        };
        assert_eq!((profile.blocks_walked, profile.blocks), (32, 40));
        // each thread stores one sector's share once: every request a first touch
        assert_eq!(profile.first_touches, profile.requests);
        let adds = feature(&bound.stats, "op.add_sub.s32.thread");
        assert!((adds / (40.0 * 64.0 * 100.0) - 1.0).abs() < 1e-9, "{adds}");

        // with room for the whole launch, the run that counts it traces all 40
        let p = EmulatorCounter::default().prepare(&m, "k").unwrap();
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        let Some(Reuse::Profile(profile)) = &bound.stats.reuse else {
            panic!("no reuse profile: {:?}", bound.stats.reuse);
        };
        assert_eq!((profile.blocks_walked, profile.blocks), (40, 40));
        assert_eq!(profile.first_touches, profile.requests);
    }

    /// The reuse profile (or why none) of kernel `k(in, out)` in `text`, emulated at its
    /// annotated workload.
    fn reuse_of_k(text: &str) -> Option<Reuse> {
        let m = Module::parse(text).unwrap();
        let spec = crate::annotations::scan(text).unwrap()[0].workloads[0].clone();
        let p = EmulatorCounter::default().prepare(&m, "k").unwrap();
        let params: Vec<String> = ["in", "out"].map(String::from).to_vec();
        p.bind_spec(&spec, &BTreeMap::new(), &params)
            .unwrap()
            .stats
            .reuse
    }

    /// A quadrant read from data indexes a constant table, as libdevice's `sin` does: wherever
    /// it lands it stays in the table's few sectors, so the kernel's reuse profile is still made
    /// on zero-filled buffers. A gather through a data index into a large array, or into a
    /// parameter's buffer, is not profiled on zeros: its addresses are the data's.
    #[test]
    fn a_data_index_into_a_small_table_keeps_the_reuse_profile() {
        let kernel = |table_bytes: u64, base: &str| {
            format!(
                "// kerncast: workload grid=8 block=64
.version 7.0
.target sm_80
.address_size 64
.global .align 8 .b8 table[{table_bytes}];
.visible .entry k(.param .u64 k_in, .param .u64 k_out)
{{
.reg .b32 %r<8>;
.reg .b64 %rd<12>;
.reg .f64 %fd<4>;
ld.param.u64 %rd1, [k_in];
ld.param.u64 %rd2, [k_out];
cvta.to.global.u64 %rd3, %rd1;
cvta.to.global.u64 %rd4, %rd2;
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %tid.x;
mad.lo.s32 %r3, %r1, 64, %r2;
mul.wide.s32 %rd5, %r3, 8;
add.s64 %rd6, %rd3, %rd5;
ld.global.f64 %fd1, [%rd6];
cvt.rzi.s32.f64 %r4, %fd1;
and.b32 %r5, %r4, 3;
mul.wide.u32 %rd7, %r5, 8;
mov.u64 %rd8, {base};
add.s64 %rd9, %rd8, %rd7;
ld.global.f64 %fd2, [%rd9];
add.s64 %rd10, %rd4, %rd5;
st.global.f64 [%rd10], %fd2;
ret;
}}
"
            )
        };
        let Some(Reuse::Profile(profile)) = reuse_of_k(&kernel(32, "table")) else {
            panic!("no reuse profile for a 32-byte table");
        };
        assert_eq!(profile.blocks_walked, 8);
        let refused = |r: Option<Reuse>| matches!(r, Some(Reuse::Unavailable(why)) if why.contains("depend on data"));
        assert!(
            refused(reuse_of_k(&kernel(1 << 20, "table"))),
            "a 1 MiB table"
        );
        assert!(
            refused(reuse_of_k(&kernel(32, "%rd3"))),
            "the input's own buffer"
        );
    }

    /// `if (in[i] < 200) out[i] = in[i + 1];`: whether the neighbour is read depends on data,
    /// where it lies does not, so the launch is profiled on zero-filled buffers. The same
    /// neighbour chosen by data at a join (`j = in[i] < 200 ? i + 1 : i`, as two paths) is not.
    #[test]
    fn an_access_that_data_only_decides_to_run_keeps_the_reuse_profile() {
        let kernel = |chosen_at_join: bool| {
            let (then, join) = if chosen_at_join {
                (
                    "mov.u32 %r4, 4;",
                    "mul.wide.u32 %rd8, %r4, 1;\nadd.s64 %rd7, %rd6, %rd8;",
                )
            } else {
                ("add.s64 %rd7, %rd6, 4;", "")
            };
            let load =
                "ld.global.f32 %f2, [%rd7];\nadd.s64 %rd9, %rd4, %rd5;\nst.global.f32 [%rd9], %f2;";
            let (then_load, join_load) = if chosen_at_join {
                ("", load)
            } else {
                (load, "")
            };
            format!(
                "// kerncast: workload grid=8 block=64
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_in, .param .u64 k_out)
{{
.reg .pred %p<4>;
.reg .b32 %r<8>;
.reg .b64 %rd<12>;
.reg .f32 %f<4>;
ld.param.u64 %rd1, [k_in];
ld.param.u64 %rd2, [k_out];
cvta.to.global.u64 %rd3, %rd1;
cvta.to.global.u64 %rd4, %rd2;
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %tid.x;
mad.lo.s32 %r3, %r1, 64, %r2;
mul.wide.s32 %rd5, %r3, 4;
add.s64 %rd6, %rd3, %rd5;
mov.u32 %r4, 0;
mov.u64 %rd7, %rd6;
ld.global.f32 %f1, [%rd6];
setp.ge.f32 %p1, %f1, 0f43480000;
@%p1 bra $L__join;
{then}
{then_load}
$L__join:
{join}
{join_load}
ret;
}}
"
            )
        };
        let profiled = reuse_of_k(&kernel(false));
        assert!(matches!(profiled, Some(Reuse::Profile(_))), "{profiled:?}");
        let refused = reuse_of_k(&kernel(true));
        assert!(
            matches!(&refused, Some(Reuse::Unavailable(why)) if why.contains("depend on data")),
            "{refused:?}"
        );
    }

    /// A launch whose size is a power of its root (`n = 1 << log2n`) cannot be emulated at
    /// smaller sizes in proportion: its own grid is sampled by spread blocks instead, and the
    /// note says why. Every block does the same work here, so the counts are exact.
    #[test]
    fn a_launch_whose_sizes_do_not_scale_is_sampled_over_its_grid() {
        let text = "// kerncast: workload log2n=14 n=1<<log2n grid=n/64 block=64
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_n, .param .u64 k_out)
{
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
ld.param.u32 %r1, [k_n];
ld.param.u64 %rd1, [k_out];
mov.u32 %r4, %ctaid.x;
mov.u32 %r5, %tid.x;
mad.lo.s32 %r6, %r4, 64, %r5;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.s32 %rd3, %r6, 4;
add.s64 %rd4, %rd2, %rd3;
st.global.u32 [%rd4], %r1;
ret;
}
";
        let m = Module::parse(text).unwrap();
        let spec = crate::annotations::scan(text).unwrap()[0].workloads[0].clone();
        assert_eq!(spec.size_roots(), ["log2n"]);
        let counter = EmulatorCounter {
            direct_threads: 4096,
            spread_steps: 600,
            ..EmulatorCounter::default()
        };
        let p = counter.prepare(&m, "k").unwrap();
        let params: Vec<String> = ["n", "out"].map(String::from).to_vec();
        let bound = p.bind_spec(&spec, &BTreeMap::new(), &params).unwrap();
        // a block is 2 warps of 10 steps: the spread run starts no block after 600, so 30 run
        assert!(
            bound.notes[0].starts_with(
                "counts estimated from 30 of the launch's 256 blocks, spread evenly over the \
                 grid (as many as 600 warp steps run, or fewer blocks once they agree on the \
                 launch's work within 0.001 %), scaled by 8.53: log2n cannot be scaled \
                 down far enough to emulate, in proportion and in multiples of 64; every \
                 sampled block took 20 warp steps"
            ),
            "{:?}",
            bound.notes
        );
        let get = |name: &str| feature(&bound.stats, name);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
        assert_eq!(get("blocks"), 256.0);
        assert!(close(get("mem.global.store.b32.stride1.thread"), 16384.0));
        assert!(close(get("sectors.global.store"), 16384.0 * 4.0 / 32.0));
    }

    /// A scalar the workload does not set is run as 0 only where it decides nothing counted: a
    /// loop bound is asked for, a value merely stored is an assumption.
    #[test]
    fn a_missing_scalar_that_decides_a_branch_is_asked_for() {
        let text = "// kerncast: workload grid=2 block=32
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_n, .param .u32 k_t, .param .u64 k_out)
{
.reg .pred %p<4>;
.reg .b32 %r<20>;
.reg .b64 %rd<8>;
ld.param.u32 %r1, [k_n];
ld.param.u32 %r2, [k_t];
ld.param.u64 %rd1, [k_out];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r3, 0;
LOOP:
st.global.u32 [%rd2], %r2;
add.s32 %r3, %r3, 1;
setp.lt.s32 %p1, %r3, %r1;
@%p1 bra LOOP;
ret;
}
";
        let m = Module::parse(text).unwrap();
        let spec = crate::annotations::scan(text).unwrap()[0].workloads[0].clone();
        let p = EmulatorCounter::default().prepare(&m, "k").unwrap();
        let params: Vec<String> = ["n", "t", "out"].map(String::from).to_vec();
        let e = p
            .bind_spec(&spec, &BTreeMap::new(), &params)
            .err()
            .expect("no counts for a loop bound run as 0");
        assert!(
            e.starts_with(
                "the counts depend on parameter `n`, which the workload does not set; it \
                 decides a branch or an address"
            ),
            "{e}"
        );
        let text = text.replace("workload grid=2", "workload n=3 grid=2");
        let with_n = crate::annotations::scan(&text).unwrap()[0].workloads[0].clone();
        let bound = p.bind_spec(&with_n, &BTreeMap::new(), &params).unwrap();
        let keys: Vec<&str> = bound
            .stats
            .assumptions
            .iter()
            .map(|a| a.hint_key.as_str())
            .collect();
        assert!(keys.contains(&"param.t"), "{keys:?}");
        assert_eq!(
            feature(&bound.stats, "mem.global.store.b32.uniform.thread"),
            2.0 * 32.0 * 3.0
        );
    }

    /// The roofline point counts tensor-core multiply–adds as flops and takes the DRAM bytes
    /// after the L2's hits; the ceilings are those of the work the kernel does.
    #[test]
    fn the_roofline_point_counts_tensor_flops_and_the_dram_bytes_after_l2_hits() {
        use kerncast_passes::stats::{Dir, Granularity};
        let t = Target::load("h100", "roofline").unwrap();
        let mut stats = BoundStats::default();
        let fma = |ty| Feature::Op {
            kind: OpKind::Fma,
            ty,
            gran: Granularity::Thread,
        };
        stats.features.insert(fma(DType::F32), 1000.0);
        stats.features.insert(
            Feature::TensorMma {
                input: DType::F16,
                acc: DType::F32,
                fmas: 4096,
            },
            10.0,
        );
        stats.features.insert(
            Feature::Sectors {
                space: Space::Global,
                dir: Dir::Load,
            },
            400.0,
        );
        let hints: BTreeMap<String, f64> = [("l2_hit_rate".to_string(), 0.75)].into();
        let r = t
            .roofline(&stats, &t.dram_traffic(&stats, &hints), 1e-6)
            .unwrap();
        assert_eq!(r.tensor_flops, 2.0 * 4096.0 * 10.0);
        assert_eq!(r.flops, 2000.0 + 81920.0);
        assert_eq!((r.l2_hit_rate, r.dram_bytes), (0.75, 32.0 * 400.0 * 0.25));
        assert_eq!(r.intensity, r.flops / r.dram_bytes);
        // no reuse profile: what reaches the L2 is unknown, so no L2 level
        assert_eq!(r.l2, None);
        let sm_clock = 132.0 * 1980e6;
        assert_eq!(r.peak_flops_per_s, sm_clock * 128.0 * 2.0);
        assert_eq!(
            r.ceilings,
            [Ceiling {
                name: "tensor f16→f32".into(),
                flops_per_s: sm_clock * 2048.0 * 2.0
            }]
        );
        // s8 tensor work counts as flops, but the f16 rate is no ceiling for it
        stats.features.insert(
            Feature::TensorMma {
                input: DType::S8,
                acc: DType::S32,
                fmas: 4096,
            },
            10.0,
        );
        stats.features.remove(&Feature::TensorMma {
            input: DType::F16,
            acc: DType::F32,
            fmas: 4096,
        });
        let r = t
            .roofline(&stats, &t.dram_traffic(&stats, &hints), 1e-6)
            .unwrap();
        assert_eq!((r.tensor_flops, r.ceilings.len()), (81920.0, 0));
        // an f64 kernel gets the fp64 ceiling, and no tensor one; without a hint the L2 hit
        // rate is the models' 0 (no reuse profile)
        stats.features.clear();
        stats.features.insert(fma(DType::F64), 1000.0);
        stats.features.insert(
            Feature::Sectors {
                space: Space::Global,
                dir: Dir::Store,
            },
            100.0,
        );
        let r = t
            .roofline(&stats, &t.dram_traffic(&stats, &BTreeMap::new()), 1e-6)
            .unwrap();
        assert_eq!(
            (r.tensor_flops, r.l2_hit_rate, r.dram_bytes),
            (0.0, 0.0, 3200.0)
        );
        assert_eq!(
            r.ceilings,
            [Ceiling {
                name: "fp64".into(),
                flops_per_s: sm_clock * 64.0 * 2.0
            }]
        );
    }
}
