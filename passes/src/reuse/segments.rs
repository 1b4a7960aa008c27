//! Sectors and lines of one global access over a launch with every parameter fixed, counted by
//! walking its warps: the sum over warp executions of the distinct segments its active lanes'
//! bytes fall in.
//!
//! It is the number `count::segments` gets by counting the points of its isl set (ctaid,
//! counters, warp and segment, with a lane of the warp in the domain touching the segment),
//! obtained with the walk the reuse profile already makes: a few integer operations per lane
//! where isl's point scanning projects the lanes out at every point. An address through named
//! values (min, max, select) or with products is evaluated by its [`AddrProgram`]. isl stays
//! the fallback for what the walk cannot take (a domain with an unset value, a lane address
//! past `i128`, a walk over its budget).

use super::{Form, Scope, Walked};
use crate::domains::WarpWalk;
use crate::mem_sites::AccessRecord;
use crate::named;
use crate::poly::linexpr::Atom;
use crate::poly::{LinExpr, Poly};
use crate::stats::Space;
use std::collections::{BTreeMap, BTreeSet};

/// The `seg`-byte segments `r` requests over the launch (`env`: grid size and parameters, all
/// fixed), or `None` where its walk would visit more than `budget` (counter, thread) points,
/// or its address or domain cannot be walked.
pub fn segments_walked(
    r: &AccessRecord,
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    seg: u64,
    budget: u64,
) -> Option<u64> {
    // a power of two, so a segment index is a shift (floor division, for negative offsets too)
    if !seg.is_power_of_two() {
        return None;
    }
    let [counts] = walk_segments(&[r], defs, block, env, &[seg.trailing_zeros()], budget)
        .try_into()
        .ok()?;
    Some(counts?[0])
}

/// [`segments_walked`] of several accesses under one domain (the same counters and guard), for
/// 32-byte sectors and 128-byte lines both, in one walk: the domain's test of each lane, which
/// is most of a walk's cost, is then made once for all of them (an unrolled stencil has a
/// dozen loads under one guard). Each count is the one `segments_walked` gives; `None` where
/// an access cannot be walked, and for all of them where the walk would pass `budget`.
pub fn segments_walked_together(
    rs: &[&AccessRecord],
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    budget: u64,
) -> Vec<Option<[u64; 2]>> {
    walk_segments(rs, defs, block, env, &[SECTOR_SHIFT, LINE_SHIFT], budget)
        .into_iter()
        .map(|c| c.map(|c| [c[0], c[1]]))
        .collect()
}

/// The segments of `2^shifts[k]` bytes (shifts ascending) each access of `rs` requests, in one
/// walk of their shared domain: the finest from the lanes' bytes, each coarser one from the
/// finest, sorted (a coarser segment holds whole finer ones).
fn walk_segments(
    rs: &[&AccessRecord],
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    shifts: &[u32],
    budget: u64,
) -> Vec<Option<Vec<u64>>> {
    let mut out = vec![None; rs.len()];
    let (Some(first), Some(&finest), Some(&coarsest)) = (rs.first(), shifts.first(), shifts.last())
    else {
        return out;
    };
    let prepared: Vec<Option<Prepared>> = rs.iter().map(|r| Prepared::new(r, defs, env)).collect();
    let vars: BTreeSet<String> = prepared
        .iter()
        .flatten()
        .flat_map(|a| a.vars.clone())
        .collect();
    if prepared.iter().all(Option::is_none) {
        return out;
    }
    // how each address moves from block to block, where it is affine in the block index
    let coefs: Vec<Option<[i128; 3]>> = prepared
        .iter()
        .map(|a| block_coefficients(a.as_ref()?.lin.as_ref()?, defs))
        .collect();
    let Ok(walk) = WarpWalk::new(&first.counters, &first.cond, block, env, &vars) else {
        return out;
    };
    // blocks alike for the coarsest segment are alike for the finer ones too
    let Some((plan, all)) = plan(&walk, &prepared, &coefs, 1 << coarsest, budget) else {
        return out;
    };
    let mut prepared = prepared;
    if !all {
        // the classes stand for the blocks in the addresses that formed them only
        for (a, c) in prepared.iter_mut().zip(&coefs) {
            if c.is_none() {
                *a = None;
            }
        }
    }
    let slots = walk.slot_names();
    let copies = copies(&prepared, rs, 1 << coarsest);
    let mut forms: Vec<Option<(Form, i128)>> = prepared
        .iter()
        .zip(rs)
        .zip(&copies)
        .map(|((a, r), copy)| {
            let a = a.as_ref().filter(|_| copy.is_none())?;
            let form = Form::compile(a.lin.as_ref(), &a.fixed, defs, &slots, env, block)?;
            Some((form, r.width.max(1) as i128))
        })
        .collect();
    let mut totals = vec![vec![0u64; shifts.len()]; rs.len()];
    let mut touched: Vec<i128> = Vec::with_capacity(64);
    let mut table = crate::addr_program::Scratch::default();
    for (b, stands_for) in plan {
        let res = walk.walk_window_slots(b..b + 1, None, &mut |point, lanes, weight| {
            let weight = if stands_for == 0 { weight } else { stands_for };
            for (entry, total) in forms.iter_mut().zip(totals.iter_mut()) {
                let Some((form, width)) = entry.as_ref() else {
                    continue;
                };
                let width = *width;
                touched.clear();
                match form {
                    Form::Split(f) => {
                        let base = f.base(point);
                        if let Some((first, step, n)) =
                            f.lanes_progression(base, point, lanes, block)
                        {
                            for (shift, t) in shifts.iter().zip(total.iter_mut()) {
                                let n = progression_segments(first, step, n, width, *shift);
                                *t = t.saturating_add(n.saturating_mul(weight));
                            }
                            continue;
                        }
                        for (_, tid) in lanes {
                            let a = f.at(base, point, *tid, block);
                            touched.extend((a >> finest)..=((a + width - 1) >> finest));
                        }
                    }
                    Form::Program(p) => {
                        for (_, tid) in lanes {
                            // past i128: left to isl's count
                            let Some(a) = p.eval(point, *tid, &mut table) else {
                                *entry = None;
                                break;
                            };
                            touched.extend((a >> finest)..=((a + width - 1) >> finest));
                        }
                        if entry.is_none() {
                            continue;
                        }
                    }
                }
                if !touched.is_sorted() {
                    touched.sort_unstable();
                }
                touched.dedup();
                for (shift, t) in shifts.iter().zip(total.iter_mut()) {
                    let mut n = 0u64;
                    let mut last = None;
                    for s in &touched {
                        let c = s >> (shift - finest);
                        if last != Some(c) {
                            n += 1;
                            last = Some(c);
                        }
                    }
                    *t = t.saturating_add(n.saturating_mul(weight));
                }
            }
        });
        if res.is_err() {
            return out;
        }
    }
    for ((o, t), f) in out.iter_mut().zip(totals).zip(&forms) {
        if f.is_some() {
            *o = Some(t);
        }
    }
    for (i, copy) in copies.iter().enumerate() {
        if let Some(j) = copy {
            out[i] = out[*j].clone();
        }
    }
    out
}

/// For each access, an earlier one that requests the same segments of up to `seg` bytes at
/// every lane: one whose address differs from it by a whole number of `seg`-byte segments
/// (the copies of an unrolled `x[i]`, `x[i + 32]` …, and one index into two buffers, whose
/// bases count as 0) and whose width is the same. Shifting every lane by whole segments moves
/// every segment index by the same amount, so the counts are equal; each is walked once.
fn copies(prepared: &[Option<Prepared>], rs: &[&AccessRecord], seg: u64) -> Vec<Option<usize>> {
    let mut first: BTreeMap<(String, i128, u64), usize> = BTreeMap::new();
    prepared
        .iter()
        .zip(rs)
        .enumerate()
        .map(|(i, (a, r))| {
            let (shape, offset) = a.as_ref()?.fixed.split_constant()?;
            let key = (
                format!("{shape:?}"),
                offset.rem_euclid(seg as i128),
                r.width,
            );
            match first.get(&key) {
                Some(&j) => Some(j),
                None => {
                    first.insert(key, i);
                    None
                }
            }
        })
        .collect()
}

/// The `2^shift`-byte segments `lanes` lanes touch when lane `l` reads `width` bytes at
/// `first + l·step`: what sorting the lanes' segments would count, without the sort.
fn progression_segments(first: i128, step: i128, lanes: u32, width: i128, shift: u32) -> u64 {
    let end = i128::from(lanes.max(1)) - 1;
    // the same lanes in increasing order
    let (first, step) = match step < 0 {
        true => (first + end * step, -step),
        false => (first, step),
    };
    if step <= width {
        // each lane's bytes reach the next lane's: one run of bytes
        let last = first + end * step + width - 1;
        return ((last >> shift) - (first >> shift) + 1) as u64;
    }
    let seg = 1i128 << shift;
    if step % seg == 0 {
        // every lane spans the same d + 1 segments, k segments past the lane before (a row
        // each, the common uncoalesced case): apart where k > d, else one run
        let (k, d) = (step >> shift, ((first & (seg - 1)) + width - 1) >> shift);
        let lanes = end + 1;
        let n = match k > d {
            true => lanes * (d + 1),
            false => end * k + d + 1,
        };
        return n as u64;
    }
    let mut n = 0u64;
    let mut last_seen: Option<i128> = None;
    for l in 0..=end {
        let a = first + l * step;
        let (mut lo, hi) = (a >> shift, (a + width - 1) >> shift);
        if let Some(seen) = last_seen {
            lo = lo.max(seen + 1);
        }
        if hi >= lo {
            n += (hi - lo + 1) as u64;
            last_seen = Some(hi);
        }
    }
    n
}

/// The walks of [`segments_walked_together`] for a launch's accesses, each group's made the
/// first time one of its accesses is asked for.
pub struct SegmentWalks<'a> {
    accesses: &'a [AccessRecord],
    defs: &'a named::Defs,
    block: [u64; 3],
    env: &'a BTreeMap<String, i128>,
    /// Access → its group (the accesses under the same counters and guard).
    group_of: Vec<usize>,
    members: Vec<Vec<usize>>,
    /// Per group, once walked: each member's (sectors, lines).
    walked: Vec<Option<Vec<Option<[u64; 2]>>>>,
}

impl<'a> SegmentWalks<'a> {
    /// The walks of `accesses` over the launch of `block`-sized blocks with the values `env`.
    pub fn new(
        accesses: &'a [AccessRecord],
        defs: &'a named::Defs,
        block: [u64; 3],
        env: &'a BTreeMap<String, i128>,
    ) -> SegmentWalks<'a> {
        let mut ids: BTreeMap<(&[String], &crate::cond::Cond), usize> = BTreeMap::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        let group_of = accesses
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let n = ids.len();
                let g = *ids.entry((&r.counters, &r.cond)).or_insert(n);
                if g == members.len() {
                    members.push(Vec::new());
                }
                members[g].push(i);
                g
            })
            .collect();
        let walked = vec![None; members.len()];
        SegmentWalks {
            accesses,
            defs,
            block,
            env,
            group_of,
            members,
            walked,
        }
    }

    /// Access `i`'s `seg`-byte segments over the launch, as [`segments_walked`] counts them;
    /// 32 and 128 bytes come from its group's walk where that one could be made.
    pub fn count(&mut self, i: usize, seg: u64, budget: u64) -> Option<u64> {
        let (r, defs, block, env) = (&self.accesses[i], self.defs, self.block, self.env);
        let Some(which) = [1u64 << SECTOR_SHIFT, LINE].iter().position(|s| *s == seg) else {
            return segments_walked(r, defs, block, env, seg, budget);
        };
        let g = self.group_of[i];
        if self.walked[g].is_none() {
            let rs: Vec<&AccessRecord> =
                self.members[g].iter().map(|k| &self.accesses[*k]).collect();
            self.walked[g] = Some(segments_walked_together(&rs, defs, block, env, budget));
        }
        let k = self.members[g].iter().position(|k| *k == i)?;
        match self.walked[g].as_ref().and_then(|w| w[k]) {
            Some(both) => Some(both[which]),
            // the group's walk, classing blocks by every address at once, may pass the budget
            // where this access's own does not
            None => segments_walked(r, defs, block, env, seg, budget),
        }
    }
}

const SECTOR_SHIFT: u32 = 5;
const LINE_SHIFT: u32 = 7;
const LINE: u64 = 1 << LINE_SHIFT;

/// One access made ready to walk: its address with the launch's values in, as an affine form
/// where it is one, and the variables it reads.
struct Prepared {
    lin: Option<LinExpr>,
    fixed: Poly,
    vars: BTreeSet<String>,
}

impl Prepared {
    fn new(r: &AccessRecord, defs: &named::Defs, env: &BTreeMap<String, i128>) -> Option<Prepared> {
        if r.space != Space::Global || r.tile.is_some() {
            return None;
        }
        let addr = r.addr.as_ref()?;
        // Every other variable of the address is a buffer's base (or a value the workload does
        // not set): 0, as `count::segments` takes it. Bases are aligned far beyond a line, so
        // which multiple they are does not move a segment boundary.
        let mut vars = BTreeSet::new();
        addr.vars(&mut vars);
        defs.close(&mut vars);
        let zeros: BTreeMap<String, i128> = vars
            .iter()
            .filter(|v| {
                !v.starts_with("tid_")
                    && !v.starts_with("ctaid_")
                    && !named::is_symbol(v)
                    && !env.contains_key(v.as_str())
                    && !r.counters.contains(v)
            })
            .map(|v| (v.clone(), 0))
            .collect();
        let sc = Scope {
            defs,
            env,
            bases: &zeros,
        };
        let Walked { lin, fixed, .. } = Walked::new(r, addr, &sc);
        Some(Prepared { lin, fixed, vars })
    }
}

/// The blocks to walk, each with the blocks it stands for (0: the walk's own weight), and
/// whether they stand for every prepared access or only those with block coefficients
/// (`coefs`). Since a block's address is a whole offset from another's, the same in every
/// lane, blocks that run every point of the domain's box (of it, what the guard's
/// conjuncts without a block index take) and sit at the same offsets modulo
/// the segment in every address request the same segments, and one of each class stands for
/// the others: the counts are those of walking every block, at the cost of the classes. Every
/// block where the walk is small ([`crate::domains::SMALL_WALK`]) or the classes cannot be
/// formed, within `budget` points; where some address moves with the block in a way the
/// classes cannot follow (a min or max of the block index), every block within the budget,
/// else the classes of the others.
fn plan(
    walk: &WarpWalk,
    prepared: &[Option<Prepared>],
    coefs: &[Option<[i128; 3]>],
    seg: u64,
    budget: u64,
) -> Option<(Vec<(u64, u64)>, bool)> {
    let per_block = walk.points_per_block();
    let boxed = per_block.checked_mul(walk.blocks())?;
    // a grid dimension no address and no guard reads is walked once, weighted
    let every = || (0..walk.blocks()).map(|b| (b, 0)).collect();
    if boxed <= crate::domains::SMALL_WALK.min(budget) {
        return Some((every(), true));
    }
    let classable = prepared
        .iter()
        .zip(coefs)
        .all(|(a, c)| a.is_none() || c.is_some());
    if !classable && boxed <= budget {
        return Some((every(), true));
    }
    let known: Vec<[i128; 3]> = coefs.iter().flatten().copied().collect();
    if known.is_empty() {
        return None;
    }
    match classed_plan(walk, known, seg, budget / per_block.max(1)) {
        Some(p) => Some((p, classable)),
        None => (boxed <= budget).then(|| (every(), true)),
    }
}

/// One block of each class of alike blocks (see [`plan`]) for addresses moving by `coefs`
/// bytes per block index, and every block that skips part of the domain; `None` where the
/// classes cannot be formed or more than `most` blocks would be walked.
fn classed_plan(
    walk: &WarpWalk,
    mut coefs: Vec<[i128; 3]>,
    seg: u64,
    most: u64,
) -> Option<Vec<(u64, u64)>> {
    coefs.sort_unstable();
    coefs.dedup();
    let offsets = |[x, y, z]: [u64; 3]| -> Vec<u64> {
        coefs
            .iter()
            .map(|c| {
                (c[0] * x as i128 + c[1] * y as i128 + c[2] * z as i128).rem_euclid(seg as i128)
                    as u64
            })
            .collect()
    };
    walk.alike_blocks_by(most, &offsets).ok()?
}

/// The byte coefficient of each block index in the address `lin`, where each appears only as
/// a term of its own; `None` where one is inside a floor or a named value.
fn block_coefficients(lin: &LinExpr, defs: &named::Defs) -> Option<[i128; 3]> {
    let mut c = [0i128; 3];
    for (atom, k) in &lin.terms {
        let mut vars = BTreeSet::new();
        atom.vars(&mut vars);
        defs.close(&mut vars);
        if vars.iter().any(|v| named::is_symbol(v)) && vars.iter().any(|v| v.starts_with("ctaid_"))
        {
            return None;
        }
        match atom {
            Atom::Var(v) => {
                if let Some(d) = ["ctaid_x", "ctaid_y", "ctaid_z"]
                    .iter()
                    .position(|x| *x == &**v)
                {
                    c[d] += k;
                }
            }
            Atom::Floor(..) if vars.iter().any(|v| v.starts_with("ctaid_")) => return None,
            Atom::Floor(..) => {}
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::progression_segments;

    /// The closed count is the count of the lanes' segments sorted and deduplicated, for
    /// steps backwards and forwards, inside, across and beyond a segment, of whole warps and
    /// of runs of lanes.
    #[test]
    fn a_progression_counts_as_its_lanes_sorted() {
        let mut cases = 0;
        for first in [-300i128, -33, -1, 0, 5, 31, 32, 100, 4093] {
            // and steps of whole sectors and lines, as a row each is
            let whole = [96i128, 128, 160, 256, 384, 4096, 16384, -128, -16384];
            for step in (-70i128..=70).chain(whole) {
                for (width, lanes) in [
                    (1i128, 32u32),
                    (2, 31),
                    (4, 32),
                    (8, 1),
                    (12, 32),
                    (16, 17),
                    (32, 30),
                ] {
                    for shift in [5u32, 7] {
                        let mut segs: Vec<i128> = (0..i128::from(lanes))
                            .flat_map(|l| {
                                let a = first + l * step;
                                (a >> shift)..=((a + width - 1) >> shift)
                            })
                            .collect();
                        segs.sort_unstable();
                        segs.dedup();
                        let got = progression_segments(first, step, lanes, width, shift);
                        let what = format!("{first} {step} {lanes} {width} {shift}");
                        assert_eq!(got, segs.len() as u64, "{what}");
                        cases += 1;
                    }
                }
            }
        }
        assert_eq!(cases, 9 * (141 + 9) * 7 * 2);
    }
}
