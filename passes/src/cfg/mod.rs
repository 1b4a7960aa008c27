//! Control-flow graphs over parsed PTX functions: basic blocks, edges, dominators, natural loops.
//!
//! Blocks are maximal runs of the function's instructions in text order (nested `{ }` scopes
//! flattened): a label starts a block, a branch or `ret`/`exit`/`trap` ends one. A predicated
//! branch gives a taken and a not-taken edge; a predicated `ret` also falls through. Dominators
//! come from petgraph (Cooper–Harvey–Kennedy); natural loops from back edges (an edge whose head
//! dominates its tail), merged per header and nested by containment. Anything the builder cannot
//! resolve (a branch to an unknown label, an indirect `brx.idx`, an irreducible cycle) is listed in
//! [`Cfg::warnings`], never dropped.

mod blocks;
mod loops;
mod render;

use crate::ptx::{Function, Statement};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;

pub use blocks::{BasicBlock, Edge, EdgeKind};
pub use loops::Loop;

/// The control-flow graph of one function. Block `i` is node `i` of `graph`; block 0 is the entry.
#[derive(Clone, Debug)]
pub struct Cfg {
    pub function: String,
    pub blocks: Vec<BasicBlock>,
    pub edges: Vec<Edge>,
    pub graph: DiGraph<usize, EdgeKind>,
    /// Immediate dominator of each block (`None` for the entry and unreachable blocks).
    pub idom: Vec<Option<usize>>,
    /// Natural loops, every loop before the loops nested in it (larger bodies first, then by header).
    pub loops: Vec<Loop>,
    /// Innermost loop of each block, as an index into `loops`.
    pub block_loop: Vec<Option<usize>>,
    pub warnings: Vec<String>,
    /// Per block, the indices into `edges` of the edges leaving it and of those entering it,
    /// ascending: [`Cfg::successors`] and [`Cfg::predecessors`] without a scan of every edge,
    /// which made walks over large unrolled graphs quadratic. (`edges` is fixed once built;
    /// `graph`'s own adjacency lists give the edges newest first, not in the order of `edges`.)
    out_edges: Vec<Vec<usize>>,
    in_edges: Vec<Vec<usize>>,
    /// Per block, its interval in a depth-first walk of the dominator tree (entry, exit):
    /// `a` dominates `b` when `a`'s interval holds `b`'s, in constant time. Walking up the
    /// idom chain instead made each test as long as the chain, and the walks that test every
    /// edge on the way up cubic in a large unrolled function.
    dom_interval: Vec<Option<(u32, u32)>>,
}

/// Whether `a` dominates `b`, by their [`dominator_intervals`] (a block dominates itself; an
/// unreachable block only itself).
fn dominates_by(intervals: &[Option<(u32, u32)>], a: usize, b: usize) -> bool {
    if a == b {
        return true;
    }
    match (intervals.get(a), intervals.get(b)) {
        (Some(Some((a_in, a_out))), Some(Some((b_in, b_out)))) => a_in <= b_in && b_out <= a_out,
        _ => false,
    }
}

/// [`Cfg::dom_interval`]: intervals of a depth-first walk of the tree `idom` gives, from block 0.
fn dominator_intervals(idom: &[Option<usize>]) -> Vec<Option<(u32, u32)>> {
    let n = idom.len();
    let mut children = vec![Vec::new(); n];
    for (b, d) in idom.iter().enumerate() {
        if let Some(d) = *d {
            if d != b {
                children[d].push(b);
            }
        }
    }
    let mut out = vec![None; n];
    if n == 0 {
        return out;
    }
    let mut clock = 0u32;
    // (block, next child to visit)
    let mut stack = vec![(0usize, 0usize)];
    let mut entry = vec![0u32; n];
    entry[0] = clock;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&c) = children[b].get(*next) {
            *next += 1;
            clock += 1;
            entry[c] = clock;
            stack.push((c, 0));
        } else {
            clock += 1;
            out[b] = Some((entry[b], clock));
            stack.pop();
        }
    }
    out
}

impl Cfg {
    /// Builds the CFG of a function with a body.
    pub fn build(f: &Function) -> Cfg {
        let mut warnings = Vec::new();
        let blocks = split(f);
        let by_label: BTreeMap<&str, usize> = blocks
            .iter()
            .flat_map(|b| b.labels.iter().map(move |l| (l.as_str(), b.id)))
            .collect();
        let mut edges = Vec::new();
        for b in &blocks {
            let next = (b.id + 1 < blocks.len()).then_some(b.id + 1);
            let term = b.insts.last();
            let guarded = term.is_some_and(|t| t.pred.is_some());
            match term {
                Some(t) if t.is_branch() => {
                    match t.branch_target().and_then(|l| by_label.get(l)) {
                        Some(&to) => edges.push(Edge {
                            from: b.id,
                            to,
                            kind: if guarded {
                                EdgeKind::Taken
                            } else {
                                EdgeKind::Jump
                            },
                        }),
                        None => warnings.push(format!(
                            "{}: line {}: branch target not resolved: `{}`",
                            f.name, t.span.line, t
                        )),
                    }
                    if guarded {
                        if let Some(n) = next {
                            edges.push(Edge {
                                from: b.id,
                                to: n,
                                kind: EdgeKind::NotTaken,
                            });
                        }
                    }
                }
                Some(t) if t.is_exit() => {
                    if guarded {
                        if let Some(n) = next {
                            edges.push(Edge {
                                from: b.id,
                                to: n,
                                kind: EdgeKind::NotTaken,
                            });
                        }
                    }
                }
                _ => {
                    if let Some(n) = next {
                        edges.push(Edge {
                            from: b.id,
                            to: n,
                            kind: EdgeKind::Fallthrough,
                        });
                    }
                }
            }
        }
        Cfg::from_parts(f.name.clone(), blocks, edges, warnings)
    }

    /// A CFG from blocks (block `i` has id `i`; block 0 is the entry) and explicit edges, with
    /// dominators and loops computed as for [`Cfg::build`]: passes that rewrite the graph (loop
    /// unrolling) build their result through it.
    pub fn from_parts(
        function: String,
        blocks: Vec<BasicBlock>,
        edges: Vec<Edge>,
        mut warnings: Vec<String>,
    ) -> Cfg {
        let mut graph = DiGraph::with_capacity(blocks.len(), edges.len());
        for b in &blocks {
            graph.add_node(b.id);
        }
        for e in &edges {
            graph.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), e.kind);
        }
        let dom = petgraph::algo::dominators::simple_fast(&graph, NodeIndex::new(0));
        let idom: Vec<Option<usize>> = (0..blocks.len())
            .map(|i| {
                dom.immediate_dominator(NodeIndex::new(i))
                    .map(|n| n.index())
            })
            .collect();
        let dom_interval = dominator_intervals(&idom);
        let (loops, block_loop) =
            loops::natural_loops(&blocks, &edges, &idom, &dom_interval, &mut warnings);
        // every edge joins two blocks (`graph.add_edge` above would have panicked otherwise)
        let n = blocks.len();
        let (mut out_edges, mut in_edges) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        for (i, e) in edges.iter().enumerate() {
            out_edges[e.from].push(i);
            in_edges[e.to].push(i);
        }
        Cfg {
            function,
            blocks,
            edges,
            graph,
            idom,
            loops,
            block_loop,
            warnings,
            out_edges,
            in_edges,
            dom_interval,
        }
    }

    /// Immediate post-dominator of each block: the first block every path from it to the
    /// function's end passes through. `Some(self.blocks.len())` stands for that end itself (the
    /// block's paths first meet at a return); `None` where no path from the block ends (an endless
    /// loop). A block that exits (a guarded `ret` too) or has no successors counts as a return.
    pub fn post_dominators(&self) -> Vec<Option<usize>> {
        self.post_dominators_ending_at(|b| {
            self.blocks[b].exits || self.successors(b).next().is_none()
        })
    }

    /// [`Cfg::post_dominators`] with the blocks that lead to the function's end chosen by
    /// `ends`: the emulator's reconvergence takes only blocks with no successors, since lanes
    /// that leave through a guarded `ret` leave the warp, not the paths the others reconverge on.
    pub fn post_dominators_ending_at(&self, ends: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
        let n = self.blocks.len();
        let mut reversed: DiGraph<(), ()> = DiGraph::with_capacity(n + 1, self.edges.len() + n);
        for _ in 0..=n {
            reversed.add_node(());
        }
        for e in &self.edges {
            reversed.add_edge(NodeIndex::new(e.to), NodeIndex::new(e.from), ());
        }
        for b in (0..n).filter(|&b| ends(b)) {
            reversed.add_edge(NodeIndex::new(n), NodeIndex::new(b), ());
        }
        let dom = petgraph::algo::dominators::simple_fast(&reversed, NodeIndex::new(n));
        (0..n)
            .map(|b| {
                dom.immediate_dominator(NodeIndex::new(b))
                    .map(|d| d.index())
            })
            .collect()
    }

    /// Does block `a` dominate block `b`?
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        dominates_by(&self.dom_interval, a, b)
    }

    /// The edges leaving `b`, in the order of `edges`.
    pub fn successors(&self, b: usize) -> impl Iterator<Item = &Edge> {
        Self::indexed(&self.edges, &self.out_edges, b)
    }

    /// The edges entering `b`, in the order of `edges`.
    pub fn predecessors(&self, b: usize) -> impl Iterator<Item = &Edge> {
        Self::indexed(&self.edges, &self.in_edges, b)
    }

    fn indexed<'a>(
        edges: &'a [Edge],
        index: &'a [Vec<usize>],
        b: usize,
    ) -> impl Iterator<Item = &'a Edge> {
        index.get(b).into_iter().flatten().map(|&i| &edges[i])
    }

    /// Loop nesting depth of a block (0 outside loops).
    pub fn loop_depth(&self, b: usize) -> u32 {
        self.block_loop[b].map_or(0, |l| self.loops[l].depth)
    }

    /// Is the block reachable from the entry?
    pub fn reachable(&self, b: usize) -> bool {
        b == 0 || self.idom[b].is_some()
    }
}

/// Splits the body into basic blocks.
fn split(f: &Function) -> Vec<BasicBlock> {
    let mut blocks: Vec<BasicBlock> = Vec::new();
    let mut cur = BasicBlock {
        id: 0,
        labels: Vec::new(),
        first_inst: 0,
        insts: Vec::new(),
        exits: false,
    };
    let mut n_inst = 0usize;
    let mut ended = false;
    let flush = |blocks: &mut Vec<BasicBlock>, cur: &mut BasicBlock, n_inst: usize| {
        let id = blocks.len();
        let mut b = std::mem::replace(
            cur,
            BasicBlock {
                id: id + 1,
                labels: Vec::new(),
                first_inst: n_inst,
                insts: Vec::new(),
                exits: false,
            },
        );
        b.id = id;
        blocks.push(b);
    };
    for s in f.statements() {
        match s {
            Statement::Label(l) => {
                if !cur.insts.is_empty() || ended {
                    flush(&mut blocks, &mut cur, n_inst);
                    ended = false;
                }
                cur.labels.push(l.name.clone());
            }
            Statement::Inst(i) => {
                if ended {
                    flush(&mut blocks, &mut cur, n_inst);
                    ended = false;
                }
                cur.insts.push(i.clone());
                n_inst += 1;
                if i.is_branch() || i.is_exit() {
                    cur.exits = i.is_exit();
                    ended = true;
                }
            }
            _ => {}
        }
    }
    if !cur.insts.is_empty() || !cur.labels.is_empty() || blocks.is_empty() {
        flush(&mut blocks, &mut cur, n_inst);
    }
    blocks
}

#[cfg(test)]
mod tests;
