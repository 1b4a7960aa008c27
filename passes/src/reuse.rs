//! Where a launch's global sector requests could hit in the L2: a block-granular reuse profile.
//!
//! The counts say how many 32-byte sectors each warp access requests, not whether the data is
//! still on chip. This pass walks the first blocks of the launch in dispatch order (x fastest),
//! evaluates every lane's address, and records for each sector request how far back the last
//! touch of the same sector was: in blocks (0 inside the block), and in progress through the
//! threads' run (0 to 1: the loops one after another in program order, each trip of a loop
//! after the one before, [`timeline`]), since blocks that run side by side go through their
//! loops at about the same pace. A first touch has neither.
//! It also records the footprint curve: the distinct sectors the first n blocks touch. Both are
//! device-independent; a model turns them into an L2 hit rate once it knows how many blocks run
//! at once and how large the L2 is (`kerncast_models::l2`).
//!
//! Buffers do not alias: each pointer parameter (and module variable) gets its own base, 2^44
//! bytes apart, aligned as `cudaMalloc` aligns.

use crate::addr_program::AddrProgram;
use crate::affine;
use crate::cond::Cond;
use crate::domains::WarpWalk;
use crate::mem_sites::AccessRecord;
use crate::named;
use crate::poly::linexpr::Atom;
use crate::poly::{LinExpr, Poly};
use crate::slots::SplitForm;
use crate::stats::{Dir, Space};
use std::collections::{BTreeMap, BTreeSet};

mod order;
pub mod profile;
mod sector_table;
mod segments;
mod tally;
mod timeline;
use profile::{lane_sectors, PROGRESS_SCALE, SECTOR as SECTOR_BYTES};
pub use profile::{
    touch_sector, FootprintPoint, Reuse, ReuseBucket, ReuseProfile, SectorRun, Touch, WindowPoint,
};
pub use segments::{segments_walked, segments_walked_together, SegmentWalks};
#[cfg(test)]
use tally::{bucket_of, progress_bucket};
pub use tally::{from_touches, TouchStream};
pub use timeline::{timelines, GroupShape, Timeline};

/// Bytes between the bases given to different buffers.
const BUFFER_STRIDE: i128 = 1 << 44;

/// Profiles of earlier workloads of the same counts, by what their walks saw
/// ([`WarpWalk::walked_description`] and the addresses): a workload whose walk would see the
/// same warps at the same addresses takes the profile without walking. At most
/// [`MEMO_ENTRIES`] are kept.
#[derive(Clone, Debug, Default)]
pub struct ReuseMemo(std::sync::Arc<std::sync::Mutex<BTreeMap<String, ReuseProfile>>>);

pub const MEMO_ENTRIES: usize = 64;

/// The profile of `records` (the kernel's memory accesses) for a launch with every parameter
/// fixed in `env`, walking as many leading blocks as `budget` (counters × threads points) allows,
/// and their loops for as many trips as [`ACCESSES_PER_POINT`] addresses per point of it allow.
pub fn profile(
    records: &[AccessRecord],
    defs: &named::Defs,
    block: [u64; 3],
    env: &BTreeMap<String, i128>,
    budget: u64,
    memo: Option<&ReuseMemo>,
) -> Reuse {
    plan_profile(records, defs, block, env, budget, memo).run()
}

/// A launch's profile before its walk: known already (remembered from an earlier workload,
/// or unavailable), or the walk to make, which a caller may run on a thread of its own.
pub enum Planned<'a> {
    Done(Reuse),
    Walk(ProfileWalk<'a>),
}

impl Planned<'_> {
    /// The profile, walking here where it is not known yet.
    pub fn run(self) -> Reuse {
        match self {
            Planned::Done(r) => r,
            Planned::Walk(w) => w.run(),
        }
    }
}

/// The walk [`plan_profile`] planned: its groups of accesses, how far each is walked and
/// what each walked touch stands for, the addresses compiled.
pub struct ProfileWalk<'a> {
    defs: &'a named::Defs,
    env: &'a BTreeMap<String, i128>,
    bases: BTreeMap<String, i128>,
    block: [u64; 3],
    walks: Vec<(WarpWalk, Vec<Walked>)>,
    windows: Vec<Option<u64>>,
    weights: Vec<f64>,
    /// Each group's place in its threads' run: the progress its touches are recorded at.
    timelines: Vec<Timeline>,
    compiled: Vec<Vec<Option<Form>>>,
    /// Per group and access, [`shifted_programs`].
    shifted: Vec<Vec<Option<(usize, i128)>>>,
    walked: u64,
    blocks: u64,
    /// What the walk sees, where the memo may remember its profile by it.
    seen: Option<String>,
    memo: Option<&'a ReuseMemo>,
    left_out: Vec<String>,
}

/// [`profile`] in two steps: what can be known without walking (a profile remembered for a
/// walk that would see the same, or why there is none), else the walk to run.
pub fn plan_profile<'a>(
    records: &'a [AccessRecord],
    defs: &'a named::Defs,
    block: [u64; 3],
    env: &'a BTreeMap<String, i128>,
    budget: u64,
    memo: Option<&'a ReuseMemo>,
) -> Planned<'a> {
    let mut left_out = Vec::new();
    let bases = buffer_bases(records, defs, env);
    let sc = Scope {
        defs,
        env,
        bases: &bases,
    };
    // Accesses under the same domain are walked together: the domain test per lane is the cost.
    let mut groups: BTreeMap<(&[String], &Cond), Vec<Walked>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.space == Space::Global) {
        let what = format!("a global {:?} of {} bytes", r.dir, r.width);
        let walked = match &r.tile {
            None => r.addr.as_ref().map(|addr| Walked::new(r, addr, &sc)),
            Some(t) => match (
                &t.base,
                t.pitch
                    .as_ref()
                    .and_then(|p| integer_value(p, defs, &|v| env.get(v).copied())),
            ) {
                (Some(base), Some(pitch)) => {
                    Some(Walked::new(r, base, &sc).tiled(t.rows, t.row_bytes, pitch))
                }
                (Some(_), None) => {
                    left_out.push(format!(
                        "{what}: a wmma tile whose row pitch (ldm) the launch does not fix"
                    ));
                    continue;
                }
                (None, _) => None,
            },
        };
        let Some(walked) = walked else {
            left_out.push(format!("{what}: its address is not a polynomial"));
            continue;
        };
        groups
            .entry((&r.counters, &r.cond))
            .or_default()
            .push(walked);
    }
    let reads: BTreeSet<String> = ["ctaid_x", "ctaid_y", "ctaid_z"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut walks = Vec::new();
    for ((counters, cond), accesses) in groups {
        match WarpWalk::new(counters, cond, block, env, &reads) {
            Ok(w) => walks.push((w, accesses)),
            Err(e) => left_out.extend(
                accesses
                    .iter()
                    .map(|a| format!("a global {:?} of {} bytes: {e}", a.dir, a.width)),
            ),
        }
    }
    let Some(first) = walks.first() else {
        return Planned::Done(Reuse::Unavailable(
            "no global access whose addresses can be walked".into(),
        ));
    };
    let blocks = first.0.blocks();
    let per_block: u64 = walks
        .iter()
        .map(|(w, _)| w.points_per_block())
        .fold(0u64, |a, b| a.saturating_add(b));
    // Whole blocks when the budget reaches far enough for reuse between blocks to show (two
    // rows of the grid, the distance at which a 2-D grid's blocks share rows or columns);
    // otherwise that many blocks, each through only the first trips of its outer loops: blocks
    // that run together are at the same trips, so reuse between them still shows, while reuse
    // within a block across the trips cut off does not.
    let whole = budget / per_block.max(1);
    let grid_x = env.get("nctaid_x").copied().unwrap_or(1).max(1) as u64;
    let target = blocks.min((2 * grid_x).clamp(MIN_SAMPLE_BLOCKS, MAX_SAMPLE_BLOCKS));
    let mut windows: Vec<Option<u64>> = vec![None; walks.len()];
    let mut walked = whole.min(blocks);
    if whole < target {
        walked = target;
        let share = budget as f64 * CUT_TRIPS_SHARE / (walked as f64 * per_block as f64);
        let mut cost = 0.0;
        for ((w, _), win) in walks.iter().zip(windows.iter_mut()) {
            let trips = w.outer_trips();
            // a few trips at least, so reuse from one trip to the next still shows
            let k = ((trips as f64 * share).floor() as u64).clamp(trips.min(MIN_TRIPS), trips);
            if k < trips {
                *win = Some(k);
            }
            cost += w.points_per_block() as f64 * k as f64 / trips as f64;
        }
        walked = walked.min((budget as f64 / cost.max(1.0)) as u64);
    }
    let limit = budget.saturating_mul(ACCESSES_PER_POINT);
    cut_to_addresses(&walks, walked, limit, &mut windows);
    if walked == 0 {
        return Planned::Done(Reuse::Unavailable(format!(
            "one block has {per_block} (counter, thread) points to walk, over the budget of {budget}"
        )));
    }
    // what each walked touch stands for
    let weights: Vec<f64> = walks
        .iter()
        .zip(&windows)
        .map(|((w, _), k)| k.map_or(1.0, |k| w.outer_trips() as f64 / k as f64))
        .collect();
    let shapes: Vec<GroupShape> = walks
        .iter()
        .map(|(w, accesses)| GroupShape {
            counters: w.counters(),
            ranges: w.ranges(),
            accesses: accesses.len(),
            first_inst: accesses.iter().map(|a| a.inst).min().unwrap_or(0),
        })
        .collect();
    let timelines = timelines(&shapes);
    // `None`: the named values looked up by name
    let compiled: Vec<Vec<Option<Form>>> = walks
        .iter()
        .map(|(w, accesses)| {
            let slots = w.slot_names();
            accesses
                .iter()
                .map(|a| Form::compile(a.lin.as_ref(), &a.fixed, defs, &slots, env, block))
                .collect()
        })
        .collect();
    let shifted = compiled
        .iter()
        .zip(&walks)
        .map(|(forms, (_, accesses))| shifted_programs(forms, accesses))
        .collect();
    // Only walks whose every address is an affine form are remembered: the others read the
    // workload's values through named values, which the description does not show.
    let seen = compiled
        .iter()
        .all(|g| g.iter().all(|c| matches!(c, Some(Form::Split(_)))))
        .then(|| {
            let mut d = format!("block {block:?} walked {walked} weights {weights:?}");
            for ((w, accesses), win) in walks.iter().zip(&windows) {
                d += &format!("\n{}", w.walked_description(walked, *win));
                for a in accesses {
                    d += &format!(
                        "\n  {} {} {} {:?}",
                        a.lin.as_ref().map_or(String::new(), |l| l.to_string()),
                        a.width,
                        a.writes,
                        a.tile
                    );
                }
            }
            d
        });
    let remembered = seen
        .as_ref()
        .zip(memo)
        .and_then(|(d, m)| m.0.lock().ok()?.get(d).cloned());
    if let Some(mut p) = remembered {
        p.blocks = blocks;
        p.left_out = left_out;
        return Planned::Done(Reuse::Profile(p));
    }
    Planned::Walk(ProfileWalk {
        defs,
        env,
        bases,
        block,
        walks,
        windows,
        weights,
        timelines,
        compiled,
        shifted,
        walked,
        blocks,
        seen,
        memo,
        left_out,
    })
}

/// Per access of a group, an earlier access of it whose address differs from its own by a
/// constant, both evaluated as programs, and the constant: the copies of an access a compiler
/// unrolled (`x[i]`, `x[i + 1]` …) or one index into several buffers. Its lanes' addresses are
/// then the earlier one's plus the constant, where evaluating each program was most of a walk.
fn shifted_programs(forms: &[Option<Form>], accesses: &[Walked]) -> Vec<Option<(usize, i128)>> {
    let mut first: BTreeMap<String, (usize, i128)> = BTreeMap::new();
    forms
        .iter()
        .zip(accesses)
        .enumerate()
        .map(|(k, (form, a))| {
            if !matches!(form, Some(Form::Program(_))) || a.tile.is_some() {
                return None;
            }
            let (shape, offset) = a.fixed.split_constant()?;
            match first.get(&format!("{shape:?}")) {
                Some(&(j, base)) => Some((j, offset.checked_sub(base)?)),
                None => {
                    first.insert(format!("{shape:?}"), (k, offset));
                    None
                }
            }
        })
        .collect()
}

impl ProfileWalk<'_> {
    /// How many accesses take an earlier one's lanes moved ([`shifted_programs`]).
    #[cfg(test)]
    pub(crate) fn shared_lanes(&self) -> usize {
        self.shifted.iter().flatten().flatten().count()
    }

    /// The same walk evaluating every address itself.
    #[cfg(test)]
    pub(crate) fn each_address_its_own(mut self) -> Self {
        for group in &mut self.shifted {
            group.fill(None);
        }
        self
    }

    /// The walk, tallied into the profile (and remembered where the memo may keep it).
    pub fn run(self) -> Reuse {
        let ProfileWalk {
            defs,
            env,
            bases,
            block,
            walks,
            windows,
            weights,
            timelines,
            compiled,
            shifted,
            walked,
            blocks,
            seen,
            memo,
            mut left_out,
        } = self;
        let spans: Vec<(f64, f64)> = timelines.iter().map(Timeline::span).collect();
        let sc = Scope {
            defs,
            env,
            bases: &bases,
        };
        let mut bad: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); walks.len()];
        let mut warp_sectors: Vec<i128> = Vec::with_capacity(64);
        let mut table = crate::addr_program::Scratch::default();
        let mut order = order::TallyOrder::default();
        // each access's lanes' addresses at the current point, where a program gave them
        let most = walks.iter().map(|(_, a)| a.len()).max().unwrap_or(0);
        let mut lane_addrs: Vec<Vec<Option<i128>>> = vec![Vec::with_capacity(32); most];
        let (mut at_point, mut point_t, mut point_bases): (Vec<i128>, u32, Vec<i128>) =
            (Vec::new(), 0, Vec::new());
        let streamed = tally::stream_blocks(&weights, &spans, walked, blocks, |b, runs| {
            // the block's runs go after those of the blocks before it in the batch
            let start = runs.len();
            for (g, (w, accesses)) in walks.iter().enumerate() {
                // the walk visits a point once per warp: its progress and the accesses' point
                // parts are the same for each, so they are worked out once, at its first warp
                let mut have_point = false;
                let res = w.walk_window_slots(b..b + 1, windows[g], &mut |point, lanes, _| {
                    if !have_point || at_point.as_slice() != point {
                        have_point = true;
                        at_point.clear();
                        at_point.extend_from_slice(point);
                        point_t = (timelines[g].at_slots(point) * PROGRESS_SCALE) as u32;
                        point_bases.clear();
                        point_bases.extend(compiled[g].iter().map(|c| match c {
                            Some(Form::Split(f)) => f.base(point),
                            _ => 0,
                        }));
                    }
                    let t = point_t;
                    for (k, a) in accesses.iter().enumerate() {
                        warp_sectors.clear();
                        let run = SectorRun {
                            progress: t,
                            writes: a.writes,
                            group: g as u16,
                            first: 0,
                            last: 0,
                            stride: 1,
                        };
                        // a tile's base is the same in every lane: the first one gives it
                        let lanes = if a.tile.is_some() {
                            &lanes[..lanes.len().min(1)]
                        } else {
                            lanes
                        };
                        // the sectors of the lanes from one at `addr` to one at `upto`, lanes
                        // whose bytes touch or overlap (a single lane: `upto` is `addr`)
                        let mut push = |addr: i128, upto: i128| match a.tile {
                            // neighbouring lanes mostly share a sector: the sort and dedup below
                            // then see each once
                            None => {
                                let (from, to) = (
                                    *lane_sectors(addr, a.width).start(),
                                    *lane_sectors(upto, a.width).end(),
                                );
                                let from = match warp_sectors.last() {
                                    Some(&l) if (from..=to).contains(&l) => l + 1,
                                    _ => from,
                                };
                                warp_sectors.extend(from..=to);
                            }
                            Some((rows, pitch)) => warp_sectors.extend(
                                (0..rows as i128)
                                    .flat_map(|row| lane_sectors(addr + row * pitch, a.width)),
                            ),
                        };
                        // through the named values, for what no compiled form evaluates
                        let mut by_name =
                            |tids: &mut dyn Iterator<Item = [u64; 3]>,
                             push: &mut dyn FnMut(i128, i128)| {
                                let map = slot_map(w, point);
                                let at_point = a.at_point(&map, &sc);
                                for tid in tids {
                                    match a.lane(at_point, tid, &map, &sc) {
                                        Some(addr) => push(addr, addr),
                                        None => {
                                            bad[g].insert(k);
                                        }
                                    }
                                }
                            };
                        match &compiled[g][k] {
                            Some(Form::Split(f)) => {
                                let base = point_bases[k];
                                // a tile's access walks its first lane, each of its rows: never
                                // a run of lanes
                                let progression = match a.tile {
                                    None => f.lanes_progression(base, point, lanes, block),
                                    Some(_) => None,
                                };
                                match progression {
                                    // lanes whose bytes touch or overlap: one run of sectors
                                    Some((first, step, n))
                                        if (0..=a.width as i128).contains(&step) =>
                                    {
                                        let from = *lane_sectors(first, a.width).start();
                                        let to =
                                            *lane_sectors(first + (n as i128 - 1) * step, a.width)
                                                .end();
                                        match (i64::try_from(from), i64::try_from(to)) {
                                            (Ok(first), Ok(last)) => {
                                                runs.push(SectorRun { first, last, ..run });
                                                continue;
                                            }
                                            _ => warp_sectors.extend(from..=to),
                                        }
                                    }
                                    // lanes a whole number of sectors apart, each within
                                    // one: a run of lone sectors, as push_runs would leave
                                    // them
                                    Some((first, step, n))
                                        if lanes_apart(first, step, n, a.width).is_some_and(
                                            |(from, stride)| {
                                                push_strided(from, stride, n, run, runs, start)
                                            },
                                        ) => {}
                                    Some((first, step, n)) => {
                                        for l in 0..n as i128 {
                                            let addr = first + l * step;
                                            push(addr, addr);
                                        }
                                    }
                                    // lanes that step evenly in runs (the rows of a 2-D
                                    // block): a run's sectors at once, as the sort and dedup
                                    // below would merge them lane by lane
                                    None if a.tile.is_none()
                                        && f.for_lane_pieces(
                                            base,
                                            point,
                                            lanes,
                                            block,
                                            |first, step, n| {
                                                if (0..=a.width as i128).contains(&step) {
                                                    push(first, first + (n as i128 - 1) * step);
                                                } else {
                                                    for l in 0..n as i128 {
                                                        let addr = first + l * step;
                                                        push(addr, addr);
                                                    }
                                                }
                                            },
                                        ) => {}
                                    None => {
                                        for (_, tid) in lanes {
                                            let addr = f.at(base, point, *tid, block);
                                            push(addr, addr);
                                        }
                                    }
                                }
                            }
                            Some(Form::Program(p)) => {
                                let mut overflowed = Vec::new();
                                let (before, rest) = lane_addrs.split_at_mut(k);
                                let own = &mut rest[0];
                                own.clear();
                                match shifted[g][k] {
                                    // the earlier access's lanes, at this point, moved
                                    Some((j, delta)) => {
                                        own.extend(
                                            before[j]
                                                .iter()
                                                .map(|a| a.and_then(|a| a.checked_add(delta))),
                                        );
                                    }
                                    None => own.extend(
                                        lanes
                                            .iter()
                                            .map(|(_, tid)| p.eval(point, *tid, &mut table)),
                                    ),
                                }
                                for ((_, tid), addr) in lanes.iter().zip(own.iter()) {
                                    match addr {
                                        Some(addr) => push(*addr, *addr),
                                        None => overflowed.push(*tid),
                                    }
                                }
                                if !overflowed.is_empty() {
                                    by_name(&mut overflowed.into_iter(), &mut push);
                                }
                            }
                            None => by_name(&mut lanes.iter().map(|l| l.1), &mut push),
                        }
                        if !warp_sectors.is_sorted() {
                            warp_sectors.sort_unstable();
                        }
                        warp_sectors.dedup();
                        push_runs(&warp_sectors, run, runs, start);
                    }
                });
                res.map_err(|e| format!("walking the global accesses: {e}"))?;
            }
            // each group's runs come in progress order, loads and stores mixed
            order.sort(&mut runs[start..]);
            Ok(())
        });
        let mut p = match streamed {
            Ok(p) => p,
            Err(e) => return Reuse::Unavailable(e),
        };
        for (g, (_, accesses)) in walks.iter().enumerate() {
            for k in &bad[g] {
                left_out.push(format!(
                    "a global {:?} of {} bytes: some lane's address has no value",
                    accesses[*k].dir, accesses[*k].width
                ));
            }
        }
        p.outer_share = weights.iter().fold(1.0, |a, w| a.min(1.0 / w));
        if let (Some(d), Some(m), true) = (seen, memo, left_out.is_empty()) {
            if let Ok(mut m) = m.0.lock() {
                if m.len() >= MEMO_ENTRIES {
                    m.clear();
                }
                m.insert(d, p.clone());
            }
        }
        p.left_out = left_out;
        Reuse::Profile(p)
    }
}

/// Where `n` lanes from `first`, `step` bytes apart, each touch one sector and the sectors lie
/// two or more apart: the lowest sector and the stride between them.
fn lanes_apart(first: i128, step: i128, n: u32, width: u64) -> Option<(i128, u32)> {
    let k = step / SECTOR_BYTES;
    let within = first.rem_euclid(SECTOR_BYTES) + width as i128 <= SECTOR_BYTES;
    if n < 2 || step % SECTOR_BYTES != 0 || k.abs() < 2 || !within {
        return None;
    }
    let low = first.min(first + i128::from(n - 1) * step);
    Some((
        low.div_euclid(SECTOR_BYTES),
        u32::try_from(k.unsigned_abs()).ok()?,
    ))
}

/// [`push_runs`] for `n` sectors from `from`, `stride` apart: where the first continues the
/// last run it joins it, as there, and the rest go in as one run of lone sectors (a single
/// one as a plain run). False, and nothing pushed, where the sectors leave the 64-bit range
/// the tally keeps.
fn push_strided(
    from: i128,
    stride: u32,
    n: u32,
    run: SectorRun,
    runs: &mut Vec<SectorRun>,
    start: usize,
) -> bool {
    let to = from + i128::from(stride) * i128::from(n - 1);
    let (Ok(mut first), Ok(last)) = (i64::try_from(from), i64::try_from(to)) else {
        return false;
    };
    let open = runs[start..]
        .last()
        .is_some_and(|r| r.tally_key() == run.tally_key());
    let mut left = n;
    if open && continue_last(runs, first) {
        first += i64::from(stride);
        left -= 1;
    }
    runs.push(SectorRun {
        first,
        last,
        stride: if left > 1 { stride } else { 1 },
        ..run
    });
    true
}

/// The sorted, distinct `sectors` of one warp access as runs like `run`, appended to `runs`;
/// where the first continues the last run at or after `from` with the same progress,
/// direction and group, it extends that run (the tally takes the run as it would the sectors).
fn push_runs(sectors: &[i128], run: SectorRun, runs: &mut Vec<SectorRun>, from: usize) {
    // whether the last run may take the next sector: any of this access's, the one before only
    // where it is of the same kind
    let mut open = runs[from..]
        .last()
        .is_some_and(|r| r.tally_key() == run.tally_key());
    for s in sectors.iter().map(|s| touch_sector(*s)) {
        if !(open && continue_last(runs, s)) {
            runs.push(SectorRun {
                first: s,
                last: s,
                ..run
            });
        }
        open = true;
    }
}

/// Whether sector `s` continues the last run, which then takes it. A run of consecutive
/// sectors grows by one; a run of sectors apart stands for lone runs, so its last sector
/// leaves it to start a consecutive run with `s`, as that lone run would have grown (the next
/// warp's first lane after this one's last).
fn continue_last(runs: &mut Vec<SectorRun>, s: i64) -> bool {
    let Some(r) = runs.last_mut() else {
        return false;
    };
    if r.last.checked_add(1) != Some(s) {
        return false;
    }
    if r.stride == 1 {
        r.last = s;
        return true;
    }
    let lone = r.last;
    r.last -= i64::from(r.stride);
    if r.first == r.last {
        r.stride = 1;
    }
    let pair = SectorRun {
        first: lone,
        last: s,
        stride: 1,
        ..*r
    };
    runs.push(pair);
    true
}

/// How a walk evaluates an access's lane addresses, fastest first: an affine form of the
/// slots, or a program over them that evaluates named values (min, max, select) and products
/// too, and says where `i128` overflows.
enum Form {
    Split(SplitForm),
    Program(AddrProgram),
}

impl Form {
    /// The address (`lin`, its affine form where it has one; `fixed`, the launch's values in)
    /// compiled for a walk whose point holds `slots`; `None` where neither form compiles.
    fn compile(
        lin: Option<&LinExpr>,
        fixed: &Poly,
        defs: &named::Defs,
        slots: &[String],
        env: &BTreeMap<String, i128>,
        block: [u64; 3],
    ) -> Option<Form> {
        let resolve = crate::slots::resolver(slots);
        match lin.and_then(|l| crate::slots::Lin::compile(l, &resolve)) {
            Some(l) => Some(Form::Split(SplitForm::new(l, block))),
            None => AddrProgram::compile(fixed, defs, slots, env).map(Form::Program),
        }
    }
}

/// A walk's point by name, for the addresses that are not compiled (they read a named value).
fn slot_map(w: &WarpWalk, point: &[i128]) -> BTreeMap<String, i128> {
    w.slot_names()
        .into_iter()
        .zip(point.iter().copied())
        .collect()
}

/// Addresses the walk evaluates per point of its budget, at most. A point evaluates every
/// address of its group, and most groups have a few; a hash's 120 unrolled word stores made one
/// walk of its 1024 × 16 threads 2.4 s, plus 1.5 s to tally its touches. Fewer (tried
/// 2026-12-07) do not pay: at 4, the walks of the corpus's unrolled kernels were no faster
/// beyond the noise of run to run (`dram_sweep` 210 against 242 ms, `gemv_shared` 139 against
/// 122), and eleven of gpuFLOPBench's hexciton launches fell from 0.95 to 0.83 of their
/// measured DRAM bytes (eight loads a point, their loops cut to half the trips).
const ACCESSES_PER_POINT: u64 = 16;

/// Walks the loops of the groups `walks` for fewer trips (`windows`, at least [`MIN_TRIPS`])
/// where `walked` blocks of them would evaluate more than `limit` addresses (each point one per
/// access of its group). Never fewer blocks: the reuse between blocks shows only over as many as
/// the points budget gave (a 3-D stencil's between planes), and a group without a loop to cut
/// is walked whole.
fn cut_to_addresses(
    walks: &[(WarpWalk, Vec<Walked>)],
    walked: u64,
    limit: u64,
    windows: &mut [Option<u64>],
) {
    let per_block: f64 = walks
        .iter()
        .zip(windows.iter())
        .map(|((w, accesses), k)| {
            let share = k.map_or(1.0, |k| k as f64 / w.outer_trips().max(1) as f64);
            w.points_per_block() as f64 * share * accesses.len() as f64
        })
        .sum();
    let total = per_block * walked as f64;
    if total <= limit as f64 {
        return;
    }
    let share = limit as f64 / total;
    for ((w, _), win) in walks.iter().zip(windows.iter_mut()) {
        let trips = w.outer_trips();
        let k = win.unwrap_or(trips);
        // a few trips at least, so reuse from one trip to the next still shows
        let fewest = trips.min(MIN_TRIPS).min(k);
        let cut = ((k as f64 * share).floor() as u64).clamp(fewest, k);
        if cut < trips {
            *win = Some(cut);
        }
    }
}

/// Blocks the profile walks at least (when the launch has them), cutting loops short if it
/// must, and at most for that reason.
pub const MIN_SAMPLE_BLOCKS: u64 = 64;
pub const MAX_SAMPLE_BLOCKS: u64 = 1024;
/// Outer trips a cut loop keeps at least.
const MIN_TRIPS: u64 = 4;
/// The share of the budget that sizes the trips of loops a walk cuts: a cut loop's data is
/// extrapolated from its walked trips, and the trips past the first few cost time they add
/// little to (on the bench's 166 kernels, halving them moved no L2 hit rate by more than 0.4
/// points). The blocks walked are still sized by the whole budget, so a walk whose loops are at
/// [`MIN_TRIPS`] already walks as many as before.
const CUT_TRIPS_SHARE: f64 = 0.5;

/// One access to walk, with its address ready to evaluate.
struct Walked {
    dir: Dir,
    width: u64,
    /// Stores and atomics leave dirty sectors that go back to DRAM once each.
    writes: bool,
    addr: Addr,
    /// A `wmma` tile: its rows, `pitch` bytes apart, each `width` bytes from the address.
    tile: Option<(u32, i128)>,
    /// The address as a quasi-affine form with the launch's values in, for compiling.
    lin: Option<LinExpr>,
    /// The address with the launch's values and the buffers' bases in.
    fixed: Poly,
    /// Its instruction's position in program order.
    inst: usize,
}

/// An address linear in the indices and floors of them (the common case, evaluated by
/// integer arithmetic, the per-warp part once per warp), or any other polynomial (evaluated
/// through the named values).
enum Addr {
    Linear {
        /// The terms that do not read the thread index.
        warp: Lin,
        /// The terms that do.
        lane: Lin,
    },
    Poly(Poly),
}

/// `Σ c·term + constant` over variables and floors.
#[derive(Default)]
struct Lin {
    terms: Vec<(Term, i128)>,
    constant: i128,
}

enum Term {
    Tid(usize),
    /// ctaid or a loop counter, read from the walk's point.
    Point(String),
    Floor(Lin, i128),
    /// A named min/max/select value, and whether it reads the thread index.
    Named(String, bool),
}

/// What a lane's address may read besides the thread index and the walk's point.
struct Scope<'a> {
    defs: &'a named::Defs,
    env: &'a BTreeMap<String, i128>,
    bases: &'a BTreeMap<String, i128>,
}

impl Scope<'_> {
    fn var(&self, v: &str, tid: [u64; 3], point: &BTreeMap<String, i128>) -> Option<i128> {
        match v {
            "tid_x" => Some(tid[0] as i128),
            "tid_y" => Some(tid[1] as i128),
            "tid_z" => Some(tid[2] as i128),
            v => point
                .get(v)
                .or_else(|| self.env.get(v))
                .or_else(|| self.bases.get(v))
                .copied(),
        }
    }
}

impl Lin {
    /// `l` with its variables resolved to slots.
    fn of(l: &LinExpr, defs: &named::Defs) -> Option<Lin> {
        let mut out = Lin {
            terms: Vec::new(),
            constant: l.constant,
        };
        for (atom, c) in &l.terms {
            let t = match atom {
                Atom::Var(v) => match &**v {
                    "tid_x" => Term::Tid(0),
                    "tid_y" => Term::Tid(1),
                    "tid_z" => Term::Tid(2),
                    v if named::is_symbol(v) => {
                        let mut vs = BTreeSet::from([v.to_string()]);
                        defs.close(&mut vs);
                        Term::Named(v.to_string(), vs.iter().any(|x| x.starts_with("tid_")))
                    }
                    v => Term::Point(v.to_string()),
                },
                Atom::Floor(e, m) => Term::Floor(Lin::of(e, defs)?, *m),
            };
            out.terms.push((t, *c));
        }
        Some(out)
    }

    fn reads_tid(&self) -> bool {
        self.terms.iter().any(|(t, _)| t.reads_tid())
    }

    fn eval(&self, tid: [u64; 3], point: &BTreeMap<String, i128>, sc: &Scope) -> Option<i128> {
        self.terms.iter().try_fold(self.constant, |acc, (t, c)| {
            let v = match t {
                Term::Tid(i) => tid[*i] as i128,
                Term::Point(v) => *point.get(v)?,
                Term::Floor(l, m) => l.eval(tid, point, sc)?.div_euclid(*m),
                Term::Named(v, _) => sc.defs.value(v, &|x| sc.var(x, tid, point))?,
            };
            Some(acc + c * v)
        })
    }
}

impl Term {
    fn reads_tid(&self) -> bool {
        match self {
            Term::Tid(_) => true,
            Term::Point(_) => false,
            Term::Floor(l, _) => l.reads_tid(),
            Term::Named(_, t) => *t,
        }
    }
}

impl Walked {
    fn new(r: &AccessRecord, addr: &Poly, sc: &Scope) -> Walked {
        let mut vars = BTreeSet::new();
        addr.vars(&mut vars);
        let mut fixed = addr.clone();
        for v in &vars {
            if let Some(x) = sc.env.get(v).or_else(|| sc.bases.get(v)) {
                fixed = fixed.subst(v, &LinExpr::constant(*x));
            }
        }
        let lin = affine::as_lin(&fixed);
        let addr = match lin.as_ref().and_then(|l| Lin::of(l, sc.defs)) {
            Some(l) => {
                let (lane, warp): (Vec<_>, Vec<_>) =
                    l.terms.into_iter().partition(|(t, _)| t.reads_tid());
                Addr::Linear {
                    warp: Lin {
                        terms: warp,
                        constant: l.constant,
                    },
                    lane: Lin {
                        terms: lane,
                        constant: 0,
                    },
                }
            }
            None => Addr::Poly(fixed.clone()),
        };
        Walked {
            dir: r.dir,
            width: r.width,
            writes: r.dir != Dir::Load,
            addr,
            tile: None,
            lin,
            fixed,
            inst: r.inst,
        }
    }

    /// The access as a tile of `rows` rows of `row_bytes`, `pitch` bytes apart, from its address.
    fn tiled(self, rows: u32, row_bytes: u32, pitch: i128) -> Walked {
        Walked {
            width: row_bytes as u64,
            tile: Some((rows, pitch)),
            ..self
        }
    }

    /// The part of the address that is the same for every lane at `point`.
    fn at_point(&self, point: &BTreeMap<String, i128>, sc: &Scope) -> Option<i128> {
        match &self.addr {
            Addr::Linear { warp, .. } => warp.eval([0; 3], point, sc),
            Addr::Poly(_) => None,
        }
    }

    fn lane(
        &self,
        at_point: Option<i128>,
        tid: [u64; 3],
        point: &BTreeMap<String, i128>,
        sc: &Scope,
    ) -> Option<i128> {
        match &self.addr {
            Addr::Linear { lane, .. } => Some(at_point? + lane.eval(tid, point, sc)?),
            Addr::Poly(p) => integer_value(p, sc.defs, &|v| sc.var(v, tid, point)),
        }
    }
}

/// The value of `p` (named values through `defs`, the rest from `at`), if it is an integer.
fn integer_value(p: &Poly, defs: &named::Defs, at: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
    let v = defs.eval_poly(p, at).filter(|v| v.is_integer())?;
    num_traits::ToPrimitive::to_i128(&v.to_integer())
}

/// A distinct base per buffer: every variable the addresses read that is neither an index nor
/// a fixed parameter is a pointer (or a module variable).
fn buffer_bases(
    records: &[AccessRecord],
    defs: &named::Defs,
    env: &BTreeMap<String, i128>,
) -> BTreeMap<String, i128> {
    let mut vars = BTreeSet::new();
    for r in records {
        let tile_base = r.tile.as_ref().and_then(|t| t.base.as_ref());
        for a in r.addr.iter().chain(tile_base) {
            a.vars(&mut vars);
        }
    }
    defs.close(&mut vars);
    vars.into_iter()
        .filter(|v| {
            !v.starts_with("tid_")
                && !v.starts_with("ctaid_")
                && !named::is_symbol(v)
                && !env.contains_key(v)
                && !records.iter().any(|r| r.counters.contains(v))
        })
        .enumerate()
        .map(|(i, v)| (v, (i as i128 + 1) * BUFFER_STRIDE))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A warp access's sectors become runs that hold each of them once, in order, with
        /// no two of them that could be one; the run before them takes them only where it is
        /// of the same kind, and the runs before `from` (another block's) never.
        #[test]
        fn sectors_become_runs_that_hold_them(
            mut sectors in prop::collection::vec(-20i128..60, 0..40),
            before in prop::collection::vec((-20i64..60, 0i64..3, any::<bool>()), 0..3),
            from in 0usize..3,
        ) {
            sectors.sort_unstable();
            sectors.dedup();
            let run = SectorRun { progress: 5, writes: false, group: 1, first: 0, last: 0, stride: 1 };
            let mut runs: Vec<SectorRun> = before
                .iter()
                .map(|&(first, n, writes)| SectorRun { first, last: first + n, writes, ..run })
                .collect();
            let earlier = runs.clone();
            let from = from.min(runs.len());
            push_runs(&sectors, run, &mut runs, from);
            let kept = earlier.len().saturating_sub(1).max(from).min(earlier.len());
            prop_assert_eq!(&runs[..kept], &earlier[..kept]);
            let mut held: Vec<i64> = Vec::new();
            if let (Some(e), true) = (earlier.last(), kept < earlier.len()) {
                let r = &runs[kept];
                prop_assert_eq!((r.first, r.writes), (e.first, e.writes));
                prop_assert!(r.last == e.last || !e.writes, "a store's run took loads");
                held.extend(e.last + 1..=r.last);
            }
            let new = &runs[earlier.len()..];
            held.extend(new.iter().flat_map(SectorRun::sectors));
            prop_assert_eq!(held, sectors.iter().map(|s| *s as i64).collect::<Vec<_>>());
            for pair in new.windows(2) {
                prop_assert!(pair[0].last + 1 < pair[1].first, "{:?} could be one run", pair);
            }
            prop_assert!(new.iter().all(|r| r.tally_key() == run.tally_key()));
        }

        /// Lanes a whole number of sectors apart go in as the runs the lanes' sectors would
        /// make, one by one through `push_runs`, once runs of sectors apart are taken a sector
        /// at a time (as the tally takes them): for steps of either sign, lanes that start
        /// mid-sector, accesses that straddle a sector (which stay lane by lane), and a run
        /// before them, of consecutive sectors or of sectors apart (the warp before), that the
        /// first sector continues or not.
        #[test]
        fn lanes_sectors_apart_make_the_runs_their_sectors_make(
            first in -4000i128..4000,
            k in -6i128..7,
            n in 1u32..33,
            width in prop::sample::select(vec![1u64, 4, 8, 16, 32]),
            before in prop::collection::vec((-200i64..200, 0i64..3, any::<bool>()), 0..3),
            same_kind in any::<bool>(),
            prior in (1u32..4, 0i64..4),
        ) {
            let step = k * 32;
            let run = SectorRun { progress: 5, writes: false, group: 1, first: 0, last: 0, stride: 1 };
            let kind = SectorRun { group: if same_kind { 1 } else { 2 }, ..run };
            let mut earlier: Vec<SectorRun> = before
                .iter()
                .map(|&(first, n, writes)| SectorRun { first, last: first + n, writes, ..kind })
                .collect();
            // a run ending next to the lowest sector: consecutive sectors, or sectors apart
            if let Some(low) = (0..n).map(|l| first + i128::from(l) * step).min() {
                let (stride, more) = prior;
                let last = (low.div_euclid(32) - 1) as i64;
                let stride = if more == 0 { 1 } else { stride };
                earlier.push(SectorRun { first: last - more * i64::from(stride), last, stride, ..kind });
            }
            let lone = |runs: &[SectorRun]| -> Vec<SectorRun> {
                runs.iter()
                    .flat_map(|r| {
                        let r = *r;
                        let each = r.stride > 1;
                        let whole = std::iter::once(r).filter(move |_| !each);
                        let apart = r.sectors().filter(move |_| each).map(move |s| SectorRun { first: s, last: s, stride: 1, ..r });
                        whole.chain(apart)
                    })
                    .collect()
            };
            let mut sectors: Vec<i128> = (0..n)
                .flat_map(|l| lane_sectors(first + i128::from(l) * step, width))
                .collect();
            sectors.sort_unstable();
            sectors.dedup();
            // what lone runs, pushed a sector at a time, made before runs of sectors apart
            let mut expected = lone(&earlier);
            push_runs(&sectors, run, &mut expected, 0);
            let mut got = earlier.clone();
            match lanes_apart(first, step, n, width) {
                Some((from, stride)) => {
                    prop_assert!(push_strided(from, stride, n, run, &mut got, 0));
                }
                None => {
                    let apart = k.abs() >= 2 && n >= 2;
                    let within = first.rem_euclid(32) + width as i128 <= 32;
                    prop_assert!(!(apart && within), "lanes apart not taken");
                    push_runs(&sectors, run, &mut got, 0);
                }
            }
            prop_assert_eq!(lone(&got), expected);
        }
    }

    const HALF: u32 = 1 << 23;

    #[test]
    fn distances_are_bucketed_by_powers_of_two() {
        assert_eq!(
            [0, 1, 2, 3, 4, 7, 8, 1000].map(bucket_of),
            [0, 1, 2, 2, 4, 4, 8, 512]
        );
        assert_eq!(
            [0.0, 0.75, 0.5, 0.3, -0.3, 1e-9].map(progress_bucket),
            [0, 1, 1, 2, -2, 25]
        );
    }

    /// A grid-stride loop storing `stores` words of a 256-byte element per trip, on 16 blocks
    /// of 32 threads, for as many trips as make the launch half the points budget: walked
    /// whole by the points budget. Its blocks walked and the share of its trips.
    fn walk_of_stores(stores: usize) -> (u64, f64) {
        let trips = crate::count::REUSE_BUDGET / (16 * 32) / 2;
        let body: String = (0..stores)
            .map(|i| format!("st.global.u32 [%rd4+{}], 0;\n", 4 * i))
            .collect();
        let text = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .entry k(.param .u64 k_out, .param .u32 k_n)\n{{\n\
             .reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [k_out];\nld.param.u32 %r1, [k_n];\n\
             cvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %tid.x;\n\
             mad.lo.s32 %r4, %r2, 32, %r3;\nmov.u32 %r5, 0;\n\
             LOOP:\nmad.lo.s32 %r6, %r5, 512, %r4;\nmul.wide.s32 %rd3, %r6, 256;\n\
             add.s64 %rd4, %rd2, %rd3;\n{body}\
             add.s32 %r5, %r5, 1;\nsetp.lt.s32 %p1, %r5, %r1;\n@%p1 bra LOOP;\nret;\n}}\n"
        );
        let m = crate::ptx::Module::parse(&text).unwrap();
        let opts = crate::count::Options {
            block: Some([32, 1, 1]),
            grid: None,
        };
        let ks = crate::count::analyze_kernel_with(&m, "k", &opts).unwrap();
        let w = crate::count::Workload {
            grid: [16, 1, 1],
            block: [32, 1, 1],
            params: [("1".to_string(), trips as i64)].into_iter().collect(),
            hints: BTreeMap::new(),
            reuse: true,
        };
        match ks.bind(&w).unwrap().reuse {
            Some(Reuse::Profile(p)) => (p.blocks_walked, p.outer_share),
            other => panic!("no reuse profile: {other:?}"),
        }
    }

    /// A walk whose points evaluate more than [`ACCESSES_PER_POINT`] addresses each on
    /// average, over its budget, walks its loops for fewer trips, never fewer blocks: 64 stores
    /// a trip, twice the addresses the budget allows, half the trips; 32, all of them.
    #[test]
    fn many_addresses_per_point_cut_the_loops_not_the_blocks() {
        assert_eq!(walk_of_stores(32), (16, 1.0));
        assert_eq!(walk_of_stores(64), (16, 0.5));
    }

    fn reuse(p: &ReuseProfile) -> Vec<(u64, f64, f64)> {
        p.reuse
            .iter()
            .map(|b| (b.min_distance, b.progress, b.requests))
            .collect()
    }

    /// Block b touches sectors b and b+1 (a one-sector halo shared with its neighbour), and
    /// sector b again half-way through its loop: one first touch per new sector, the halo
    /// re-touch at distance 1 (the neighbour read it at progress 0 too), and the repeat inside
    /// the block at distance 0, half a lifetime later.
    #[test]
    fn a_halo_is_reuse_at_distance_one() {
        let mut t = Vec::new();
        for b in 0..8u64 {
            let s = b as i64;
            t.extend([
                (b, 0, s, false, 0),
                (b, HALF, s, false, 0),
                (b, 0, s + 1, false, 0),
            ]);
        }
        let p = from_touches(t, &[1.0], 8, 100);
        assert_eq!(p.requests, 24.0);
        assert_eq!(p.first_touches, 9.0);
        assert_eq!(reuse(&p), vec![(0, 0.5, 8.0), (1, 0.0, 7.0)]);
        assert_eq!(p.block_reloads, 8.0, "the repeats inside the block");
        let blocks: Vec<(u64, f64)> = p.footprint.iter().map(|f| (f.blocks, f.sectors)).collect();
        assert_eq!(blocks, vec![(1, 2.0), (2, 3.0), (4, 5.0), (8, 9.0)]);
        // 1 new sector per block past the walk, as along its last stretch
        assert_eq!(p.sectors_of_blocks(16.0), 17.0);
        assert_eq!(p.sectors_of_blocks(3.0), 4.0);
    }

    /// `y[i] = a * x[i] + y[i]`: the load and the store of y's sector are both DRAM transfers
    /// (the written sector goes back), a second store of it in the block is not, and a later
    /// block's load of it re-touches the write.
    #[test]
    fn a_store_after_a_load_still_goes_back_to_dram() {
        let t = vec![
            (0, 0, 0, false, 0),
            (0, 0, 1, false, 0),
            (0, 0, 1, true, 0),
            (0, HALF, 1, true, 0),
            (1, 0, 1, false, 0),
        ];
        let p = from_touches(t, &[1.0], 2, 2);
        assert_eq!(p.first_touches, 3.0);
        assert_eq!(reuse(&p), vec![(0, 0.5, 1.0), (1, -0.5, 1.0)]);
        assert_eq!(p.block_reloads, 0.0, "a store always goes to the L2");
        assert_eq!(p.footprint.last().map(|f| f.sectors), Some(2.0));
    }

    /// Every block reads the same 4 sectors (a table all threads share): after the first block,
    /// each read is a re-touch at distance 1 and the footprint stops growing.
    #[test]
    fn a_shared_table_stops_the_footprint() {
        let t: Vec<Touch> = (0..5u64)
            .flat_map(|b| (0..4).map(move |s| (b, 0, s, false, 0)))
            .collect();
        let p = from_touches(t, &[1.0], 5, 5);
        assert_eq!(p.first_touches, 4.0);
        assert_eq!(reuse(&p), vec![(1, 0.0, 16.0)]);
        assert_eq!(p.sectors_of_blocks(5.0), 4.0);
        assert_eq!(p.sectors_of_blocks(50.0), 4.0);
    }

    /// A group walked for a quarter of its loop stands for four times its requests; for four
    /// times its data only when its blocks touch new data from trip to trip (streaming), and
    /// for no more data when they sweep the same (read off the windows).
    #[test]
    fn a_cut_loop_scales_requests_and_only_growing_data() {
        let q = 1u32 << 20; // a sixteenth of a lifetime
        let stream: Vec<Touch> = (0..4u32)
            .map(|k| (0, k * q, 100 + k as i64, false, 0))
            .collect();
        let p = from_touches(stream, &[4.0], 1, 1);
        assert_eq!(p.requests, 16.0);
        assert_eq!(p.first_touches, 16.0);
        assert_eq!(p.block_reloads, 0.0);
        assert_eq!(p.footprint.last().map(|f| f.sectors), Some(16.0));
        let sweep: Vec<Touch> = (0..4u32).map(|k| (0, k * q, 100, false, 0)).collect();
        let p = from_touches(sweep, &[4.0], 1, 1);
        assert_eq!(p.requests, 16.0);
        assert_eq!(p.first_touches, 1.0);
        assert_eq!(
            p.block_reloads, 15.0,
            "all but the first, over the trips cut off too"
        );
        assert_eq!(p.footprint.last().map(|f| f.sectors), Some(1.0));
        assert_eq!(reuse(&p), vec![(0, 1.0 / 16.0, 12.0)]);
    }

    /// A block streams one new sector per trip of a 163-trip loop walked for its first 16
    /// trips, a share no window size lines up with: the walked data stands for all 163 trips'
    /// (a window the cut runs through is not taken as the rate), and beside a 4-sector table
    /// read in every trip, for the streamed part only. Walked for an odd number of trips (7 of
    /// 16: four in the first half of the walked share, three in the second) the stream still
    /// stands for all 16 trips' data, not 14.7 as a rate over half the share gave. Progress
    /// is kept in steps of 2^-24 of a lifetime, which bounds the error.
    #[test]
    fn a_cut_stream_extrapolates_its_walked_trips() {
        let close = |got: f64, want: f64| assert!((got - want).abs() < 1e-4 * want, "{got} {want}");
        for (trips, walked) in [(163u32, 16u32), (16, 7), (16, 15), (1000, 3)] {
            let at = |i: u32| ((i as f64 / trips as f64) * PROGRESS_SCALE) as u32;
            let weight = trips as f64 / walked as f64;
            let stream: Vec<Touch> = (0..walked)
                .map(|i| (0, at(i), 100 + i as i64, false, 0))
                .collect();
            let p = from_touches(stream.clone(), &[weight], 1, 1);
            close(p.first_touches, trips as f64);
            close(p.windows[0].sectors, trips as f64);
            let table: Vec<Touch> = (0..walked)
                .flat_map(|i| (0..4).map(move |s| (0, at(i), s, false, 0)))
                .chain(stream)
                .collect();
            let p = from_touches(table, &[weight], 1, 1);
            close(p.requests, 5.0 * trips as f64);
            close(p.first_touches, trips as f64 + 4.0);
        }
    }

    /// A block sweeps its 8 sectors 8 times: any window of an eighth of its lifetime or more
    /// sees all 8; a window of 1/64 sees one pass's part of them.
    #[test]
    fn a_sweeping_block_touches_all_its_data_in_every_window() {
        let pass = 1u32 << 21;
        let t: Vec<Touch> = (0..8u32)
            .flat_map(|k| (0..8).map(move |s| (0, k * pass + s as u32 * (pass / 8), s, false, 0)))
            .collect();
        let p = from_touches(t, &[1.0], 1, 1);
        assert_eq!(p.window_share(1.0), 1.0);
        assert_eq!(p.window_share(0.25), 1.0);
        assert_eq!(p.window_share(1.0 / 16.0), 0.5);
        assert!((p.window_share(1.0 / 64.0) - 1.0 / 8.0).abs() < 1e-12);
    }
}
