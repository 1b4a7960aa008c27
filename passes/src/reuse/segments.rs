//! Sectors and lines of one global access over a launch with every parameter fixed, counted by
//! walking its warps: the sum over warp executions of the distinct segments its active lanes'
//! bytes fall in.
//!
//! It is the number `count::segments` gets by counting the points of its isl set (ctaid,
//! counters, warp and segment, with a lane of the warp in the domain touching the segment),
//! obtained with the walk the reuse profile already makes: a few integer operations per lane
//! where isl's point scanning projects the lanes out at every point. isl stays the fallback for
//! what the walk cannot take (an address that is not affine, a domain with an unset value).

use super::{Scope, Walked};
use crate::domains::WarpWalk;
use crate::mem_sites::AccessRecord;
use crate::named;
use crate::poly::linexpr::Atom;
use crate::poly::LinExpr;
use crate::slots::SplitForm;
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
    if r.space != Space::Global || r.tile.is_some() || !seg.is_power_of_two() {
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
    let walked = Walked::new(r, addr, &sc);
    let lin = walked.lin.as_ref()?;
    // A grid dimension the address and the domain do not read is walked once, weighted.
    let walk = WarpWalk::new(&r.counters, &r.cond, block, env, &vars).ok()?;
    let per_block = walk.points_per_block();
    let plan: Vec<(u64, u64)> = match per_block.checked_mul(walk.blocks())? <= budget {
        // every block, each standing for the blocks a collapsed dimension repeats
        true => (0..walk.blocks()).map(|b| (b, 0)).collect(),
        // A block's address is a whole offset from another's, the same in every lane: blocks
        // that run every point of the domain's box and sit at the same offset modulo the
        // segment request the same segments, and one of each stands for the others.
        false => {
            let c = block_coefficients(lin)?;
            let offset = |[x, y, z]: [u64; 3]| -> u64 {
                (c[0] * x as i128 + c[1] * y as i128 + c[2] * z as i128).rem_euclid(seg as i128)
                    as u64
            };
            walk.alike_blocks_by(budget / per_block.max(1), &offset)
                .ok()??
        }
    };
    let slots = walk.slot_names();
    let resolve = crate::slots::resolver(&slots);
    let form = SplitForm::new(crate::slots::Lin::compile(lin, &resolve)?, block);
    let shift = seg.trailing_zeros();
    let width = r.width.max(1) as i128;
    let mut total = 0u64;
    let mut touched: Vec<i128> = Vec::with_capacity(64);
    for (b, stands_for) in plan {
        walk.walk_window_slots(b..b + 1, None, &mut |point, lanes, weight| {
            let weight = if stands_for == 0 { weight } else { stands_for };
            touched.clear();
            let base = form.base(point);
            for (_, tid) in lanes {
                let a = form.at(base, point, *tid, block);
                touched.extend((a >> shift)..=((a + width - 1) >> shift));
            }
            if !touched.is_sorted() {
                touched.sort_unstable();
            }
            touched.dedup();
            total = total.saturating_add((touched.len() as u64).saturating_mul(weight));
        })
        .ok()?;
    }
    Some(total)
}

/// The byte coefficient of each block index in the address `lin`, where each appears only as
/// a term of its own; `None` where one is inside a floor.
fn block_coefficients(lin: &LinExpr) -> Option<[i128; 3]> {
    let mut c = [0i128; 3];
    for (atom, k) in &lin.terms {
        let mut vars = BTreeSet::new();
        atom.vars(&mut vars);
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
