//! The walk behind a stride class whose address is not affine in the thread index, shared by
//! every access whose address differs only by a constant.
//!
//! A class reads only the differences between the lanes of a warp (`StrideEvidence`), so
//! `x[i]`, `x[i + 1]` … `x[i + 3]` of a loop unrolled by four, and `x[i]` beside `y[i]` (a
//! buffer's base counts as 0 in a class), see the same evidence: one walk of what varies over
//! the walk (the *shape*) serves them all. What the constant (the *offset*) still decides is
//! whether every lane's address has a value (lies in `0..2^64`), which the lowest and highest
//! address the walk saw settle exactly. The walk is the same as per access, warp for warp and
//! lane for lane, so each access gets the class its own walk would give.

use super::warp::{LaneAccess, StrideEvidence};
use crate::addr_program::{AddrProgram, Scratch};
use crate::domains::WarpWalk;
use crate::mem_sites::MemSite;
use crate::named::{self, Defs};
use crate::poly::{LinExpr, Poly};
use crate::stats::StrideClass;
use std::collections::{BTreeMap, BTreeSet};

/// An address as what varies over a walk plus a constant, every other variable at the value
/// a class walk gives it (a workload parameter its value; a buffer base, an unset parameter
/// and a shared-array symbol 0).
pub(crate) struct Shifted {
    pub shape: Poly,
    pub offset: i128,
}

impl Shifted {
    /// `None` where a variable has no value or the constant is not an integer of 128 bits.
    pub fn of(addr: &Poly, counters: &[String], env: &BTreeMap<String, i128>) -> Option<Shifted> {
        let mut reads = BTreeSet::new();
        addr.vars(&mut reads);
        let mut shape = addr.clone();
        for v in &reads {
            let walked = v.starts_with("tid_")
                || v.starts_with("ctaid_")
                || counters.contains(v)
                || named::is_symbol(v);
            if !walked {
                let value = crate::addr_program::outside(env, v)?;
                shape = shape.subst(v, &LinExpr::constant(value));
            }
        }
        let (shape, offset) = shape.split_constant()?;
        Some(Shifted { shape, offset })
    }
}

/// What walking a shape's warps saw: the evidence, and the lowest and highest address (`None`
/// where no lane ran).
#[derive(Clone, Debug)]
pub(crate) struct ShapeWalk {
    evidence: StrideEvidence,
    range: Option<(i128, i128)>,
}

impl ShapeWalk {
    /// The class of the access at `offset` from the walked shape, its address `addr`.
    pub fn class(&self, offset: i128, width: u64, addr: &Poly) -> Result<StrideClass, String> {
        let in_range = |a: i128| {
            a.checked_add(offset)
                .is_some_and(|v| u64::try_from(v).is_ok())
        };
        match self.range {
            Some((lo, hi)) if !(in_range(lo) && in_range(hi)) => {
                Err(format!("address {addr} has no value at some point"))
            }
            _ => Ok(self.evidence.class(width)),
        }
    }
}

/// Shape walks already made for one workload, by the shape and the domain walked; `None` for
/// a shape whose walk could not be made on the compiled paths.
#[derive(Default)]
pub struct ShapeMemo(BTreeMap<String, Option<ShapeWalk>>);

impl ShapeMemo {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The walk of `shape` over `m`'s warps, made the first time it is asked for.
    pub(crate) fn get_or_walk(
        &mut self,
        m: &MemSite,
        shape: &Poly,
        defs: &Defs,
        block: [u64; 3],
        env: &BTreeMap<String, i128>,
    ) -> Option<ShapeWalk> {
        let key = format!("{shape:?}|{:?}|{:?}", m.cond, m.counters);
        self.0
            .entry(key)
            .or_insert_with(|| {
                // the first compiled path that takes the shape
                [Path::Affine, Path::Program]
                    .into_iter()
                    .find_map(|path| walk_on(path, m, shape, defs, block, env))
            })
            .clone()
    }
}

/// How a walk evaluates its lanes' addresses.
#[derive(Clone, Copy)]
pub(crate) enum Path {
    /// An affine shape compiled as the reuse walk compiles it, the per-warp part once a warp.
    Affine,
    /// Any shape, named values, floors and products included, as an [`AddrProgram`].
    Program,
}

/// Most (ctaid, counters, tid) points a class walk visits.
pub(crate) const WALK_BUDGET: u64 = 1 << 20;

/// The walk of `shape` over `m`'s warps (those that read its variables) on `path`; `None`
/// where the path does not take the shape or the walk passes the budget.
pub(crate) fn walk_on(
    path: Path,
    m: &MemSite,
    shape: &Poly,
    defs: &Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
) -> Option<ShapeWalk> {
    let mut reads = BTreeSet::new();
    shape.vars(&mut reads);
    defs.close(&mut reads);
    let walk = WarpWalk::new(&m.counters, &m.cond, block, env, &reads).ok()?;
    if walk.points_per_block().checked_mul(walk.blocks())? > WALK_BUDGET {
        return None;
    }
    let slots = walk.slot_names();
    match path {
        Path::Affine => {
            let lin = crate::affine::as_lin(shape)?;
            let resolve = crate::slots::resolver(&slots);
            let form =
                crate::slots::SplitForm::new(crate::slots::Lin::compile(&lin, &resolve)?, block);
            walk_lanes(&walk, &mut |point, lanes, out| {
                let base = form.base(point);
                out.extend(
                    lanes
                        .iter()
                        .map(|(_, tid)| Some(form.at(base, point, *tid, block))),
                );
            })
        }
        Path::Program => {
            let program = AddrProgram::compile(shape, defs, &slots, env)?;
            let mut table = Scratch::default();
            walk_lanes(&walk, &mut |point, lanes, out| {
                out.extend(
                    lanes
                        .iter()
                        .map(|(_, tid)| program.eval(point, *tid, &mut table)),
                );
            })
        }
    }
}

/// The addresses of a warp's lanes at a walk's point (its slots' values), one per lane, in
/// order; `None` where one cannot be evaluated exactly.
type WarpAddresses<'a> = dyn FnMut(&[i128], &[crate::domains::Lane], &mut Vec<Option<i128>>) + 'a;

/// Lanes' addresses go into the evidence shifted by 2^63, which keeps every difference: an
/// address outside `-2^63..2^63` leaves the walk to the exact path.
const SHIFT: i128 = 1 << 63;

/// What walking `walk`'s warps with `addresses` giving their lanes' addresses sees; `None`
/// where an address could not be evaluated exactly or the walk failed.
fn walk_lanes(walk: &WarpWalk, addresses: &mut WarpAddresses<'_>) -> Option<ShapeWalk> {
    let mut evidence = StrideEvidence::default();
    let mut range: Option<(i128, i128)> = None;
    let mut exact = true;
    let mut acc = Vec::with_capacity(32);
    let mut values = Vec::with_capacity(32);
    walk.walk_window_slots(0..walk.blocks(), None, &mut |point, lanes, _| {
        if !exact {
            return;
        }
        acc.clear();
        values.clear();
        addresses(point, lanes, &mut values);
        for ((lane, tid), a) in lanes.iter().zip(&values) {
            let shifted = a.and_then(|a| u64::try_from(a.checked_add(SHIFT)?).ok());
            let (Some(a), Some(shifted)) = (*a, shifted) else {
                exact = false;
                return;
            };
            range = Some(range.map_or((a, a), |(lo, hi)| (lo.min(a), hi.max(a))));
            acc.push(LaneAccess {
                lane: *lane,
                tid: *tid,
                addr: shifted,
            });
        }
        evidence.observe(&acc);
    })
    .ok()?;
    exact.then_some(ShapeWalk { evidence, range })
}
