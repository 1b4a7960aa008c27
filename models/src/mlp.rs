//! Memory-level parallelism of a warp: how many global loads it issues before an instruction
//! needs one of their results and the warp stalls for the memory latency.
//!
//! Wang & Chu's cases charge the global latency once per transaction (`(avr_comp + agl_lat) ×
//! o_itrs`, Eq. 13 and 15): a warp with one load in flight at a time. A loop body that issues
//! eight independent loads before its first use waits once for the eight. Walking each basic
//! block in program order, a wait is counted when an instruction reads (or overwrites) a
//! register that an outstanding global load writes; the wait retires every outstanding load. A
//! block that ends with loads outstanding counts one wait, since its successor will need them.
//! Stores and reductions without a result never make the warp wait.

use crate::schedule::dag::SchedInst;
use kerncast_passes::stats::BlockExecs;
use std::collections::{BTreeMap, BTreeSet};

/// Global loads and the waits on them, per execution of one basic block by one warp.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockMlp {
    pub loads: u32,
    pub waits: u32,
}

/// Loads and waits of one basic block (see the module doc).
pub fn block_mlp(insts: &[SchedInst]) -> BlockMlp {
    let mut out = BlockMlp::default();
    let mut pending: BTreeSet<&str> = BTreeSet::new();
    for inst in insts {
        let touches_pending = inst
            .src
            .iter()
            .chain(&inst.dst)
            .any(|r| pending.contains(r.as_str()));
        if touches_pending {
            out.waits += 1;
            pending.clear();
        }
        if inst.mem == "global" && !inst.dst.is_empty() {
            out.loads += 1;
            pending.extend(inst.dst.iter().map(String::as_str));
        }
    }
    if !pending.is_empty() {
        out.waits += 1;
    }
    out
}

/// Warp-level totals over a launch: the blocks' loads and waits weighted by how many warps run
/// each block. `None` when there are no instructions or no block executions to weigh them by.
pub fn launch_mlp(
    blocks: &BTreeMap<usize, Vec<SchedInst>>,
    execs: &BTreeMap<usize, BlockExecs>,
) -> Option<(f64, f64)> {
    let (mut loads, mut waits, mut weighed) = (0.0, 0.0, false);
    for (id, insts) in blocks {
        let Some(e) = execs.get(id) else { continue };
        weighed = true;
        let m = block_mlp(insts);
        loads += m.loads as f64 * e.warps;
        waits += m.waits as f64 * e.warps;
    }
    weighed.then_some((loads, waits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::dag::UnitClass;

    fn ld(dst: &str, addr: &str) -> SchedInst {
        SchedInst {
            mem: "global".into(),
            ..SchedInst::new(UnitClass::Lsu, &[dst], &[addr], 0)
        }
    }
    fn st(addr: &str, val: &str) -> SchedInst {
        SchedInst {
            mem: "global".into(),
            ..SchedInst::new(UnitClass::Lsu, &[], &[addr, val], 0)
        }
    }
    fn fma(d: &str, a: &str, b: &str) -> SchedInst {
        SchedInst::new(UnitClass::Sp, &[d], &[a, b, d], 4)
    }

    /// An unrolled dot product: four pairs of loads, then the four FMAs: one wait for eight.
    #[test]
    fn independent_loads_share_one_wait() {
        let mut b: Vec<SchedInst> = (0..4)
            .flat_map(|i| [ld(&format!("a{i}"), "pa"), ld(&format!("b{i}"), "pb")])
            .collect();
        b.extend((0..4).map(|i| fma("acc", &format!("a{i}"), &format!("b{i}"))));
        assert_eq!(block_mlp(&b), BlockMlp { loads: 8, waits: 1 });
    }

    /// A copy without `__restrict__`: each store needs the load before it; the next load may
    /// not pass the store, so every load waits on its own.
    #[test]
    fn load_store_pairs_wait_once_each() {
        let b: Vec<SchedInst> = (0..4)
            .flat_map(|i| [ld(&format!("v{i}"), "pin"), st("pout", &format!("v{i}"))])
            .collect();
        assert_eq!(block_mlp(&b), BlockMlp { loads: 4, waits: 4 });
    }

    /// Pointer chasing: each address is the previous load's result.
    #[test]
    fn dependent_addresses_wait_for_each_load() {
        let b = vec![ld("p1", "p0"), ld("p2", "p1"), ld("p3", "p2")];
        // The last load is still outstanding when the block ends.
        assert_eq!(block_mlp(&b), BlockMlp { loads: 3, waits: 3 });
    }

    /// Weighted by the warps that run each block; blocks without loads add nothing.
    #[test]
    fn the_launch_weighs_blocks_by_their_warp_executions() {
        let blocks = BTreeMap::from([
            (0, vec![ld("a", "p"), ld("b", "q"), fma("c", "a", "b")]),
            (1, vec![ld("x", "p"), st("q", "x")]),
            (2, vec![fma("c", "c", "c")]),
        ]);
        let e = |warps: f64| BlockExecs {
            threads: warps * 32.0,
            warps,
        };
        let execs = BTreeMap::from([(0, e(10.0)), (1, e(30.0)), (2, e(5.0))]);
        assert_eq!(launch_mlp(&blocks, &execs), Some((50.0, 40.0)));
        assert_eq!(launch_mlp(&BTreeMap::new(), &execs), None);
        // Stores only: nothing to wait for.
        let stores = BTreeMap::from([(0, vec![st("p", "v"), st("q", "v")])]);
        assert_eq!(launch_mlp(&stores, &execs), Some((0.0, 0.0)));
    }
}
