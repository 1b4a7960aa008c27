//! Iteration domains: for each basic block, the isl set of (ctaid, tid, loop counters) points
//! that execute it, parametric in the grid size (`nctaid_*`), the kernel parameters (`p*`) and
//! any hint parameters (`trip*`, `br*`) for what is data dependent.
//!
//! A block's domain is the launch box, intersected for every enclosing loop L with `k_L >= 0`
//! and "every earlier iteration stayed in the loop" — for an exit test with stay-condition c(k)
//! (affine in k, so its solution set in k is an interval) that is `k = 0 or (c(0) and c(k−1))` —
//! and with the conditions of the conditional edges that every path to the block takes: walking
//! up the dominator tree, a block with a single, conditional incoming edge contributes that
//! edge's condition. Loop exit edges contribute nothing (loops are assumed to terminate).
//!
//! Named min/max/select values ([`crate::named`]) are put back into each block's domain once it
//! is complete (a loop's own counter is put back earlier, before it is shifted). A condition the
//! values cannot express becomes a hint parameter: a data-dependent one (`trip.`, `branch.`)
//! where data may decide it ([`crate::taint`]), and one that binding resolves ([`NON_AFFINE`])
//! where only the launch and the parameters do. Data-dependent control flow that a completed run
//! fixes ([`crate::sync_idioms`]: a branch to a trap, a spin-wait) gets a [`TRAP`] or [`SPIN`]
//! key with that run's value as its default.

use crate::affine::value::{counter, edge_cond, Values};
use crate::cfg::{Cfg, EdgeKind, Loop};
use crate::cond::Cond;
use crate::named;
use crate::poly::isl::{Ctx, DimType, Set};
use crate::poly::{CountError, LinExpr};
use crate::set_memo::SetMemo;
use crate::slots::{self, CondProgram};
use crate::sync_idioms;
use crate::taint::Taint;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;

/// Prefix of the hint keys of control flow that no data decides ([`crate::taint`]) but that is
/// not affine in the launch and the parameters (products such as `blockIdx.y * rows`):
/// `KernelStats::bind` analyses again with the workload's parameters and grid as numbers.
pub const NON_AFFINE: &str = "nonaffine.";

/// Prefix of the hint keys of spin-waits' polls ([`crate::sync_idioms`]), taken as 1.
pub const SPIN: &str = "spin.";

/// Prefix of the hint keys of data-dependent branches to a block that aborts the kernel
/// ([`crate::sync_idioms`]), taken as never reaching it.
pub const TRAP: &str = "trap.";

/// Something the domains had to assume: a hint parameter and what it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct HintParam {
    pub param: String,
    pub hint_key: String,
    pub what: String,
    pub default: i64,
    pub at: Option<String>,
}

#[derive(Clone, Debug)]
pub struct BlockDomain {
    /// Loop counters of the enclosing loops, outermost first.
    pub counters: Vec<String>,
    pub cond: Cond,
    /// `cond` split into the disjoint groups of threads that reach the block along paths a
    /// warp runs one after another (they diverged at a branch that reconverges only after the
    /// block): a warp executes the block once per group it has threads in. One group, `cond`,
    /// for most blocks.
    pub groups: Vec<Cond>,
    /// `cond` before named values are put back ([`crate::named`]): for proofs, which take a
    /// symbol as a free parameter, where the expanded form would split into cases.
    pub symbolic: Cond,
}

#[derive(Clone, Debug)]
pub struct Domains {
    pub blocks: Vec<BlockDomain>,
    pub hints: Vec<HintParam>,
    /// The first block whose walk merged ways that would have passed [`MAX_WAYS`] apart: its
    /// groups are not the ways a warp runs one after another, so its warp counts are not exact.
    pub too_many_ways: Option<usize>,
}

/// Lane groups (ways of control flow into a block) a walk keeps apart. Joins that not every
/// path from their dominator reaches (one side may return early) split the lanes into ways,
/// and such joins in a row multiply them: without a bound the walk's work grows exponentially
/// with the length of the chain (`passes/tests/many_ways.rs`).
pub const MAX_WAYS: usize = 64;

/// Enclosing loops of a block, outermost first.
pub fn loop_chain(cfg: &Cfg, b: usize) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut l = cfg.block_loop.get(b).copied().flatten();
    while let Some(li) = l {
        chain.push(li);
        l = cfg.loops[li].parent;
    }
    chain.reverse();
    chain
}

pub fn build(
    cfg: &Cfg,
    vals: &Values,
    kernel_file_line: &dyn Fn(usize) -> Option<String>,
) -> Domains {
    let mut hints: Vec<HintParam> = Vec::new();
    let taint = Taint::new(cfg);
    // per loop: the iteration condition
    let mut loop_conds: Vec<Cond> = Vec::new();
    for (li, l) in cfg.loops.iter().enumerate() {
        let k = counter(li);
        let body: BTreeSet<usize> = l.blocks.iter().copied().collect();
        let mut cond = Cond::Ge(LinExpr::var(&k));
        let mut exact = true;
        // every test that is not affine is one on a known, non-affine predicate
        let mut only_non_affine = true;
        let mut tests = 0;
        for &x in &l.blocks {
            let stay: Vec<_> = cfg.successors(x).filter(|e| body.contains(&e.to)).collect();
            let leave = cfg.successors(x).any(|e| !body.contains(&e.to));
            if !leave {
                continue;
            }
            tests += 1;
            let dominates_latches = l.latches.iter().all(|&lat| cfg.dominates(x, lat));
            let c = match stay.as_slice() {
                [e] => match edge_cond(cfg, vals, x, e.kind) {
                    Some(Some(c)) if dominates_latches => Some(c),
                    _ => None,
                },
                _ => None,
            };
            match c.map(|c| named::expand_dependent(&monotone(c, &k), &k)) {
                Some(c) => {
                    let c0 = c.subst(&k, &LinExpr::constant(0));
                    let c1 = c.subst(&k, &LinExpr::var(&k).add_const(-1));
                    let prev = Cond::Or(Box::new(Cond::Eq(LinExpr::var(&k))), Box::new(c0.and(c1)));
                    cond = cond.and(prev);
                }
                None => {
                    exact = false;
                    only_non_affine &=
                        dominates_latches && stay.len() == 1 && !taint.branch(cfg, x);
                }
            }
        }
        if !exact || tests == 0 {
            let p = format!("trip{li}");
            let at = kernel_file_line(l.header);
            let place = at.clone().unwrap_or_else(|| format!("loop{li}"));
            let header = cfg.blocks[l.header].name();
            let (hint_key, what) = if tests > 0 && only_non_affine {
                (
                    format!("{NON_AFFINE}trip.{place}"),
                    format!("trip count of loop {li} (header block {header}), not affine in the launch and parameters but decided by them: exact once they are bound"),
                )
            } else if tests > 0 && sync_idioms::spin_wait(cfg, li) {
                (
                    format!("{SPIN}{place}"),
                    format!("polls of the spin-wait at loop {li} (header block {header}), which waits for other threads (a grid barrier, a flag, a lock): 1, the wait succeeding at once; the time spent waiting is not counted"),
                )
            } else {
                (
                    format!("trip.{place}"),
                    format!("trip count of loop {li} (header block {header}), not an affine function of the launch and parameters"),
                )
            };
            let default = if hint_key.starts_with(SPIN) { 1 } else { 16 };
            hints.push(HintParam {
                param: p.clone(),
                hint_key,
                what,
                default,
                at,
            });
            cond = Cond::Ge(LinExpr::var(&k)).and(Cond::Ge(
                LinExpr::var(&p).sub(&LinExpr::var(&k)).add_const(-1),
            ));
        }
        loop_conds.push(cond);
    }
    let mut walk = Walk {
        cfg,
        vals,
        kernel_file_line,
        hints,
        taint,
        too_many_ways: None,
        at: 0,
    };
    let mut blocks = Vec::new();
    for b in 0..cfg.blocks.len() {
        walk.at = b;
        let chain = loop_chain(cfg, b);
        let mut loops = Cond::True;
        for &li in &chain {
            loops = loops.and(loop_conds[li].clone());
        }
        let reach = walk.reach(b, None, &chain);
        let symbolic = reach
            .iter()
            .cloned()
            .reduce(Cond::or)
            .map_or_else(|| loops.clone(), |r| loops.clone().and(r));
        // named values are put back here, once per lane group: the domains are what is counted
        let groups: Vec<Cond> = reach
            .into_iter()
            .map(|g| named::expand(&loops.clone().and(g)))
            .collect();
        let cond = groups
            .iter()
            .cloned()
            .reduce(Cond::or)
            .unwrap_or_else(|| named::expand(&loops));
        blocks.push(BlockDomain {
            counters: chain.iter().map(|&l| counter(l)).collect(),
            cond,
            groups,
            symbolic,
        });
    }
    let hints = walk.hints;
    Domains {
        blocks,
        hints,
        too_many_ways: walk.too_many_ways,
    }
}

/// The walk that gathers the branch conditions leading to a block.
struct Walk<'a> {
    cfg: &'a Cfg,
    vals: &'a Values,
    kernel_file_line: &'a dyn Fn(usize) -> Option<String>,
    hints: Vec<HintParam>,
    taint: Taint,
    /// See [`Domains::too_many_ways`].
    too_many_ways: Option<usize>,
    /// The block whose domain is being built.
    at: usize,
}

impl Walk<'_> {
    /// The condition under which control, once at `stop` (a dominator of `x`; the entry when
    /// `None`), reaches `x` in the same iteration of the loops `chain`, as disjoint lane groups
    /// (see [`BlockDomain::groups`]). Up the dominator tree, a block with one incoming edge adds
    /// that edge's condition; a join adds nothing when every path from its immediate dominator
    /// leads to it, and otherwise splits into the ways in (a join of the fall-through of one
    /// test and the target of another, as `if (a || b) … else …` compiles to). Ways in whose
    /// paths pass a common block from which every path leads to the join reconverge before it
    /// and form one group.
    fn reach(&mut self, x: usize, stop: Option<usize>, chain: &[usize]) -> Vec<Cond> {
        let cfg = self.cfg;
        let mut cond = vec![Cond::True];
        let mut s = x;
        while Some(s) != stop {
            // a loop header's back edges continue an iteration already counted by its counter
            let preds: Vec<_> = cfg
                .predecessors(s)
                .filter(|e| cfg.reachable(e.from) && !cfg.dominates(e.to, e.from))
                .collect();
            let idom = cfg.idom.get(s).copied().flatten().filter(|&d| d != s);
            let header = cfg.loops.iter().any(|l| l.header == s);
            if let [e] = preds.as_slice() {
                let c = self.edge(e.from, e.kind, chain);
                cond = cond.into_iter().map(|g| g.and(c.clone())).collect();
            } else if let (false, Some(d)) = (header, idom) {
                if !self.always_reaches(d, s) {
                    let mut anchors = BTreeSet::new();
                    let mut ways = Vec::new();
                    for e in &preds {
                        match self.anchor(e.from, d, s) {
                            Some(a) if anchors.insert(a) => {
                                ways.extend(self.reach(a, Some(d), chain))
                            }
                            Some(_) => {}
                            None => {
                                let c = self.edge(e.from, e.kind, chain);
                                let r = self.reach(e.from, Some(d), chain);
                                ways.extend(r.into_iter().map(|g| g.and(c.clone())));
                            }
                        }
                    }
                    let ways = if cond.len() * ways.len() > MAX_WAYS {
                        self.merged(ways)
                    } else {
                        ways
                    };
                    cond = cond
                        .iter()
                        .flat_map(|g| ways.iter().map(move |w| g.clone().and(w.clone())))
                        .collect();
                }
            }
            match idom {
                Some(d) => s = d,
                None => break,
            }
        }
        cond
    }

    /// `ways` merged into one, their disjunction, where keeping them apart would pass
    /// [`MAX_WAYS`] (noted). Merged before they multiply the groups so far, so the conditions
    /// grow by a term per join, not by a factor.
    fn merged(&mut self, ways: Vec<Cond>) -> Vec<Cond> {
        self.too_many_ways.get_or_insert(self.at);
        ways.into_iter().reduce(Cond::or).into_iter().collect()
    }

    /// The highest block on the dominator path from `p` up to (not including) `d` from which
    /// every path leads to `s`.
    fn anchor(&self, p: usize, d: usize, s: usize) -> Option<usize> {
        let mut best = None;
        let mut a = p;
        while a != d {
            if self.always_reaches(a, s) {
                best = Some(a);
            }
            match self.cfg.idom.get(a).copied().flatten() {
                Some(up) if up != a => a = up,
                _ => break,
            }
        }
        best
    }

    /// Whether every path from `d` reaches `x` (forward edges; a path that leaves a loop
    /// enclosing `d`, ends its iteration or returns does not).
    fn always_reaches(&self, d: usize, x: usize) -> bool {
        let cfg = self.cfg;
        let in_loop = |l: &Loop, b: usize| l.blocks.binary_search(&b).is_ok();
        let enclosing: Vec<&Loop> = cfg.loops.iter().filter(|l| in_loop(l, d)).collect();
        let mut seen = BTreeSet::from([d]);
        let mut todo = vec![d];
        while let Some(b) = todo.pop() {
            let mut next = cfg
                .successors(b)
                .filter(|e| !cfg.dominates(e.to, e.from))
                .peekable();
            if next.peek().is_none() {
                // a return, or the latch of a loop: that loop must not enclose `d`
                let ends_iteration_of_d = enclosing.iter().any(|l| l.latches.contains(&b));
                let returns = cfg.successors(b).next().is_none();
                if returns || ends_iteration_of_d {
                    return false;
                }
            }
            for e in next {
                let leaves = enclosing.iter().any(|l| !in_loop(l, e.to));
                if leaves {
                    return false;
                }
                if e.to != x && seen.insert(e.to) {
                    todo.push(e.to);
                }
            }
        }
        true
    }

    /// The condition of the edge `from → (kind)` for a block in the loops `chain`: true for
    /// an unconditional edge or one from inside a loop the block is not in (a loop exit);
    /// a hint parameter for a data-dependent branch.
    fn edge(&mut self, from: usize, kind: EdgeKind, chain: &[usize]) -> Cond {
        let cfg = self.cfg;
        let in_scope = loop_chain(cfg, from).iter().all(|l| chain.contains(l));
        if !in_scope || !matches!(kind, EdgeKind::Taken | EdgeKind::NotTaken) {
            return Cond::True;
        }
        match edge_cond(cfg, self.vals, from, kind) {
            Some(Some(c)) => c,
            Some(None) => {
                let p = format!("br{from}");
                if !self.hints.iter().any(|h| h.param == p) {
                    let at = (self.kernel_file_line)(from);
                    let place = at.clone().unwrap_or_else(|| format!("bb{from}"));
                    let name = cfg.blocks[from].name();
                    let target = |k: EdgeKind| cfg.successors(from).find(|e| e.kind == k);
                    let aborts_on =
                        |k: EdgeKind| target(k).is_some_and(|e| sync_idioms::aborts(cfg, e.to));
                    let mut default = 1;
                    let (hint_key, what) = if !self.taint.branch(cfg, from) {
                        (
                            format!("{NON_AFFINE}branch.{place}"),
                            format!("branch at the end of block {name}, not affine in the launch and parameters but decided by them (1 = every thread takes it, 0 = none): exact once they are bound"),
                        )
                    } else if aborts_on(EdgeKind::Taken) != aborts_on(EdgeKind::NotTaken) {
                        default = i64::from(aborts_on(EdgeKind::NotTaken));
                        (
                            format!("{TRAP}{place}"),
                            format!("branch at the end of block {name}, one side of which aborts the kernel: {default}, the side a run that completes takes (1 = every thread takes the branch, 0 = none)"),
                        )
                    } else {
                        (
                            format!("branch.{place}"),
                            format!("data-dependent branch at the end of block {name}: 1 = every thread takes it, 0 = none"),
                        )
                    };
                    self.hints.push(HintParam {
                        param: p.clone(),
                        hint_key,
                        what,
                        default,
                        at,
                    });
                }
                let taken = Cond::Ge(LinExpr::var(&p).add_const(-1));
                if kind == EdgeKind::Taken {
                    taken
                } else {
                    taken.not()
                }
            }
            None => Cond::True,
        }
    }
}

/// A loop test `e != 0` on an expression that moves monotonically with the counter `k` (nvcc's
/// down-counting `setp.ne` latches) stays in the loop exactly while `e` has not yet reached 0:
/// `e > 0` when `e` decreases with `k`, `e < 0` when it increases. This turns the non-convex
/// disequality into the interval the loop really runs over (loops are assumed to terminate).
fn monotone(c: Cond, k: &str) -> Cond {
    if let Cond::Not(inner) = &c {
        if let Cond::Eq(e) = inner.as_ref() {
            let a = e
                .terms
                .iter()
                .find(|(at, _)| matches!(at, crate::poly::Atom::Var(v) if &**v == k))
                .map(|(_, c)| *c);
            let floors_in_k = e
                .terms
                .keys()
                .any(|at| matches!(at, crate::poly::Atom::Floor(..)) && at.involves(k));
            // a named value that moves with k hides how e moves
            let mut vs = BTreeSet::new();
            e.vars(&mut vs);
            let hidden = vs
                .iter()
                .any(|v| named::is_symbol(v) && named::depends(&LinExpr::var(v), k));
            if hidden {
                return c;
            }
            match a {
                Some(a) if a < 0 && !floors_in_k => return Cond::Ge(e.add_const(-1)),
                Some(a) if a > 0 && !floors_in_k => return Cond::Ge(e.scale(-1).add_const(-1)),
                _ => {}
            }
        }
    }
    c
}

/// Why a domain could not be enumerated point by point.
#[derive(Debug, thiserror::Error)]
pub enum EnumerateError {
    /// A symbol of the condition has no value (`None` for an unbounded loop counter).
    #[error("a symbol has no value or a loop counter is unbounded ({0:?})")]
    Unbound(Option<String>),
    /// More than the budget of (ctaid, counters, tid) points to visit.
    #[error("{0} points to visit, over the budget")]
    TooLarge(u64),
    #[error(transparent)]
    Isl(CountError),
}

/// One active lane of a warp: its lane number (0..32) and its thread index (x, y, z).
pub type Lane = (u32, [u64; 3]);

/// `visit(point, lanes, weight)` of a walk: the values of ctaid and the counters by name, the
/// active lanes of one warp, and how many blocks that warp stands for.
pub type WarpVisit<'a> = dyn FnMut(&BTreeMap<String, i128>, &[Lane], u64) + 'a;

/// [`WarpVisit`] with the point as slot values (ctaid x, y, z, then the counters) instead of names.
pub type SlotWarpVisit<'a> = dyn FnMut(&[i128], &[Lane], u64) + 'a;

/// What the walks share: the slot values and, when asked for, the point by name.
type CoreWarpVisit<'a> = dyn FnMut(&[i128], &BTreeMap<String, i128>, &[Lane], u64) + 'a;

/// Walk the domain `counters`/`cond` of a launch with every parameter fixed (`env`: grid size,
/// kernel parameters, hint parameters), one warp execution at a time: `visit(point, lanes)` gets
/// the values of ctaid and the counters and the thread indices (in lane order) of one warp
/// whose threads are in the domain at that point. The counters' ranges come from isl; the box
/// they span is filtered by `cond` point by point, so at most `budget` points are visited.
///
/// `visit_reads` names the variables `visit` reads from the point. A grid dimension that neither
/// it nor `cond` reads gives every block the same warps: it is walked at `ctaid = 0` only, and
/// `visit`'s third argument, the weight, says how many blocks that one stands for.
pub fn for_each_warp(
    counters: &[String],
    cond: &Cond,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    budget: u64,
    visit_reads: &BTreeSet<String>,
    visit: &mut WarpVisit<'_>,
) -> Result<(), EnumerateError> {
    let walk = WarpWalk::new(counters, cond, block, env, visit_reads)?;
    let per_block = walk.points_per_block();
    let boxed = per_block.saturating_mul(walk.blocks());
    if boxed <= SMALL_WALK.min(budget) {
        return walk.walk(0..walk.blocks(), visit);
    }
    // A launch whose visit reads no block index is walked one block for all those that run
    // every point of the counters' box the guard's block-free part takes (they are alike), and
    // every other block: within the budget, cheaper than every block once isl's sorting of
    // them is paid for; over it, the only way.
    if !visit_reads.iter().any(|v| v.starts_with("ctaid_")) {
        match walk.alike_blocks(budget / per_block.max(1)) {
            Ok(Some(plan)) => {
                for (b, weight) in plan {
                    walk.walk_block(b, weight, visit)?;
                }
                return Ok(());
            }
            Ok(None) => {}
            Err(e) if boxed > budget => return Err(e),
            Err(_) => {}
        }
    }
    if boxed <= budget {
        return walk.walk(0..walk.blocks(), visit);
    }
    Err(EnumerateError::TooLarge(boxed))
}

/// (counter, thread) points below which a walk visits every block rather than first sorting
/// them into alike blocks with isl: about what that sorting costs.
pub const SMALL_WALK: u64 = 1 << 16;

/// Most blocks [`WarpWalk::alike_blocks_by`] sorts into classes (one step each).
pub const MAX_CLASSED_BLOCKS: u64 = 1 << 22;

/// A domain prepared for walking warp by warp (see [`for_each_warp`]), so a caller can ask what
/// a walk costs before it chooses which blocks to walk.
pub struct WarpWalk {
    counters: Vec<String>,
    /// The domain with every parameter replaced by its value.
    fixed: Cond,
    block: [u64; 3],
    /// The blocks walked: the launch's grid, with the dimensions nothing reads collapsed to 1.
    grid: [i128; 3],
    /// Blocks each walked block stands for.
    weight: u64,
    /// Each counter's range over the whole launch; `None` when the domain is empty.
    ranges: Option<Vec<(i128, i128)>>,
    /// `fixed` compiled over the point's slots ([`WarpWalk::slot_names`]); `None` when it
    /// reads a variable that is neither an index nor a counter.
    program: Option<CondProgram>,
    /// Each warp's lanes with their thread indices, all on: a walk hands a warp whose lanes
    /// are all on this slice as it is, and picks a partial warp's lanes from it, where making
    /// each lane (three divisions, a copy through the stack) was a fifth of a streaming walk.
    warp_lanes: Vec<Vec<Lane>>,
}

impl WarpWalk {
    pub fn new(
        counters: &[String],
        cond: &Cond,
        block: [u64; 3],
        env: &BTreeMap<String, i128>,
        visit_reads: &BTreeSet<String>,
    ) -> Result<WarpWalk, EnumerateError> {
        let full_grid =
            ["x", "y", "z"].map(|d| env.get(&format!("nctaid_{d}")).copied().unwrap_or(1));
        let is_dim = |v: &str| {
            v.starts_with("tid_") || v.starts_with("ctaid_") || counters.iter().any(|k| k == v)
        };
        let mut vars = BTreeSet::new();
        cond.vars(&mut vars);
        let mut grid = full_grid;
        let mut weight = 1u64;
        for (d, n) in ["x", "y", "z"].iter().zip(grid.iter_mut()) {
            let v = format!("ctaid_{d}");
            if *n > 1 && !vars.contains(&v) && !visit_reads.contains(&v) {
                weight = weight.saturating_mul(*n as u64);
                *n = 1;
            }
        }
        let mut fixed = cond.clone();
        for v in vars.iter().filter(|v| !is_dim(v)) {
            let val = env
                .get(v.as_str())
                .ok_or_else(|| EnumerateError::Unbound(Some(v.clone())))?;
            fixed = fixed.subst(v, &LinExpr::constant(*val));
        }
        // Counter ranges over the whole launch; none when the domain is empty.
        let mut ranges = Some(Vec::new());
        if !counters.is_empty() {
            let [nx, ny, nz] = block;
            let [gx, gy, gz] = full_grid;
            let text = format!(
                "{{ [ctaid_x, ctaid_y, ctaid_z, tid_x, tid_y, tid_z, {}] : 0 <= ctaid_x < {gx} and 0 <= ctaid_y < {gy} and 0 <= ctaid_z < {gz} and 0 <= tid_x < {nx} and 0 <= tid_y < {ny} and 0 <= tid_z < {nz} and {} }}",
                counters.join(", "),
                fixed.to_isl()
            );
            ranges = counter_ranges(text, counters.len())?;
        }
        let slots = slot_names(counters);
        let program = CondProgram::compile(&fixed, block, &slots::resolver(&slots));
        Ok(WarpWalk {
            counters: counters.to_vec(),
            fixed,
            block,
            grid,
            weight,
            ranges,
            program,
            warp_lanes: warp_lanes(block),
        })
    }

    /// The variables of a walk's point, in slot order: `ctaid_x`, `ctaid_y`, `ctaid_z`, then
    /// the counters.
    pub fn slot_names(&self) -> Vec<String> {
        slot_names(&self.counters)
    }

    /// The loop counters of the walk's points, outermost first.
    pub fn counters(&self) -> &[String] {
        &self.counters
    }

    /// Each counter's range over the whole launch; `None` when the domain is empty.
    pub fn ranges(&self) -> Option<&[(i128, i128)]> {
        self.ranges.as_deref()
    }

    /// Blocks a whole walk visits (the grid, less the collapsed dimensions).
    pub fn blocks(&self) -> u64 {
        self.grid.iter().product::<i128>() as u64
    }

    /// (counters, tid) points a walk visits per block, before `cond` filters them.
    pub fn points_per_block(&self) -> u64 {
        let Some(ranges) = &self.ranges else {
            return 0;
        };
        ranges
            .iter()
            .map(|(l, h)| (h - l + 1).max(0) as u64)
            .try_fold(self.block.iter().product::<u64>(), |a, n| a.checked_mul(n))
            .unwrap_or(u64::MAX)
    }

    /// What a walk of the first `walked` blocks (the outer counter cut to `outer_trips`) sees,
    /// written out: the grid, the counters' ranges, and the domain with every comparison that
    /// holds (or fails) throughout the blocks, counters and threads walked replaced by its
    /// truth. Two walks with the same description visit the same warps with the same lanes, so
    /// what they record is the same although the launches differ (a guard `i < n` that no
    /// walked thread reaches, for two values of `n`).
    pub fn walked_description(&self, walked: u64, outer_trips: Option<u64>) -> String {
        let Some(ranges) = &self.ranges else {
            return format!("empty {:?}", self.grid);
        };
        let mut cut = ranges.clone();
        if let (Some(n), Some(first)) = (outer_trips, cut.first_mut()) {
            first.1 = first.1.min(first.0 + n.max(1) as i128 - 1);
        }
        let [gx, gy, gz] = self.grid;
        let rows =
            |per: i128, g: i128| ((walked as i128 + per - 1) / per.max(1)).clamp(1, g.max(1));
        let mut bounds: BTreeMap<String, (i128, i128)> = BTreeMap::new();
        bounds.insert("ctaid_x".into(), (0, rows(1, gx) - 1));
        bounds.insert("ctaid_y".into(), (0, rows(gx.max(1), gy) - 1));
        bounds.insert("ctaid_z".into(), (0, rows((gx * gy).max(1), gz) - 1));
        for (d, n) in ["tid_x", "tid_y", "tid_z"].iter().zip(self.block) {
            bounds.insert(d.to_string(), (0, n as i128 - 1));
        }
        for (k, r) in self.counters.iter().zip(&cut) {
            bounds.insert(k.clone(), *r);
        }
        // the walked blocks' coordinates depend on the grid only below `walked` blocks
        let w = walked as i128;
        let seen = [
            gx.min(w),
            if gx >= w { 1 } else { gy.min(rows(gx, gy)) },
            if gx * gy >= w { 1 } else { gz },
        ];
        format!(
            "grid {:?} weight {} block {:?} counters {:?} ranges {:?} walked {:?} domain {}",
            seen,
            self.weight,
            self.block,
            self.counters,
            ranges,
            cut,
            settled(&self.fixed, &bounds).to_isl()
        )
    }

    /// The blocks to walk, each with the blocks it stands for, when a visit reads no block index.
    /// A block that skips some (counters, tid) point of the box the guard's block-free part
    /// takes is walked on its own; every other block runs all of them, the same points as any
    /// other such block, so one stands for the rest. The skipping blocks are found with isl, as
    /// the bounding boxes of the disjoint pieces of their set. `None` when more than `most`
    /// blocks would be walked.
    pub fn alike_blocks(&self, most: u64) -> Result<Option<Vec<(u64, u64)>>, EnumerateError> {
        if self.ranges.is_none() {
            return Ok(Some(Vec::new()));
        }
        let Some(walked) = self.partial_blocks(most)? else {
            return Ok(None);
        };
        let total = self.blocks();
        let alike = total - walked.len() as u64;
        let mut plan: Vec<(u64, u64)> = Vec::new();
        // at most `walked.len()` blocks are tried before one outside them
        if let Some(first) = (0..total).find(|b| !walked.contains(b)) {
            plan.push((first, alike * self.weight));
        }
        plan.extend(walked.into_iter().map(|b| (b, self.weight)));
        Ok(Some(plan))
    }

    /// [`Self::alike_blocks`] for a visit that reads the block index only through `class` of
    /// its (ctaid_x, ctaid_y, ctaid_z): the blocks that run every point of the box the guard's
    /// block-free part takes are alike within a class, so one of each class stands for the
    /// others of it. `None` also when the grid has more than [`MAX_CLASSED_BLOCKS`] blocks to
    /// sort into classes.
    pub fn alike_blocks_by<K: Ord>(
        &self,
        most: u64,
        class: &dyn Fn([u64; 3]) -> K,
    ) -> Result<Option<Vec<(u64, u64)>>, EnumerateError> {
        let total = self.blocks();
        if total > MAX_CLASSED_BLOCKS {
            return Ok(None);
        }
        if self.ranges.is_none() {
            return Ok(Some(Vec::new()));
        }
        let Some(walked) = self.partial_blocks(most)? else {
            return Ok(None);
        };
        // (first block, blocks) of each class, in the order classes first appear
        let mut classes: BTreeMap<K, (u64, u64)> = BTreeMap::new();
        for b in (0..total).filter(|b| !walked.contains(b)) {
            classes.entry(class(self.coords(b))).or_insert((b, 0)).1 += 1;
        }
        if (walked.len() + classes.len()) as u64 > most {
            return Ok(None);
        }
        let mut plan: Vec<(u64, u64)> = classes
            .into_values()
            .map(|(b, n)| (b, n * self.weight))
            .collect();
        plan.sort_unstable();
        plan.extend(walked.into_iter().map(|b| (b, self.weight)));
        Ok(Some(plan))
    }

    /// The blocks that skip some (counters, tid) point of the box the guard's block-free
    /// conjuncts take ([`block_free_part`]), with, perhaps, full blocks that share their
    /// bounding boxes; `None` when there are `most` or more of them. Every other block runs
    /// the same points.
    fn partial_blocks(&self, most: u64) -> Result<Option<BTreeSet<u64>>, EnumerateError> {
        let Some(ranges) = &self.ranges else {
            return Ok(Some(BTreeSet::new()));
        };
        // a guard without a block index takes the same points in every block
        let mut vars = BTreeSet::new();
        self.fixed.vars(&mut vars);
        if !vars.iter().any(|v| v.starts_with("ctaid_")) {
            return Ok(Some(BTreeSet::new()));
        }
        let [cx, cy, cz] = self.grid;
        let [nx, ny, nz] = self.block;
        let dims: Vec<String> = ["ctaid_x", "ctaid_y", "ctaid_z", "tid_x", "tid_y", "tid_z"]
            .iter()
            .map(|d| d.to_string())
            .chain(self.counters.iter().cloned())
            .collect();
        let mut box_text = format!(
            "0 <= ctaid_x < {cx} and 0 <= ctaid_y < {cy} and 0 <= ctaid_z < {cz} and 0 <= tid_x < {nx} and 0 <= tid_y < {ny} and 0 <= tid_z < {nz}"
        );
        for (k, (lo, hi)) in self.counters.iter().zip(ranges) {
            box_text += &format!(" and {lo} <= {k} <= {hi}");
        }
        let tuple = dims.join(", ");
        // Every block's domain lies in what the guard's conjuncts without a block index take
        // (a `tid_x % 2 == 0` branch): a block is alike the others where it takes all of that.
        let whole = format!(
            "{{ [{tuple}] : {box_text} and {} }}",
            block_free_part(&self.fixed).to_isl()
        );
        let taken = format!("{{ [{tuple}] : {box_text} and {} }}", self.fixed.to_isl());
        static MEMO: SetMemo<Option<BTreeSet<u64>>> = SetMemo::new();
        MEMO.get_or(format!("{most}\n{whole}\n{taken}"), |_| {
            self.partial_blocks_of(&whole, &taken, most)
        })
    }

    /// [`WarpWalk::partial_blocks`] of the launch's box `whole` and the points of it the
    /// domain takes, `taken` (isl sets over the indices and the counters).
    fn partial_blocks_of(
        &self,
        whole: &str,
        taken: &str,
        most: u64,
    ) -> Result<Option<BTreeSet<u64>>, EnumerateError> {
        let isl = |e: crate::poly::isl::IslError| EnumerateError::Isl(e.into());
        let ctx = Ctx::new();
        let whole = Set::parse(&ctx, whole).map_err(isl)?;
        let taken = Set::parse(&ctx, taken).map_err(isl)?;
        let dims = 6 + self.counters.len();
        let partial = whole
            .subtract(taken)
            .and_then(|s| s.project_out(DimType::isl_dim_set, 3, dims - 3))
            .map_err(isl)?;
        let [gx, gy, _] = self.grid.map(|g| g.max(1) as u64);
        // The partial blocks lie in the bounding boxes of the set's disjoint pieces; a full block
        // in one of them is walked on its own, which counts it the same.
        let mut walked: BTreeSet<u64> = BTreeSet::new();
        for piece in partial
            .make_disjoint()
            .map_err(isl)?
            .basic_sets()
            .map_err(isl)?
        {
            let piece = piece.to_set().map_err(isl)?;
            let mut lo = [0i128; 3];
            let mut hi = [0i128; 3];
            for d in 0..3 {
                lo[d] = bound(&piece, d, false)?;
                hi[d] = bound(&piece, d, true)?;
            }
            let volume = (0..3).map(|d| (hi[d] - lo[d] + 1) as u64).product::<u64>();
            if walked.len() as u64 + volume >= most {
                return Ok(None);
            }
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        walked.insert(x as u64 + gx * (y as u64 + gy * z as u64));
                    }
                }
            }
        }
        Ok(Some(walked))
    }

    /// A walked block's (ctaid_x, ctaid_y, ctaid_z) from its linear index, x fastest.
    fn coords(&self, b: u64) -> [u64; 3] {
        let [gx, gy, _] = self.grid.map(|g| g.max(1) as u64);
        [b % gx, b / gx % gy, b / (gx * gy)]
    }

    /// Visit the warp executions of walked block `b`, standing for `weight` blocks.
    pub fn walk_block(
        &self,
        b: u64,
        weight: u64,
        visit: &mut WarpVisit<'_>,
    ) -> Result<(), EnumerateError> {
        match &self.ranges {
            Some(ranges) => self.walk_blocks(b..b + 1, ranges, weight, visit),
            None => Ok(()),
        }
    }

    /// Visit the warp executions of the walked blocks `blocks`, by linear block index (x fastest,
    /// as the hardware dispatches them).
    pub fn walk(
        &self,
        blocks: std::ops::Range<u64>,
        visit: &mut WarpVisit<'_>,
    ) -> Result<(), EnumerateError> {
        self.walk_window(blocks, None, visit)
    }

    /// Trips of the first (outermost) counter over the whole launch; 1 without counters.
    pub fn outer_trips(&self) -> u64 {
        match self.ranges.as_deref() {
            Some([(lo, hi), ..]) => (hi - lo + 1).max(1) as u64,
            _ => 1,
        }
    }

    /// [`Self::walk`], with the first counter limited to its first `outer_trips` values.
    pub fn walk_window(
        &self,
        blocks: std::ops::Range<u64>,
        outer_trips: Option<u64>,
        visit: &mut WarpVisit<'_>,
    ) -> Result<(), EnumerateError> {
        let Some(ranges) = &self.ranges else {
            return Ok(());
        };
        let mut ranges = ranges.clone();
        if let (Some(n), Some(first)) = (outer_trips, ranges.first_mut()) {
            first.1 = first.1.min(first.0 + n.max(1) as i128 - 1);
        }
        self.walk_blocks(blocks, &ranges, self.weight, visit)
    }

    /// [`Self::walk_window`], the visit given the point as its slots ([`Self::slot_names`]).
    pub fn walk_window_slots(
        &self,
        blocks: std::ops::Range<u64>,
        outer_trips: Option<u64>,
        visit: &mut SlotWarpVisit<'_>,
    ) -> Result<(), EnumerateError> {
        let Some(ranges) = &self.ranges else {
            return Ok(());
        };
        let mut ranges = ranges.clone();
        if let (Some(n), Some(first)) = (outer_trips, ranges.first_mut()) {
            first.1 = first.1.min(first.0 + n.max(1) as i128 - 1);
        }
        self.walk_core(
            blocks,
            &ranges,
            self.weight,
            None,
            &mut |slots, _, lanes, w| visit(slots, lanes, w),
        )
    }

    /// Visit the warp executions of `blocks` with the counters in `ranges`, each block standing
    /// for `weight`.
    fn walk_blocks(
        &self,
        blocks: std::ops::Range<u64>,
        ranges: &[(i128, i128)],
        weight: u64,
        visit: &mut WarpVisit<'_>,
    ) -> Result<(), EnumerateError> {
        let mut point: BTreeMap<String, i128> =
            self.slot_names().into_iter().map(|n| (n, 0)).collect();
        self.walk_core(
            blocks,
            ranges,
            weight,
            Some(&mut point),
            &mut |_, map, lanes, w| visit(map, lanes, w),
        )
    }

    /// The walk: blocks in dispatch order, counter tuples odometer style (innermost fastest),
    /// warps in order; `point`, when given, is kept equal to the slots by name for the visit.
    fn walk_core(
        &self,
        blocks: std::ops::Range<u64>,
        ranges: &[(i128, i128)],
        weight: u64,
        mut point: Option<&mut BTreeMap<String, i128>>,
        visit: &mut CoreWarpVisit<'_>,
    ) -> Result<(), EnumerateError> {
        let program = self.program.as_ref().ok_or(EnumerateError::Unbound(None))?;
        let block = self.block;
        let names = self.slot_names();
        let empty = BTreeMap::new();
        let mut slots: Vec<i128> = vec![0; names.len()];
        let mut bases = Vec::new();
        let mut lanes: Vec<Lane> = Vec::with_capacity(32);
        let tpb: u64 = block.iter().product();
        for b in blocks.start..blocks.end.min(self.blocks()) {
            let c = self.coords(b);
            for (d, v) in c.iter().enumerate() {
                slots[d] = *v as i128;
            }
            for (k, r) in ranges.iter().enumerate() {
                slots[3 + k] = r.0;
            }
            // The innermost counter sweeps only the values where some lane can hold
            // (`CondProgram::slot_range`), found again whenever an outer counter steps.
            let inner = ranges.len().checked_sub(1);
            let mut sweep_to = i128::MIN;
            let mut fresh = true;
            loop {
                if fresh {
                    fresh = false;
                    if let Some(k) = inner {
                        let (lo, hi) = program.slot_range(&slots, 3 + k, ranges[k].0, ranges[k].1);
                        if lo > hi {
                            sweep_to = i128::MIN;
                            // nothing to visit at these outer counters: on to the next
                            if !advance(&mut slots, ranges, sweep_to, &mut fresh) {
                                break;
                            }
                            continue;
                        }
                        slots[3 + k] = lo;
                        sweep_to = hi;
                    }
                }
                if let Some(p) = point.as_deref_mut() {
                    for (name, v) in names.iter().zip(&slots) {
                        if let Some(x) = p.get_mut(name) {
                            *x = *v;
                        }
                    }
                }
                program.bases(&slots, &mut bases);
                for w in 0..tpb.div_ceil(32) {
                    let mask = program.warp_mask(&slots, &bases, w);
                    if mask == 0 {
                        continue;
                    }
                    let all = &self.warp_lanes[w as usize];
                    // the mask holds only lanes the block has: as many as it has, all of them
                    let on: &[Lane] = if mask.count_ones() as usize == all.len() {
                        all
                    } else {
                        lanes.clear();
                        let mut m = mask;
                        while m != 0 {
                            lanes.push(all[m.trailing_zeros() as usize]);
                            m &= m - 1;
                        }
                        &lanes
                    };
                    visit(&slots, point.as_deref().unwrap_or(&empty), on, weight);
                }
                if !advance(&mut slots, ranges, sweep_to, &mut fresh) {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// The next counter tuple, odometer style (innermost counter fastest, up to `sweep_to`);
/// `fresh` set where an outer counter stepped. `false` past the last tuple.
fn advance(slots: &mut [i128], ranges: &[(i128, i128)], sweep_to: i128, fresh: &mut bool) -> bool {
    for i in (0..ranges.len()).rev() {
        let top = if i + 1 == ranges.len() {
            sweep_to
        } else {
            ranges[i].1
        };
        if slots[3 + i] < top {
            slots[3 + i] += 1;
            *fresh |= i + 1 < ranges.len();
            return true;
        }
        slots[3 + i] = ranges[i].0;
    }
    false
}

/// The conjuncts of `c` that read no block index, joined (`True` where there are none): the
/// points of the box every block's domain is within.
fn block_free_part(c: &Cond) -> Cond {
    match c {
        Cond::And(a, b) => block_free_part(a).and(block_free_part(b)),
        c => {
            let mut vars = BTreeSet::new();
            c.vars(&mut vars);
            match vars.iter().any(|v| v.starts_with("ctaid_")) {
                true => Cond::True,
                false => c.clone(),
            }
        }
    }
}

/// The lanes of each warp of a block, with their thread indices.
fn warp_lanes(block: [u64; 3]) -> Vec<Vec<Lane>> {
    let threads = block.iter().product::<u64>();
    (0..threads.div_ceil(32))
        .map(|w| {
            (0..32u64.min(threads - 32 * w))
                .map(|l| (l as u32, slots::tid_of(32 * w + l, block)))
                .collect()
        })
        .collect()
}

/// `c` with each comparison that has one truth over the box `bounds` (every variable's least
/// and greatest value) replaced by it. A comparison with a floor, or a variable without
/// bounds, stays.
fn settled(c: &Cond, bounds: &BTreeMap<String, (i128, i128)>) -> Cond {
    let range = |e: &LinExpr| -> Option<(i128, i128)> {
        let (mut lo, mut hi) = (e.constant, e.constant);
        for (atom, k) in &e.terms {
            let crate::poly::Atom::Var(v) = atom else {
                return None;
            };
            let (a, b) = *bounds.get(&**v)?;
            let (x, y) = (k * a, k * b);
            lo += x.min(y);
            hi += x.max(y);
        }
        Some((lo, hi))
    };
    let truth = |b: bool| if b { Cond::True } else { Cond::True.not() };
    match c {
        Cond::Ge(e) => match range(e) {
            Some((lo, _)) if lo >= 0 => truth(true),
            Some((_, hi)) if hi < 0 => truth(false),
            _ => c.clone(),
        },
        Cond::Eq(e) => match range(e) {
            Some((0, 0)) => truth(true),
            Some((lo, hi)) if lo > 0 || hi < 0 => truth(false),
            _ => c.clone(),
        },
        Cond::Not(x) => settled(x, bounds).not(),
        Cond::And(a, b) => {
            let (a, b) = (settled(a, bounds), settled(b, bounds));
            if a.is_false() || b.is_false() {
                truth(false)
            } else {
                a.and(b)
            }
        }
        Cond::Or(a, b) => settled(a, bounds).or(settled(b, bounds)),
        Cond::True => Cond::True,
    }
}

/// `ctaid_x`, `ctaid_y`, `ctaid_z`, then `counters`.
fn slot_names(counters: &[String]) -> Vec<String> {
    ["ctaid_x", "ctaid_y", "ctaid_z"]
        .iter()
        .map(|s| s.to_string())
        .chain(counters.iter().cloned())
        .collect()
}

/// Each counter's range over the set `text` (its dimensions: the six indices, then the
/// counters), or `None` when it is empty.
///
/// Remembered by text: the accesses of one loop share a domain, and each is walked for its
/// sectors, its lines and its reuse.
fn counter_ranges(
    text: String,
    counters: usize,
) -> Result<Option<Vec<(i128, i128)>>, EnumerateError> {
    static MEMO: SetMemo<Option<Vec<(i128, i128)>>> = SetMemo::new();
    MEMO.get_or(text, |text| {
        let ctx = Ctx::new();
        let set = Set::parse(&ctx, text).map_err(|e| EnumerateError::Isl(e.into()))?;
        if set.is_empty().map_err(|e| EnumerateError::Isl(e.into()))? {
            return Ok(None);
        }
        Ok(Some(
            (0..counters)
                .map(|k| Ok((bound(&set, 6 + k, false)?, bound(&set, 6 + k, true)?)))
                .collect::<Result<_, EnumerateError>>()?,
        ))
    })
}

/// Smallest or largest value of set dimension `pos` over a parameter-free set.
fn bound(set: &Set, pos: usize, max: bool) -> Result<i128, EnumerateError> {
    let isl = |e: crate::poly::isl::IslError| EnumerateError::Isl(e.into());
    let pw = if max {
        set.dim_max(pos)
    } else {
        set.dim_min(pos)
    }
    .map_err(isl)?;
    let mut out: Option<i128> = None;
    for (_, aff) in pw.pieces().map_err(isl)? {
        if aff.is_nan().map_err(isl)? {
            return Err(EnumerateError::Unbound(None));
        }
        let (n, d) = aff.constant().map_err(isl)?;
        if d != 1 {
            return Err(EnumerateError::Unbound(None));
        }
        let n = n as i128;
        out = Some(match out {
            None => n,
            Some(o) if max => o.max(n),
            Some(o) => o.min(n),
        });
    }
    out.ok_or(EnumerateError::Unbound(None))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a - b - 1 >= 0`, i.e. a > b.
    fn gt(a: LinExpr, b: LinExpr) -> Cond {
        Cond::Ge(a.sub(&b).add_const(-1))
    }

    /// Weighted visits by (counter value, lanes): what a visit that reads no block index sees.
    fn visits(cond: &Cond, budget: u64) -> Result<BTreeMap<(i128, Vec<u32>), u64>, EnumerateError> {
        let env: BTreeMap<String, i128> = [
            ("nctaid_x".to_string(), 40),
            ("nctaid_y".to_string(), 7),
            ("n".to_string(), 1000),
            ("m".to_string(), 100),
        ]
        .into();
        let mut out = BTreeMap::new();
        let reads: BTreeSet<String> = ["k".to_string()].into();
        for_each_warp(
            &["k".to_string()],
            cond,
            [32, 2, 1],
            &env,
            budget,
            &reads,
            &mut |point, lanes, weight| {
                let key = (
                    point["k"],
                    lanes.iter().map(|(l, t)| l + 32 * t[1] as u32).collect(),
                );
                *out.entry(key).or_insert(0) += weight;
            },
        )?;
        Ok(out)
    }

    #[test]
    fn only_a_guard_with_a_block_index_leaves_blocks_partial() {
        // four blocks of 32 threads, a loop of 3 trips
        let env: BTreeMap<String, i128> = [("nctaid_x".to_string(), 4)].into();
        let reads: BTreeSet<String> = ["ctaid_x".to_string()].into();
        let counters = ["k".to_string()];
        let k = LinExpr::var("k");
        let tid_x = LinExpr::var("tid_x");
        let trips = Cond::Ge(k.clone()).and(gt(LinExpr::constant(3), k));
        let partial = |guard: Cond| {
            let cond = trips.clone().and(guard);
            let walk = WarpWalk::new(&counters, &cond, [32, 1, 1], &env, &reads).unwrap();
            walk.partial_blocks(u64::MAX).unwrap().unwrap()
        };
        // the same lanes of every block
        assert!(partial(gt(LinExpr::constant(20), tid_x.clone())).is_empty());
        // x = 32 ctaid_x + tid_x < 100: the last block runs 4 of its 32 threads
        let x = LinExpr::var("ctaid_x").scale(32).add(&tid_x);
        assert_eq!(partial(gt(LinExpr::constant(100), x)), BTreeSet::from([3]));
    }

    #[test]
    fn blocks_that_run_the_whole_box_are_walked_once_over_the_budget() {
        // x = 32 ctaid_x + tid_x < n, y = 2 ctaid_y + tid_y < m... of a 40 x 7 grid of 32 x 2
        // blocks, with 0 <= k < 3: 1280 x 14 threads, guarded to 1000 x 14, then to y < 13
        let x = LinExpr::var("ctaid_x")
            .scale(32)
            .add(&LinExpr::var("tid_x"));
        let y = LinExpr::var("ctaid_y").scale(2).add(&LinExpr::var("tid_y"));
        let k = LinExpr::var("k");
        let cond = gt(LinExpr::var("n"), x)
            .and(gt(LinExpr::constant(13), y))
            .and(Cond::Ge(k.clone()))
            .and(gt(LinExpr::constant(3), k));
        let whole = visits(&cond, u64::MAX).unwrap();
        // 40 * 7 blocks of 64 threads and 3 trips: 53760 points. Within a budget of 20000, the
        // 9 x 7 blocks from ctaid_x = 31 and the 31 others of ctaid_y = 6 are walked (192 points
        // each), and one block stands for the other 186
        let alike = visits(&cond, 20000).unwrap();
        assert_eq!(alike, whole);
        let lanes: u64 = whole.iter().map(|((_, l), w)| l.len() as u64 * w).sum();
        assert_eq!(lanes, 1000 * 13 * 3);
        // a budget below the blocks the plan needs is still refused
        assert!(matches!(
            visits(&cond, 500),
            Err(EnumerateError::TooLarge(53760))
        ));
    }
}
