//! Which instruction starts which basic block, the loops' back edges, and where divergent lanes
//! reconverge, all from `crate::cfg`, so the emulator's `block_execs` use the same block indices
//! as every other pass. Reconvergence is at the immediate post-dominator of the branching block
//! (the classic SIMT stack), which is where compilers place convergence points; it keeps
//! barriers inside loops whose latch is laid out before the header (clang does this) working.

use crate::cfg::Cfg;
use crate::ptx::Function;

/// Block structure the interpreter needs.
pub struct Blocks {
    /// For each instruction index: the block it starts, or `usize::MAX`.
    pub start: Vec<usize>,
    pub nblocks: usize,
    /// (latch, header) of every natural loop.
    pub back_edges: Vec<(usize, usize)>,
    /// Header block of each natural loop, in `Cfg::loops` order.
    pub loop_headers: Vec<usize>,
    /// `file:line` of each block (its first instruction with a `.loc`, short file name), as the
    /// static counter names its hint keys.
    pub at: Vec<Option<String>>,
    /// For each instruction: the instruction where lanes diverging at its block reconverge
    /// (first instruction of the block's immediate post-dominator), `u32::MAX` for none.
    pub reconv: Vec<u32>,
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
    let n = cfg.blocks.len();
    let pdom = cfg.post_dominators_ending_at(|b| cfg.successors(b).next().is_none());
    let first = |b: usize| -> u32 {
        // An empty block reconverges at the next instruction in text order.
        cfg.blocks
            .get(b)
            .map_or(u32::MAX, |bb| bb.first_inst.min(ninsts) as u32)
    };
    let mut reconv = vec![u32::MAX; ninsts];
    for b in &cfg.blocks {
        let r = match pdom[b.id] {
            Some(p) if p < n => first(p),
            _ => u32::MAX,
        };
        for k in 0..b.insts.len() {
            if let Some(slot) = reconv.get_mut(b.first_inst + k) {
                *slot = r;
            }
        }
    }
    let at = cfg
        .blocks
        .iter()
        .map(|b| {
            let l = b.insts.iter().find_map(|i| i.loc.as_ref())?;
            let name = l
                .file_name
                .as_deref()
                .map(String::from)
                .unwrap_or_else(|| format!("file{}", l.file_index));
            let short = name.rsplit('/').next().unwrap_or(&name).to_string();
            Some(format!("{short}:{}", l.line))
        })
        .collect();
    Blocks {
        start,
        nblocks: cfg.blocks.len(),
        back_edges,
        loop_headers: cfg.loops.iter().map(|l| l.header).collect(),
        at,
        reconv,
    }
}
