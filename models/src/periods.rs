//! Load periods of a warp: Wang & Chu's `o_itrs` in the shared-memory cases (Eq. 18–21, Fig. 11).
//!
//! A period there is one round of load, sync, compute, sync. The block's warps load a tile from
//! global memory into shared memory, wait at a barrier, work on the tile, and wait again. Eq. 20
//! charges the global latency once per period. Counting the periods as barriers / 2 fits the
//! tiled matrix product the paper models (two barriers a tile). It does not fit a tree
//! reduction, which loads once and then waits at a barrier after each of its shared-memory
//! steps: a 256-thread block has nine barriers, and barriers / 2 charged it 4.5 global latencies
//! for its one load.
//!
//! So a period is a barrier that closes an interval holding a global read: walking the blocks in
//! program order, the first CTA barrier after a global load (or `cp.async`) counts, once per warp
//! that runs its basic block. A barrier with only shared-memory work since the one before does
//! not.
//!
//! Program order stands in for the paths, since the model input has no edges. A loop whose
//! global read comes after its last barrier (a prefetch of the next tile) has its period closed
//! on the next trip by a barrier that comes earlier in the layout; the walk does not see that,
//! and counts fewer periods. The shared-memory cases then charge fewer global latencies but the
//! same DRAM transfers and shared-memory chain, so the time is short by those latencies only.

use crate::sched_inst::{MemOrder, SchedInst};
use kerncast_passes::stats::BlockExecs;
use std::collections::BTreeMap;

/// A read of global memory a barrier may wait for: a load or `cp.async`, not a store, an atomic
/// or an ordered (volatile) load.
fn reads_global(inst: &SchedInst) -> bool {
    inst.mem == "global" && inst.order != MemOrder::Fence
}

/// Warp-level load periods over a launch (see the module doc): the warp executions of every
/// barrier that closes an interval with a global read. `None` when there are no instructions or
/// no block executions to weigh them by.
pub fn launch_load_periods(
    blocks: &BTreeMap<usize, Vec<SchedInst>>,
    execs: &BTreeMap<usize, BlockExecs>,
) -> Option<f64> {
    let (mut periods, mut weighed, mut read_since_barrier) = (0.0, false, false);
    for (id, insts) in blocks {
        let warps = execs.get(id).map(|e| e.warps);
        weighed |= warps.is_some();
        for inst in insts {
            if reads_global(inst) {
                read_since_barrier = true;
            }
            if inst.cta_barrier && read_since_barrier {
                periods += warps.unwrap_or(0.0);
                read_since_barrier = false;
            }
        }
    }
    weighed.then_some(periods)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched_inst::UnitClass;

    fn ld_global() -> SchedInst {
        SchedInst {
            mem: "global".into(),
            order: MemOrder::Load,
            ..SchedInst::new(UnitClass::Lsu, &["v"], &["p"], 0)
        }
    }
    fn st_global() -> SchedInst {
        SchedInst {
            mem: "global".into(),
            order: MemOrder::Fence,
            ..SchedInst::new(UnitClass::Lsu, &[], &["p", "v"], 0)
        }
    }
    fn shared() -> SchedInst {
        SchedInst {
            mem: "shared".into(),
            ..SchedInst::new(UnitClass::Lsu, &["s"], &["q"], 0)
        }
    }
    fn bar_sync() -> SchedInst {
        SchedInst {
            order: MemOrder::Barrier,
            cta_barrier: true,
            ..SchedInst::new(UnitClass::Sp, &[], &[], 0)
        }
    }
    fn membar() -> SchedInst {
        SchedInst {
            order: MemOrder::Barrier,
            ..SchedInst::new(UnitClass::Sp, &[], &[], 0)
        }
    }
    fn warps(w: f64) -> BlockExecs {
        BlockExecs {
            threads: w * 32.0,
            warps: w,
        }
    }

    /// A tree reduction of 256-thread blocks: one load and barrier, then eight shared steps with
    /// a barrier each, then a store. One period per warp, where barriers / 2 gives 4.5.
    #[test]
    fn a_tree_reduction_has_one_period() {
        let blocks = BTreeMap::from([
            (0, vec![ld_global(), shared(), bar_sync()]),
            (1, vec![shared(), shared(), shared(), bar_sync()]),
            (2, vec![shared(), st_global()]),
        ]);
        let execs = BTreeMap::from([(0, warps(8.0)), (1, warps(64.0)), (2, warps(1.0))]);
        assert_eq!(launch_load_periods(&blocks, &execs), Some(8.0));
    }

    /// The tiled matrix product: each of 16 tiles loads two values, syncs, multiplies out of
    /// shared memory and syncs again: a period per tile. The load in the block before the
    /// barrier's (a conditional load, say) still opens the period.
    #[test]
    fn a_tiled_product_has_a_period_per_tile() {
        let blocks = BTreeMap::from([
            (0, vec![ld_global(), ld_global()]),
            (
                1,
                vec![shared(), bar_sync(), shared(), shared(), bar_sync()],
            ),
            (2, vec![st_global()]),
        ]);
        let execs = BTreeMap::from([(0, warps(16.0)), (1, warps(16.0)), (2, warps(1.0))]);
        assert_eq!(launch_load_periods(&blocks, &execs), Some(16.0));
    }

    /// Stores, fences and warp-level syncs open or close no period; no executions, no answer.
    #[test]
    fn only_global_reads_and_cta_barriers_make_periods() {
        let blocks = BTreeMap::from([(0, vec![st_global(), bar_sync(), ld_global(), membar()])]);
        assert_eq!(
            launch_load_periods(&blocks, &BTreeMap::from([(0, warps(4.0))])),
            Some(0.0)
        );
        assert_eq!(launch_load_periods(&blocks, &BTreeMap::new()), None);
    }
}
