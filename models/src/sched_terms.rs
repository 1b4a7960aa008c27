//! The scheduler's terms of the fitted linear model: what the roofline bound leaves out.
//!
//! On a current GPU the roofline is 3–5× too fast for small grids and for threads that run a
//! long serial loop: it has no launch cost, no latency and no occupancy limit. The scheduler
//! form of the linear model adds them as features, each a time in seconds, and fits one
//! non-negative weight per feature on measured launches:
//!
//! - `const`: 1, the launch overhead;
//! - `sched.roofline`: the roofline model's time (the busiest resource at its peak rate);
//! - `sched.latency.alu`: waves × warp instructions per warp, in core cycles — the time one
//!   warp's dependent chain takes when nothing hides its latency, once per wave of resident
//!   blocks (the thesis's wave arithmetic, [`crate::schedule::thesis::waves`]);
//! - `sched.latency.gmem`: the same for the warp's global-memory instructions, whose latency is
//!   a DRAM or L2 round trip rather than a pipeline's.
//!
//! The fitted weights say how many cycles each chained instruction costs on the device. The
//! features come from the counts and the kernel's registers and shared memory, which
//! `kerncast realcode` rows carry, so a fit on them sees exactly what a prediction sees.

use crate::device::{Clocks, Device};
use crate::model::Result;
use crate::schedule::thesis::{waves, SmLimits};
use kerncast_passes::stats::{BoundStats, Feature, Granularity, Space};
use std::collections::BTreeMap;

pub const CONST: &str = "const";
pub const ROOFLINE: &str = "sched.roofline";
pub const LATENCY_ALU: &str = "sched.latency.alu";
pub const LATENCY_GMEM: &str = "sched.latency.gmem";

/// The features of the scheduler form, in seconds at `clocks`. `roofline_s` is the roofline
/// model's time for the same launch.
pub fn features(
    s: &BoundStats,
    roofline_s: f64,
    d: &Device,
    clocks: Clocks,
    model: &str,
) -> Result<BTreeMap<String, f64>> {
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
    let warps = s.get(&Feature::Warps).max(1.0);
    let (mut alu, mut gmem) = (0.0, 0.0);
    for (f, &v) in &s.features {
        match f {
            Feature::Op {
                gran: Granularity::Warp,
                ..
            } => alu += v,
            Feature::Mem {
                space: Space::Global,
                gran: Granularity::Warp,
                ..
            } => gmem += v,
            _ => {}
        }
    }
    let cycle_s = 1.0 / (clocks.core_mhz * 1e6);
    Ok([
        (CONST.to_string(), 1.0),
        (ROOFLINE.to_string(), roofline_s),
        (LATENCY_ALU.to_string(), waves * alu / warps * cycle_s),
        (LATENCY_GMEM.to_string(), waves * gmem / warps * cycle_s),
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
    use kerncast_passes::stats::{DType, Dir, Launch, OpKind, StrideClass};

    /// 68 SMs × 16 resident blocks of 64 threads: 2000 blocks run in ⌈⌈2000 / 68⌉ / 16⌉ = 2 waves.
    #[test]
    fn a_warps_chain_counts_once_per_wave_in_core_cycles() {
        let d = Device::load("rtx-3080").unwrap();
        let clocks = Clocks::new(1000.0, 9500.0);
        let blocks = 2000u64;
        let warps = (blocks * 2) as f64;
        let s = BoundStats {
            kernel: "k".into(),
            launch: Some(Launch {
                grid: [blocks, 1, 1],
                block: [64, 1, 1],
            }),
            features: [
                (Feature::Warps, warps),
                (
                    Feature::Op {
                        kind: OpKind::Fma,
                        ty: DType::F32,
                        gran: Granularity::Warp,
                    },
                    100.0 * warps,
                ),
                (
                    Feature::Op {
                        kind: OpKind::Fma,
                        ty: DType::F32,
                        gran: Granularity::Thread,
                    },
                    3200.0 * warps,
                ),
                (
                    Feature::Mem {
                        space: Space::Global,
                        dir: Dir::Load,
                        bits: 32,
                        stride: StrideClass::Unit,
                        nc: false,
                        gran: Granularity::Warp,
                    },
                    10.0 * warps,
                ),
                (
                    Feature::Mem {
                        space: Space::Shared,
                        dir: Dir::Load,
                        bits: 32,
                        stride: StrideClass::Unit,
                        nc: false,
                        gran: Granularity::Warp,
                    },
                    50.0 * warps,
                ),
            ]
            .into_iter()
            .collect(),
            ..Default::default()
        };
        let f = features(&s, 3e-6, &d, clocks, "test").unwrap();
        assert_eq!(f[CONST], 1.0);
        assert_eq!(f[ROOFLINE], 3e-6);
        // 2 waves × 100 warp instructions × 1 ns; shared loads are not the global chain
        assert!((f[LATENCY_ALU] - 200e-9).abs() < 1e-15, "{f:?}");
        assert!((f[LATENCY_GMEM] - 20e-9).abs() < 1e-15, "{f:?}");
    }
}
