//! Values that leave loops and meet at joins, for the affine recovery (`affine::analyze`).
//!
//! Why: inside loop L a register is `init + step·k_L`; after L the counter `k_L` no longer
//! exists, and the value is the one of the iteration at which control left. A compiler-unrolled
//! loop (main loop by 4 plus a remainder loop) starts its remainder from a join of the bypass
//! path (0 when n < 4) and the main loop's exit value (4·floor(n/4)); a join that keeps only
//! values all predecessors spell alike loses it, and every address of the remainder becomes
//! unknown.
//!
//! Two mechanisms, both proved with isl and otherwise left unknown:
//! - Exit values: on an exit edge x → t of loop L, the iteration at which control leaves is the
//!   first `k_L` at which x executes and the edge is taken; isl gives it as a piecewise
//!   quasi-affine function of the launch, the parameters and the outer counters. It is used only
//!   when one quasi-affine expression is that first iteration everywhere (checked: no earlier
//!   iteration takes the edge, and the edge is taken at it wherever it is taken at all).
//! - Path-aware joins: where predecessors give different values, one of them is kept if every
//!   other predecessor's value equals it at every point where that predecessor's edge to the
//!   join is taken (the set of points where the edge is taken and the values differ is empty).
//!   Where the edges are the cases `q = c` of one quantity and the values move with it, the
//!   line through them is a candidate too ([`fitted`]).
//!
//! Named min/max/select values ([`crate::named`]) are free parameters in these proofs, with the
//! convex half of their definitions (`max(a, b) >= a`); their full definitions only where that
//! proves nothing, since a condition split into their cases costs isl far more.
//!
//! The block domains and edge conditions come from the previous round of the analysis; a
//! condition that was unknown there is a free hint parameter, which only makes the sets larger,
//! so every proof here still holds for the real execution.

use crate::affine::transfer::dests;
use crate::affine::value::{counter, Env, Val, Values};
use crate::cfg::{Cfg, EdgeKind};
use crate::cond::Cond;
use crate::cond_set::{launch_box, Spaces};
use crate::domains::{self, loop_chain, Domains};
use crate::named;
use crate::poly::count::{aff_to_lin, Round};
use crate::poly::isl::Ctx;
use crate::poly::{Atom, LinExpr, Poly};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;

/// isl sets and emptiness cache shared by the rounds of one analysis.
pub(crate) struct Prover {
    ntid: [u64; 3],
    empty: RefCell<HashMap<String, bool>>,
    minima: RefCell<HashMap<String, Option<Vec<LinExpr>>>>,
    /// isl sets of conditions, per space
    spaces: RefCell<Spaces>,
    /// Per block, the registers that may be read from its entry on: only those are worth a
    /// proof at a join.
    live: Vec<BTreeSet<String>>,
}

impl Prover {
    pub(crate) fn new(cfg: &Cfg, ntid: [u64; 3]) -> Prover {
        Prover {
            live: live_in(cfg),
            spaces: RefCell::new(Spaces::new(&Ctx::new())),
            ntid,
            empty: RefCell::new(HashMap::default()),
            minima: RefCell::new(HashMap::default()),
        }
    }

    /// The space of the points (ctaid, tid, `dims`) of the launch where `cond` holds: its
    /// parameters (every other symbol) and set dimensions, and the launch box.
    fn space(&self, dims: &[String], cond: &Cond) -> (Vec<String>, Vec<String>, Cond) {
        let mut vars = BTreeSet::new();
        cond.vars(&mut vars);
        let mut params: BTreeSet<String> = ["nctaid_x", "nctaid_y", "nctaid_z"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        params.extend(
            vars.into_iter()
                .filter(|v| !is_launch_dim(v) && !dims.contains(v)),
        );
        let all_dims = ["ctaid_x", "ctaid_y", "ctaid_z", "tid_x", "tid_y", "tid_z"]
            .iter()
            .map(|s| s.to_string())
            .chain(dims.iter().cloned())
            .collect();
        (
            params.into_iter().collect(),
            all_dims,
            launch_box(self.ntid),
        )
    }

    /// Whether no point satisfies `cond`; an isl failure proves nothing.
    fn is_empty(&self, dims: &[String], cond: &Cond) -> bool {
        // Named values as free parameters first (cheap, and true for their real values too);
        // their definitions only where that is not enough.
        self.is_empty_cond(dims, &named::with_facts(cond))
            || (named::has_symbols(cond) && self.is_empty_cond(dims, &named::expand(cond)))
    }

    fn is_empty_cond(&self, dims: &[String], cond: &Cond) -> bool {
        let (params, all_dims, launch) = self.space(dims, cond);
        let key = format!("{params:?} {all_dims:?} {:?} {}", self.ntid, cond.to_isl());
        if let Some(&e) = self.empty.borrow().get(&key) {
            return e;
        }
        let e = crate::cond_set::is_empty(
            &mut self.spaces.borrow_mut(),
            &params,
            &all_dims,
            &launch,
            cond,
        )
        .unwrap_or(false);
        self.empty.borrow_mut().insert(key, e);
        e
    }

    /// The first value of `k` satisfying `cond`, as one quasi-affine expression valid wherever
    /// some `k` satisfies it; `None` when isl's answer needs several expressions.
    /// `guesses` are tried first: isl may answer in pieces (one per residue of a modulus) that
    /// one expression covers.
    fn first(
        &self,
        dims: &[String],
        k: &str,
        cond: &Cond,
        guesses: Vec<LinExpr>,
    ) -> Option<LinExpr> {
        let mut vars = BTreeSet::new();
        cond.vars(&mut vars);
        // Only `k` is a set dimension, so that its minimum is a function of everything else.
        let mut params: BTreeSet<String> = ["nctaid_x", "nctaid_y", "nctaid_z"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        params.extend(vars.into_iter().filter(|v| v != k));
        params.extend(dims.iter().filter(|d| *d != k).cloned());
        params.extend(
            ["ctaid_x", "ctaid_y", "ctaid_z", "tid_x", "tid_y", "tid_z"]
                .iter()
                .map(|s| s.to_string()),
        );
        let launch = launch_box(self.ntid);
        let params: Vec<String> = params.into_iter().collect();
        let verified = |e: &LinExpr| {
            let kv = LinExpr::var(k);
            // no earlier iteration satisfies the condition …
            let earlier = cond.clone().and(Cond::Ge(e.sub(&kv).add_const(-1)));
            // … and wherever some iteration does, `e` does
            let missed = cond.clone().and(cond.subst(k, e).not());
            self.is_empty(dims, &earlier) && self.is_empty(dims, &missed)
        };
        if let Some(e) = guesses.iter().find(|e| verified(e)) {
            return Some(e.clone());
        }
        self.minima(&params, k, &launch, cond)?
            .into_iter()
            .filter(|e| !guesses.contains(e))
            .find(|e| verified(e))
    }
}

impl Prover {
    /// The expressions of the pieces of the minimum of `k` over the launch points where
    /// `cond` holds, as functions of `params`.
    fn minima(
        &self,
        params: &[String],
        k: &str,
        launch: &Cond,
        cond: &Cond,
    ) -> Option<Vec<LinExpr>> {
        let key = format!("{params:?} {k} {} {}", launch.to_isl(), cond.to_isl());
        if let Some(m) = self.minima.borrow().get(&key) {
            return m.clone();
        }
        let m = self.minima_uncached(params, k, launch, cond);
        self.minima.borrow_mut().insert(key, m.clone());
        m
    }

    fn minima_uncached(
        &self,
        params: &[String],
        k: &str,
        launch: &Cond,
        cond: &Cond,
    ) -> Option<Vec<LinExpr>> {
        let mut spaces = self.spaces.borrow_mut();
        let sets = spaces.get(params, &[k.to_string()]).ok()?;
        let base = sets.restrict(sets.universe(), launch).ok()?;
        let set = sets.restrict(base, cond).ok()?;
        let names = set.param_names().ok()?;
        let mut out = Vec::new();
        for (_, aff) in set.dim_min(0).ok()?.pieces().ok()? {
            if aff.is_nan().ok()? {
                return None;
            }
            out.push(aff_to_lin(&aff, &names, &[], Round::Floor).ok()?);
        }
        Some(out)
    }
}

/// Values of `k` that an equality conjunct of `c` pins (`k` outside floors, its coefficient
/// dividing the rest: `4·r - 4·k - 4 = 0` pins `k = r - 1`).
fn pinned(c: &Cond, k: &str) -> Vec<LinExpr> {
    match c {
        Cond::And(a, b) => {
            let mut v = pinned(a, k);
            v.extend(pinned(b, k));
            v
        }
        Cond::Eq(e) => {
            let a = e.terms.get(&Atom::Var(k.into())).copied();
            let in_floor = e
                .terms
                .keys()
                .any(|at| matches!(at, Atom::Floor(..)) && at.involves(k));
            match a {
                // a·k + rest = 0  ⇔  k = −rest/a
                Some(a) if !in_floor => {
                    let rest = e.sub(&LinExpr::var(k).scale(a));
                    let divides = rest.constant % a == 0 && rest.terms.values().all(|c| c % a == 0);
                    if divides {
                        let q = LinExpr {
                            terms: rest
                                .terms
                                .iter()
                                .map(|(t, c)| (t.clone(), -c / a))
                                .collect(),
                            constant: -rest.constant / a,
                        };
                        vec![q]
                    } else {
                        vec![]
                    }
                }
                _ => vec![],
            }
        }
        _ => vec![],
    }
}

/// Registers live at each block's entry (read before being written on some path from there).
fn live_in(cfg: &Cfg) -> Vec<BTreeSet<String>> {
    let n = cfg.blocks.len();
    // per block: registers read before written in it, and registers written
    let (mut used, mut defs) = (vec![BTreeSet::new(); n], vec![BTreeSet::new(); n]);
    for b in 0..n {
        for i in &cfg.blocks[b].insts {
            let ds = dests(i);
            let mut rs = BTreeSet::new();
            if let Some(g) = &i.pred {
                rs.insert(g.reg.clone());
            }
            let skip = usize::from(!ds.is_empty());
            i.operands
                .iter()
                .skip(skip)
                .for_each(|o| o.collect_reads(&mut rs));
            for r in rs {
                if !defs[b].contains(&r) {
                    used[b].insert(r);
                }
            }
            defs[b].extend(ds);
        }
    }
    let mut live = used.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = BTreeSet::new();
            for e in cfg.successors(b) {
                out.extend(live[e.to].iter().cloned());
            }
            for r in out {
                if !defs[b].contains(&r) && live[b].insert(r) {
                    changed = true;
                }
            }
        }
    }
    live
}

fn is_launch_dim(v: &str) -> bool {
    v.starts_with("tid_") || v.starts_with("ctaid_")
}

/// The condition under which control goes from `from` to `to`, read from the register values at
/// the end of `from`: `Some(True)` when unconditional, `None` when data dependent.
fn edge_to(cfg: &Cfg, env: &Env, from: usize, to: usize) -> Option<Cond> {
    let mut out: Option<Cond> = None;
    for e in cfg.successors(from).filter(|e| e.to == to) {
        let guard = cfg.blocks[from].terminator().and_then(|t| t.pred.as_ref());
        let c = match (guard, e.kind) {
            (Some(g), EdgeKind::Taken | EdgeKind::NotTaken) => {
                let c = match env.get(&g.reg) {
                    Some(Val::Pred(c)) => c.clone(),
                    _ => return None,
                };
                let c = if g.negated { c.not() } else { c };
                if e.kind == EdgeKind::Taken {
                    c
                } else {
                    c.not()
                }
            }
            _ => Cond::True,
        };
        out = Some(match out {
            None => c,
            Some(o) => Cond::Or(Box::new(o), Box::new(c)),
        });
    }
    out
}

/// Loops that contain `from` but not `to`, innermost first.
fn left_loops(cfg: &Cfg, from: usize, to: usize) -> Vec<usize> {
    let inner = loop_chain(cfg, to);
    let mut left: Vec<usize> = loop_chain(cfg, from)
        .into_iter()
        .filter(|l| !inner.contains(l))
        .collect();
    left.reverse();
    left
}

/// What one round of the analysis learnt about exits and joins, for the next round.
pub(crate) struct Paths<'a> {
    cfg: &'a Cfg,
    prover: &'a Prover,
    doms: Domains,
    /// Per exit edge (from, to) of a single loop, computed when a value needs it: the counter
    /// and its value when control leaves.
    exits: RefCell<BTreeMap<(usize, usize), Option<LoopExit>>>,
}

/// A loop's counter and its value when control leaves the loop.
type LoopExit = (String, LinExpr);

impl<'a> Paths<'a> {
    /// The domains from the values of the previous round.
    pub(crate) fn new(cfg: &'a Cfg, vals: &Values, prover: &'a Prover) -> Paths<'a> {
        Paths {
            cfg,
            prover,
            doms: domains::build(cfg, vals, &|_| None),
            exits: RefCell::new(BTreeMap::new()),
        }
    }

    /// The exit iteration on the edge `from` → `to` leaving loop `li` (`env`: the values at the
    /// end of `from`, for the edge's condition).
    fn exit(&self, li: usize, from: usize, to: usize, env: &Env) -> Option<LoopExit> {
        if let Some(e) = self.exits.borrow().get(&(from, to)) {
            return e.clone();
        }
        let k = counter(li);
        let found = edge_to(self.cfg, env, from, to).and_then(|taken| {
            let d = &self.doms.blocks[from];
            // symbols that move with k are put back, so that k alone is solved for
            let taken = named::expand_dependent(&taken, &k);
            let guesses = pinned(&taken, &k);
            let cond = d.symbolic.clone().and(taken);
            self.prover
                .first(&d.counters, &k, &cond, guesses)
                .filter(|e| !mentions_hint(e))
        });
        let out = found.map(|e| (k, e));
        self.exits.borrow_mut().insert((from, to), out.clone());
        out
    }

    /// The register values that arrive at `to` along the edge from `from`: counters of the loops
    /// the edge leaves are replaced by their exit iteration, or the value is unknown.
    pub(crate) fn along(&self, from: usize, to: usize, env: &Env) -> Env {
        let exit = match left_loops(self.cfg, from, to).as_slice() {
            [li] if env.values().any(|v| involves(v, &counter(*li))) => {
                self.exit(*li, from, to, env)
            }
            _ => None,
        };
        along(self.cfg, from, to, env, exit.as_ref())
    }

    /// Whether `v` (arriving from `from`) equals `cand` wherever control goes from `from` to `to`.
    fn equal_on_edge(
        &self,
        from: usize,
        to: usize,
        env: &Env,
        v: &LinExpr,
        cand: &LinExpr,
    ) -> bool {
        let d = &self.doms.blocks[from];
        // A data-dependent edge is taken somewhere we cannot say: require equality everywhere.
        let taken = edge_to(self.cfg, env, from, to).unwrap_or(Cond::True);
        let differ = Cond::Eq(v.sub(cand)).not();
        self.prover
            .is_empty(&d.counters, &d.symbolic.clone().and(taken).and(differ))
    }

    /// Join of the values arriving at `to` (`incoming`: predecessor, its end-of-block values,
    /// the values along the edge). A register whose values differ keeps one of them when the
    /// others provably equal it on their edges; otherwise it is unknown.
    pub(crate) fn join(&self, to: usize, incoming: &[(usize, &Env, Env)]) -> Env {
        let mut out = plain_join(incoming.iter().map(|(_, _, e)| e));
        let chain: Vec<String> = loop_chain(self.cfg, to).into_iter().map(counter).collect();
        let live = &self.prover.live[to];
        let keys: Vec<String> = out
            .iter()
            .filter(|(r, v)| **v == Val::Unknown && live.contains(*r))
            .map(|(k, _)| k.clone())
            .collect();
        for r in keys {
            let vals: Option<Vec<LinExpr>> = incoming
                .iter()
                .map(|(_, _, e)| match e.get(&r) {
                    Some(Val::Num(p)) => crate::affine::value::as_lin(p),
                    _ => None,
                })
                .collect();
            let Some(vals) = vals else { continue };
            let pins: Vec<Vec<(LinExpr, i128)>> = incoming
                .iter()
                .map(|(from, env, _)| {
                    edge_to(self.cfg, env, *from, to).map_or_else(Vec::new, |c| equalities(&c))
                })
                .collect();
            let mut cands: Vec<LinExpr> = Vec::new();
            for v in vals.iter().cloned().chain(fitted(&vals, &pins)) {
                if !cands.contains(&v) && in_frame(&v, &chain) {
                    cands.push(v);
                }
            }
            let proved = cands.into_iter().find(|cand| {
                incoming.iter().zip(&vals).all(|((from, env, _), v)| {
                    v == cand || self.equal_on_edge(*from, to, env, v, cand)
                })
            });
            if let Some(c) = proved {
                out.insert(r, Val::Num(Poly::from_lin(&c)));
            }
        }
        out
    }
}

/// The equalities `q = c` (`q` without constant term, its first coefficient positive) that a
/// condition's conjuncts state.
fn equalities(c: &Cond) -> Vec<(LinExpr, i128)> {
    match c {
        Cond::And(a, b) => {
            let mut v = equalities(a);
            v.extend(equalities(b));
            v
        }
        Cond::Eq(e) if !e.is_constant() => {
            let q = e.add_const(-e.constant);
            let flip = q.terms.values().next().is_some_and(|c| *c < 0);
            if flip {
                vec![(q.scale(-1), e.constant)]
            } else {
                vec![(q, -e.constant)]
            }
        }
        _ => vec![],
    }
}

/// Candidates for a join whose ways in are the cases of one quantity: where edge `i` is taken
/// when `q = c_i` and brings `v_i`, and `v_j - v_i` is a constant multiple `λ` of `c_j - c_i`,
/// the join may be `v_i + λ·(q - c_i)` on every edge (nvcc peels a remainder loop into
/// `if (r == 0) … if (r == 1) …` tests that each leave with the index reached so far). Each
/// candidate still has to be proved on every edge.
fn fitted(vals: &[LinExpr], pins: &[Vec<(LinExpr, i128)>]) -> Vec<LinExpr> {
    let mut out = Vec::new();
    for (i, pi) in pins.iter().enumerate() {
        for (j, pj) in pins.iter().enumerate().skip(i + 1) {
            let d = vals[j].sub(&vals[i]);
            if !d.is_constant() {
                continue;
            }
            for (q, ci) in pi {
                for (q2, cj) in pj {
                    if q != q2 || ci == cj || d.constant % (cj - ci) != 0 {
                        continue;
                    }
                    let lambda = d.constant / (cj - ci);
                    let e = vals[i].add(&q.add_const(-ci).scale(lambda));
                    if !out.contains(&e) {
                        out.push(e);
                    }
                }
            }
        }
    }
    out
}

/// Values along an edge given the exit iteration of the loop it leaves (if it leaves one and the
/// iteration is known); values that depend on a counter of a left loop are otherwise unknown.
pub(crate) fn along(cfg: &Cfg, from: usize, to: usize, env: &Env, exit: Option<&LoopExit>) -> Env {
    let left: Vec<String> = left_loops(cfg, from, to).into_iter().map(counter).collect();
    if left.is_empty() {
        return env.clone();
    }
    env.iter()
        .map(|(r, v)| {
            let v = match (v, exit) {
                (Val::Num(p), Some((k, e))) => Val::Num(named::subst_poly(p, k, e)),
                (Val::Pred(c), Some((k, e))) => Val::Pred(named::subst_cond(c, k, e)),
                (Val::Bits { negative, zero }, Some((k, e))) => Val::Bits {
                    negative: named::subst_cond(negative, k, e),
                    zero: zero.as_ref().map(|z| named::subst_cond(z, k, e)),
                },
                _ => v.clone(),
            };
            let stale = left.iter().any(|k| involves(&v, k));
            (r.clone(), if stale { Val::Unknown } else { v })
        })
        .collect()
}

/// Whether a value depends on the symbol `k`, through the named values it uses too.
fn involves(v: &Val, k: &str) -> bool {
    let mut vs = BTreeSet::new();
    match v {
        Val::Num(p) => p.vars(&mut vs),
        Val::Pred(c) => c.vars(&mut vs),
        Val::Bits { negative, zero } => {
            negative.vars(&mut vs);
            if let Some(z) = zero {
                z.vars(&mut vs);
            }
        }
        Val::Unknown => {}
    }
    named::close(&mut vs);
    vs.contains(k)
}

/// The join that keeps a register only where every predecessor gives it the same value.
pub(crate) fn plain_join<'e>(mut envs: impl Iterator<Item = &'e Env>) -> Env {
    let Some(first) = envs.next() else {
        return Env::new();
    };
    let mut out = first.clone();
    for e in envs {
        let differ: Vec<String> = out
            .iter()
            .filter(|(k, v)| e.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect();
        for k in differ {
            out.insert(k, Val::Unknown);
        }
        for k in e.keys() {
            if !out.contains_key(k) {
                out.insert(k.clone(), Val::Unknown);
            }
        }
    }
    out
}

/// Usable at a block inside the loops whose counters are `chain`: no other loop's counter and no
/// loop-header placeholder.
fn in_frame(e: &LinExpr, chain: &[String]) -> bool {
    let mut vs = BTreeSet::new();
    e.vars(&mut vs);
    named::close(&mut vs);
    vs.iter().all(|v| {
        let is_counter = v.starts_with('k') && v[1..].chars().all(|c| c.is_ascii_digit());
        let is_phi = v.starts_with('h') && v[1..].contains('_');
        !is_phi && (!is_counter || chain.contains(v))
    })
}

/// A value in terms of a hint parameter would turn an assumption into a silent number.
fn mentions_hint(e: &LinExpr) -> bool {
    let mut vs = BTreeSet::new();
    e.vars(&mut vs);
    named::close(&mut vs);
    vs.iter()
        .any(|v| v.starts_with("trip") || v.starts_with("br"))
}
