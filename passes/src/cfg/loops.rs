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
    warnings: &mut Vec<String>,
) -> (Vec<Loop>, Vec<Option<usize>>) {
    let dominates = |a: usize, b: usize| {
        let mut cur = Some(b);
        while let Some(c) = cur {
            if c == a {
                return true;
            }
            cur = idom[c];
        }
        false
    };
    let reachable = |b: usize| b == 0 || idom[b].is_some();
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
        } else if e.to <= e.from && is_retreating(e, blocks.len(), &preds) {
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

/// Is `e` part of a cycle (its head reaches its tail)? Only then is a non-back edge from a later
/// to an earlier block a sign of irreducibility rather than plain forward flow.
fn is_retreating(e: &Edge, n: usize, preds: &[Vec<usize>]) -> bool {
    // Walk backwards from the tail; if we find the head, the head reaches the tail.
    let mut seen = vec![false; n];
    let mut stack = vec![e.from];
    while let Some(x) = stack.pop() {
        if x == e.to {
            return true;
        }
        if std::mem::replace(&mut seen[x], true) {
            continue;
        }
        stack.extend(preds[x].iter().copied());
    }
    false
}
