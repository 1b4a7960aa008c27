//! Stride classes of memory instructions whose copies were unrolled. The emulator classes an
//! instruction over all its executions (`classify::warp::StrideEvidence`): a thread-index
//! dimension takes the coefficient of any warp access whose lanes move along it, and two
//! different coefficients make the class unknown. A copy made by unrolling holds only some of
//! those executions (in the last step of a tree reduction a single lane per warp is active), so
//! classing each copy alone could call a stride-1 access uniform. Here the copies of one
//! instruction pool what they observe, with the same rule.

use crate::classify::stride::{bound_class, integer_coefs, lane_dependent, observable, ShapeMemo};
use crate::classify::warp::class_of;
use crate::mem_sites::MemSite;
use crate::stats::StrideClass;
use num_traits::Zero;
use std::collections::BTreeMap;

/// The stride class of every site bound to a workload (`env`), copies of one instruction
/// (same [`MemSite::inst`]) classed together. Sites that never run there are not classed.
pub fn site_classes(
    sites: &[MemSite],
    defs: &crate::named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
) -> Vec<Result<StrideClass, String>> {
    let runs = |m: &MemSite| !m.warp.eval_map(env).is_some_and(|v| v.is_zero());
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, m) in sites.iter().enumerate() {
        if runs(m) {
            groups.entry(m.inst).or_default().push(i);
        }
    }
    let mut out: Vec<Result<StrideClass, String>> =
        sites.iter().map(|_| Ok(StrideClass::Unknown)).collect();
    // a class reads only these of a site: copies of one access (an unrolled `out[i] = in[i]`
    // is 32 instructions) are classed once
    let mut classed: BTreeMap<String, Result<StrideClass, String>> = BTreeMap::new();
    // and accesses whose addresses differ by a constant (the copies of an access nvcc
    // unrolled, the same index into two buffers) share the walk of a non-affine address
    let mut walks = ShapeMemo::default();
    let mut class_of_site = |m: &MemSite| {
        let key = format!(
            "{:?}|{:?}|{:?}|{:?}|{}",
            m.coefs, m.addr, m.cond, m.counters, m.width
        );
        classed
            .entry(key)
            .or_insert_with(|| bound_class(m, defs, block, env, &mut walks))
            .clone()
    };
    for idx in groups.values() {
        let c = match idx.as_slice() {
            [one] => class_of_site(&sites[*one]),
            _ => pooled_class(idx.iter().map(|&i| &sites[i]), block, env),
        };
        for &i in idx {
            out[i] = c.clone();
        }
    }
    out
}

fn pooled_class<'a>(
    copies: impl Iterator<Item = &'a MemSite>,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
) -> Result<StrideClass, String> {
    let mut pinned: [Option<i128>; 3] = [None; 3];
    let mut width = 0;
    for m in copies {
        width = m.width;
        let Some(coefs) = &m.coefs else {
            return Err(
                "the address of an unrolled access is not affine in the thread index".into(),
            );
        };
        let Some(c) = integer_coefs(coefs, &|v| env.get(v).copied()) else {
            return Ok(StrideClass::Unknown);
        };
        let guarded = lane_dependent(&m.cond);
        for d in 0..3 {
            // as `bound_class`: without a lane guard every coefficient counts as observed
            let seen = !guarded || observable(&m.counters, &m.cond, block, env, d)?;
            if !seen {
                continue;
            }
            match pinned[d] {
                Some(p) if p != c[d] => return Ok(StrideClass::Unknown),
                _ => pinned[d] = Some(c[d]),
            }
        }
    }
    Ok(class_of(pinned.map(|p| p.unwrap_or(0)), width))
}
