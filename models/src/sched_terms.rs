//! The scheduler's terms of the fitted linear model: what the roofline bound leaves out.
//!
//! On a current GPU the roofline is 3–5× too fast for small grids and for threads that run a
//! long serial loop: it has no launch cost, no latency and no occupancy limit. The scheduler
//! form of the linear model adds them as features, each a time in seconds, and fits one
//! non-negative weight per feature on measured launches:
//!
//! - `const`: 1, the launch overhead;
//! - `sched.roofline`: the roofline model's time (the busiest resource at its peak rate);
//! - `sched.chain.alu`: waves × the arithmetic steps of the dependent chains a warp runs
//!   through ([`crate::schedule::chain`]), in core cycles — the time a warp waits on its own
//!   results when nothing hides the latency, once per wave of resident blocks (the thesis's
//!   wave arithmetic, [`crate::schedule::thesis::waves`]);
//! - `sched.chain.gmem`: the same for the global loads along a chain (a load whose address a
//!   load gives), whose step is an L2 or DRAM round trip rather than a pipeline's;
//! - `sched.atomic.uniform`: the executions of global atomics that the L2 applies one after
//!   another, in core cycles ([`crate::schedule::atomics`]): at an address the same in every
//!   lane by construction, one per lane, or one per warp where ptxas reduces the lanes first
//!   (a 32-bit integer add, min, max or logic operation); at one the data made the same, one
//!   per lane. The roofline counts such an atomic as the one sector it touches. Without the
//!   term the atomic-heavy launches (a float sum into one counter) came out 30–300× too fast;
//! - `sched.atomic.shared_spin`: the lanes of float adds to one shared-memory address, which
//!   spin once per lane, per SM the launch occupies, in core cycles: each SM runs its own
//!   blocks' loops. `docs/time-model.md` has the figures of each form tried.
//!
//! The fitted weights say how many cycles each chained step costs on the device. The features
//! come from the counts, the kernel's chains per block and its registers and shared memory,
//! which `kerncast realcode` rows carry (the chains as `sched.chain.*` per warp), so a fit on
//! them sees exactly what a prediction sees. An earlier form charged every instruction a warp
//! runs as a step; the chain tells a block of independent instructions, which issue one per
//! cycle, from a dependent run of the same length (measured on gpuFLOPBench's RTX 3080
//! launches in 5-fold CV by program: median error 28.5 % → 24.5 %, `docs/time-model.md`).

use crate::device::{Clocks, Device};
use crate::model::{ModelError, Result};
use crate::schedule::atomics::SerialExecs;
use crate::schedule::chain::Chain;
use crate::schedule::thesis::{waves, SmLimits};
use kerncast_passes::stats::{BoundStats, Dir, Feature, Granularity, Space, StrideClass};
use std::collections::BTreeMap;

pub const CONST: &str = "const";
pub const ROOFLINE: &str = "sched.roofline";
pub const CHAIN_ALU: &str = "sched.chain.alu";
pub const CHAIN_GMEM: &str = "sched.chain.gmem";
pub const ATOMIC_UNIFORM: &str = "sched.atomic.uniform";
pub const SHARED_SPIN: &str = "sched.atomic.shared_spin";
/// A realcode row's counts of its atomics' serial executions, global and shared-memory spins,
/// for the fit to read back.
pub const SERIAL_ATOMICS: &str = "sched.atomic.serial";
pub const SPIN_LANES: &str = "sched.atomic.spin_lanes";

/// Whether a count key is of the lanes of global (or generic) atomics, per thread, whose
/// address the counts class the same in every lane of the warp: those beyond the atomics
/// uniform by construction met in the data ([`crate::schedule::atomics::serial_lanes`]), and a
/// row kept before [`SERIAL_ATOMICS`] is read by all of them, as the form then charged.
pub fn is_uniform_atomic_lanes(f: &Feature) -> bool {
    matches!(
        f,
        Feature::Mem {
            space,
            dir: Dir::Atomic,
            stride: StrideClass::Uniform,
            gran: Granularity::Thread,
            ..
        } if *space != Space::Shared
    )
}

/// The features of the scheduler form, in seconds at `clocks`. `roofline_s` is the roofline
/// model's time for the same launch; `chain` the dependent chains one warp runs through
/// ([`crate::schedule::chain::per_warp`]), without which the form cannot predict;
/// `serial_atomics` the atomics' executions applied one after another
/// ([`crate::schedule::atomics::serial_lanes`]).
pub fn features(
    s: &BoundStats,
    roofline_s: f64,
    chain: Option<Chain>,
    serial_atomics: SerialExecs,
    d: &Device,
    clocks: Clocks,
    model: &str,
) -> Result<BTreeMap<String, f64>> {
    let chain = chain.ok_or_else(|| ModelError::Input {
        model: model.to_string(),
        what: "the kernel's dependent chains (its PTX, and how often each block runs) for \
               the scheduler form"
            .to_string(),
    })?;
    let lim = SmLimits::of(d, model)?;
    let (blocks, threads_per_block) = match s.launch {
        Some(l) => (l.blocks(), l.threads_per_block()),
        None => {
            let blocks = s.get(&Feature::Blocks);
            let per_block = s.get(&Feature::Threads) / blocks.max(1.0);
            (blocks as u64, per_block.round() as u64)
        }
    };
    let waves = waves(
        &lim,
        blocks.max(1),
        threads_per_block.max(1),
        s.regs_per_thread.map(u64::from),
        s.shared_bytes_per_block,
    )
    .waves as f64;
    let cycle_s = 1.0 / (clocks.core_mhz * 1e6);
    Ok([
        (CONST.to_string(), 1.0),
        (ROOFLINE.to_string(), roofline_s),
        (CHAIN_ALU.to_string(), waves * chain.alu * cycle_s),
        (CHAIN_GMEM.to_string(), waves * chain.gmem * cycle_s),
        (ATOMIC_UNIFORM.to_string(), serial_atomics.global * cycle_s),
        (
            SHARED_SPIN.to_string(),
            serial_atomics.shared_spin / blocks.clamp(1, lim.sm_count.max(1)) as f64 * cycle_s,
        ),
    ]
    .into_iter()
    .collect())
}

/// Whether fitted weights are of the scheduler form (else Stevens & Klöckner's counts).
pub fn is_scheduler_form(weights: &BTreeMap<String, f64>) -> bool {
    weights.keys().any(|k| k.starts_with("sched."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::stats::Launch;

    /// 68 SMs × 16 resident blocks of 64 threads: 2000 blocks run in ⌈⌈2000 / 68⌉ / 16⌉ = 2 waves.
    #[test]
    fn a_warps_chain_counts_once_per_wave_in_core_cycles() {
        let d = Device::load("rtx-3080").unwrap();
        let clocks = Clocks::new(1000.0, 9500.0);
        let blocks = 2000u64;
        let s = BoundStats {
            kernel: "k".into(),
            launch: Some(Launch {
                grid: [blocks, 1, 1],
                block: [64, 1, 1],
            }),
            features: [(Feature::Warps, (blocks * 2) as f64)]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        let chain = Chain {
            alu: 100.0,
            gmem: 10.0,
        };
        let f = features(
            &s,
            3e-6,
            Some(chain),
            SerialExecs::default(),
            &d,
            clocks,
            "test",
        )
        .unwrap();
        assert_eq!(f[CONST], 1.0);
        assert_eq!(f[ROOFLINE], 3e-6);
        // 2 waves × 100 chained steps × 1 ns
        assert!((f[CHAIN_ALU] - 200e-9).abs() < 1e-15, "{f:?}");
        assert!((f[CHAIN_GMEM] - 20e-9).abs() < 1e-15, "{f:?}");
        assert_eq!(f[ATOMIC_UNIFORM], 0.0);
    }

    /// 4096 serial executions of global atomics are 4096 core cycles; 6800 lanes spinning on
    /// shared memory, spread over the 68 SMs the 128 blocks occupy, 100. A row kept before they
    /// were counted is read by the counts' uniform lanes: a coalesced atomic, a shared-memory one
    /// and the warp-level count of the uniform one add nothing there.
    #[test]
    fn serial_atomics_count_in_core_cycles() {
        let d = Device::load("rtx-3080").unwrap();
        let clocks = Clocks::new(1000.0, 9500.0);
        let atomic = |space, stride, gran| Feature::Mem {
            space,
            dir: Dir::Atomic,
            bits: 32,
            stride,
            nc: false,
            gran,
        };
        let s = BoundStats {
            kernel: "k".into(),
            launch: Some(Launch {
                grid: [128, 1, 1],
                block: [32, 1, 1],
            }),
            features: [
                (
                    atomic(Space::Global, StrideClass::Uniform, Granularity::Thread),
                    4096.0,
                ),
                (
                    atomic(Space::Global, StrideClass::Uniform, Granularity::Warp),
                    128.0,
                ),
                (
                    atomic(Space::Global, StrideClass::Unit, Granularity::Thread),
                    4096.0,
                ),
                (
                    atomic(Space::Shared, StrideClass::Uniform, Granularity::Thread),
                    4096.0,
                ),
            ]
            .into_iter()
            .collect(),
            ..Default::default()
        };
        let chain = Chain {
            alu: 1.0,
            gmem: 0.0,
        };
        let serial = SerialExecs {
            global: 4096.0,
            shared_spin: 6800.0,
        };
        let f = features(&s, 1e-6, Some(chain), serial, &d, clocks, "test").unwrap();
        assert!((f[ATOMIC_UNIFORM] - 4096e-9).abs() < 1e-15, "{f:?}");
        assert!((f[SHARED_SPIN] - 100e-9).abs() < 1e-15, "{f:?}");
        assert_eq!(s.sum_where(is_uniform_atomic_lanes), 4096.0);
    }

    #[test]
    fn without_the_chains_the_form_says_what_it_needs() {
        let d = Device::load("rtx-3080").unwrap();
        let e = features(
            &BoundStats::default(),
            1e-6,
            None,
            SerialExecs::default(),
            &d,
            Clocks::new(1000.0, 9500.0),
            "linear",
        )
        .unwrap_err();
        assert!(e.to_string().contains("dependent chains"), "{e}");
    }
}
