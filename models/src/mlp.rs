//! Memory-level parallelism of a warp: how many global loads it issues before an instruction
//! needs one of their results and the warp stalls for the memory latency.
//!
//! Wang & Chu's cases charge the global latency once per transaction (`(avr_comp + agl_lat) ×
//! o_itrs`, Eq. 13 and 15): a warp with one load in flight at a time. A loop body that issues
//! eight independent loads before its first use waits once for the eight.
//!
//! The PTX's order is not the order the GPU runs: nvcc leaves each load next to its use
//! (`ld; fma; ld; fma; …`), and ptxas moves a basic block's independent global loads up to
//! issue them together (the SASS of a 16-tap FIR has its 16 `LDG`s first, then 16 `FFMA`s). So
//! each block is first put in that order: every global load moves up to just after the last
//! earlier instruction that binds it ([`MemOrder`]): one that writes a register the load reads,
//! or reads or writes the register it writes, an earlier global load (loads keep their order),
//! a barrier or fence, and, unless the load is read-only, a store or atomic that could write
//! what it reads. Then, walking that order, a wait is counted when an instruction reads (or
//! overwrites) a register an outstanding global load writes; the wait retires every
//! outstanding load. A block that ends with loads outstanding counts one wait, since its
//! successor will need them. Stores and reductions without a result never make the warp wait.
//!
//! Loads in flight hold their destination registers, so no more can be outstanding than the
//! kernel has registers: with the allocated count known, a load that would exceed it waits
//! for those before it first.

use crate::sched_inst::{MemOrder, SchedInst};
use kerncast_passes::stats::BlockExecs;
use std::collections::{BTreeMap, BTreeSet};

/// Global loads and the waits on them, per execution of one basic block by one warp.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockMlp {
    pub loads: u32,
    pub waits: u32,
}

/// Loads and waits of one basic block (see the module doc); `regs` is the registers a thread
/// has (none: no limit).
pub fn block_mlp(insts: &[SchedInst], regs: Option<u32>) -> BlockMlp {
    let mut out = BlockMlp::default();
    let mut pending: BTreeSet<&str> = BTreeSet::new();
    for inst in loads_first(insts).into_iter().map(|i| &insts[i]) {
        let touches_pending = inst
            .src
            .iter()
            .chain(&inst.dst)
            .any(|r| pending.contains(r.as_str()));
        let is_load = inst.mem == "global" && !inst.dst.is_empty();
        let over_regs = is_load
            && regs.is_some_and(|r| pending.len() + inst.dst.len() > r as usize)
            && !pending.is_empty();
        if touches_pending || over_regs {
            out.waits += 1;
            pending.clear();
        }
        if is_load {
            out.loads += 1;
            pending.extend(inst.dst.iter().map(String::as_str));
        }
    }
    if !pending.is_empty() {
        out.waits += 1;
    }
    out
}

/// The block's instructions (indices) in the order the compiler issues them: every global load
/// moved up to just after the last earlier instruction that [`binds`] it.
fn loads_first(insts: &[SchedInst]) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::with_capacity(insts.len());
    for (i, inst) in insts.iter().enumerate() {
        if matches!(inst.order, MemOrder::Load | MemOrder::ReadOnlyLoad) {
            let at = order
                .iter()
                .rposition(|&j| binds(&insts[j], inst))
                .map_or(0, |p| p + 1);
            order.insert(at, i);
        } else {
            order.push(i);
        }
    }
    order
}

/// Whether global load `load` must stay after `earlier` (see the module doc).
fn binds(earlier: &SchedInst, load: &SchedInst) -> bool {
    let registers = earlier.dst.iter().any(|r| load.src.contains(r))
        || earlier
            .src
            .iter()
            .chain(&earlier.dst)
            .any(|r| load.dst.contains(r));
    registers
        || match earlier.order {
            MemOrder::Free => false,
            MemOrder::Load | MemOrder::ReadOnlyLoad | MemOrder::Barrier => true,
            MemOrder::Fence => load.order != MemOrder::ReadOnlyLoad,
        }
}

/// Warp-level totals over a launch: the blocks' loads and waits weighted by how many warps run
/// each block, with `regs` registers per thread (see [`block_mlp`]). `None` when there are no
/// instructions or no block executions to weigh them by.
pub fn launch_mlp(
    blocks: &BTreeMap<usize, Vec<SchedInst>>,
    execs: &BTreeMap<usize, BlockExecs>,
    regs: Option<u32>,
) -> Option<(f64, f64)> {
    let (mut loads, mut waits, mut weighed) = (0.0, 0.0, false);
    for (id, insts) in blocks {
        let Some(e) = execs.get(id) else { continue };
        weighed = true;
        let m = block_mlp(insts, regs);
        loads += m.loads as f64 * e.warps;
        waits += m.waits as f64 * e.warps;
    }
    weighed.then_some((loads, waits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched_inst::UnitClass;

    fn ld(dst: &str, addr: &str) -> SchedInst {
        SchedInst {
            mem: "global".into(),
            order: MemOrder::Load,
            ..SchedInst::new(UnitClass::Lsu, &[dst], &[addr], 0)
        }
    }
    /// `ld.global.nc`
    fn ld_nc(dst: &str, addr: &str) -> SchedInst {
        SchedInst {
            order: MemOrder::ReadOnlyLoad,
            ..ld(dst, addr)
        }
    }
    fn st(addr: &str, val: &str) -> SchedInst {
        SchedInst {
            mem: "global".into(),
            order: MemOrder::Fence,
            ..SchedInst::new(UnitClass::Lsu, &[], &[addr, val], 0)
        }
    }
    fn bar() -> SchedInst {
        SchedInst {
            order: MemOrder::Barrier,
            ..SchedInst::new(UnitClass::Sp, &[], &[], 0)
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
        assert_eq!(block_mlp(&b, None), BlockMlp { loads: 8, waits: 1 });
    }

    /// nvcc's order for an unrolled FIR, each load beside its FMA: ptxas issues the 16 loads
    /// first (as its SASS for sm_80 shows), so the warp waits once.
    #[test]
    fn loads_beside_their_uses_are_issued_together() {
        let mut b = Vec::new();
        for k in 0..16 {
            b.push(ld_nc(&format!("x{k}"), "px"));
            b.push(fma("s", &format!("x{k}"), "c"));
        }
        b.push(st("py", "s"));
        assert_eq!(
            block_mlp(&b, None),
            BlockMlp {
                loads: 16,
                waits: 1
            }
        );
        // plain loads move up past arithmetic just as far
        let plain: Vec<SchedInst> = b
            .iter()
            .map(|i| match i.order {
                MemOrder::ReadOnlyLoad => SchedInst {
                    order: MemOrder::Load,
                    ..i.clone()
                },
                _ => i.clone(),
            })
            .collect();
        assert_eq!(block_mlp(&plain, None).waits, 1);
    }

    /// A copy without `__restrict__`: each store needs the load before it; the next load may
    /// not pass the store, so every load waits on its own. Read-only loads may pass the stores.
    #[test]
    fn load_store_pairs_wait_once_each() {
        let b: Vec<SchedInst> = (0..4)
            .flat_map(|i| [ld(&format!("v{i}"), "pin"), st("pout", &format!("v{i}"))])
            .collect();
        assert_eq!(block_mlp(&b, None), BlockMlp { loads: 4, waits: 4 });
        let nc: Vec<SchedInst> = (0..4)
            .flat_map(|i| [ld_nc(&format!("v{i}"), "pin"), st("pout", &format!("v{i}"))])
            .collect();
        assert_eq!(block_mlp(&nc, None), BlockMlp { loads: 4, waits: 1 });
    }

    /// No load moves above a barrier, read-only or not.
    #[test]
    fn a_barrier_holds_loads_back() {
        let b = vec![
            ld_nc("a", "p"),
            fma("s", "a", "s"),
            bar(),
            ld_nc("b", "p"),
            fma("s", "b", "s"),
        ];
        assert_eq!(block_mlp(&b, None), BlockMlp { loads: 2, waits: 2 });
    }

    /// A load may not move above an instruction that reads or writes its destination register.
    #[test]
    fn a_load_stays_below_the_last_use_of_its_register() {
        let b = vec![
            ld("a", "p"),
            fma("s", "a", "s"),
            ld("a", "q"),
            fma("s", "a", "s"),
        ];
        assert_eq!(block_mlp(&b, None).waits, 2);
    }

    /// In flight, loads hold their registers: with 8 a thread, 16 independent loads wait twice.
    #[test]
    fn registers_bound_the_loads_in_flight() {
        let mut b: Vec<SchedInst> = (0..16).map(|k| ld(&format!("x{k}"), "p")).collect();
        b.extend((0..16).map(|k| fma("s", &format!("x{k}"), "s")));
        assert_eq!(block_mlp(&b, None).waits, 1);
        assert_eq!(
            block_mlp(&b, Some(8)),
            BlockMlp {
                loads: 16,
                waits: 2
            }
        );
    }

    /// Pointer chasing: each address is the previous load's result.
    #[test]
    fn dependent_addresses_wait_for_each_load() {
        let b = vec![ld("p1", "p0"), ld("p2", "p1"), ld("p3", "p2")];
        // The last load is still outstanding when the block ends.
        assert_eq!(block_mlp(&b, None), BlockMlp { loads: 3, waits: 3 });
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
        assert_eq!(launch_mlp(&blocks, &execs, None), Some((50.0, 40.0)));
        assert_eq!(launch_mlp(&BTreeMap::new(), &execs, None), None);
        // Stores only: nothing to wait for.
        let stores = BTreeMap::from([(0, vec![st("p", "v"), st("q", "v")])]);
        assert_eq!(launch_mlp(&stores, &execs, None), Some((0.0, 0.0)));
    }
}
