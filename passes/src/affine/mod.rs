//! Affine recovery over PTX: the value of every integer register as a polynomial (usually a
//! quasi-affine expression) in the launch symbols, kernel parameters and loop counters, and of
//! every predicate as a boolean formula over affine comparisons.
//!
//! Why polynomials rather than affine forms only: addresses such as `row * n + col` multiply a
//! thread index by a parameter; they are not affine, but their lane stride (the coefficient of
//! `tid_x`) is still exact. Guards and loop bounds must be affine to become isl constraints; a
//! non-affine one is reported by the domain pass.
//!
//! The block size is fixed (`ntid` are constants), which makes `ctaid.x * ntid.x + tid.x`
//! affine. Symbols: `tid_x…`, `ctaid_x…`, `nctaid_x…`, kernel parameters `p0, p1, …` (by
//! position), loop counters `k0, k1, …` (by loop index in the CFG).
//!
//! Method: forward abstract interpretation over the CFG in reverse postorder, ignoring back edges;
//! a join keeps a register's value only where all predecessors agree. Loops take two passes: the
//! first gives every register written in the loop a symbolic header value `h`; a register whose
//! latch value is `h + s` with `s` loop-invariant is an induction variable, `init + s·k`; the
//! second pass uses those forms (other loop-written registers are unknown).
//!
//! A min, max or select (`selp`) of quasi-affine values is a named symbol `mmN` whose definition
//! is the tree of its arguments ([`crate::named`]): arithmetic on it stays quasi-affine, and the
//! definition is put back where domains are counted. A bit operation that is not arithmetic on
//! its operands is kept by its sign and its zeros alone ([`Val::Bits`]) when a test reads them.
//!
//! Simplification rule: `shr.s` by width−1 (the sign of a value, in signed-division idioms) is
//! taken as 0, i.e. the dividend is assumed non-negative; nvcc guards its loop-trip computations
//! so that this holds.
//!
//! Layout: what a register holds ([`value`]), the symbols it is written in ([`symbols`]), the
//! transfer function of one instruction ([`transfer`](mod@transfer)), and here the driver,
//! [`analyze`]. The driver runs rounds whose joins use the loop-exit proofs (`crate::loop_exit`)
//! over the domains of the previous round (`crate::domains`), so it sits above both while the
//! children sit below them: the passes under the driver import from the children, the rest of the
//! crate and other crates may use the re-exports below.

pub mod symbols;
#[cfg(test)]
mod tests;
pub mod transfer;
pub mod value;

pub use symbols::{
    is_param_symbol, param_field_symbol, param_symbol, with_grid, with_param_values,
};
pub use transfer::{address, dests, operand, transfer, wmma_base, wmma_pitch};
pub use value::{as_lin, counter, edge_cond, Env, Val, Values};

use crate::cfg::Cfg;
use crate::loop_exit;
use crate::named;
use crate::poly::Poly;
use crate::ptx::Function;
use std::collections::{BTreeMap, BTreeSet};

/// Recover register values; `ntid` is the fixed block size.
pub fn analyze(f: &Function, cfg: &Cfg, ntid: [u64; 3]) -> Values {
    let phis = run(f, cfg, ntid, None, None);
    // induction variables from pass 1
    let mut ivs: BTreeMap<usize, BTreeMap<String, Poly>> = BTreeMap::new();
    for (li, l) in cfg.loops.iter().enumerate() {
        let written = written_in(cfg, &l.blocks);
        let mut m = BTreeMap::new();
        'reg: for r in &written {
            let h = Poly::var(&phi_name(li, r));
            let mut step: Option<Poly> = None;
            for &lat in &l.latches {
                let Some(Val::Num(v)) = phis.exit[lat].get(r) else {
                    continue 'reg;
                };
                let s = v.sub(&h);
                let mut vars = BTreeSet::new();
                s.vars(&mut vars);
                named::close(&mut vars);
                if vars
                    .iter()
                    .any(|v| v.starts_with("h") || v.starts_with('k'))
                {
                    continue 'reg;
                }
                if step.as_ref().is_some_and(|p| *p != s) {
                    continue 'reg;
                }
                step = Some(s);
            }
            if let Some(s) = step {
                m.insert(r.clone(), s);
            }
        }
        ivs.insert(li, m);
    }
    let mut v = run(f, cfg, ntid, Some(&ivs), None);
    v.ivs = ivs.clone();
    // Exit iterations and path-aware joins need the domains, which need the values: iterate
    // from what the previous round knew, until nothing more is learnt (each loop's exit can
    // only feed what comes after it, so the loop count bounds the rounds).
    let prover = loop_exit::Prover::new(cfg, ntid);
    for _ in 0..=cfg.loops.len() {
        let paths = loop_exit::Paths::new(cfg, &v, &prover);
        let mut next = run(f, cfg, ntid, Some(&ivs), Some(&paths));
        next.ivs = ivs.clone();
        let stable = next.entry == v.entry && next.exit == v.exit;
        v = next;
        if stable {
            break;
        }
    }
    v
}

fn phi_name(li: usize, reg: &str) -> String {
    format!("h{li}_{}", reg.trim_start_matches('%'))
}

fn written_in(cfg: &Cfg, blocks: &[usize]) -> BTreeSet<String> {
    let mut w = BTreeSet::new();
    for &b in blocks {
        for i in &cfg.blocks[b].insts {
            for d in dests(i) {
                w.insert(d);
            }
        }
    }
    w
}

/// Reverse postorder of the blocks reachable from the entry. Iterative (an explicit stack of
/// (block, next successor)), since a kernel's blocks can be many more than the stack is deep.
fn rpo(cfg: &Cfg) -> Vec<usize> {
    let n = cfg.blocks.len();
    let mut seen = vec![false; n];
    let mut order = Vec::new();
    if n == 0 {
        return order;
    }
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &cfg.edges {
        if let Some(s) = succs.get_mut(e.from) {
            s.push(e.to);
        }
    }
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, next)) = stack.last_mut() {
        if let Some(&to) = succs[*b].get(*next) {
            *next += 1;
            if !seen[to] {
                seen[to] = true;
                stack.push((to, 0));
            }
        } else {
            order.push(*b);
            stack.pop();
        }
    }
    order.reverse();
    order
}

fn is_back_edge(cfg: &Cfg, from: usize, to: usize) -> bool {
    cfg.dominates(to, from)
}

fn run(
    f: &Function,
    cfg: &Cfg,
    ntid: [u64; 3],
    ivs: Option<&BTreeMap<usize, BTreeMap<String, Poly>>>,
    paths: Option<&loop_exit::Paths>,
) -> Values {
    let n = cfg.blocks.len();
    let mut entry: Vec<Env> = vec![Env::new(); n];
    let mut exit: Vec<Env> = vec![Env::new(); n];
    for b in rpo(cfg) {
        let preds: Vec<usize> = cfg
            .predecessors(b)
            .filter(|e| !is_back_edge(cfg, e.from, b))
            .map(|e| e.from)
            .collect();
        let mut env = merge(cfg, b, &preds, &exit, ivs.is_some(), paths);
        if let Some((li, _)) = cfg.loops.iter().enumerate().find(|(_, l)| l.header == b) {
            for r in written_in(cfg, &cfg.loops[li].blocks) {
                let v = match ivs {
                    None => Val::Num(Poly::var(&phi_name(li, &r))),
                    Some(ivs) => match (ivs.get(&li).and_then(|m| m.get(&r)), env.get(&r)) {
                        (Some(step), Some(Val::Num(init))) => {
                            Val::Num(init.add(&step.mul(&Poly::var(&counter(li)))))
                        }
                        _ => Val::Unknown,
                    },
                };
                env.insert(r, v);
            }
        }
        entry[b] = env.clone();
        for i in &cfg.blocks[b].insts {
            transfer(f, i, &mut env, ntid);
        }
        exit[b] = env;
    }
    Values {
        entry,
        exit,
        ivs: BTreeMap::new(),
    }
}

/// Join the values at the end of `b`'s forward predecessors. Pass 1 (`leave` false: symbolic
/// header values, no counters yet) keeps a register only where all agree. Later passes also
/// replace, on an edge that leaves a loop, the loop's counter by its exit iteration (or forget
/// what depends on it), and with `paths` keep differing values that are provably equal.
fn merge(
    cfg: &Cfg,
    b: usize,
    preds: &[usize],
    exit: &[Env],
    leave: bool,
    paths: Option<&loop_exit::Paths>,
) -> Env {
    if !leave {
        return loop_exit::plain_join(preds.iter().map(|p| &exit[*p]));
    }
    let incoming: Vec<(usize, &Env, Env)> = preds
        .iter()
        .map(|&p| {
            let e = match paths {
                Some(x) => x.along(p, b, &exit[p]),
                None => loop_exit::along(cfg, p, b, &exit[p], None),
            };
            (p, &exit[p], e)
        })
        .collect();
    match paths {
        Some(x) => x.join(b, &incoming),
        None => loop_exit::plain_join(incoming.iter().map(|(_, _, e)| e)),
    }
}
