//! The static side of the stride rule on `stats::StrideClass`: a memory instruction's byte
//! coefficients along the thread index from its address polynomial, and whether a warp
//! execution of it can hold two lanes apart along a dimension (where none can, the coefficient
//! is unobservable and counts as 0, as in the emulator's `StrideEvidence`).

#[cfg(test)]
use super::shape_walk::walk_on;
#[cfg(test)]
pub(crate) use super::shape_walk::Path;
pub use super::shape_walk::ShapeMemo;
use super::shape_walk::{Shifted, WALK_BUDGET};
use super::warp::{class_of, varying_dims, LaneAccess, StrideEvidence};
use crate::cond::Cond;
use crate::poly::isl::{Ctx, Set};
use crate::poly::{Atom, LinExpr, Poly};
use crate::set_memo::SetMemo;
use crate::stats::StrideClass;
use std::collections::{BTreeMap, BTreeSet};

const TIDS: [&str; 3] = ["tid_x", "tid_y", "tid_z"];

/// Byte coefficients of the address along the dimensions that vary inside a warp (zero for the
/// others); `None` when the address is unknown or not affine in the thread index.
pub fn lane_coefs(addr: Option<&Poly>, block: [u64; 3]) -> Option<[Poly; 3]> {
    let a = addr?;
    let varies = varying_dims(block);
    let mut coefs = [Poly::zero(), Poly::zero(), Poly::zero()];
    for ((d, v), coef) in TIDS.iter().zip(varies).zip(coefs.iter_mut()) {
        if !v || !a.involves(d) {
            continue;
        }
        if a.has_floor_in(d) {
            return None;
        }
        for (m, c) in &a.terms {
            let k = m
                .iter()
                .find(|(at, _)| matches!(at, Atom::Var(x) if &**x == *d))
                .map_or(0, |(_, k)| *k);
            match k {
                0 => {}
                1 => {
                    let rest: Vec<_> = m
                        .iter()
                        .filter(|(at, _)| !matches!(at, Atom::Var(x) if &**x == *d))
                        .cloned()
                        .collect();
                    coef.add_term(rest, c.clone());
                }
                _ => return None,
            }
        }
    }
    Some(coefs)
}

/// The coefficients as integers under an environment, when they all evaluate to integers.
pub fn integer_coefs(coefs: &[Poly; 3], env: &dyn Fn(&str) -> Option<i128>) -> Option<[i128; 3]> {
    let mut out = [0i128; 3];
    for (o, c) in out.iter_mut().zip(coefs) {
        let v = c.eval(env)?;
        if !v.is_integer() {
            return None;
        }
        *o = num_traits::ToPrimitive::to_i128(&v.to_integer())?;
    }
    Some(out)
}

/// Whether the guard of an access restricts which lanes of a warp take part (it names a thread
/// index); without one every warp execution holds all the warp's lanes.
pub fn lane_dependent(cond: &Cond) -> bool {
    let mut vars = BTreeSet::new();
    cond.vars(&mut vars);
    TIDS.iter().any(|t| vars.contains(*t))
}

/// Whether some warp execution of the domain (`counters`, `cond`; parameters fixed by `env`)
/// holds two threads with different thread index along dimension `d`.
pub fn observable(
    counters: &[String],
    cond: &Cond,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    d: usize,
) -> Result<bool, String> {
    // a block one thread wide along `d` has no two threads apart along it
    if block[d] <= 1 {
        return Ok(false);
    }
    let is_dim = |v: &str| {
        v.starts_with("tid_") || v.starts_with("ctaid_") || counters.iter().any(|k| k == v)
    };
    let mut vars = BTreeSet::new();
    cond.vars(&mut vars);
    let mut fixed = cond.clone();
    for v in vars.iter().filter(|v| !is_dim(v)) {
        let val = env.get(v.as_str()).ok_or(format!("`{v}` has no value"))?;
        fixed = fixed.subst(v, &LinExpr::constant(*val));
    }
    let launched = ["x", "y", "z"]
        .iter()
        .all(|k| env.get(&format!("nctaid_{k}")).copied().unwrap_or(1) >= 1);
    if launched && first_trip_shows(counters, &fixed, block, env, d) {
        return Ok(true);
    }
    let copy = |s: &str| {
        let mut c = fixed.clone();
        for t in TIDS {
            c = c.subst(t, &LinExpr::var(&format!("{t}_{s}")));
        }
        c.to_isl()
    };
    let [nx, ny, nz] = block;
    let g = |k: &str| env.get(&format!("nctaid_{k}")).copied().unwrap_or(1);
    let ks = counters.join(", ");
    let sep = if counters.is_empty() { "" } else { ", " };
    let lin = |s: &str| format!("tid_x_{s} + {nx} tid_y_{s} + {} tid_z_{s}", nx * ny);
    let boxed = |s: &str| {
        format!("0 <= tid_x_{s} < {nx} and 0 <= tid_y_{s} < {ny} and 0 <= tid_z_{s} < {nz}")
    };
    let t = TIDS[d];
    let text = format!(
        "{{ [ctaid_x, ctaid_y, ctaid_z{sep}{ks}, tid_x_a, tid_y_a, tid_z_a, tid_x_b, tid_y_b, tid_z_b] : 0 <= ctaid_x < {} and 0 <= ctaid_y < {} and 0 <= ctaid_z < {} and {} and {} and {} and {} and {t}_a < {t}_b and exists (w : 32 w <= {} <= 32 w + 31 and 32 w <= {} <= 32 w + 31) }}",
        g("x"),
        g("y"),
        g("z"),
        boxed("a"),
        boxed("b"),
        copy("a"),
        copy("b"),
        lin("a"),
        lin("b"),
    );
    static MEMO: SetMemo<bool> = SetMemo::new();
    MEMO.get_or(text, |text| {
        let ctx = Ctx::new();
        let set = Set::parse(&ctx, text).map_err(|e| e.to_string())?;
        Ok(!set.is_empty().map_err(|e| e.to_string())?)
    })
}

/// (thread, inner trip) points of one block's first outer trip that [`first_trip_shows`] walks at
/// most: a few hundred microseconds, where isl's pair set takes one to eight milliseconds.
const FIRST_TRIP_POINTS: u64 = 1 << 16;

/// Whether a warp execution of the first block's first outer trip (the whole block without a
/// loop) holds two threads of the domain `fixed` (every parameter a number) with different
/// thread index along `d`: a witness that settles [`observable`] without isl, for the common
/// guard that full warps pass. The walk visits only points of the domain, so a witness is one;
/// without one (none in that trip, or a trip over [`FIRST_TRIP_POINTS`]), isl decides.
fn first_trip_shows(
    counters: &[String],
    fixed: &Cond,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    d: usize,
) -> bool {
    let Ok(walk) = crate::domains::WarpWalk::new(counters, fixed, block, env, &BTreeSet::new())
    else {
        return false;
    };
    if walk.points_per_block() / walk.outer_trips() > FIRST_TRIP_POINTS {
        return false;
    }
    let mut shown = false;
    let walked = walk.walk_window(0..1, Some(1), &mut |_, lanes, _| {
        let mut along = lanes.iter().map(|(_, tid)| tid[d]);
        if let Some(first) = along.next() {
            shown |= along.any(|v| v != first);
        }
    });
    walked.is_ok() && shown
}

/// The class of one access bound to parameter values: coefficients evaluated, the unobservable
/// ones zeroed, then the rule. An address that is a polynomial but not affine in the thread index
/// (floors, from `%` and `/`) is classed by walking its warp executions, as the emulator does.
/// `Err` says why the class could not be decided.
pub fn bound_class(
    m: &crate::mem_sites::MemSite,
    defs: &crate::named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    walks: &mut ShapeMemo,
) -> Result<StrideClass, String> {
    let Some(coefs) = &m.coefs else {
        return match &m.addr {
            Some(a) => walked_class(m, a, defs, block, env, walks),
            None => Ok(StrideClass::Unknown),
        };
    };
    let Some(mut c) = integer_coefs(coefs, &|v| env.get(v).copied()) else {
        return Ok(StrideClass::Unknown);
    };
    if lane_dependent(&m.cond) {
        for (d, x) in c.iter_mut().enumerate() {
            if *x != 0 && !observable(&m.counters, &m.cond, block, env, d)? {
                *x = 0;
            }
        }
    }
    Ok(class_of(c, m.width))
}

/// The class from walking the warp executions of an access whose address is not affine in the
/// thread index: through the compiled walk of its shape, shared in `memo` with the accesses
/// whose addresses differ from it by a constant ([`super::shape_walk`]), else through
/// [`walked_class_named`].
pub(crate) fn walked_class(
    m: &crate::mem_sites::MemSite,
    addr: &Poly,
    defs: &crate::named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    memo: &mut ShapeMemo,
) -> Result<StrideClass, String> {
    if let Some(s) = Shifted::of(addr, &m.counters, env) {
        if let Some(walk) = memo.get_or_walk(m, &s.shape, defs, block, env) {
            return walk.class(s.offset, m.width, addr);
        }
    }
    walked_class_named(m, addr, defs, block, env)
}

/// [`walked_class`] on one compiled path alone, without sharing: an affine address as the
/// reuse walk compiles it, or any address (named values, floors, products) as an
/// [`AddrProgram`](crate::addr_program::AddrProgram). Either visits the same warps in the same
/// order at the same addresses as [`walked_class_named`]; `None` for what the path does not
/// take (a named value on the affine path, a variable without a value, a walk over the
/// budget, an `i128` overflow), which the general walk handles.
#[cfg(test)]
pub(crate) fn walked_class_on(
    path: Path,
    m: &crate::mem_sites::MemSite,
    addr: &Poly,
    defs: &crate::named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
) -> Option<Result<StrideClass, String>> {
    let s = Shifted::of(addr, &m.counters, env)?;
    let walk = walk_on(path, m, &s.shape, defs, block, env)?;
    Some(walk.class(s.offset, m.width, addr))
}

/// [`walked_class`] through [`eval_addr`], for any address.
pub(crate) fn walked_class_named(
    m: &crate::mem_sites::MemSite,
    addr: &Poly,
    defs: &crate::named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
) -> Result<StrideClass, String> {
    let mut ev = StrideEvidence::default();
    let mut unvalued = false;
    let mut acc = Vec::with_capacity(32);
    let mut reads = BTreeSet::new();
    addr.vars(&mut reads);
    defs.close(&mut reads);
    // A class is the same however many blocks repeat a warp: the weight is not needed.
    crate::domains::for_each_warp(
        &m.counters,
        &m.cond,
        block,
        env,
        WALK_BUDGET,
        &reads,
        &mut |point, lanes, _blocks| {
            acc.clear();
            for (lane, tid) in lanes {
                match eval_addr(addr, defs, *tid, point, env) {
                    Some(a) => acc.push(LaneAccess {
                        lane: *lane,
                        tid: *tid,
                        addr: a,
                    }),
                    None => unvalued = true,
                }
            }
            ev.observe(&acc);
        },
    )
    .map_err(|e| e.to_string())?;
    if unvalued {
        return Err(format!("address {addr} has no value at some point"));
    }
    Ok(ev.class(m.width))
}

/// A lane's address: thread index, ctaid and counters from the point, parameters from `env`,
/// shared-array symbols at 0 (whole-word shifts of every lane change neither class nor banks),
/// named values from their definitions.
pub fn eval_addr(
    addr: &Poly,
    defs: &crate::named::Defs,
    tid: [u64; 3],
    point: &BTreeMap<String, i128>,
    env: &BTreeMap<String, i128>,
) -> Option<u64> {
    let at = |v: &str| match v {
        "tid_x" => Some(tid[0] as i128),
        "tid_y" => Some(tid[1] as i128),
        "tid_z" => Some(tid[2] as i128),
        v if v.starts_with("sym_") => Some(0),
        // a buffer's base pointer is no part of a workload: taken as 0, as `count::segments`
        // takes it (a lane-invariant shift changes no class)
        v => point
            .get(v)
            .or_else(|| env.get(v))
            .copied()
            .or_else(|| crate::affine::symbols::is_param_symbol(v).then_some(0)),
    };
    let a = defs.eval_poly(addr, &at)?;
    if !a.is_integer() {
        return None;
    }
    num_traits::ToPrimitive::to_u64(&a.to_integer())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_shows_only_the_thread_dimensions_a_warp_spans() {
        // tid_x < 64 over a loop k < 4: warps of 32 lanes along x
        let k = LinExpr::var("k");
        let cond = Cond::Ge(LinExpr::constant(63).sub(&LinExpr::var("tid_x")))
            .and(Cond::Ge(k.clone()))
            .and(Cond::Ge(LinExpr::constant(3).sub(&k)));
        let counters = ["k".to_string()];
        let env: BTreeMap<String, i128> = [("nctaid_x".to_string(), 8)].into();
        let seen = |block: [u64; 3], d| observable(&counters, &cond, block, &env, d).unwrap();
        // a 256 × 1 × 1 block: only x differs between a warp's lanes
        assert_eq!(
            [0, 1, 2].map(|d| seen([256, 1, 1], d)),
            [true, false, false]
        );
        // 16 × 4 × 2: a warp holds two rows (y), never two planes (z: 64 threads each)
        assert_eq!([0, 1, 2].map(|d| seen([16, 4, 2], d)), [true, true, false]);
        // 1 × 64 × 1: lanes along y only
        assert_eq!([0, 1, 2].map(|d| seen([1, 64, 1], d)), [false, true, false]);
    }

    #[test]
    fn a_guard_in_a_loop_is_seen_in_its_first_trip_or_by_isl() {
        let k = LinExpr::var("k");
        let tid_x = LinExpr::var("tid_x");
        let trips = Cond::Ge(k.clone()).and(Cond::Ge(LinExpr::constant(3).sub(&k)));
        let counters = ["k".to_string()];
        let env: BTreeMap<String, i128> = [("nctaid_x".to_string(), 2)].into();
        let seen = |guard: Cond| {
            let cond = trips.clone().and(guard);
            observable(&counters, &cond, [64, 1, 1], &env, 0).unwrap()
        };
        // tid_x < 16 (k + 1): the first trip's warp holds 16 lanes
        let widening = LinExpr::constant(15).add(&k.scale(16)).sub(&tid_x);
        assert!(seen(Cond::Ge(widening)));
        // tid_x < 16 k: no lane in the first trip, 16 in the second (isl's answer)
        let late = LinExpr::constant(-1).add(&k.scale(16)).sub(&tid_x);
        assert!(seen(Cond::Ge(late)));
        // tid_x = 3 k: one lane per trip, never two in a warp execution
        assert!(!seen(Cond::Eq(tid_x.sub(&k.scale(3)))));
    }
}
