//! Which instruction starts which basic block, and the loops' back edges, both taken from
//! `crate::cfg` so the emulator's `block_execs` use the same block indices as every other pass.

use crate::cfg::Cfg;
use crate::ptx::Function;

/// Block structure the interpreter needs.
pub struct Blocks {
    /// For each instruction index: the block it starts, or `usize::MAX`.
    pub start: Vec<usize>,
    pub nblocks: usize,
    /// (latch, header) of every natural loop.
    pub back_edges: Vec<(usize, usize)>,
}

pub fn of(f: &Function, ninsts: usize) -> Blocks {
    let cfg = Cfg::build(f);
    let mut start = vec![usize::MAX; ninsts];
    for b in &cfg.blocks {
        if !b.insts.is_empty() && b.first_inst < ninsts {
            start[b.first_inst] = b.id;
        }
    }
    let back_edges = cfg
        .loops
        .iter()
        .flat_map(|l| l.latches.iter().map(move |t| (*t, l.header)))
        .collect();
    Blocks {
        start,
        nblocks: cfg.blocks.len(),
        back_edges,
    }
}
