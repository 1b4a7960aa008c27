//! Warp-access metrics shared by the emulator (which sees the lanes' actual addresses) and the
//! static counter (which sees them as affine functions of the thread index): the per-warp stride
//! class, 32-byte sectors, 128-byte lines and shared-memory wavefronts. Both producers must use
//! these definitions so their counts agree key for key.
//!
//! **Stride class**: defined on `stats::StrideClass` (a property of the instruction, the same for
//! every warp execution of it); [`StrideEvidence`] is how the emulator recovers it from lanes.
//!
//! **Sectors / lines**: distinct 32-byte / 128-byte aligned segments touched by the accessing
//! lanes of one warp access (each lane's access spans `width` bytes), counted for the global and
//! local spaces only.
//!
//! **Local memory** is interleaved by the hardware: 4-byte word `k` of lane `l`'s frame lies at
//! byte `(32 k + l) · 4` of its warp's local window, so a warp whose lanes access the same offset
//! reads one whole 128-byte line per word. [`local_sectors`] and [`local_lines`] count in that
//! layout from the lanes' frame offsets: a line per distinct word, a sector per distinct word
//! and group of 8 lanes.
//!
//! **Shared wavefronts**: lanes are processed in phases of 128 bytes (32 lanes for accesses up to
//! 32 bits, 16 lanes for 64-bit, 8 for 128-bit). In a phase each lane touches `width/4` 4-byte
//! words (at least one); bank = word mod 32; the phase costs the largest number of *distinct*
//! words in one bank (same-word accesses broadcast), at least 1. A warp access costs the sum over
//! phases with an accessing lane.

use crate::stats::StrideClass;

/// One lane's access: its thread index inside the block and the byte address it accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    pub lane: u32,
    pub tid: [u64; 3],
    pub addr: u64,
}

/// What the executions of one memory instruction reveal about its address as a function of the
/// thread index: the byte coefficient along each dimension (where two lanes of one warp access
/// pinned it down), and whether the executions contradict an affine function with fixed
/// coefficients. The class follows from all executions together, so a warp with a single active
/// lane gets the class of its instruction (see `stats::StrideClass`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StrideEvidence {
    pub coef: [Option<i128>; 3],
    /// Not affine over one warp's lanes, or different coefficients in different executions.
    pub conflict: bool,
}

impl StrideEvidence {
    /// Take in one warp access.
    pub fn observe(&mut self, lanes: &[LaneAccess]) {
        if self.conflict || self.agrees(lanes) {
            return;
        }
        self.reduce(lanes);
    }

    /// Take in one warp access by the row reduction.
    fn reduce(&mut self, lanes: &[LaneAccess]) {
        if self.conflict {
            return;
        }
        match warp_coefficients(lanes) {
            None => self.conflict = true,
            Some(c) => {
                for (known, seen) in self.coef.iter_mut().zip(c) {
                    match (*known, seen) {
                        (Some(a), Some(b)) if a != b => self.conflict = true,
                        (None, Some(b)) => *known = Some(b),
                        _ => {}
                    }
                }
            }
        }
    }

    /// Whether the coefficients known so far cover every dimension the warp's lanes vary in and
    /// give each lane's address: then the warp pins nothing new and conflicts with nothing (any
    /// coefficient it pins is the one solution, which the known ones are). The common case, in
    /// integer multiplications, where the full reduction divides.
    fn agrees(&self, lanes: &[LaneAccess]) -> bool {
        let Some(first) = lanes.first() else {
            return true;
        };
        lanes.iter().all(|l| {
            let mut predicted: i128 = 0;
            for (d, c) in self.coef.iter().enumerate() {
                let dt = l.tid[d] as i128 - first.tid[d] as i128;
                match (dt, c) {
                    (0, _) => {}
                    (_, Some(c)) => predicted += c * dt,
                    (_, None) => return false,
                }
            }
            predicted == l.addr as i128 - first.addr as i128
        })
    }

    /// The instruction's class; a dimension no warp access pinned down has coefficient 0.
    pub fn class(&self, width: u64) -> StrideClass {
        if self.conflict {
            return StrideClass::Unknown;
        }
        class_of(self.coef.map(|c| c.unwrap_or(0)), width)
    }
}

/// Byte coefficients along (x, y, z) that one warp access determines (`None` for a dimension its
/// lanes do not pin down), or `None` overall when the lanes' addresses are not one affine
/// function of the thread index.
///
/// Every lane gives one equation `Σ_d c_d·(tid_d − tid0_d) = addr − addr0` against the first
/// lane. The equations are row-reduced together: `c_d` is pinned when the unit vector of `d`
/// lies in the span of the lanes' index differences, which two lanes other than the first can
/// establish (a warp holding one lane of row 18 and the 16 lanes of row 19 pins x from two
/// lanes of row 19).
fn warp_coefficients(lanes: &[LaneAccess]) -> Option<[Option<i128>; 3]> {
    one_dimension_coefficients(lanes).unwrap_or_else(|| row_reduced_coefficients(lanes))
}

fn row_reduced_coefficients(lanes: &[LaneAccess]) -> Option<[Option<i128>; 3]> {
    type Q = num_rational::Ratio<i128>;
    let first = lanes.first()?;
    let mut rows: Vec<[Q; 4]> = lanes
        .iter()
        .map(|l| {
            let d = |k: usize| Q::from_integer(l.tid[k] as i128 - first.tid[k] as i128);
            [
                d(0),
                d(1),
                d(2),
                Q::from_integer(l.addr as i128 - first.addr as i128),
            ]
        })
        .collect();
    // reduced row echelon form over the three coefficient columns
    let mut pivots: Vec<(usize, usize)> = Vec::new(); // (column, row)
    let mut next = 0;
    for col in 0..3 {
        let Some(p) = (next..rows.len()).find(|&r| rows[r][col] != Q::from_integer(0)) else {
            continue;
        };
        rows.swap(next, p);
        let lead = rows[next][col];
        for v in rows[next].iter_mut() {
            *v /= lead;
        }
        let pivot_row = rows[next];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != next && row[col] != Q::from_integer(0) {
                let f = row[col];
                for (v, p) in row.iter_mut().zip(pivot_row) {
                    *v -= f * p;
                }
            }
        }
        pivots.push((col, next));
        next += 1;
    }
    // a zero row with a non-zero address difference: no affine function fits
    if rows[next..].iter().any(|r| r[3] != Q::from_integer(0)) {
        return None;
    }
    let mut coef: [Option<i128>; 3] = [None; 3];
    for (col, r) in pivots {
        let row = &rows[r];
        // pinned only if no free column enters this row
        if (0..3).any(|c| c != col && row[c] != Q::from_integer(0)) {
            continue;
        }
        if !row[3].is_integer() {
            return None;
        }
        coef[col] = Some(row[3].to_integer());
    }
    Some(coef)
}

/// [`warp_coefficients`] for a warp whose lanes differ in one thread-index dimension at most (a
/// one-dimensional block, or a row of a wider one), which is most warp accesses. The row reduction
/// then comes down to one ratio, so this is the same answer in integer arithmetic, without the
/// rationals that made the reduction most of the emulator's time on address-heavy kernels.
/// `None` when the lanes differ in two or more dimensions.
fn one_dimension_coefficients(lanes: &[LaneAccess]) -> Option<Option<[Option<i128>; 3]>> {
    let first = lanes.first()?;
    let differs = |d: usize| lanes.iter().any(|l| l.tid[d] != first.tid[d]);
    let varying: Vec<usize> = (0..3).filter(|&d| differs(d)).collect();
    let offsets = |l: &LaneAccess, d: usize| {
        (
            l.tid[d] as i128 - first.tid[d] as i128,
            l.addr as i128 - first.addr as i128,
        )
    };
    match varying.as_slice() {
        [] => {
            // no index difference pins anything; equal indices must access equal addresses
            let same = lanes.iter().all(|l| l.addr == first.addr);
            Some(same.then_some([None; 3]))
        }
        [d] => {
            let d = *d;
            let pivot = lanes.iter().find(|l| l.tid[d] != first.tid[d])?;
            let (step, bytes) = offsets(pivot, d);
            let affine = lanes.iter().all(|l| {
                let (dt, da) = offsets(l, d);
                da * step == bytes * dt
            });
            if !affine || bytes % step != 0 {
                return Some(None);
            }
            let mut coef = [None; 3];
            coef[d] = Some(bytes / step);
            Some(Some(coef))
        }
        _ => None,
    }
}

/// Stride class of one warp access taken alone (tests and single-access callers).
pub fn stride_class(lanes: &[LaneAccess], width: u64) -> StrideClass {
    let mut e = StrideEvidence::default();
    e.observe(lanes);
    e.class(width)
}

/// Which thread-index dimensions vary inside some warp of a block of this shape: x when the block
/// is wider than one thread; y when rows do not fill whole warps (`ntid.x` not a multiple of 32),
/// so some warp holds two rows; z likewise for planes.
pub fn varying_dims(block: [u64; 3]) -> [bool; 3] {
    [
        block[0] > 1,
        block[1] > 1 && !block[0].is_multiple_of(32),
        block[2] > 1 && !(block[0] * block[1]).is_multiple_of(32),
    ]
}

/// Class from the byte coefficients of the address along (x, y, z) over the dimensions that vary
/// inside a warp (0 for the others): all zero → `Uniform`, else by the x coefficient.
pub fn class_of(coef: [i128; 3], width: u64) -> StrideClass {
    if coef.iter().all(|c| *c == 0) {
        return StrideClass::Uniform;
    }
    from_coefficient(coef[0], width)
}

/// Stride class from the byte coefficient of `%tid.x` in an address that is affine in the thread
/// index and not uniform.
pub fn from_coefficient(cx: i128, width: u64) -> StrideClass {
    if cx == 0 {
        return StrideClass::Uncoalesced { quarters: 1 };
    }
    let s = cx.unsigned_abs().div_ceil(width.max(1) as u128);
    match s {
        1 => StrideClass::Unit,
        2..=4 => StrideClass::Strided {
            stride: s as u8,
            used: 1,
        },
        _ => StrideClass::Uncoalesced { quarters: 1 },
    }
}

/// The 32-byte sectors and 128-byte lines one warp access touches (distinct aligned segments of
/// the lanes' `width`-byte accesses). The emulator counts both for every warp access, so one
/// sort on the stack serves both: a line is four aligned sectors, so the lines are the distinct
/// sectors divided by four, still in order.
pub fn sectors_and_lines(lanes: &[LaneAccess], width: u64) -> (u64, u64) {
    let per_lane = width.max(1).div_ceil(32) + 1;
    let mut stack = [0u64; 128];
    let mut heap = Vec::new();
    let s: &mut [u64] = if lanes.len() as u64 * per_lane <= stack.len() as u64 {
        let mut n = 0;
        for l in lanes {
            for sector in l.addr / 32..=(l.addr + width.max(1) - 1) / 32 {
                stack[n] = sector;
                n += 1;
            }
        }
        &mut stack[..n]
    } else {
        for l in lanes {
            heap.extend(l.addr / 32..=(l.addr + width.max(1) - 1) / 32);
        }
        &mut heap
    };
    s.sort_unstable();
    let (mut sectors, mut lines) = (0u64, 0u64);
    let (mut last_sector, mut last_line) = (None, None);
    for &x in s.iter() {
        if last_sector != Some(x) {
            sectors += 1;
            last_sector = Some(x);
        }
        if last_line != Some(x / 4) {
            lines += 1;
            last_line = Some(x / 4);
        }
    }
    (sectors, lines)
}

/// The (word, lane) slots of a local access: lanes' `addr` are offsets in their own frames.
fn local_slots(lanes: &[LaneAccess], width: u64) -> Vec<(u64, u32)> {
    let mut slots: Vec<(u64, u32)> = lanes
        .iter()
        .flat_map(|l| (l.addr / 4..=(l.addr + width.max(1) - 1) / 4).map(move |w| (w, l.lane)))
        .collect();
    slots.sort_unstable();
    slots.dedup();
    slots
}

/// 32-byte sectors of one warp access to local memory (module doc): distinct (word, lane / 8).
pub fn local_sectors(lanes: &[LaneAccess], width: u64) -> u64 {
    let mut s: Vec<(u64, u32)> = local_slots(lanes, width)
        .into_iter()
        .map(|(w, lane)| (w, lane / 8))
        .collect();
    s.dedup();
    s.len() as u64
}

/// 128-byte lines of one warp access to local memory (module doc): distinct words.
pub fn local_lines(lanes: &[LaneAccess], width: u64) -> u64 {
    let mut w: Vec<u64> = local_slots(lanes, width)
        .into_iter()
        .map(|(w, _)| w)
        .collect();
    w.dedup();
    w.len() as u64
}

/// Shared-memory wavefronts of one warp access (see the module doc).
pub fn shared_wavefronts(lanes: &[LaneAccess], width: u64) -> u64 {
    let per_phase: u32 = match width {
        0..=4 => 32,
        5..=8 => 16,
        _ => 8,
    };
    let words = width.div_ceil(4).max(1);
    let mut total = 0;
    // the emulator counts every shared access of every warp: a phase's words are sorted on
    // the stack (no list per bank), and each bank counts its distinct words
    let mut stack = [0u64; 128];
    let mut heap = Vec::new();
    for phase in 0..32 / per_phase {
        let in_phase = || lanes.iter().filter(|l| l.lane / per_phase == phase);
        let n = in_phase().count();
        if n == 0 {
            continue;
        }
        let all: &mut [u64] = if n as u64 * words <= stack.len() as u64 {
            let mut k = 0;
            for l in in_phase() {
                for w in 0..words {
                    stack[k] = l.addr / 4 + w;
                    k += 1;
                }
            }
            &mut stack[..k]
        } else {
            heap.clear();
            heap.extend(in_phase().flat_map(|l| (0..words).map(move |w| l.addr / 4 + w)));
            &mut heap
        };
        all.sort_unstable();
        let mut per_bank = [0u64; 32];
        let mut last = None;
        for &word in all.iter() {
            if last != Some(word) {
                per_bank[(word % 32) as usize] += 1;
                last = Some(word);
            }
        }
        total += per_bank.iter().copied().max().unwrap_or(1).max(1);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u32, f: impl Fn(u64) -> u64) -> Vec<LaneAccess> {
        (0..n)
            .map(|l| LaneAccess {
                lane: l,
                tid: [l as u64, 0, 0],
                addr: f(l as u64),
            })
            .collect()
    }

    /// Distinct aligned `seg`-byte segments touched by the lanes' `width`-byte accesses: the
    /// sectors and lines as first defined, one sort each.
    fn segments(lanes: &[LaneAccess], width: u64, seg: u64) -> u64 {
        let mut s: Vec<u64> = Vec::with_capacity(lanes.len() * 2);
        for l in lanes {
            let lo = l.addr / seg;
            let hi = (l.addr + width.max(1) - 1) / seg;
            s.extend(lo..=hi);
        }
        s.sort_unstable();
        s.dedup();
        s.len() as u64
    }

    fn sectors(lanes: &[LaneAccess], width: u64) -> u64 {
        segments(lanes, width, 32)
    }

    fn lines(lanes: &[LaneAccess], width: u64) -> u64 {
        segments(lanes, width, 128)
    }

    /// The wavefronts as first defined: a list of distinct words per bank, per phase.
    fn wavefronts_by_bank_lists(lanes: &[LaneAccess], width: u64) -> u64 {
        let per_phase: u32 = match width {
            0..=4 => 32,
            5..=8 => 16,
            _ => 8,
        };
        let words = width.div_ceil(4).max(1);
        let mut total = 0;
        for phase in 0..32 / per_phase {
            let mut banks: Vec<Vec<u64>> = vec![Vec::new(); 32];
            let mut any = false;
            for l in lanes.iter().filter(|l| l.lane / per_phase == phase) {
                any = true;
                for w in 0..words {
                    let word = l.addr / 4 + w;
                    let b = &mut banks[(word % 32) as usize];
                    if !b.contains(&word) {
                        b.push(word);
                    }
                }
            }
            if any {
                total += banks
                    .iter()
                    .map(|b| b.len() as u64)
                    .max()
                    .unwrap_or(1)
                    .max(1);
            }
        }
        total
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Counted from sorted words, the wavefronts are those of the lists per bank, for any
        /// lanes (some missing, some repeated), addresses and widths.
        #[test]
        fn wavefronts_from_sorted_words_agree_with_lists_per_bank(
            accs in proptest::collection::vec((0u32..32, 0u64..2048), 0..40),
            width in proptest::prop_oneof![
                proptest::strategy::Just(4u64), proptest::strategy::Just(8u64),
                proptest::strategy::Just(16u64), 1u64..300
            ],
        ) {
            let l: Vec<LaneAccess> = accs
                .iter()
                .map(|&(lane, addr)| LaneAccess { lane, tid: [lane as u64, 0, 0], addr })
                .collect();
            proptest::prop_assert_eq!(
                shared_wavefronts(&l, width),
                wavefronts_by_bank_lists(&l, width)
            );
        }
    }

    /// Sectors and lines counted at once are those counted apart, for any lanes and widths:
    /// scattered or in order, within the stack's room and past it.
    mod sectors_and_lines_at_once {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn agree_with_sectors_and_lines(
                addrs in proptest::collection::vec(0u64..4096, 0..33),
                width in prop_oneof![Just(1u64), Just(4), Just(8), Just(16), 1u64..160],
            ) {
                let l: Vec<LaneAccess> = addrs
                    .iter()
                    .enumerate()
                    .map(|(lane, &addr)| LaneAccess { lane: lane as u32, tid: [lane as u64, 0, 0], addr })
                    .collect();
                prop_assert_eq!(
                    super::super::sectors_and_lines(&l, width),
                    (sectors(&l, width), lines(&l, width))
                );
            }
        }
    }

    /// The integer shortcut gives what the row reduction gives, on warps whose lanes differ in one
    /// dimension: affine addresses with any stride (fractional per lane included), broken ones,
    /// repeated thread indices, and a single lane.
    mod one_dimension_shortcut {
        use super::*;
        use proptest::prelude::*;

        fn lanes(
            dim: usize,
            tids: &[u64],
            stride_num: i64,
            stride_den: i64,
            noise: &[(usize, u64)],
        ) -> Vec<LaneAccess> {
            let base = 1u64 << 40;
            let mut out: Vec<LaneAccess> = tids
                .iter()
                .enumerate()
                .map(|(lane, &t)| {
                    let mut tid = [5, 3, 1];
                    tid[dim] = t;
                    let off = (t as i64 * stride_num).div_euclid(stride_den);
                    LaneAccess {
                        lane: lane as u32,
                        tid,
                        addr: base.wrapping_add_signed(off),
                    }
                })
                .collect();
            for &(i, extra) in noise {
                if let Some(l) = out.get_mut(i % tids.len().max(1)) {
                    l.addr += extra;
                }
            }
            out
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn agrees_with_the_row_reduction(
                dim in 0usize..3,
                tids in proptest::collection::vec(0u64..64, 1..33),
                stride_num in -64i64..64,
                stride_den in prop_oneof![Just(1i64), 1i64..4],
                noise in proptest::collection::vec((0usize..32, 1u64..9), 0..2),
            ) {
                let l = lanes(dim, &tids, stride_num, stride_den, &noise);
                let shortcut = one_dimension_coefficients(&l);
                prop_assert!(shortcut.is_some());
                prop_assert_eq!(shortcut.unwrap(), row_reduced_coefficients(&l));
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]
            /// Warps of a 2-D block, some of whose addresses break the affine form: the evidence
            /// is the same with the shortcut for warps that agree with what is known as with the
            /// row reduction of every warp.
            #[test]
            fn the_agreeing_warp_shortcut_changes_no_evidence(
                width in 1u64..40,
                coef in (-8i64..9, -300i64..300),
                warps in proptest::collection::vec((0u64..8, proptest::option::of((0usize..32, 1u64..5))), 1..6),
            ) {
                let mut shortcut = StrideEvidence::default();
                let mut reduced = StrideEvidence::default();
                for (w, noise) in warps {
                    let mut l: Vec<LaneAccess> = (0..32u64)
                        .map(|lane| {
                            let t = 32 * w + lane;
                            let (x, y) = (t % width, t / width);
                            LaneAccess {
                                lane: lane as u32,
                                tid: [x, y, 0],
                                addr: (1u64 << 40)
                                    .wrapping_add_signed(coef.0 * x as i64 + coef.1 * y as i64),
                            }
                        })
                        .collect();
                    if let Some((i, extra)) = noise {
                        l[i].addr += extra;
                    }
                    shortcut.observe(&l);
                    reduced.reduce(&l);
                }
                prop_assert_eq!(shortcut.conflict, reduced.conflict);
                if !reduced.conflict {
                    prop_assert_eq!(shortcut.coef, reduced.coef);
                }
            }
        }

        #[test]
        fn lanes_that_differ_in_two_dimensions_take_the_row_reduction() {
            let l: Vec<LaneAccess> = (0..32u64)
                .map(|i| LaneAccess {
                    lane: i as u32,
                    tid: [i % 16, i / 16, 0],
                    addr: 4 * (i % 16) + 256 * (i / 16),
                })
                .collect();
            assert_eq!(one_dimension_coefficients(&l), None);
            assert_eq!(warp_coefficients(&l), Some([Some(4), Some(256), None]));
        }
    }

    #[test]
    fn stride_classes() {
        assert_eq!(stride_class(&row(32, |_| 64), 4), StrideClass::Uniform);
        assert_eq!(stride_class(&row(32, |l| 4 * l), 4), StrideClass::Unit);
        assert_eq!(
            stride_class(&row(32, |l| 12 * l), 4),
            StrideClass::Strided { stride: 3, used: 1 }
        );
        assert_eq!(
            stride_class(&row(32, |l| 400 * l), 4),
            StrideClass::Uncoalesced { quarters: 1 }
        );
        assert_eq!(
            stride_class(&row(32, |l| 4 * (l * l)), 4),
            StrideClass::Unknown
        );
        // A 16x2 block slice: row-major a[y*n + x] is unit stride along x.
        let two_rows: Vec<LaneAccess> = (0..32u32)
            .map(|l| LaneAccess {
                lane: l,
                tid: [(l % 16) as u64, (l / 16) as u64, 0],
                addr: 4 * ((l / 16) as u64 * 100 + (l % 16) as u64),
            })
            .collect();
        assert_eq!(stride_class(&two_rows, 4), StrideClass::Unit);
        // Column access a[x*n + y] with x fixed per lane group moves only with y.
        let col: Vec<LaneAccess> = (0..32u32)
            .map(|l| LaneAccess {
                lane: l,
                tid: [0, l as u64, 0],
                addr: 4 * 100 * l as u64,
            })
            .collect();
        assert_eq!(
            stride_class(&col, 4),
            StrideClass::Uncoalesced { quarters: 1 }
        );
    }

    /// Lanes of warp `w` of a block of shape `block` whose linear index passes `active`.
    fn warp_of(
        block: [u64; 3],
        w: u64,
        active: impl Fn(u64) -> bool,
        addr: impl Fn([u64; 3]) -> u64,
    ) -> Vec<LaneAccess> {
        let n = block.iter().product::<u64>();
        (32 * w..(32 * w + 32).min(n))
            .filter(|t| active(*t))
            .map(|t| {
                let tid = [
                    t % block[0],
                    t / block[0] % block[1],
                    t / (block[0] * block[1]),
                ];
                LaneAccess {
                    lane: (t - 32 * w) as u32,
                    tid,
                    addr: addr(tid),
                }
            })
            .collect()
    }

    /// Class over every warp of one block, as the emulator gathers it.
    fn over_block(
        block: [u64; 3],
        active: impl Fn(u64) -> bool + Copy,
        addr: impl Fn([u64; 3]) -> u64 + Copy,
    ) -> StrideClass {
        let n = block.iter().product::<u64>();
        let mut e = StrideEvidence::default();
        for w in 0..n.div_ceil(32) {
            let l = warp_of(block, w, active, addr);
            if !l.is_empty() {
                e.observe(&l);
            }
        }
        e.class(4)
    }

    #[test]
    fn partial_warps_keep_the_instruction_class() {
        // 33 threads: the second warp has one lane; the instruction is still unit stride.
        assert_eq!(
            over_block([33, 1, 1], |_| true, |t| 4 * t[0]),
            StrideClass::Unit
        );
        // A guard leaving one lane per warp in some warps only.
        assert_eq!(
            over_block([64, 1, 1], |t| t < 32 || t == 40, |t| 8 * t[0]),
            StrideClass::Strided { stride: 2, used: 1 }
        );
        // 48x2: rows straddle warp 1, so a[y] varies inside a warp although warp 0 sees one row.
        assert_eq!(
            over_block([48, 2, 1], |_| true, |t| 400 * t[1]),
            StrideClass::Uncoalesced { quarters: 1 }
        );
        assert!(varying_dims([48, 2, 1])[1]);
        // 32x4: no warp holds two rows, so a[y] is uniform in every warp.
        assert_eq!(
            over_block([32, 4, 1], |_| true, |t| 400 * t[1]),
            StrideClass::Uniform
        );
        assert!(!varying_dims([32, 4, 1])[1]);
        // 8x4 (blockDim.x < 32): a[y*n + x] is unit stride, a[x*n + y] moves by n along x.
        assert_eq!(
            over_block([8, 4, 1], |_| true, |t| 4 * (100 * t[1] + t[0])),
            StrideClass::Unit
        );
        assert_eq!(
            over_block([8, 4, 1], |_| true, |t| 4 * (100 * t[0] + t[1])),
            StrideClass::Uncoalesced { quarters: 1 }
        );
        // 16x16 block, stencil boundary at n = 20: a warp with lane (0, 2) and the sixteen lanes
        // of row 3. Only lanes of row 3 pin x against each other; the first lane is off that row.
        assert_eq!(
            over_block(
                [16, 16, 1],
                |t| t == 32 || (48..64).contains(&t),
                |t| 4 * (20 * t[1] + t[0])
            ),
            StrideClass::Unit
        );
        // Coefficients that differ between warps: not one affine function, so unknown.
        assert_eq!(
            over_block(
                [64, 1, 1],
                |_| true,
                |t| if t[0] < 32 { 4 * t[0] } else { 8 * t[0] }
            ),
            StrideClass::Unknown
        );
    }

    #[test]
    fn sectors_and_lines() {
        assert_eq!(sectors(&row(32, |l| 4 * l), 4), 4);
        assert_eq!(lines(&row(32, |l| 4 * l), 4), 1);
        assert_eq!(sectors(&row(32, |l| 8 * l), 8), 8);
        assert_eq!(sectors(&row(32, |_| 0), 4), 1);
        assert_eq!(sectors(&row(32, |l| 128 * l), 4), 32);
        assert_eq!(lines(&row(1, |_| 126), 4), 2);
    }

    #[test]
    fn local_accesses_count_in_the_interleaved_layout() {
        // the same offset in every lane's frame: one line per word, four sectors each
        assert_eq!(local_lines(&row(32, |_| 12), 4), 1);
        assert_eq!(local_sectors(&row(32, |_| 12), 4), 4);
        assert_eq!(local_lines(&row(32, |_| 16), 8), 2);
        assert_eq!(local_sectors(&row(32, |_| 16), 16), 16);
        // lanes at different words of their frames each fill a line of their own
        assert_eq!(local_lines(&row(32, |l| 4 * (l % 4)), 4), 4);
        assert_eq!(local_sectors(&row(32, |l| 4 * (l % 4)), 4), 16);
        // half a warp: two groups of 8 lanes
        assert_eq!(local_sectors(&row(16, |_| 0), 4), 2);
    }

    #[test]
    fn bank_conflicts() {
        assert_eq!(shared_wavefronts(&row(32, |l| 4 * l), 4), 1);
        assert_eq!(shared_wavefronts(&row(32, |_| 0), 4), 1);
        assert_eq!(shared_wavefronts(&row(32, |l| 8 * l), 4), 2);
        assert_eq!(shared_wavefronts(&row(32, |l| 128 * l), 4), 32);
        assert_eq!(shared_wavefronts(&row(32, |l| 4 * 17 * l), 4), 1);
        assert_eq!(shared_wavefronts(&row(32, |l| 8 * l), 8), 2);
        assert_eq!(shared_wavefronts(&row(32, |l| 16 * l), 16), 4);
    }
}
