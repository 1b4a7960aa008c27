//! Full unrolling of loops whose trip count is a constant that affine recovery cannot see.
//!
//! Tree reductions and scans step their loop variable by shifts or doublings (`s >>= 1`,
//! `off *= 2`, `pout = 1 - pout`): no induction variable `init + s·k` describes it, so the domain
//! pass would list the trip count as an assumption. Yet the block size is fixed during the
//! analysis, so every value that decides such a loop's exit is a known number at loop entry.
//! This pass runs the loop's control concretely (machine integer semantics, [`eval`]) from the
//! values affine recovery knows at the entry edges: iteration by iteration it follows only the
//! edges whose branch is decided by known values (both edges of a branch on unknown values,
//! such as `tid < s`), until no path returns to the header. It then copies the loop's blocks
//! once per iteration with the decided edges made unconditional, so the affine analysis of the
//! copies sees each iteration's values as constants and the guards as affine conditions.
//!
//! A loop is unrolled only when the domain pass had to assume something about it (its trip
//! count, or a branch in it), when the run ends within [`MAX_TRIPS`] iterations, and when the
//! unrolled graph leaves strictly fewer such assumptions: otherwise the loop stays as it was and
//! its assumption stands. Loops with inner loops and graphs with irreducible or unresolved
//! control flow are left alone. [`fold`] sums per-block results of the copies back onto the
//! original blocks, so outputs keep the block indices of `Cfg::build` (as the emulator's).

mod classes;
mod eval;
#[cfg(test)]
mod tests;

use crate::affine::{self, Val, Values};
use crate::cfg::{Cfg, Edge, EdgeKind};
use crate::poly::QPoly;
use crate::ptx::{Function, Operand};
pub use classes::site_classes;
use eval::{meet, State, C};
use std::collections::{BTreeMap, BTreeSet};

/// Iterations beyond which a loop is not unrolled (its trip count stays an assumption).
pub const MAX_TRIPS: usize = 64;
/// Most blocks an unrolled graph may have, so counting it stays quick.
pub const MAX_BLOCKS: usize = 512;

/// What the domain pass could not resolve, keyed by original block: a loop's trip count (by its
/// header) or a branch (by the block that ends with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Open {
    Trip(usize),
    Branch(usize),
}

/// Unroll every loop of `cfg` whose constant trip count resolves an assumption. Returns the
/// graph to analyse and, for each of its blocks, the block of `cfg` it copies.
pub fn constant_trip_loops(f: &Function, cfg: Cfg, ntid: [u64; 3]) -> (Cfg, Vec<usize>) {
    let (cfg, origin, _) = constant_trip_loops_with_values(f, cfg, ntid);
    (cfg, origin)
}

/// [`constant_trip_loops`], with the affine values of the returned graph (the analysis that
/// decided the unrolling has them; analysing the graph again would repeat its proofs).
pub fn constant_trip_loops_with_values(
    f: &Function,
    cfg: Cfg,
    ntid: [u64; 3],
) -> (Cfg, Vec<usize>, affine::Values) {
    let mut origin: Vec<usize> = (0..cfg.blocks.len()).collect();
    let mut cur = cfg;
    let mut vals = affine::analyze(f, &cur, ntid);
    if !cur.warnings.is_empty() {
        return (cur, origin, vals);
    }
    let mut open = unresolved(&cur, &vals, &origin);
    'round: while !open.is_empty() {
        for li in 0..cur.loops.len() {
            let l = &cur.loops[li];
            let wanted = open.contains(&Open::Trip(origin[l.header]))
                || l.blocks
                    .iter()
                    .any(|&b| open.contains(&Open::Branch(origin[b])));
            if !wanted {
                continue;
            }
            let Some(iters) = run_loop(f, &cur, &vals, li, ntid) else {
                continue;
            };
            let Some((next, map)) = rewrite(&cur, li, &iters) else {
                continue;
            };
            if next.blocks.len() > MAX_BLOCKS {
                continue;
            }
            let next_origin: Vec<usize> = map.iter().map(|&b| origin[b]).collect();
            let next_vals = affine::analyze(f, &next, ntid);
            let left = unresolved(&next, &next_vals, &next_origin);
            if left.is_subset(&open) && left != open {
                (cur, origin, vals, open) = (next, next_origin, next_vals, left);
                continue 'round;
            }
        }
        break;
    }
    (cur, origin, vals)
}

/// Per-block counts of an unrolled graph summed onto the original blocks.
pub fn fold(
    origin: &[usize],
    per_block: BTreeMap<usize, (QPoly, QPoly)>,
) -> BTreeMap<usize, (QPoly, QPoly)> {
    let mut out: BTreeMap<usize, (QPoly, QPoly)> = BTreeMap::new();
    for (b, (t, w)) in per_block {
        let o = origin.get(b).copied().unwrap_or(b);
        match out.get_mut(&o) {
            Some((t0, w0)) => {
                *t0 = t0.add(&t);
                *w0 = w0.add(&w);
            }
            None => {
                out.insert(o, (t, w));
            }
        }
    }
    out
}

fn unresolved(cfg: &Cfg, vals: &Values, origin: &[usize]) -> BTreeSet<Open> {
    let doms = crate::domains::build(cfg, vals, &|_| None);
    doms.hints
        .iter()
        .filter_map(|h| {
            let idx = |p: &str| h.param.strip_prefix(p)?.parse::<usize>().ok();
            if let Some(li) = idx("trip") {
                Some(Open::Trip(origin[cfg.loops.get(li)?.header]))
            } else {
                idx("br").map(|b| Open::Branch(origin[b]))
            }
        })
        .collect()
}

/// One iteration of a loop as it really runs: the blocks some thread executes and the edges
/// some thread follows, each marked when known values decide it (so it is always taken).
#[derive(Default)]
struct Iteration {
    live: BTreeSet<usize>,
    edges: Vec<(Edge, bool)>,
}

/// A register's value as a known number, from affine recovery.
fn known(v: &Val) -> Option<C> {
    use num_traits::ToPrimitive;
    match v {
        Val::Num(p) => {
            let c = p.as_constant()?;
            let n = c.is_integer().then(|| c.to_integer().to_i128())??;
            (i64::MIN as i128..=u64::MAX as i128)
                .contains(&n)
                .then_some(C::Int(n as u64))
        }
        Val::Pred(c) => c.eval(&|_| None).map(C::Pred),
        _ => None,
    }
}

/// Blocks of a loop without inner loops in an order where every block comes after its
/// predecessors in the same iteration.
fn body_order(cfg: &Cfg, li: usize) -> Option<Vec<usize>> {
    let l = &cfg.loops[li];
    let body: BTreeSet<usize> = l.blocks.iter().copied().collect();
    let inner = |e: &&Edge| body.contains(&e.from) && body.contains(&e.to) && e.to != l.header;
    let mut indeg: BTreeMap<usize, usize> = body.iter().map(|&b| (b, 0)).collect();
    for e in cfg.edges.iter().filter(inner) {
        *indeg.get_mut(&e.to)? += 1;
    }
    let mut ready: Vec<usize> = indeg
        .iter()
        .filter(|(_, d)| **d == 0)
        .map(|(b, _)| *b)
        .collect();
    let mut order = Vec::new();
    while let Some(b) = ready.pop() {
        order.push(b);
        for e in cfg.successors(b).filter(inner) {
            let d = indeg.get_mut(&e.to)?;
            *d -= 1;
            if *d == 0 {
                ready.push(e.to);
            }
        }
    }
    (order.len() == body.len()).then_some(order)
}

/// Run loop `li` concretely from its entry values; its iterations, or `None` when its exit is
/// not decided by known values within [`MAX_TRIPS`] iterations.
fn run_loop(
    f: &Function,
    cfg: &Cfg,
    vals: &Values,
    li: usize,
    ntid: [u64; 3],
) -> Option<Vec<Iteration>> {
    let l = &cfg.loops[li];
    if cfg.loops.iter().any(|o| o.parent == Some(li)) {
        return None;
    }
    let body: BTreeSet<usize> = l.blocks.iter().copied().collect();
    let order = body_order(cfg, li)?;
    let at_entry: Vec<State> = cfg
        .predecessors(l.header)
        .filter(|e| !body.contains(&e.from))
        .map(|e| {
            vals.exit[e.from]
                .iter()
                .filter_map(|(r, v)| Some((r.clone(), known(v)?)))
                .collect()
        })
        .collect();
    let mut entry = meet(at_entry.iter());
    let sregs = |r: &crate::ptx::SReg| {
        let v = affine::operand(
            f,
            &Operand::SpecialReg(r.clone()),
            &affine::Env::new(),
            ntid,
        );
        match known(&v)? {
            C::Int(n) => Some(n),
            C::Pred(_) => None,
        }
    };
    let mut iters = Vec::new();
    for _ in 0..MAX_TRIPS {
        let mut incoming: BTreeMap<usize, Vec<State>> = BTreeMap::from([(l.header, vec![entry])]);
        let mut back = Vec::new();
        let mut it = Iteration::default();
        for &b in &order {
            let Some(ins) = incoming.remove(&b) else {
                continue;
            };
            let mut s = meet(ins.iter());
            for i in &cfg.blocks[b].insts {
                eval::step(i, &mut s, &sregs);
            }
            it.live.insert(b);
            let decided = cfg.blocks[b]
                .terminator()
                .filter(|t| t.pred.is_some() && (t.is_branch() || t.is_exit()))
                .and_then(|t| eval::guard(t, &s));
            for e in cfg.successors(b) {
                if decided.is_some_and(|taken| (e.kind == EdgeKind::Taken) != taken) {
                    continue;
                }
                it.edges.push((*e, decided.is_some()));
                if e.to == l.header {
                    back.push(s.clone());
                } else if body.contains(&e.to) {
                    incoming.entry(e.to).or_default().push(s.clone());
                }
            }
        }
        iters.push(it);
        if back.is_empty() {
            return Some(iters);
        }
        entry = meet(back.iter());
    }
    None
}

/// The graph with loop `li` replaced by one copy of its live blocks per iteration: copy 0 keeps
/// the original block ids, the others follow the loop's last block. Also the original block of
/// every new block.
fn rewrite(cfg: &Cfg, li: usize, iters: &[Iteration]) -> Option<(Cfg, Vec<usize>)> {
    let l = &cfg.loops[li];
    let body: BTreeSet<usize> = l.blocks.iter().copied().collect();
    let last = *l.blocks.last()?;
    let mut slots: Vec<(usize, usize)> = Vec::new();
    for b in 0..cfg.blocks.len() {
        slots.push((b, 0));
        if b == last {
            for (j, it) in iters.iter().enumerate().skip(1) {
                slots.extend(it.live.iter().map(|&x| (x, j)));
            }
        }
    }
    let id: BTreeMap<(usize, usize), usize> =
        slots.iter().enumerate().map(|(n, s)| (*s, n)).collect();
    let blocks = slots
        .iter()
        .enumerate()
        .map(|(n, &(b, j))| {
            let mut bb = cfg.blocks[b].clone();
            bb.id = n;
            if j > 0 {
                bb.labels = bb.labels.iter().map(|l| format!("{l}.{j}")).collect();
            }
            bb
        })
        .collect();
    let mut edges = Vec::new();
    for e in cfg.edges.iter().filter(|e| !body.contains(&e.from)) {
        edges.push(Edge {
            from: *id.get(&(e.from, 0))?,
            to: *id.get(&(e.to, 0))?,
            kind: e.kind,
        });
    }
    for (j, it) in iters.iter().enumerate() {
        for (e, decided) in &it.edges {
            let to = if e.to == l.header {
                (e.to, j + 1)
            } else if body.contains(&e.to) {
                (e.to, j)
            } else {
                (e.to, 0)
            };
            edges.push(Edge {
                from: *id.get(&(e.from, j))?,
                to: *id.get(&to)?,
                kind: if *decided { EdgeKind::Jump } else { e.kind },
            });
        }
    }
    edges.sort_by_key(|e| e.from);
    let origin = slots.iter().map(|s| s.0).collect();
    Some((
        Cfg::from_parts(cfg.function.clone(), blocks, edges, Vec::new()),
        origin,
    ))
}
