//! What a reuse profile is made of: the sector touches a walk (or a traced emulator run)
//! records, and the figures they are tallied into ([`ReuseProfile`], [`Reuse`]).
//!
//! Why apart from the walk in `reuse`: these are plain data. The launch's bound statistics
//! (`stats::BoundStats::reuse`) carry a profile and the emulator records touches, and both sit
//! below the walk, which needs the counter's access records, the domains and the affine values.

use serde::{Deserialize, Serialize};

/// `requests` sector requests whose last touch was `min_distance` or more blocks earlier (and
/// fewer than the next power of two: buckets 0, 1, 2, 4, 8, …), at a progress difference of
/// about `progress` (their mean; buckets by powers of two of it too, with its sign).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReuseBucket {
    pub min_distance: u64,
    pub progress: f64,
    pub requests: f64,
}

/// Distinct sectors the first `blocks` blocks touch together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FootprintPoint {
    pub blocks: u64,
    pub sectors: f64,
}

/// Mean distinct sectors per block in a window of `lifetime` of a block's lifetime (over the
/// windows that saw any touch), and the share of a block's windows of that size that saw one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowPoint {
    pub lifetime: f64,
    pub sectors: f64,
    /// 1 for a block that touches data all through its run; 1/4 at a quarter of a lifetime
    /// for one that touches all of it at once.
    #[serde(default = "every_window")]
    pub occupied: f64,
}

fn every_window() -> f64 {
    1.0
}

/// The reuse of global sectors over the first `blocks_walked` blocks of a launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReuseProfile {
    pub blocks_walked: u64,
    pub blocks: u64,
    /// Sector requests walked: distinct sectors per warp access, summed.
    pub requests: f64,
    /// Requests for a sector no earlier block (nor the same block) had touched.
    pub first_touches: f64,
    /// The other requests, by block distance to the previous touch.
    pub reuse: Vec<ReuseBucket>,
    /// Load requests for a sector the same block had touched before: the most an L1 could
    /// serve (an L1 as large as the block's data). Of a cut loop, the load requests its trips
    /// stand for less the new data they stand for, as `first_touches` extrapolates it.
    #[serde(default)]
    pub block_reloads: f64,
    /// Distinct sectors after 1, 2, 4, … blocks, and after all the blocks walked, counted from
    /// the first block that touches any (past `idle_lead_blocks`).
    pub footprint: Vec<FootprintPoint>,
    /// Leading blocks that touch no global data: a guard that leaves a 3-D grid's first planes
    /// idle. The footprint and the windows count from the first block past them, so a wave's
    /// data is that of blocks that run.
    #[serde(default)]
    pub idle_lead_blocks: u64,
    /// Distinct sectors one block touches within a window of its lifetime, for windows of 1,
    /// 1/4, 1/16, … of it: how much data a block cycles through between two touches of the
    /// same sector (a block that sweeps the same data again and again touches all of it in
    /// every window; a streaming one, a share proportional to the window).
    pub windows: Vec<WindowPoint>,
    /// Global accesses left out of the profile, and why (their requests are in no figure here).
    pub left_out: Vec<String>,
    /// The least share of its outer loop's trips any access was walked for (1: whole loops);
    /// the figures above are scaled up to whole loops.
    pub outer_share: f64,
}

/// A reuse profile, or why the launch has none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reuse {
    Profile(ReuseProfile),
    Unavailable(String),
}

/// Bytes of a sector, the unit of a touch.
pub(crate) const SECTOR: i128 = 32;

/// The 32-byte sectors a lane's access of `width` bytes at `addr` covers.
pub fn lane_sectors(addr: i128, width: u64) -> std::ops::RangeInclusive<i128> {
    addr.div_euclid(SECTOR)..=(addr + width as i128 - 1).div_euclid(SECTOR)
}

/// One sector a warp access requests: (block, progress × 2^24, sector, whether it writes, the
/// group of accesses walked together). 24 bytes: a walk keeps a block's touches, and sorts them.
pub type Touch = (u64, u32, i64, bool, u16);

/// Sectors `first..=last`, `stride` apart, that warp accesses of one group request at one
/// progress of a block: how a walk hands a block's touches to the tally, since most warp
/// accesses request one such run (a touch per sector cost the walk most of its time). A
/// stride of 1 is consecutive sectors; a larger one, the lone sectors of lanes a whole number
/// of sectors apart (a matrix-vector product's rows), each its own run to the tally. Runs
/// order by progress, then loads before stores, then group: the order the tally takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SectorRun {
    pub progress: u32,
    pub writes: bool,
    pub group: u16,
    pub first: i64,
    pub last: i64,
    pub stride: u32,
}

impl SectorRun {
    /// The touch of one sector as a run.
    pub fn of_touch(&(_, progress, sector, writes, group): &Touch) -> SectorRun {
        SectorRun {
            progress,
            writes,
            group,
            first: sector,
            last: sector,
            stride: 1,
        }
    }

    /// (progress, writes, group) as one integer, the order a block's runs are tallied in.
    pub fn tally_key(&self) -> u64 {
        u64::from(self.progress) << 17 | u64::from(self.writes) << 16 | u64::from(self.group)
    }

    pub fn sectors(&self) -> std::iter::StepBy<std::ops::RangeInclusive<i64>> {
        (self.first..=self.last).step_by(self.stride as usize)
    }

    /// Whether the tally takes the run sector by sector (one sector, or sectors apart).
    pub fn lone_sectors(&self) -> bool {
        self.first == self.last || self.stride > 1
    }
}

/// A touch's sector from a sector number: its low 64 bits, which tell apart the sectors of any
/// 64-bit address (they have at most 59 bits).
pub fn touch_sector(sector: i128) -> i64 {
    sector as i64
}

/// Progress is kept as an integer so touches sort exactly.
pub const PROGRESS_SCALE: f64 = (1u32 << 24) as f64;

impl ReuseProfile {
    /// The share of a block's lifetime data it touches within a window of `lifetime` (0 to 1),
    /// read off `windows` on a log scale; below the smallest window, in proportion to it.
    pub fn window_share(&self, lifetime: f64) -> f64 {
        let w = &self.windows;
        let Some(whole) = w.first().filter(|p| p.sectors > 0.0) else {
            return lifetime.clamp(0.0, 1.0);
        };
        let share = |p: &WindowPoint| p.sectors / whole.sectors;
        if lifetime >= 1.0 {
            return 1.0;
        }
        if let Some(x) = self.between_windows(lifetime, share) {
            return x;
        }
        let last = w.last().unwrap_or(whole);
        (share(last) * lifetime / last.lifetime).max(0.0)
    }

    /// The share of a block's windows of `lifetime` (0 to 1) in which it touches any data,
    /// read off `windows` on a log scale; below the smallest window, that window's share.
    pub fn window_occupied(&self, lifetime: f64) -> f64 {
        if lifetime >= 1.0 {
            return 1.0;
        }
        self.between_windows(lifetime, |p| p.occupied)
            .or_else(|| self.windows.last().map(|p| p.occupied))
            .unwrap_or(1.0)
    }

    /// `value` at `lifetime`, read off the two windows around it on a log scale; none below
    /// the smallest window.
    fn between_windows(&self, lifetime: f64, value: impl Fn(&WindowPoint) -> f64) -> Option<f64> {
        self.windows.windows(2).find_map(|pair| {
            let (big, small) = (&pair[0], &pair[1]);
            (lifetime >= small.lifetime).then(|| {
                let t = (lifetime / small.lifetime).ln() / (big.lifetime / small.lifetime).ln();
                value(small) * (value(big) / value(small)).powf(t)
            })
        })
    }

    /// Distinct sectors of `n` consecutive blocks, read off the footprint curve: linear between
    /// its points, and past the last one along the slope of its last stretch (what each further
    /// block added there), since only the leading blocks were walked.
    pub fn sectors_of_blocks(&self, n: f64) -> f64 {
        let pts = &self.footprint;
        let Some(lastp) = pts.last() else {
            return 0.0;
        };
        if n <= pts[0].blocks as f64 {
            return pts[0].sectors * n / pts[0].blocks as f64;
        }
        for w in pts.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if n <= b.blocks as f64 {
                let t = (n - a.blocks as f64) / (b.blocks - a.blocks) as f64;
                return a.sectors + t * (b.sectors - a.sectors);
            }
        }
        let slope = match pts.len() {
            1 => lastp.sectors / lastp.blocks as f64,
            k => {
                let a = &pts[k - 2];
                (lastp.sectors - a.sectors) / (lastp.blocks - a.blocks) as f64
            }
        };
        lastp.sectors + slope * (n - lastp.blocks as f64)
    }
}
