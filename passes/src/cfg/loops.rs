//! Natural loops: one per header, the union of the bodies of its back edges; nested by
//! containment. A retreating edge whose head does not dominate its tail makes the region
//! irreducible; it is reported, and the edge forms no loop.

use super::{BasicBlock, Edge};
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Loop {
    pub header: usize,
    /// Blocks of the loop, header included, sorted.
    pub blocks: Vec<usize>,
    /// Sources of the back edges (latches), sorted.
    pub latches: Vec<usize>,
    /// Blocks outside the loop that loop blocks branch to, sorted.
    pub exits: Vec<usize>,
    /// Enclosing loop (index into `Cfg::loops`).
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
}

pub(super) fn natural_loops(
    blocks: &[BasicBlock],
    edges: &[Edge],
    idom: &[Option<usize>],
    dom_interval: &[Option<(u32, u32)>],
    warnings: &mut Vec<String>,
) -> (Vec<Loop>, Vec<Option<usize>>) {
    let dominates = |a: usize, b: usize| super::dominates_by(dom_interval, a, b);
    let reachable = |b: usize| b == 0 || idom[b].is_some();
    let retreating = retreating_edges(blocks.len(), edges);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for e in edges {
        preds[e.to].push(e.from);
    }
    // header -> (body, latches)
    let mut by_header: std::collections::BTreeMap<usize, (BTreeSet<usize>, BTreeSet<usize>)> =
        Default::default();
    for e in edges {
        if !reachable(e.from) {
            continue;
        }
        if dominates(e.to, e.from) {
            let (body, latches) = by_header.entry(e.to).or_default();
            latches.insert(e.from);
            body.insert(e.to);
            let mut stack = vec![e.from];
            while let Some(n) = stack.pop() {
                if body.insert(n) {
                    stack.extend(preds[n].iter().copied().filter(|&p| reachable(p)));
                }
            }
        } else if retreating.contains(&(e.from, e.to)) {
            warnings.push(format!(
                "irreducible control flow: edge {} -> {} re-enters a cycle whose entry does not dominate it",
                blocks[e.from].name(),
                blocks[e.to].name()
            ));
        }
    }
    let mut loops: Vec<Loop> = by_header
        .into_iter()
        .map(|(header, (body, latches))| {
            let exits: BTreeSet<usize> = edges
                .iter()
                .filter(|e| body.contains(&e.from) && !body.contains(&e.to))
                .map(|e| e.to)
                .collect();
            Loop {
                header,
                blocks: body.into_iter().collect(),
                latches: latches.into_iter().collect(),
                exits: exits.into_iter().collect(),
                parent: None,
                depth: 1,
            }
        })
        .collect();
    // Outer loops first: larger bodies first, then by header.
    loops.sort_by(|a, b| {
        b.blocks
            .len()
            .cmp(&a.blocks.len())
            .then(a.header.cmp(&b.header))
    });
    for i in 0..loops.len() {
        // Parent: the smallest earlier (larger) loop containing this header.
        let parent = (0..i)
            .filter(|&j| loops[j].blocks.binary_search(&loops[i].header).is_ok())
            .min_by_key(|&j| loops[j].blocks.len());
        loops[i].parent = parent;
        loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
    }
    let mut block_loop = vec![None; blocks.len()];
    for (i, l) in loops.iter().enumerate() {
        for &b in &l.blocks {
            // Later loops are smaller, so the last write is the innermost.
            block_loop[b] = Some(i);
        }
    }
    (loops, block_loop)
}

/// Edges that close a cycle in a depth-first walk from the entry (their head is on the walk's
/// stack). A graph is reducible exactly when each of them is a back edge; text order would not
/// do, as clang lays a loop's latch out before its header, which makes a forward edge of the
/// loop run from a later to an earlier block.
fn retreating_edges(n: usize, edges: &[Edge]) -> BTreeSet<(usize, usize)> {
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in edges {
        succs[e.from].push(e.to);
    }
    let mut out = BTreeSet::new();
    if n == 0 {
        return out;
    }
    let (mut seen, mut on_stack) = (vec![false; n], vec![false; n]);
    // (block, index of its next successor to visit)
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    on_stack[0] = true;
    while let Some((b, i)) = stack.last_mut() {
        let (b, next) = (*b, succs[*b].get(*i).copied());
        *i += 1;
        match next {
            Some(t) if on_stack[t] => {
                out.insert((b, t));
            }
            Some(t) if !seen[t] => {
                seen[t] = true;
                on_stack[t] = true;
                stack.push((t, 0));
            }
            Some(_) => {}
            None => {
                on_stack[b] = false;
                stack.pop();
            }
        }
    }
    out
}
