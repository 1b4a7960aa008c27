//! The L2 hit rate of a kernel's global sector traffic, for the models that split traffic
//! between the L2 and the DRAM (dvfs, roofline).
//!
//! In order of precedence: the user's `l2_hit_rate`; the user's `footprint_bytes`
//! ([`l2_hit_from_footprint`]); the counter's reuse profile of the kernel's addresses
//! ([`hit_from_profile`]); else 0, every sector from DRAM. The notes say which one was used and
//! why the ones before it were not.
//!
//! The profile model is reuse-distance reasoning (as in Nugteren et al., "A detailed GPU cache
//! model based on reuse distance theory", HPCA 2014) at the granularity the profile keeps:
//! blocks run in dispatch order, `W` of them at once (the occupancy times the SMs). The first
//! `W` start together and go through their loops in lockstep: a re-touch `d` blocks and `Δt`
//! of a block's lifetime after the previous touch falls `k` waves later, k = ⌊d/W⌋ or k + 1
//! (weighted by where the two blocks fall), and the data touched in between is a wave's
//! footprint × the share of its data a block touches within that much of its lifetime (|Δt|
//! within a wave, k + Δt across waves: a streaming block touches a share proportional to the
//! window, one that sweeps the same data again and again all of it; past one lifetime, the
//! footprint of that many blocks, so data shared between waves counts once). Later blocks
//! start one by one as earlier ones end, `d` blocks apart d/W of a lifetime apart, each at its
//! own point of its run: the data in between is that of d/W + Δt lifetimes, of the blocks
//! that touch any in such a window. The request hits when that data fits in the L2 (least
//! recently used replacement; random replacement's L2 / data made a matrix that every row of
//! blocks reads hit two times in three where gpuFLOPBench's RTX 3080 fetched it again for
//! every row). First touches miss; since the walk covers only the leading blocks, their share
//! over the launch is scaled by how the footprint curve grows (a matrix every row of blocks
//! reads is first touched once, not once per walked row), and the walk's other first touches
//! are re-touches it could not see, put back at the distances it saw them at in proportion to
//! how much of each the walk missed; those farther back than the walk reaches are priced as
//! misses. What it leaves out: the L1 (every request is taken to reach the L2), set
//! conflicts, and the first wave's blocks drifting out of step.

use crate::device::Device;
use crate::model::{ModelInput, Result, HINT_FOOTPRINT_BYTES, HINT_L2_HIT_RATE};
use crate::schedule::thesis::{waves, SmLimits};
use kerncast_passes::reuse::{Reuse, ReuseBucket, ReuseProfile};
use kerncast_passes::stats::{Feature, Space};

const SECTOR_BYTES: f64 = 32.0;

/// The L2 hit rate of global traffic (`traffic` bytes of sectors); see the module docs.
pub fn l2_hit_rate(
    input: &ModelInput,
    d: &Device,
    traffic: f64,
    model: &str,
    notes: &mut Vec<String>,
) -> Result<f64> {
    if let Some(h) = input.hint(HINT_L2_HIT_RATE) {
        return Ok(h.clamp(0.0, 1.0));
    }
    if let (Some(f), true) = (input.hint(HINT_FOOTPRINT_BYTES), traffic > 0.0) {
        let l2 = *d.need(&d.hw.l2_bytes, "hw.l2_bytes", model)? as f64;
        let hr = l2_hit_from_footprint(traffic, f, l2);
        notes.push(format!("l2_hit_rate {hr:.3} derived: {traffic:.0} B of sector traffic over a {f:.0} B footprint (footprint_bytes) with a {l2:.0} B L2"));
        return Ok(hr);
    }
    let why = match &input.stats.reuse {
        Some(Reuse::Profile(p)) if p.requests > 0.0 => {
            match (concurrent_blocks(input, d), d.hw.l2_bytes.as_ref()) {
                (Some(w), Some(l2)) => {
                    let h = hit_from_profile(p, w, l2.value as f64);
                    notes.push(h.describe(p, l2.value as f64));
                    for what in &p.left_out {
                        notes.push(format!("not in the L2 reuse profile: {what}"));
                    }
                    return Ok(h.rate);
                }
                (None, _) => "the device lacks hw.sm_count or hw.max_threads_per_sm".to_string(),
                (_, None) => "the device lacks hw.l2_bytes".to_string(),
            }
        }
        Some(Reuse::Profile(_)) => "no global sector requests were walked".to_string(),
        Some(Reuse::Unavailable(why)) => why.clone(),
        None => "the counter walks no addresses (emulator)".to_string(),
    };
    notes.push(format!("l2_hit_rate not given and no reuse profile ({why}): 0 assumed (every transaction from DRAM); set l2_hit_rate, or footprint_bytes to derive it"));
    Ok(0.0)
}

/// L2 hit rate from the global sector traffic, the kernel's compulsory footprint (bytes its
/// buffers occupy, a user hint) and the L2 size: the first touch of every footprint byte comes
/// from DRAM; a re-touch hits with the probability that its line is still resident, taken as the
/// share of the footprint that fits in the L2 (1 when it all fits).
pub fn l2_hit_from_footprint(traffic: f64, footprint: f64, l2_bytes: f64) -> f64 {
    if traffic <= 0.0 {
        return 0.0;
    }
    let f = footprint.clamp(0.0, traffic);
    let fits = if f > 0.0 {
        (l2_bytes / f).min(1.0)
    } else {
        1.0
    };
    let dram = f + (traffic - f) * (1.0 - fits);
    (1.0 - dram / traffic).clamp(0.0, 1.0)
}

/// Bytes of the kernel's writes still dirty in the L2 when it ends: the device's
/// `hw.l2_dirty_at_exit_bytes`, at most the sector bytes the kernel's stores and atomics write
/// and the global bytes taken to reach DRAM. A write-back L2 sends them to DRAM after the
/// kernel, so a profiler's DRAM count of the kernel leaves them out. 0 where the profile has
/// no such figure.
pub fn dirty_at_exit_bytes(d: &Device, written_bytes: f64, global_dram_bytes: f64) -> f64 {
    match d.hw.l2_dirty_at_exit_bytes.as_ref() {
        Some(dirty) => left_dirty(dirty.value as f64, written_bytes, global_dram_bytes),
        None => 0.0,
    }
}

/// The sector bytes a kernel's global stores and atomics write.
pub fn written_sector_bytes(s: &kerncast_passes::stats::BoundStats) -> f64 {
    use kerncast_passes::stats::Dir;
    SECTOR_BYTES
        * s.sum_where(|f| {
            matches!(
                f,
                Feature::Sectors {
                    space: Space::Global,
                    dir: Dir::Store | Dir::Atomic,
                }
            )
        })
}

/// Of a kernel that writes `written_bytes` and moves `dram_bytes`, the bytes left dirty in an
/// L2 that holds `amount` of them at the kernel's end.
pub fn left_dirty(amount: f64, written_bytes: f64, dram_bytes: f64) -> f64 {
    amount.min(written_bytes).min(dram_bytes).max(0.0)
}

/// DRAM bytes of the kernel's local-memory traffic: local arrays and stack frames the PTX
/// declares (register spills ptxas adds are not in the counts). Every resident thread owns a
/// frame of `local_bytes_per_thread`, so the frames of the threads resident at once are the data
/// the local sectors cycle through. A frame is written before it is read, so nothing is fetched
/// on a first touch; a request misses with the probability that its sector was evicted, taken as
/// 1 − L2 / footprint once the frames outgrow the L2 (random replacement, as for global
/// re-touches), else 0. Left out as for global traffic: the L1, which serves some local loads,
/// and the write-back of frames still dirty when the kernel ends.
pub fn local_dram_bytes(input: &ModelInput, d: &Device, notes: &mut Vec<String>) -> f64 {
    let s = &input.stats;
    let sectors = s.sum_where(|f| {
        matches!(
            f,
            Feature::Sectors {
                space: Space::Local,
                ..
            }
        )
    });
    let traffic = SECTOR_BYTES * sectors;
    if traffic <= 0.0 {
        return 0.0;
    }
    let resident = concurrent_blocks(input, d)
        .zip(s.launch.as_ref())
        .map(|(blocks, l)| blocks * l.threads_per_block() as f64);
    let (Some(frame), Some(resident), Some(l2)) =
        (s.local_bytes_per_thread, resident, d.hw.l2_bytes.as_ref())
    else {
        notes.push(format!(
            "local memory: {:.3} GB of sectors taken to stay on chip (the frame size, the \
             occupancy or the L2 size is unknown)",
            traffic / 1e9
        ));
        return 0.0;
    };
    let footprint = resident * frame as f64;
    let l2 = l2.value as f64;
    let miss = if footprint > l2 {
        1.0 - l2 / footprint
    } else {
        0.0
    };
    notes.push(format!(
        "local memory: {:.3} GB of sectors; frames of {frame} B × {resident:.0} resident threads \
         = {:.2} MB against a {:.2} MB L2, so {:.0} % of them reach DRAM",
        traffic / 1e9,
        footprint / 1048576.0,
        l2 / 1048576.0,
        100.0 * miss
    ));
    traffic * miss
}

/// Blocks resident at once over the device: blocks per SM (threads, blocks, registers and
/// shared memory limits) × SMs, at most the launch's blocks.
pub fn concurrent_blocks(input: &ModelInput, d: &Device) -> Option<f64> {
    let launch = input.stats.launch?;
    let lim = SmLimits::of(d, "l2").ok()?;
    let tpb = launch.threads_per_block().max(1);
    let w = waves(
        &lim,
        launch.blocks(),
        tpb,
        input.stats.regs_per_thread.map(u64::from),
        input.stats.shared_bytes_per_block,
    );
    let per_sm = (w.nth_sm / tpb).max(1);
    Some((per_sm * lim.sm_count).min(launch.blocks()).max(1) as f64)
}

/// What [`hit_from_profile`] found, by kind of request (shares of the requests walked).
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileHit {
    pub rate: f64,
    pub wave_blocks: f64,
    /// Bytes the blocks of one wave touch together.
    pub wave_bytes: f64,
    pub first_share: f64,
    /// Re-touches of data touched less than a wave of blocks earlier, and the share that hits.
    pub near_share: f64,
    pub near_hit: f64,
    /// Re-touches of older data, and the share that hits.
    pub far_share: f64,
    pub far_hit: f64,
}

/// The hit rate of a reuse profile on an L2 of `l2_bytes` with `wave_blocks` blocks at once.
pub fn hit_from_profile(p: &ReuseProfile, wave_blocks: f64, l2_bytes: f64) -> ProfileHit {
    let blocks = p.blocks as f64;
    // the footprint counts from the first block that touches data: the blocks that run
    let idle = p.idle_lead_blocks as f64;
    let busy_blocks = (blocks - idle).max(1.0);
    let wave_bytes = SECTOR_BYTES * p.sectors_of_blocks(wave_blocks.min(busy_blocks));
    // bytes touched over `lifetimes` block lifetimes of the running wave(s): within one, the
    // share of its data a block cycles through in that window
    let touched = |lifetimes: f64| {
        if lifetimes <= 1.0 {
            wave_bytes * p.window_share(lifetimes.max(0.0))
        } else {
            SECTOR_BYTES * p.sectors_of_blocks((wave_blocks * lifetimes).min(busy_blocks))
        }
    };
    // Past the first wave, blocks start one by one as earlier ones end, each at its own point
    // of its run: over a window of a lifetime, a block touches data in the share of such
    // windows it touches any in (all of them for a loop, a quarter for a quarter-lifetime
    // window of a block that reads all its data at once).
    let touched_staggered = |lifetimes: f64| touched(lifetimes) * p.window_occupied(lifetimes);
    // Least recently used: a sector survives exactly while less than the L2 went through
    // since its last touch. (Random replacement, L2 / bytes, let a matrix re-read by every
    // row of blocks hit two times in three where the RTX 3080 fetches it again every time.)
    let fits = |bytes: f64| f64::from(u8::from(bytes <= l2_bytes));
    let survives = |lifetimes: f64| fits(touched(lifetimes));
    let first_wave = (wave_blocks / blocks).min(1.0);
    let hit_at = |d: f64, dt: f64| {
        // the first wave's blocks start together and go through their loops side by side
        let waves_apart = d / wave_blocks;
        let k = waves_apart.floor();
        let later = waves_apart - k;
        let elapsed = |k: f64| if k == 0.0 { dt.abs() } else { k + dt };
        let together = (1.0 - later) * survives(elapsed(k)) + later * survives(elapsed(k + 1.0));
        // later ones `d` blocks apart start d / wave_blocks of a lifetime apart
        let staggered = fits(touched_staggered((waves_apart + dt).abs()));
        first_wave * together + (1.0 - first_wave) * staggered
    };
    // The walk starts cold: data that later blocks would find touched by earlier ones (a
    // matrix every row of blocks reads) is all first touches in the first rows. Over the whole
    // launch the first touches grow as the footprint does, read off its curve.
    let walked = (p.blocks_walked as f64 - idle).max(1.0);
    let sample_first = p.first_touches / p.requests.max(1.0);
    let footprint_walked = p.sectors_of_blocks(walked);
    let first_share = if footprint_walked > 0.0 {
        let grows = p.sectors_of_blocks(busy_blocks) / footprint_walked;
        (sample_first * grows * walked / busy_blocks).clamp(0.0, sample_first)
    } else {
        sample_first
    };
    // The walk's other first touches are re-touches it could not see: a block `i` blocks into
    // the walk sees no re-touch from farther back than `i`. Of the re-touches at distance `d`,
    // the walk sees those of its blocks past `d`, walked − d of them, and misses `d`: each
    // distance gets back d / (walked − d) of what the walk saw at it. What no walked distance
    // accounts for (data re-touched from farther back than the walk reaches) is priced as a
    // miss.
    let mid = |b: &ReuseBucket| match b.min_distance {
        // the middle of the bucket [d, 2d) on a log scale
        0 | 1 => b.min_distance as f64,
        d => d as f64 * std::f64::consts::SQRT_2,
    };
    let unseen = |b: &ReuseBucket| b.requests * mid(b) / (walked - mid(b)).max(1.0);
    // A cut loop's scaled-up trips re-touch what its walked trips touched, at the distances
    // the walk saw.
    let retouched: f64 = p.reuse.iter().map(|b| b.requests).sum();
    let scaled_up = (p.requests - p.first_touches - retouched).max(0.0);
    let spread = if retouched > 0.0 {
        1.0 + scaled_up / retouched
    } else {
        1.0
    };
    let cut_short = p.requests * (sample_first - first_share);
    let expected: f64 = p.reuse.iter().map(unseen).sum();
    let unseen_scale = if expected > cut_short {
        cut_short / expected
    } else {
        1.0
    };
    let (mut near, mut near_hits, mut far, mut far_hits) = (0.0, 0.0, 0.0, 0.0);
    for b in &p.reuse {
        let d = mid(b);
        let n = b.requests * spread + unseen(b) * unseen_scale;
        let p_hit = hit_at(d, b.progress);
        if d < wave_blocks {
            near += n;
            near_hits += n * p_hit;
        } else {
            far += n;
            far_hits += n * p_hit;
        }
    }
    let n = p.requests.max(1.0);
    let share = |x: f64| if x > 0.0 { x } else { 1.0 };
    ProfileHit {
        rate: ((near_hits + far_hits) / n).clamp(0.0, 1.0),
        wave_blocks,
        wave_bytes,
        first_share,
        near_share: near / n,
        near_hit: near_hits / share(near),
        far_share: far / n,
        far_hit: far_hits / share(far),
    }
}

impl ProfileHit {
    /// One line for the report's notes.
    pub fn describe(&self, p: &ReuseProfile, l2_bytes: f64) -> String {
        let mib = |b: f64| b / (1024.0 * 1024.0);
        let window = if p.outer_share < 1.0 {
            format!(
                " (loops cut to the first {:.1} % of their outer trips, scaled up)",
                100.0 * p.outer_share
            )
        } else {
            String::new()
        };
        let idle = match p.idle_lead_blocks {
            0 => String::new(),
            n => format!(" (the first {n} touch no global data)"),
        };
        // A cut loop's scaled-up trips may re-touch walked data at no distance the walk
        // measured (no re-touch was walked to share them out), and later blocks data from
        // farther back than the walk reaches: they are priced as misses.
        let unplaced = 1.0 - self.first_share - self.near_share - self.far_share;
        let unplaced = if unplaced > 0.0005 {
            format!(
                ", {:.1} % re-touch data at no distance the walk measured (priced as misses)",
                100.0 * unplaced
            )
        } else {
            String::new()
        };
        format!(
            "l2_hit_rate {:.3} from the addresses of the first {} of {} blocks{idle}{window}, {:.0} at once: {:.1} % of sector requests are first touches (DRAM), {:.1} % re-touch data of the last {:.0} blocks ({:.2} MiB a wave, L2 {:.2} MiB; {:.0} % hit), {:.1} % older data ({:.0} % hit){unplaced}",
            self.rate,
            p.blocks_walked,
            p.blocks,
            self.wave_blocks,
            100.0 * self.first_share,
            100.0 * self.near_share,
            self.wave_blocks,
            mib(self.wave_bytes),
            mib(l2_bytes),
            100.0 * self.near_hit,
            100.0 * self.far_share,
            100.0 * self.far_hit,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::reuse::from_touches;

    /// `blocks` blocks of 256 threads storing 10 local sectors per warp, frames of `frame` B.
    fn local_input(blocks: u64, frame: Option<u64>) -> ModelInput {
        use kerncast_passes::stats::{BoundStats, Dir, Launch};
        let mut s = BoundStats {
            launch: Some(Launch {
                grid: [blocks, 1, 1],
                block: [256, 1, 1],
            }),
            local_bytes_per_thread: frame,
            ..Default::default()
        };
        s.features.insert(
            Feature::Sectors {
                space: Space::Local,
                dir: Dir::Store,
            },
            10.0 * 8.0 * blocks as f64,
        );
        ModelInput::new(s)
    }

    #[test]
    fn local_traffic_reaches_dram_once_the_resident_frames_outgrow_the_l2() {
        let d = Device::load("rtx-3080").unwrap();
        let mut notes = Vec::new();
        // 68 SMs × 1536 threads resident, 5 MiB of L2: frames of 1 KiB fill 102 MiB
        let many = local_input(100_000, Some(1024));
        let traffic = 32.0 * 10.0 * 8.0 * 100_000.0;
        let resident = 68.0 * 1536.0;
        let want = traffic * (1.0 - 5.0 * 1048576.0 / (resident * 1024.0));
        let got = local_dram_bytes(&many, &d, &mut notes);
        assert!((got - want).abs() < 1e-6 * want, "{got} against {want}");
        assert!(notes[0].contains("% of them reach DRAM"), "{notes:?}");
        // 16 bytes each: 1.6 MiB of frames stay in the L2
        assert_eq!(
            local_dram_bytes(&local_input(100_000, Some(16)), &d, &mut notes),
            0.0
        );
        // no frame size: on chip, and said so
        assert_eq!(
            local_dram_bytes(&local_input(100_000, None), &d, &mut notes),
            0.0
        );
        assert!(notes.last().unwrap().contains("frame size"), "{notes:?}");
    }

    #[test]
    fn l2_hit_rate_from_footprint() {
        // Everything fits: only the first touch of each byte misses.
        assert!((l2_hit_from_footprint(100.0, 10.0, 1000.0) - 0.9).abs() < 1e-12);
        // Footprint 4x the L2: a quarter of the re-touches hit.
        assert!((l2_hit_from_footprint(100.0, 20.0, 5.0) - 0.2).abs() < 1e-12);
        // Streaming (no re-touch): nothing hits.
        assert_eq!(l2_hit_from_footprint(100.0, 100.0, 1000.0), 0.0);
    }

    /// 64 blocks, each reading its own 10 sectors and the 10 of the block before (a halo),
    /// all at the start of their lifetime.
    fn halo() -> ReuseProfile {
        let t = (0..64u64)
            .flat_map(|b| {
                let own = 10 * b as i64;
                (own - 10..own + 10)
                    .filter(|s| *s >= 0)
                    .map(move |s| (b, 0, s, false, 0))
            })
            .collect();
        from_touches(t, &[1.0], 64, 64)
    }

    #[test]
    fn neighbour_reuse_hits_while_a_wave_fits() {
        let p = halo();
        // 1270 requests: 640 sectors first touched, 630 halo re-touches at distance 1
        assert_eq!(p.first_touches, 640.0);
        let h = hit_from_profile(&p, 8.0, 1e6);
        assert!((h.rate - 630.0 / 1270.0).abs() < 1e-12, "{h:?}");
        assert_eq!(h.near_hit, 1.0);
        // The first wave's 8 blocks start together: in 7 of 8 alignments the neighbour runs
        // alongside at the same time (nothing in between), in 1 of 8 it ran a wave earlier, and
        // a wave's 2560 bytes went through an L2 of 720 since. The other 56 blocks start one
        // by one, an eighth of a lifetime after their neighbour: in between, one block started
        // and read its 10 new sectors (320 bytes), which fit.
        let small = hit_from_profile(&p, 8.0, 720.0);
        let expect = 1.0 / 8.0 * 7.0 / 8.0 + 7.0 / 8.0;
        assert!((small.near_hit - expect).abs() < 1e-12, "{small:?}");
        // an L2 smaller than those 320 bytes: only the first wave's side-by-side re-reads hit
        let tiny = hit_from_profile(&p, 8.0, 300.0);
        assert!(
            (tiny.near_hit - 1.0 / 8.0 * 7.0 / 8.0).abs() < 1e-12,
            "{tiny:?}"
        );
    }

    /// A profile whose first touches fall short of its requests with no re-touch walked (a cut
    /// loop scaled up) says how many requests no distance places, where the shares would
    /// otherwise not add up to 100 %.
    #[test]
    fn requests_no_distance_places_are_named() {
        let mut p = halo();
        p.reuse.clear();
        p.first_touches = 0.8 * p.requests;
        let h = hit_from_profile(&p, 8.0, 1e6);
        assert_eq!(h.rate, 0.0);
        let note = h.describe(&p, 1e6);
        assert!(
            note.contains("80.0 % of sector requests are first touches")
                && note.contains(
                    "20.0 % re-touch data at no distance the walk measured (priced as misses)"
                ),
            "{note}"
        );
        assert!(
            !halo_note().contains("no distance the walk measured"),
            "{}",
            halo_note()
        );
    }

    fn halo_note() -> String {
        let p = halo();
        hit_from_profile(&p, 8.0, 1e6).describe(&p, 1e6)
    }

    /// Each of 8 blocks reads its 4 sectors at the start and again at the end of its loop:
    /// in between, the whole wave's data went through the cache.
    #[test]
    fn a_re_read_a_lifetime_later_needs_the_wave_to_fit() {
        let end = (1u32 << 24) - 1;
        let t = (0..8u64)
            .flat_map(|b| {
                (0..4).flat_map(move |s| {
                    [
                        (b, 0, 4 * b as i64 + s, false, 0),
                        (b, end, 4 * b as i64 + s, false, 0),
                    ]
                })
            })
            .collect();
        let p = from_touches(t, &[1.0], 8, 8);
        assert_eq!(hit_from_profile(&p, 8.0, 1024.0).rate, 0.5);
        // an L2 a byte short of the wave's 1024 bytes has replaced every sector by the re-read
        assert_eq!(hit_from_profile(&p, 8.0, 1023.0).rate, 0.0);
    }

    #[test]
    fn streaming_never_hits() {
        let t = (0..32u64)
            .flat_map(|b| (0..4).map(move |s| (b, 0, 4 * b as i64 + s, false, 0)))
            .collect();
        let p = from_touches(t, &[1.0], 32, 32);
        let h = hit_from_profile(&p, 4.0, 1e9);
        assert_eq!(h.rate, 0.0);
        assert_eq!(h.first_share, 1.0);
    }

    /// Every block reads one shared 64-sector table (2 KiB): a re-touch by the next block hits
    /// while the table fits the L2; four times too large, only where the two blocks read it at
    /// the same time, in the first wave (2 of the 16 blocks) half the alignments.
    #[test]
    fn a_shared_table_hits_while_it_fits() {
        let t = (0..16u64)
            .flat_map(|b| (0..64).map(move |s| (b, 0, s, false, 0)))
            .collect();
        let p = from_touches(t, &[1.0], 16, 16);
        assert_eq!(hit_from_profile(&p, 2.0, 4096.0).rate, 15.0 / 16.0);
        let small = hit_from_profile(&p, 2.0, 512.0).rate;
        assert!(
            (small - 15.0 / 16.0 * (2.0 / 16.0 * 0.5)).abs() < 1e-12,
            "{small}"
        );
    }

    /// Each block reads a shared 8-sector table and 2 sectors of its own; only 2 of the 8
    /// blocks were walked. In the walk the table's first touch is 8 of 20 requests; over the
    /// launch it is 8 of 80: the first touches scale with the footprint (8 + 2 per block).
    #[test]
    fn first_touches_scale_with_the_footprint_past_the_walk() {
        let t = (0..2u64)
            .flat_map(|b| {
                (0..8)
                    .chain([100 + 2 * b as i64, 101 + 2 * b as i64])
                    .map(move |s| (b, 0, s, false, 0))
            })
            .collect();
        let p = from_touches(t, &[1.0], 2, 8);
        assert_eq!(p.first_touches / p.requests, 0.6);
        let h = hit_from_profile(&p, 2.0, 1e6);
        assert!((h.first_share - 24.0 / 80.0).abs() < 1e-12, "{h:?}");
        assert!((h.rate - 0.7).abs() < 1e-12, "{h:?}");
    }

    /// Rows of 8 blocks, one row at once; each block reads 8 sectors of its own twice and a
    /// column sector the block a row earlier read too (a matrix every row of blocks reads
    /// again), on an L2 smaller than a row's data. The walk of two rows sees the column's
    /// re-read only in its second row: in the first it is a first touch, which later rows
    /// would find a row back. Those re-reads miss like the ones the walk saw, rather than
    /// hitting like the block's own re-reads, which are most of what it saw.
    #[test]
    fn re_touches_before_the_walk_reaches_them_fall_where_the_walk_could_not_see() {
        let t = (0..16u64)
            .flat_map(|b| {
                let own = (0..8).map(move |s| 8 * b as i64 + s);
                own.clone()
                    .chain(own)
                    .chain([10_000 + (b % 8) as i64])
                    .map(move |s| (b, 0, s, false, 0))
            })
            .collect();
        let p = from_touches(t, &[1.0], 16, 512);
        let h = hit_from_profile(&p, 8.0, 1024.0);
        // per block over the launch: 17 requests, its own 8 re-reads hit
        assert!((h.rate - 8.0 / 17.0).abs() < 2e-3, "{h:?}");
        assert!((h.far_share - 1.0 / 17.0).abs() < 2e-3, "{h:?}");
        assert_eq!(h.far_hit, 0.0);
    }

    /// 64 blocks, 4 at once, each streaming 16 sectors of its own through its run and reading
    /// at its start a sector the block 2 before read at its start. In the first wave the two
    /// run side by side in 1 − 2√2/4 of the alignments (the distance bucket [2, 4) at its
    /// middle, 2√2 blocks), reading it at the same moment. Past it, blocks start one by one:
    /// the later one starts 2√2/4 of a lifetime after the earlier, by when the wave has
    /// streamed 2√2/4 of its 2112 bytes, more than the 1 KiB L2.
    #[test]
    fn blocks_after_the_first_wave_start_apart_and_re_read_later() {
        let t = (0..64u64)
            .flat_map(|b| {
                let shared = 1_000 + 2 * (b / 4) as i64 + (b % 2) as i64;
                (0..16u32)
                    .map(move |k| (b, k << 20, 16 * b as i64 + k as i64, false, 0))
                    .chain([(b, 0, shared, false, 0)])
            })
            .collect();
        let p = from_touches(t, &[1.0], 64, 64);
        let h = hit_from_profile(&p, 4.0, 1024.0);
        let side_by_side = 1.0 - 2.0 * std::f64::consts::SQRT_2 / 4.0;
        assert!((h.near_hit - side_by_side / 16.0).abs() < 1e-12, "{h:?}");
        // with room for the whole wave every re-read hits
        assert_eq!(hit_from_profile(&p, 4.0, 4096.0).near_hit, 1.0);
    }

    /// A grid whose first 16 blocks touch nothing (a guard that leaves a 3-D grid's first
    /// planes idle), then each block streams 4 sectors of its own: a wave's data is that of 4
    /// blocks that run, and the first touches over the launch are all of its requests.
    #[test]
    fn idle_leading_blocks_are_no_wave() {
        let t = (16..48u64)
            .flat_map(|b| (0..4).map(move |s| (b, 0, 4 * b as i64 + s, false, 0)))
            .collect();
        let p = from_touches(t, &[1.0], 48, 48);
        assert_eq!(p.idle_lead_blocks, 16);
        assert_eq!(p.sectors_of_blocks(4.0), 16.0);
        let h = hit_from_profile(&p, 4.0, 1e6);
        assert_eq!((h.wave_bytes, h.first_share), (4.0 * 4.0 * 32.0, 1.0));
        assert!(h
            .describe(&p, 1e6)
            .contains("(the first 16 touch no global data)"));
    }

    /// Four blocks at once each sweep their own 8 sectors 8 times: a re-read one pass later
    /// has had all 32 sectors of the wave (1 KiB) go through the cache in between, not an
    /// eighth of them, so it hits on a 1 KiB L2 and never on a 512-byte one.
    #[test]
    fn a_sweep_re_read_needs_the_whole_wave_to_fit() {
        let pass = 1u32 << 21;
        let t = (0..4u64)
            .flat_map(|b| {
                (0..8u32).flat_map(move |k| {
                    (0..8).map(move |s| (b, k * pass, 8 * b as i64 + s, false, 0))
                })
            })
            .collect();
        let p = from_touches(t, &[1.0], 4, 4);
        assert_eq!(hit_from_profile(&p, 4.0, 1024.0).rate, 7.0 / 8.0);
        assert_eq!(hit_from_profile(&p, 4.0, 512.0).rate, 0.0);
    }
}
