//! The tally of a walk's sector touches into a [`ReuseProfile`], fed block by block.
//!
//! A walk hands over the touches of one block at a time, sorted, and keeps none: what the
//! profile needs of the leading blocks (the windows, a cut loop's growth) is summed as they go
//! by, and what a cut loop's growth scales (first touches, distinct sectors) is counted per
//! group of accesses and scaled at the end, so memory is the block at hand and one entry per
//! distinct sector, however many blocks are walked.

use super::profile::{
    FootprintPoint, ReuseBucket, ReuseProfile, SectorRun, Touch, WindowPoint, PROGRESS_SCALE,
};
use super::sector_table::{SectorHasher, SectorTable, Stamp};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The profile of the sector touches of the first `walked` of `blocks` blocks.
///
/// Touches are taken in block order and, within a block, in progress order. A load re-touches
/// the last read or write of its sector; a write re-touches only the last write, since a
/// sector written for the first time must go back to DRAM once whatever read it before (a load
/// then a store of `y[i]` is two DRAM transfers, not one).
///
/// `weights[g]` is how many touches one touch of group `g` stands for (its loops were walked
/// for a share of their trips); every figure is weighted by it.
pub fn from_touches(
    mut touches: Vec<Touch>,
    weights: &[f64],
    walked: u64,
    blocks: u64,
) -> ReuseProfile {
    touches.sort_unstable();
    let mut stream = TouchStream::new(weights, walked, blocks);
    let mut i = 0;
    let mut runs = Vec::new();
    for b in 0..walked {
        runs.clear();
        while i < touches.len() && touches[i].0 == b {
            runs.push(SectorRun::of_touch(&touches[i]));
            i += 1;
        }
        // sorted by (progress, sector, write, group): each sector's touches at a progress
        // come in (write, group) order, all the tally asks
        stream.block(b, &runs);
    }
    stream.finish()
}

/// The profile of the touches `fill` makes for blocks 0, 1, … `walked - 1` in turn (appended
/// as runs, in [`TouchStream::block`]'s order, to a vector whose earlier entries it leaves as
/// they are: the batch the block goes over in, so no copy), tallied on a thread of its own
/// while `fill` makes the next blocks': making the touches and tallying them take about as
/// long each, so on two cores a long walk takes about half the time, with the same figures
/// (the blocks reach the tally in order). The leading blocks' windows and growth are summed on
/// a third thread, from the batches the tally is done with: in a walk of few blocks, all of
/// them leading (a matrix-vector product's 16), they are about a quarter of the tally's work,
/// and apart they took 5–10 % off such a `predict`'s wall time. Blocks go over in batches of
/// at least [`BATCH_RUNS`] runs, since a handover costs more than a small block's tally. The
/// first error of `fill` ends the walk.
pub fn stream_blocks(
    weights: &[f64],
    spans: &[(f64, f64)],
    walked: u64,
    blocks: u64,
    mut fill: impl FnMut(u64, &mut Vec<SectorRun>) -> Result<(), String>,
) -> Result<ReuseProfile, String> {
    // one batch waits while one is tallied and the next is made; batches go back to be
    // refilled, through the leading blocks' thread where they hold any
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Batch>(1);
    let (lead_tx, lead_rx) = std::sync::mpsc::channel::<Batch>();
    let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Batch>();
    let refill = empty_tx.clone();
    std::thread::scope(|s| {
        let leading = std::thread::Builder::new()
            .name("kerncast-reuse-windows".into())
            .spawn_scoped(s, move || {
                let mut leading = Leading::new(weights, spans);
                for batch in lead_rx {
                    for (b, runs) in batch.blocks() {
                        leading.block(b, runs);
                    }
                    let _ = refill.send(batch);
                }
                leading
            })
            .map_err(|e| format!("starting the reuse windows: {e}"))?;
        let tally = std::thread::Builder::new()
            .name("kerncast-reuse-tally".into())
            .spawn_scoped(s, move || {
                let mut stream = TouchStream::without_leading(weights, walked, blocks);
                for batch in full_rx {
                    for (b, runs) in batch.blocks() {
                        stream.block(b, runs);
                    }
                    let leading = match (batch.ends.first(), stream.tally.first_busy) {
                        (Some(&(b, _)), Some(f)) => leads(f, b),
                        _ => false,
                    };
                    let _ = if leading {
                        lead_tx.send(batch)
                    } else {
                        empty_tx.send(batch)
                    };
                }
                stream
            })
            .map_err(|e| format!("starting the reuse tally: {e}"))?;
        let mut made = Ok(());
        let mut batch = Batch::new(0);
        let mut batches = 1;
        // the most runs one block has made so far: a batch is given room for it at once
        let mut largest = 0;
        for b in 0..walked {
            let start = batch.runs.len();
            made = fill(b, &mut batch.runs);
            if made.is_err() {
                break;
            }
            largest = largest.max(batch.runs.len() - start);
            batch.ends.push((b, batch.runs.len()));
            if batch.runs.len() >= BATCH_RUNS || b + 1 == walked {
                // Past the first few, a batch comes back to be refilled, keeping its room, and
                // fresh pages are made only for the few. Waiting for one cannot deadlock: the
                // others are queued for the threads that send them back, and a thread that
                // ended drops its sender, which ends the wait.
                let mut next = match batches < MAX_BATCHES {
                    true => empty_rx.try_recv().ok(),
                    false => empty_rx.recv().ok(),
                }
                .unwrap_or_else(|| {
                    batches += 1;
                    Batch::new(largest)
                });
                next.runs.clear();
                next.ends.clear();
                // Room for a block as large as the largest yet, taken at once (a no-op for a
                // fresh batch): grown one doubling at a time, each copy into fresh pages, the
                // four batches of a matrix-vector product's walk (half a million runs a block)
                // took over a quarter of its walking thread.
                next.runs.reserve(largest + BATCH_RUNS);
                if full_tx.send(std::mem::replace(&mut batch, next)).is_err() {
                    break;
                }
            }
        }
        drop(full_tx);
        let stream = tally
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let leading = leading
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        made.map(|()| stream.finish_with(leading))
    })
}

/// Runs a batch handed to the tally holds at least (but the last): about a millisecond of
/// tallying, against some microseconds for the handover.
const BATCH_RUNS: usize = 1 << 13;

/// Batches a walk makes at most while others are out: one filling, one waiting, one in the
/// tally and one in the leading blocks' thread.
const MAX_BATCHES: usize = 4;

/// Consecutive blocks' runs of touches, and where each block's end.
struct Batch {
    runs: Vec<SectorRun>,
    ends: Vec<(u64, usize)>,
}

impl Batch {
    /// Room for a batch and a block of `largest` runs beyond it, so a batch seldom grows
    /// (each growth copies it into fresh pages).
    fn new(largest: usize) -> Batch {
        Batch {
            runs: Vec::with_capacity(BATCH_RUNS + largest.max(BATCH_RUNS)),
            ends: Vec::new(),
        }
    }

    /// Each block of the batch with its runs.
    fn blocks(&self) -> impl Iterator<Item = (u64, &[SectorRun])> {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|&(_, end)| end));
        self.ends
            .iter()
            .zip(starts)
            .map(|(&(b, end), start)| (b, &self.runs[start..end]))
    }
}

/// [`from_touches`], fed the sorted touches of blocks 0, 1, … in turn.
pub struct TouchStream {
    weights: Vec<f64>,
    walked: u64,
    blocks: u64,
    fed: u64,
    tally: Tally,
    /// `None` where the leading blocks are summed apart ([`stream_blocks`]).
    leading: Option<Leading>,
}

impl TouchStream {
    pub fn new(weights: &[f64], walked: u64, blocks: u64) -> TouchStream {
        TouchStream {
            leading: Some(Leading::new(weights, &[])),
            ..TouchStream::without_leading(weights, walked, blocks)
        }
    }

    /// A stream whose leading blocks' windows and growth the caller sums, and hands to
    /// [`TouchStream::finish_with`].
    fn without_leading(weights: &[f64], walked: u64, blocks: u64) -> TouchStream {
        TouchStream {
            weights: weights.to_vec(),
            walked,
            blocks,
            fed: 0,
            tally: Tally::new(weights.len()),
            leading: None,
        }
    }

    /// The touches of block `b`, the next one, as runs in progress order; at one progress,
    /// the runs holding a sector in (write, group) order, loads first (as [`SectorRun`]s
    /// order). Nothing else about their order changes the profile.
    pub fn block(&mut self, b: u64, runs: &[SectorRun]) {
        debug_assert_eq!(b, self.fed, "blocks come in order");
        debug_assert!(runs.is_sorted_by_key(|r| r.progress));
        self.fed = b + 1;
        if let Some(leading) = &mut self.leading {
            leading.block(b, runs);
        }
        self.tally.block(b, runs, &self.weights, self.walked);
    }

    pub fn finish(mut self) -> ReuseProfile {
        // every public constructor sums the leading blocks here
        let leading = self
            .leading
            .take()
            .unwrap_or_else(|| Leading::new(&self.weights, &[]));
        self.finish_with(leading)
    }

    /// The profile, with the leading blocks' sums `leading`.
    fn finish_with(self, leading: Leading) -> ReuseProfile {
        // A cut loop stands for `weight` times its requests, but for more data only as far as
        // its blocks touch new data from trip to trip: a sweep of the same rows adds none.
        let growth: Vec<Option<CutGrowth>> = leading
            .growth
            .iter()
            .map(|s| s.as_ref().map(GrowthSums::growth))
            .collect();
        let data_weights: Vec<f64> = growth
            .iter()
            .map(|c| c.as_ref().map_or(1.0, CutGrowth::data_weight))
            .collect();
        let mut windows = leading.windows.points();
        for w in &mut windows {
            w.sectors += growth
                .iter()
                .flatten()
                .map(|c| c.beyond_walk(w.lifetime))
                .sum::<f64>();
        }
        let t = self.tally;
        let scaled = |per_group: &[f64]| -> f64 {
            per_group
                .iter()
                .zip(&data_weights)
                .map(|(n, w)| n * w)
                .sum()
        };
        ReuseProfile {
            windows,
            blocks_walked: self.walked,
            blocks: self.blocks,
            requests: t.requests,
            first_touches: scaled(&t.first),
            block_reloads: (t.load_requests - t.loads_seen - scaled(&t.loads_first)).max(0.0),
            outer_share: 1.0,
            reuse: t.buckets.in_order(),
            idle_lead_blocks: t.first_busy.unwrap_or(0),
            footprint: t
                .marks
                .iter()
                .map(|(blocks, per_group)| FootprintPoint {
                    blocks: *blocks,
                    sectors: scaled(per_group),
                })
                .collect(),
            left_out: Vec::new(),
        }
    }
}

/// Whether block `b` is among the leading blocks of a walk whose first busy block is
/// `first_busy`.
fn leads(first_busy: u64, b: u64) -> bool {
    b < first_busy + WINDOW_BLOCKS
}

/// What the profile takes of the leading [`WINDOW_BLOCKS`] blocks alone: the windows, and
/// how the data of each group walked for a share of its loops grows.
struct Leading {
    windows: WindowSums,
    growth: Vec<Option<GrowthSums>>,
    /// The first block with any touch: the leading blocks are the [`WINDOW_BLOCKS`] from it.
    first_busy: Option<u64>,
}

impl Leading {
    /// `spans`: each group's place in the block's progress ([`super::Timeline::span`]); none
    /// where each group's progress is its own loops' (the whole of it).
    fn new(weights: &[f64], spans: &[(f64, f64)]) -> Leading {
        let walked_share = weights.iter().fold(1.0f64, |a, w| a.min(1.0 / w));
        Leading {
            windows: WindowSums::new(walked_share),
            growth: weights
                .iter()
                .enumerate()
                .map(|(g, w)| {
                    let span = spans.get(g).copied().unwrap_or((0.0, 1.0));
                    (*w > 1.0).then(|| GrowthSums::new(1.0 / w, span))
                })
                .collect(),
            first_busy: None,
        }
    }

    /// Block `b`'s runs, as [`TouchStream::block`] takes them; past the leading blocks,
    /// nothing.
    fn block(&mut self, b: u64, runs: &[SectorRun]) {
        if runs.is_empty() || self.first_busy.is_some_and(|f| !leads(f, b)) {
            return;
        }
        self.first_busy.get_or_insert(b);
        self.windows.block(runs);
        // one pass over the runs for every group's growth: a pass per group read the whole
        // block once for each
        for s in self.growth.iter_mut().flatten() {
            s.start_block();
        }
        for r in runs {
            if let Some(Some(s)) = self.growth.get_mut(usize::from(r.group)) {
                s.touch(r);
            }
        }
        for s in self.growth.iter_mut().flatten() {
            s.end_block();
        }
    }
}

/// The running counts. What a cut loop's growth scales is kept per group (`first`,
/// `loads_first`, the distinct sectors at each footprint mark), as counts of walked touches.
struct Tally {
    requests: f64,
    load_requests: f64,
    /// Loads of a sector another block touched last (weighted): new to their block.
    loads_seen: f64,
    first: Vec<f64>,
    loads_first: Vec<f64>,
    sectors: Vec<f64>,
    /// Sector → (block, progress) of its last touch.
    last: SectorTable,
    /// Sector → (block, progress) of its last write, for the sectors written: apart from
    /// `last`, so a sector only read (most of a matrix) costs one entry.
    last_write: SectorTable,
    buckets: Buckets,
    /// (blocks, distinct sectors per group) after 1, 2, 4, … blocks from the first busy one,
    /// and after the last.
    marks: Vec<(u64, Vec<f64>)>,
    next_mark: u64,
    /// The first block with any touch.
    first_busy: Option<u64>,
}

impl Tally {
    fn new(groups: usize) -> Tally {
        Tally {
            requests: 0.0,
            load_requests: 0.0,
            loads_seen: 0.0,
            first: vec![0.0; groups],
            loads_first: vec![0.0; groups],
            sectors: vec![0.0; groups],
            last: SectorTable::default(),
            last_write: SectorTable::default(),
            buckets: Buckets::new(),
            marks: Vec::new(),
            next_mark: 1,
            first_busy: None,
        }
    }

    fn block(&mut self, b: u64, runs: &[SectorRun], weights: &[f64], walked: u64) {
        // a walk's blocks number fewer than 2^32 (it walks at most its budget of points)
        let b32 = u32::try_from(b).unwrap_or(u32::MAX - 1);
        let mut before: Option<&SectorRun> = None;
        for r in runs {
            let (g, w) = (r.group as usize, r.writes);
            let weight = weights[g];
            let here = (b32, r.progress);
            if before == Some(r) && self.repeat(b, here, r, weight) {
                continue;
            }
            before = Some(r);
            if r.lone_sectors() {
                // lone sectors (lanes of an access that does not coalesce), each a run of its
                // own: no buffers
                for s in r.sectors() {
                    let one = SectorRun {
                        first: s,
                        last: s,
                        stride: 1,
                        ..*r
                    };
                    self.lone(b, here, &one, weight);
                }
                continue;
            }
            let n = (r.last - r.first + 1) as f64;
            self.requests += weight * n;
            if !w {
                self.load_requests += weight * n;
            }
            // the run's sectors were mostly last touched together: one bucket for all of them
            let mut same: Option<(Stamp, u32)> = None;
            // counted first and added once: a float sum carried from sector to sector held the
            // tally at its latency
            let (mut firsts, mut new_sectors) = (0u32, 0u32);
            let Tally {
                last,
                last_write,
                buckets,
                loads_seen,
                ..
            } = self;
            let mut retouches = Retouches {
                buckets,
                loads_seen,
            };
            // a load re-touches the sector's last touch, a write its last write
            let mut settle = |prev: Option<Stamp>| match prev {
                Some(p) => retouches.settle(b, r, p, &mut same, weight),
                None => firsts += 1,
            };
            if w {
                last.insert_run_with(r.first, r.last, here, |p| {
                    new_sectors += u32::from(p.is_none());
                });
                last_write.insert_run_with(r.first, r.last, here, &mut settle);
            } else {
                last.insert_run_with(r.first, r.last, here, |p| {
                    new_sectors += u32::from(p.is_none());
                    settle(p);
                });
            }
            if let Some(before) = same {
                retouches.retouch(b, r, before, weight);
            }
            self.sectors[g] += f64::from(new_sectors);
            self.first_touches(r, firsts);
        }
        if self.first_busy.is_none() && !runs.is_empty() {
            self.first_busy = Some(b);
        }
        let Some(first_busy) = self.first_busy else {
            return;
        };
        let busy = b + 1 - first_busy;
        if busy == self.next_mark || b + 1 == walked {
            self.marks.push((busy, self.sectors.clone()));
            if busy == self.next_mark {
                self.next_mark *= 2;
            }
        }
    }

    /// The run `r` of block `b` (stamped `here`) again, right after the same run: each of its
    /// sectors was last touched (a write's, last written) at `here`, so what the tables would
    /// answer is known, and it is summed as [`Tally::lone`] or the run's own path would sum it,
    /// the same additions in the same order. An access the compiler repeats at one place in the
    /// code (an unrolled loop whose address does not change) touches the same sectors at the
    /// same progress again and again. False, and nothing summed, for a run of more sectors
    /// than a `u32` counts (which no warp access makes).
    fn repeat(&mut self, b: u64, here: Stamp, r: &SectorRun, weight: f64) -> bool {
        let Ok(n) = u32::try_from(r.last - r.first + 1) else {
            return false;
        };
        let mut retouches = Retouches {
            buckets: &mut self.buckets,
            loads_seen: &mut self.loads_seen,
        };
        if r.lone_sectors() {
            for _ in r.sectors() {
                self.requests += weight;
                if !r.writes {
                    self.load_requests += weight;
                }
                retouches.retouch(b, r, (here, 1), weight);
            }
            return true;
        }
        let sectors = f64::from(n);
        self.requests += weight * sectors;
        if !r.writes {
            self.load_requests += weight * sectors;
        }
        retouches.retouch(b, r, (here, n), weight);
        true
    }

    /// The run `r` of one sector, of block `b` (stamped `here`), standing for `weight`
    /// requests.
    fn lone(&mut self, b: u64, here: Stamp, r: &SectorRun, weight: f64) {
        self.requests += weight;
        if !r.writes {
            self.load_requests += weight;
        }
        // a load re-touches the sector's last touch, a write its last write
        let prev_touch = self.last.insert(r.first, here);
        let prev = match r.writes {
            true => self.last_write.insert(r.first, here),
            false => prev_touch,
        };
        if prev_touch.is_none() {
            self.sectors[r.group as usize] += 1.0;
        }
        match prev {
            Some(p) => Retouches {
                buckets: &mut self.buckets,
                loads_seen: &mut self.loads_seen,
            }
            .retouch(b, r, (p, 1), weight),
            None => self.first_touches(r, 1),
        }
    }

    /// `n` sectors of run `r` touched for the first time (a write's, written for the first
    /// time). The counts are of walked touches, whole numbers, so adding them at once sums
    /// exactly as one by one.
    fn first_touches(&mut self, r: &SectorRun, n: u32) {
        if n == 0 {
            return;
        }
        self.first[r.group as usize] += f64::from(n);
        if !r.writes {
            self.loads_first[r.group as usize] += f64::from(n);
        }
    }
}

/// Where re-touches are summed: the reuse buckets and the loads of data another block
/// touched last, apart from the tables the run's sectors are looked up in.
struct Retouches<'a> {
    buckets: &'a mut Buckets,
    loads_seen: &'a mut f64,
}

impl Retouches<'_> {
    /// A sector of run `r` of block `b` whose last touch (a write's last write) was `prev`:
    /// a re-touch of `prev`, gathered in `same` with the sectors before it in the run that
    /// re-touch the same (a first touch between them does not part them).
    fn settle(
        &mut self,
        b: u64,
        r: &SectorRun,
        prev: Stamp,
        same: &mut Option<(Stamp, u32)>,
        weight: f64,
    ) {
        match same.as_mut() {
            Some((q, k)) if prev == *q => *k += 1,
            _ => {
                if let Some(before) = same.replace((prev, 1)) {
                    self.retouch(b, r, before, weight);
                }
            }
        }
    }

    /// `k` sectors of run `r` of block `b` whose last touch was at `stamp`.
    fn retouch(&mut self, b: u64, r: &SectorRun, (stamp, k): (Stamp, u32), weight: f64) {
        let (pb, pt) = (u64::from(stamp.0), stamp.1);
        let weight = weight * f64::from(k);
        if !r.writes && pb != b {
            *self.loads_seen += weight;
        }
        let dt = (r.progress as f64 - pt as f64) / PROGRESS_SCALE;
        self.buckets.add(b - pb, dt, weight);
    }
}

/// Window sizes 4^-k of a lifetime, k < this.
const WINDOW_LEVELS: u32 = 7;
/// Blocks the window sizes and a cut loop's growth are averaged over.
const WINDOW_BLOCKS: u64 = 32;

/// Mean distinct sectors per block and window, for windows of 1, 1/4, … of a lifetime, over
/// the leading blocks. Of a walk cut at `walked_share` of the lifetime, only the windows inside
/// the walked share count, or the first window where it is longer: a window the cut runs
/// through would be only partly walked.
struct WindowSums {
    walked_end: u64,
    sums: [(f64, u64); WINDOW_LEVELS as usize],
    /// Blocks summed.
    blocks: u64,
    /// Sector → 1 + the progress of its last touch in this block (0: none). That touch's
    /// window of each level is the last the sector was seen in: a touch updates every level
    /// whose window it opens, and shares the coarser ones with the touch before. One word a
    /// sector rather than one per level keeps the map in cache.
    last: BlockTouches,
}

impl WindowSums {
    fn new(walked_share: f64) -> WindowSums {
        WindowSums {
            walked_end: (walked_share * PROGRESS_SCALE) as u64,
            sums: [(0.0, 0); WINDOW_LEVELS as usize],
            blocks: 0,
            last: BlockTouches::new(),
        }
    }

    fn shift(k: usize) -> u32 {
        24 - 2 * k as u32
    }

    /// One block's runs of touches, in progress order: the windows of each level come one
    /// after the other, and a sector counts once in a window however often it is touched there.
    ///
    /// Levels go finest first, and stop at the first with nothing new: a window lies inside
    /// the current window of every coarser level, so a touch that opens no new finest window
    /// opens no coarser one, and a sector already seen in its finest window was seen, at that
    /// same touch, in each coarser one.
    fn block(&mut self, here: &[SectorRun]) {
        self.last.clear();
        self.blocks += 1;
        // per level: (the current window, its distinct sectors so far)
        let mut open: [Option<(u32, usize)>; WINDOW_LEVELS as usize] =
            [None; WINDOW_LEVELS as usize];
        let mut at = None;
        for r in here {
            let t = r.progress;
            if at != Some(t) {
                at = Some(t);
                for (k, cur) in open.iter_mut().enumerate().rev() {
                    let w = t >> Self::shift(k);
                    if matches!(cur, Some((cw, _)) if *cw == w) {
                        break;
                    }
                    if let Some((cw, n)) = cur.take() {
                        Self::close(&mut self.sums[k], self.walked_end, k, cw, n);
                    }
                    *cur = Some((w, 0));
                }
            }
            for s in r.sectors() {
                let seen = self.last.last_touch(s, t);
                for (k, cur) in open.iter_mut().enumerate().rev() {
                    let shift = Self::shift(k);
                    if seen != 0 && (seen - 1) >> shift == t >> shift {
                        break;
                    }
                    if let Some((_, n)) = cur {
                        *n += 1;
                    }
                }
            }
        }
        for (k, cur) in open.iter().enumerate() {
            if let Some((cw, n)) = cur {
                Self::close(&mut self.sums[k], self.walked_end, k, *cw, *n);
            }
        }
    }

    fn close(sum: &mut (f64, u64), walked_end: u64, k: usize, w: u32, n: usize) {
        let shift = Self::shift(k);
        if w > 0 && (u64::from(w) + 1) << shift > walked_end {
            return;
        }
        sum.0 += n as f64;
        sum.1 += 1;
    }

    fn points(&self) -> Vec<WindowPoint> {
        self.sums
            .iter()
            .enumerate()
            .filter(|(_, (_, n))| *n > 0)
            .map(|(k, (s, n))| {
                // the windows `close` counts: the first, and those inside the walked share
                let countable = (self.walked_end >> Self::shift(k)).max(1);
                WindowPoint {
                    lifetime: 0.25f64.powi(k as i32),
                    sectors: s / *n as f64,
                    occupied: (*n as f64 / (self.blocks * countable) as f64).min(1.0),
                }
            })
            .collect()
    }
}

/// [`CutGrowth`]'s sums over the leading blocks: distinct sectors of the group per block, and
/// those within the first half of the walked share of the lifetime.
struct GrowthSums {
    share: f64,
    /// Where the group's loops start in the block's progress, and the share of it they span:
    /// its runs' progress is taken back to its own loops' to measure its share walked.
    span: (f64, f64),
    half: u32,
    whole: usize,
    first_half: usize,
    /// The least progress of a touch at or past `half`: where the second half's data starts.
    /// Trips come at whole steps of progress, so with an odd number walked the first half
    /// holds one trip more than half of them (4 of 7), and the second half's data grows over
    /// the share from here, not from `half`.
    second_from: u32,
    blocks: u64,
    /// Sector → 1 + the progress of its first touch, for the block at hand: the runs come
    /// in progress order, so the first touch is the earliest.
    seen: BlockTouches,
}

impl GrowthSums {
    fn new(share: f64, span: (f64, f64)) -> GrowthSums {
        GrowthSums {
            share,
            span,
            half: (share / 2.0 * PROGRESS_SCALE) as u32,
            whole: 0,
            first_half: 0,
            second_from: u32::MAX,
            blocks: 0,
            seen: BlockTouches::new(),
        }
    }

    /// A new block: its sectors are counted afresh.
    fn start_block(&mut self) {
        self.seen.clear();
    }

    /// A run of the group's, in the block's progress order.
    fn touch(&mut self, r: &SectorRun) {
        let t = self.own_progress(r.progress);
        if t >= self.half {
            self.second_from = self.second_from.min(t);
        }
        for s in r.sectors() {
            self.seen.first_touch(s, t);
        }
    }

    /// A progress of the block's, as far through the group's own loops.
    fn own_progress(&self, t: u32) -> u32 {
        let (start, span) = self.span;
        if (start, span) == (0.0, 1.0) {
            return t;
        }
        let own = (f64::from(t) / PROGRESS_SCALE - start) / span;
        (own.clamp(0.0, 1.0) * PROGRESS_SCALE) as u32
    }

    /// The block's runs are all in: its distinct sectors go into the sums.
    fn end_block(&mut self) {
        let seen = &self.seen.map;
        if !seen.is_empty() {
            self.whole += seen.len();
            self.first_half += seen.values().filter(|t| *t - 1 < self.half).count();
            self.blocks += 1;
        }
    }

    fn growth(&self) -> CutGrowth {
        let per_block = |n: usize| n as f64 / self.blocks.max(1) as f64;
        let walked = per_block(self.whole);
        let second = self.share - f64::from(self.second_from) / PROGRESS_SCALE;
        let span = if self.second_from != u32::MAX && second > 0.0 {
            second
        } else {
            self.share / 2.0
        };
        CutGrowth {
            share: self.share,
            walked,
            slope: (walked - per_block(self.first_half)).max(0.0) / span,
        }
    }
}

/// Sector → 1 + the progress of a touch in the block at hand (0: none): a map, with a
/// direct-mapped cache of the sectors touched lately in front of it. A lane that reads along
/// its own row touches one sector on several trips in a row, and a block's lanes touch a few
/// hundred sectors at a time: those find their slot and leave the map alone, where every
/// touch was a lookup in a map too large for the core's cache (most of a matrix-vector
/// product's leading blocks).
struct BlockTouches {
    map: HashMap<i64, u32, BuildHasherDefault<SectorHasher>>,
    /// (sector, 1 + progress, whether that progress is newer than the map's), by a hash of
    /// the sector; a progress of 0 for none.
    slots: Vec<(i64, u32, bool)>,
}

impl BlockTouches {
    const BITS: u32 = 12;

    fn new() -> BlockTouches {
        BlockTouches {
            map: HashMap::default(),
            slots: vec![(0, 0, false); 1 << Self::BITS],
        }
    }

    /// A new block: no sector touched yet.
    fn clear(&mut self) {
        self.map.clear();
        self.slots.fill((0, 0, false));
    }

    fn slot(s: i64) -> usize {
        ((s as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - Self::BITS)) as usize
    }

    /// Records a touch of sector `s` at progress `t` as its last; returns 1 + the progress of
    /// the last touch before it in the block (0: none). A slot's progress newer than the map's
    /// goes into the map when another sector takes the slot.
    fn last_touch(&mut self, s: i64, t: u32) -> u32 {
        let slot = &mut self.slots[Self::slot(s)];
        if slot.1 != 0 && slot.0 == s {
            let prev = slot.1;
            if prev != t + 1 {
                *slot = (s, t + 1, true);
            }
            return prev;
        }
        if slot.1 != 0 && slot.2 {
            self.map.insert(slot.0, slot.1);
        }
        let prev = self.map.insert(s, t + 1).unwrap_or(0);
        *slot = (s, t + 1, false);
        prev
    }

    /// Records a touch of sector `s` at progress `t`, keeping its first: a sector in a slot
    /// was touched in this block already, and its first touch is in the map.
    fn first_touch(&mut self, s: i64, t: u32) {
        let slot = &mut self.slots[Self::slot(s)];
        if slot.1 != 0 && slot.0 == s {
            return;
        }
        self.map.entry(s).or_insert(t + 1);
        *slot = (s, t + 1, false);
    }
}

/// How a cut group's data grows over a block's lifetime, measured on the walked trips: the
/// mean distinct sectors per block within the first half of the walked share of its lifetime,
/// and within all of it. Extrapolated along that slope: a block that streams adds as much data
/// in every trip, one that sweeps the same rows adds none, and one that streams beside a table
/// it re-reads adds the streamed part only.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CutGrowth {
    /// The share of the lifetime walked.
    share: f64,
    /// Distinct sectors per block over the walked share.
    walked: f64,
    /// Distinct sectors per block added per lifetime, along the walked share's second half.
    slope: f64,
}

impl CutGrowth {
    /// How many sectors of data one walked first touch stands for over the whole lifetime.
    fn data_weight(&self) -> f64 {
        if self.walked > 0.0 {
            1.0 + self.slope * (1.0 - self.share) / self.walked
        } else {
            1.0
        }
    }

    /// The sectors a window of `lifetime` would add past the walked share.
    fn beyond_walk(&self, lifetime: f64) -> f64 {
        self.slope * (lifetime - self.share).max(0.0)
    }
}

/// Largest progress bucket ([`progress_bucket`]): ±(1 + 24).
const PROGRESS_BUCKETS: i32 = 25;

/// (block-distance bucket, progress bucket) → (requests, summed progress difference), one
/// cell each: every re-touch adds to one, so they are an array rather than a map. Distance
/// buckets are 0 and the powers of two up to 2^63 (index 0 to 64).
struct Buckets {
    cells: Vec<(f64, f64)>,
}

const PROGRESS_CELLS: usize = 2 * PROGRESS_BUCKETS as usize + 1;

impl Buckets {
    fn new() -> Buckets {
        Buckets {
            cells: vec![(0.0, 0.0); 65 * PROGRESS_CELLS],
        }
    }

    /// A re-touch `distance` blocks and `dt` of a lifetime after the last, standing for
    /// `weight` requests.
    fn add(&mut self, distance: u64, dt: f64, weight: f64) {
        let d = match distance {
            0 => 0,
            d => bucket_of(d).trailing_zeros() as usize + 1,
        };
        let p = (progress_bucket(dt) + PROGRESS_BUCKETS) as usize;
        let c = &mut self.cells[d * PROGRESS_CELLS + p];
        c.0 += weight;
        c.1 += weight * dt;
    }

    /// The buckets with requests, by distance and then progress.
    fn in_order(&self) -> Vec<ReuseBucket> {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, (requests, _))| *requests > 0.0)
            .map(|(i, &(requests, dt))| ReuseBucket {
                min_distance: match i / PROGRESS_CELLS {
                    0 => 0,
                    d => 1 << (d - 1),
                },
                progress: dt / requests,
                requests,
            })
            .collect()
    }
}

/// 0 for no difference; else ±(1 + k) for a difference in [2^-(k+1), 2^-k), k up to 24.
/// The k of |dt| = m·2^e (1 ≤ m < 2) is -e - 1, read off the binary exponent: the walk asks
/// this of every touch, and a `log2` and a `ceil` were 10 % of its time.
pub(super) fn progress_bucket(dt: f64) -> i32 {
    if dt == 0.0 {
        return 0;
    }
    let exponent = ((dt.abs().to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let k = (-exponent - 1).clamp(0, 24);
    (1 + k) * dt.signum() as i32
}

/// 0 → 0; otherwise the largest power of two not above `d`.
pub(super) fn bucket_of(d: u64) -> u64 {
    if d == 0 {
        0
    } else {
        1 << (63 - d.leading_zeros())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// [`progress_bucket`] by its definition: the first k whose 2^-(k+1) |dt| reaches.
    fn progress_bucket_by_definition(dt: f64) -> i32 {
        if dt == 0.0 {
            return 0;
        }
        let k = (0..=24)
            .find(|&k| dt.abs() >= 2f64.powi(-(k + 1)))
            .unwrap_or(24);
        (1 + k) * dt.signum() as i32
    }

    #[test]
    fn progress_buckets_at_both_ends_of_each_and_beyond() {
        for k in 0..=24 {
            let (low, high) = (2f64.powi(-(k + 1)), 2f64.powi(-k));
            let just_below_high = f64::from_bits(high.to_bits() - 1);
            for dt in [low, just_below_high] {
                assert_eq!(progress_bucket(dt), 1 + k, "{dt:e}");
                assert_eq!(progress_bucket(-dt), -(1 + k), "{dt:e}");
            }
        }
        for (dt, b) in [(1.0, 1), (1e300, 1), (f64::INFINITY, 1), (-3.0, -1)] {
            assert_eq!(progress_bucket(dt), b, "{dt:e}");
        }
        for dt in [2f64.powi(-26), f64::MIN_POSITIVE / 4.0, 1e-300] {
            assert_eq!(progress_bucket(dt), 25, "{dt:e}");
        }
    }

    proptest! {
        #[test]
        fn progress_bucket_is_its_definition(dt in -4.0f64..4.0, scale in -40i32..4) {
            let dt = dt * 2f64.powi(scale);
            prop_assert_eq!(progress_bucket(dt), progress_bucket_by_definition(dt));
        }
    }

    /// The windows by their definition: per level, the distinct sectors of each window of
    /// the block's touches, over the windows the walk covered.
    fn windows_by_definition(blocks: &[Vec<SectorRun>], walked_end: u64) -> Vec<(f64, u64)> {
        (0..WINDOW_LEVELS as usize)
            .map(|k| {
                let shift = WindowSums::shift(k);
                let mut sum = (0.0, 0);
                for here in blocks {
                    let mut per: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
                    for r in here {
                        per.entry(r.progress >> shift)
                            .or_default()
                            .extend(r.sectors());
                    }
                    for (w, sectors) in per {
                        WindowSums::close(&mut sum, walked_end, k, w, sectors.len());
                    }
                }
                sum
            })
            .collect()
    }

    /// A block's touches answer through the cache as through a plain map, with far more
    /// sectors than slots (so sectors take each other's slots and newer progresses go back
    /// to the map), sectors touched again at once and much later, and blocks in turn.
    #[test]
    fn block_touches_answer_as_a_map_does() {
        let (mut last, mut first) = (BlockTouches::new(), BlockTouches::new());
        let (mut want_last, mut want_first) = (HashMap::new(), HashMap::new());
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut evicted_dirty = 0;
        for step in 0u32..300_000 {
            if step % 100_000 == 0 {
                last.clear();
                first.clear();
                want_last.clear();
                want_first.clear();
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s = match step % 3 {
                0 => (x % 300) as i64,                  // a few hundred, in their slots
                1 => (x % 20_000) as i64 * 977 - 5_000, // many, scattered, some negative
                _ => i64::from(step / 4),               // streaming
            };
            // progress never goes back within a block
            let t = step % 100_000 / 3;
            let slot = last.slots[BlockTouches::slot(s)];
            if slot.1 != 0 && slot.0 != s && slot.2 {
                evicted_dirty += 1;
            }
            let got = last.last_touch(s, t);
            assert_eq!(got, want_last.insert(s, t + 1).unwrap_or(0), "sector {s}");
            first.first_touch(s, t);
            want_first.entry(s).or_insert(t + 1);
            if step % 99_999 == 0 {
                assert_eq!(
                    first.map,
                    want_first.iter().map(|(k, v)| (*k, *v)).collect()
                );
            }
        }
        assert!(
            evicted_dirty > 1000,
            "{evicted_dirty} newer progresses written back"
        );
    }

    /// The threaded walk (tally and leading blocks apart, batches recycled) gives the profile
    /// the same blocks fed one by one give: more blocks than the leading ones, batches of
    /// several blocks and a block larger than a batch, more batches than are made (so the walk
    /// waits for some to come back), loads and stores, a cut group.
    #[test]
    fn streamed_blocks_tally_as_blocks_fed_in_turn() {
        let weights = [1.0, 4.0];
        let walked = WINDOW_BLOCKS + 60;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let blocks: Vec<Vec<SectorRun>> = (0..walked)
            .map(|b| {
                let n = if b == 3 {
                    BATCH_RUNS + 500
                } else {
                    300 + (b as usize % 7) * 150
                };
                let mut runs: Vec<SectorRun> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let first = (x % 5000) as i64 + b as i64 * 40;
                        SectorRun {
                            progress: (((x >> 20) % 64) as u32) << 18,
                            writes: x >> 40 & 1 == 1,
                            group: (x >> 41 & 1) as u16,
                            first,
                            last: first + (x >> 42) as i64 % 4,
                            stride: 1,
                        }
                    })
                    .collect();
                runs.sort_by_key(SectorRun::tally_key);
                runs
            })
            .collect();
        // the batches the walk hands over, by its rule
        let mut handed = 0;
        let mut held = 0;
        for (b, runs) in blocks.iter().enumerate() {
            held += runs.len();
            if held >= BATCH_RUNS || b as u64 + 1 == walked {
                (handed, held) = (handed + 1, 0);
            }
        }
        assert!(handed > MAX_BATCHES + 1, "{handed} batches");
        let mut fed = TouchStream::new(&weights, walked, 2 * walked);
        for (b, runs) in blocks.iter().enumerate() {
            fed.block(b as u64, runs);
        }
        let streamed = stream_blocks(&weights, &[], walked, 2 * walked, |b, runs| {
            runs.extend_from_slice(&blocks[b as usize]);
            Ok(())
        });
        let want = fed.finish();
        assert!(!want.windows.is_empty() && want.first_touches > 0.0);
        assert_eq!(streamed, Ok(want));
    }

    /// A block that reads all its data at its start touches data in one window of each size;
    /// one that streams it through its run, in every window down to the spacing of its reads.
    #[test]
    fn windows_say_how_many_of_them_a_block_touches_data_in() {
        let at_once = from_touches((0..8).map(|s| (0, 0, s, false, 0)).collect(), &[1.0], 1, 1);
        let occupied: Vec<(f64, f64)> = at_once
            .windows
            .iter()
            .map(|w| (w.lifetime, w.occupied))
            .collect();
        assert_eq!(occupied[..3], [(1.0, 1.0), (0.25, 0.25), (0.0625, 0.0625)]);
        assert_eq!(at_once.window_occupied(0.125), 0.125);
        let streaming = from_touches(
            (0..16u32)
                .map(|k| (0, k << 20, i64::from(k), false, 0))
                .collect(),
            &[1.0],
            1,
            1,
        );
        assert_eq!(streaming.window_occupied(0.0625), 1.0);
        // 16 reads, one in every fourth of the 64 windows of a 64th of the run
        assert_eq!(streaming.window_occupied(1.0 / 64.0), 0.25);
    }

    /// A run of the proptests below: at progress `t` (scaled), `n + 1` sectors `stride` apart.
    fn test_run(t: u32, writes: bool, group: u16, first: i64, n: i64, stride: u32) -> SectorRun {
        SectorRun {
            progress: t << 20,
            writes,
            group,
            first,
            last: first + n * i64::from(stride),
            stride,
        }
    }

    /// Each block's runs, put in the tally's order (stably, so a run's repeats stay together),
    /// tallied as runs and as their sectors' touches one by one.
    fn tally_both_ways(blocks: Vec<Vec<SectorRun>>) -> (ReuseProfile, ReuseProfile) {
        let weights = [1.0, 2.0, 4.0];
        let walked = blocks.len() as u64;
        let mut stream = TouchStream::new(&weights, walked, 2 * walked);
        let mut touches = Vec::new();
        for (b, mut runs) in blocks.into_iter().enumerate() {
            runs.sort_by_key(SectorRun::tally_key);
            for r in &runs {
                touches.extend(
                    r.sectors()
                        .map(|s| (b as u64, r.progress, s, r.writes, r.group)),
                );
            }
            stream.block(b as u64, &runs);
        }
        (
            stream.finish(),
            from_touches(touches, &weights, walked, 2 * walked),
        )
    }

    proptest! {
        /// Progress on a coarse grid, and runs that overlap, so sectors are touched again at
        /// one progress.
        #[test]
        fn window_sums_count_each_sector_once_per_window(
            blocks in prop::collection::vec(
                prop::collection::vec((0u32..64, 0i64..40, 0i64..4), 0..120), 1..4),
            share in 0.05f64..1.0,
        ) {
            let blocks: Vec<Vec<SectorRun>> = blocks
                .into_iter()
                .map(|ts| {
                    let mut v: Vec<SectorRun> = ts
                        .into_iter()
                        .map(|(t, s, n)| SectorRun {
                            progress: t << 18,
                            writes: false,
                            group: 0,
                            first: s,
                            last: s + n,
                            stride: 1,
                        })
                        .collect();
                    v.sort_by_key(|r| r.progress);
                    v
                })
                .collect();
            let mut sums = WindowSums::new(share);
            for b in &blocks {
                sums.block(b);
            }
            let want = windows_by_definition(&blocks, sums.walked_end);
            prop_assert_eq!(sums.sums.to_vec(), want);
        }

        /// A walk's runs tally as their sectors' touches do one by one (as the emulator's
        /// traces are tallied): runs that overlap, runs of sectors apart, loads and stores,
        /// several groups, one of them weighted as a cut loop's.
        #[test]
        fn runs_tally_as_their_touches_do(
            blocks in prop::collection::vec(
                prop::collection::vec(
                    (0u32..4, any::<bool>(), 0u16..3, 0i64..40, 0i64..5, 1u32..4), 0..60),
                1..6),
        ) {
            let blocks: Vec<Vec<SectorRun>> = blocks
                .iter()
                .map(|runs| {
                    runs.iter()
                        .map(|&(t, writes, group, first, n, stride)| {
                            test_run(t, writes, group, first, n, stride)
                        })
                        .collect()
                })
                .collect();
            let (by_runs, by_touches) = tally_both_ways(blocks);
            prop_assert_eq!(by_runs, by_touches);
        }

        /// A run repeated at once (an unrolled access whose address does not change), which
        /// the tally sums without looking its sectors up again, tallies as its touches do.
        #[test]
        fn repeated_runs_tally_as_their_touches_do(
            blocks in prop::collection::vec(
                prop::collection::vec(
                    (0u32..4, any::<bool>(), 0u16..3, 0i64..40, 0i64..5, 1u32..4, 1usize..4),
                    0..30),
                1..6),
        ) {
            let blocks: Vec<Vec<SectorRun>> = blocks
                .iter()
                .map(|runs| {
                    runs.iter()
                        .flat_map(|&(t, writes, group, first, n, stride, times)| {
                            std::iter::repeat_n(test_run(t, writes, group, first, n, stride), times)
                        })
                        .collect()
                })
                .collect();
            let (by_runs, by_touches) = tally_both_ways(blocks);
            prop_assert_eq!(by_runs, by_touches);
        }
    }
}
