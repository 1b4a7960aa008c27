//! What the affine recovery knows of a register ([`Val`]), per block ([`Values`]), and the
//! small readings of it the later passes take: a loop's counter symbol, an edge's condition, a
//! value as a quasi-affine expression.
//!
//! Why a module of its own: the domains and the loop-exit proofs read these values, and the
//! driver of the recovery (`affine::analyze`) runs on those proofs; the values sit below both.

use crate::cfg::{Cfg, EdgeKind};
use crate::cond::Cond;
use crate::poly::{LinExpr, Poly};
use std::collections::BTreeMap;
use std::ops::Not;

/// An abstract register value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Num(Poly),
    Pred(Cond),
    /// An integer known only by its sign and, where known, where it is zero: negative exactly
    /// where `negative` holds, zero exactly where `zero` does. nvcc tests `a < 0 || b < 0` as
    /// the sign of `a | b`, and `a == 0 && b == 0` as `a | b` against 0, neither an affine value.
    Bits {
        negative: Cond,
        zero: Option<Cond>,
    },
    Unknown,
}

/// Register values, in a persistent map: each block keeps its entry and exit environments, and
/// consecutive ones differ in a few registers, so they share the rest (a full copy per block of
/// a 5000-register kernel unrolled to 512 blocks took over 8 GB).
pub type Env = imbl::OrdMap<String, Val>;

/// Result of the analysis of one function.
#[derive(Clone, Debug, Default)]
pub struct Values {
    /// Register values at the entry of each block.
    pub entry: Vec<Env>,
    /// Register values at the end of each block (before its terminator's effect on control).
    pub exit: Vec<Env>,
    /// Induction variables per loop: register → step.
    pub ivs: BTreeMap<usize, BTreeMap<String, Poly>>,
}

pub fn counter(loop_index: usize) -> String {
    format!("k{loop_index}")
}

pub(super) fn lin(p: &Poly) -> Option<LinExpr> {
    let mut e = LinExpr::default();
    for (m, c) in &p.terms {
        if !c.is_integer() {
            return None;
        }
        let c: i128 = num_traits::ToPrimitive::to_i128(&c.to_integer())?;
        match m.as_slice() {
            [] => e.constant += c,
            [(a, 1)] => e.add_term(a.clone(), c),
            _ => return None,
        }
    }
    Some(e)
}

/// A polynomial as a quasi-affine expression, when it is one.
pub fn as_lin(p: &Poly) -> Option<LinExpr> {
    lin(p)
}

pub(super) fn num(v: &Val) -> Option<&Poly> {
    match v {
        Val::Num(p) => Some(p),
        _ => None,
    }
}

pub(super) fn konst(p: &Poly) -> Option<i128> {
    let c = p.as_constant()?;
    if !c.is_integer() {
        return None;
    }
    num_traits::ToPrimitive::to_i128(&c.to_integer())
}

/// The condition under which control follows `edge` out of block `from` (None: unconditional;
/// Some(None): data dependent).
pub fn edge_cond(cfg: &Cfg, vals: &Values, from: usize, kind: EdgeKind) -> Option<Option<Cond>> {
    let t = cfg.blocks[from].terminator()?;
    let g = t.pred.as_ref()?;
    if !matches!(kind, EdgeKind::Taken | EdgeKind::NotTaken) {
        return None;
    }
    let c = match vals.exit[from].get(&g.reg) {
        Some(Val::Pred(c)) => c.clone(),
        _ => return Some(None),
    };
    let c = if g.negated { c.not() } else { c };
    Some(Some(if kind == EdgeKind::Taken { c } else { c.not() }))
}
