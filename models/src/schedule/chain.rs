//! The dependent chains of a kernel: per CFG block, the longest run of instructions each of
//! which waits for a register the one before it writes.
//!
//! A warp issues in order: an instruction whose operand is not ready stalls it. A block of
//! independent instructions issues one per cycle, while a chain of dependent ones waits a
//! pipeline's latency at every step. How many instructions a warp runs cannot tell the two
//! apart; the chain can. Two depths are kept, as the costs of their steps differ by two orders
//! of magnitude: arithmetic (every instruction that is not a memory access or control) and
//! global loads (a load whose address comes from a load before it, as in a pointer chase or an
//! index read from memory). The device's cycles per step are left to the fit: the depths are
//! counts, not times. A chain is followed within a block; a loop's body runs as often as the
//! block does, so a loop-carried chain (`s += a[i]`) adds one body's chain per iteration.
//!
//! Known limit: a label nothing branches to still starts a CFG block, and clang's `-g` PTX has
//! a `$L__tmpN` label at nearly every source line (nvcc's has none), so in clang-lowered code a
//! chain ends at each line and a block's chains are the sum of its lines' ones. Following
//! chains through such labels (2026-12-05, gpuFLOPBench's clang build on the RTX 3080) brings
//! hexciton's sixteen float4 launches from 3–4× to 1.3× of their measured time, but over all
//! 950 launches the refitted form cross-validates at 24.0 % median error, 80.8 % within 2× and
//! 0.956 rank correlation against 23.1 %, 80.2 % and 0.955, and predicts the H200's held-out
//! launches at 31.2 % against 28.4 %: straight-line kernels with few warps (s3d's `ratt*`)
//! lose the time the summed pieces gave them, which no term of the form charges for
//! instructions a warp must issue one after another. Such a term, fitted beside the fix, did
//! not give it back (a scratch fit with the same folds, 2026-12-05): the instructions a warp
//! issues, per wave, 24.9 % on the RTX 3080 and 31.3 % on the H200 held out; the busiest SM's
//! warp instructions over the schedulers its warps occupy, 24.2 % and 31.4 %. Neither, nor the
//! fix, is shipped; a per-block term (a block's instructions against its chain) is untried.

use super::adapter::operand_regs;
use kerncast_passes::cfg::Cfg;
use kerncast_passes::classify::mem_access;
use kerncast_passes::ptx::Inst;
use kerncast_passes::stats::{BoundStats, Dir, Feature, Space};
use std::collections::{BTreeMap, HashMap};

/// The longest dependent chains of one block, in steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Chain {
    /// Arithmetic instructions along the chain with the most of them.
    pub alu: f64,
    /// Global loads along the chain with the most of them.
    pub gmem: f64,
}

/// How an instruction counts as a step of a chain.
fn steps(inst: &Inst) -> Chain {
    match mem_access(inst) {
        Some((Space::Global | Space::Generic, Dir::Load, ..)) => Chain {
            alu: 0.0,
            gmem: 1.0,
        },
        Some(_) => Chain::default(),
        None if matches!(
            inst.opcode.as_str(),
            "bra" | "brx" | "ret" | "exit" | "bar" | "barrier" | "membar" | "fence" | "call"
        ) =>
        {
            Chain::default()
        }
        None => Chain {
            alu: 1.0,
            gmem: 0.0,
        },
    }
}

/// The longest chains of one block's instructions (program order is a topological order of
/// their register dependences; a register read before the block writes it is ready at entry).
pub fn block_chain(insts: &[Inst]) -> Chain {
    let mut ready: HashMap<String, Chain> = HashMap::new();
    let mut longest = Chain::default();
    for inst in insts {
        let (dst, src) = operand_regs(inst);
        let mut at = Chain::default();
        for r in &src {
            if let Some(c) = ready.get(r) {
                at.alu = at.alu.max(c.alu);
                at.gmem = at.gmem.max(c.gmem);
            }
        }
        let s = steps(inst);
        let done = Chain {
            alu: at.alu + s.alu,
            gmem: at.gmem + s.gmem,
        };
        longest.alu = longest.alu.max(done.alu);
        longest.gmem = longest.gmem.max(done.gmem);
        for r in dst {
            ready.insert(r, done);
        }
    }
    longest
}

/// Every block's chains, by CFG block index (the index `BoundStats::block_execs` uses).
pub fn block_chains(cfg: &Cfg) -> BTreeMap<usize, Chain> {
    cfg.blocks
        .iter()
        .map(|b| (b.id, block_chain(&b.insts)))
        .collect()
}

/// The chain one warp runs through, on average: each block's, as often as a warp runs it.
/// `None` where the counts say nothing of the blocks.
pub fn per_warp(stats: &BoundStats, chains: &BTreeMap<usize, Chain>) -> Option<Chain> {
    if stats.block_execs.is_empty() || chains.is_empty() {
        return None;
    }
    let warps = stats.get(&Feature::Warps).max(1.0);
    let mut total = Chain::default();
    for (b, e) in &stats.block_execs {
        if let Some(c) = chains.get(b) {
            total.alu += e.warps * c.alu;
            total.gmem += e.warps * c.gmem;
        }
    }
    Some(Chain {
        alu: total.alu / warps,
        gmem: total.gmem / warps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::ptx::Module;

    fn chain_of(body: &str) -> Chain {
        let src = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n.reg .f32 %f<9>;\n.reg .b64 %rd<9>;\n{body}\nret;\n}}\n"
        );
        let m = Module::parse(&src).unwrap();
        let f = m.kernels().next().unwrap();
        let cfg = Cfg::build(f);
        block_chain(&cfg.blocks[0].insts)
    }

    /// Four independent additions are a chain of one; four that each take the last's result
    /// are a chain of four, though both run four instructions.
    #[test]
    fn independent_instructions_make_a_short_chain_and_dependent_ones_a_long_one() {
        let wide = chain_of(
            "add.f32 %f1, %f0, %f0;\nadd.f32 %f2, %f0, %f0;\nadd.f32 %f3, %f0, %f0;\nadd.f32 %f4, %f0, %f0;",
        );
        let deep = chain_of(
            "add.f32 %f1, %f0, %f0;\nadd.f32 %f2, %f1, %f0;\nadd.f32 %f3, %f2, %f0;\nadd.f32 %f4, %f3, %f0;",
        );
        assert_eq!(wide.alu, 1.0);
        assert_eq!(deep.alu, 4.0);
    }

    /// A load whose address a load gives waits for it: two steps of global loads; two loads
    /// of addresses the block has at entry are one.
    #[test]
    fn a_load_of_a_loaded_address_is_a_second_step() {
        let chase = chain_of("ld.global.u64 %rd1, [%rd0];\nld.global.u64 %rd2, [%rd1];");
        let apart = chain_of("ld.global.u64 %rd1, [%rd0];\nld.global.u64 %rd2, [%rd0+8];");
        assert_eq!(chase.gmem, 2.0);
        assert_eq!(apart.gmem, 1.0);
        assert_eq!(chase.alu, 0.0);
    }
}
