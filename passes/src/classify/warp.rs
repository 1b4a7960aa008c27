//! Warp-access metrics shared by the emulator (which sees the lanes' actual addresses) and the
//! static counter (which sees them as affine functions of the thread index): the per-warp stride
//! class, 32-byte sectors, 128-byte lines and shared-memory wavefronts. Both producers must use
//! these definitions so their counts agree key for key.
//!
//! **Stride class** (Stevens & Klöckner, as Loopy implements it: the stride is the coefficient of
//! the innermost local index, `%tid.x`, in units of the access width):
//! - every accessing lane uses the same address → `Uniform` (this includes a warp in which a
//!   single lane, or lanes sharing one `%tid.x`, accesses one address);
//! - the address is affine in (`%tid.x`, `%tid.y`, `%tid.z`) over the accessing lanes with
//!   coefficient `cx` on `%tid.x` (a dimension along which the accessing lanes do not vary has
//!   coefficient 0); with `s = ceil(|cx| / width)`:
//!   `cx = 0` (the address moves only with `%tid.y`/`%tid.z`) → `Uncoalesced { quarters: 1 }`;
//!   `s = 1` → `Unit`; `s ∈ 2..=4` → `Strided { stride: s, used: 1 }`; `s > 4` →
//!   `Uncoalesced { quarters: 1 }`;
//! - not affine over the accessing lanes → `Unknown`.
//!
//! `used` / `quarters` are the per-access utilization: one warp access with lane stride `s`
//! touches one of every `s` cells, so both are 1. Merging several instructions' footprints per
//! array (S&K's "2/2") is done by neither producer.
//!
//! **Sectors / lines**: distinct 32-byte / 128-byte aligned segments touched by the accessing
//! lanes of one warp access (each lane's access spans `width` bytes), counted for the global and
//! local spaces only.
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

/// Stride class of one warp access of `width` bytes per lane (see the module doc).
pub fn stride_class(lanes: &[LaneAccess], width: u64) -> StrideClass {
    let Some(first) = lanes.first() else {
        return StrideClass::Uniform;
    };
    if lanes.iter().all(|l| l.addr == first.addr) {
        return StrideClass::Uniform;
    }
    // Coefficient along each dimension from two lanes that differ only in that dimension.
    let mut coef = [0i128; 3];
    for (d, c) in coef.iter_mut().enumerate() {
        let pair = lanes.iter().find_map(|l| {
            let same_rest = (0..3).all(|e| e == d || l.tid[e] == first.tid[e]);
            (same_rest && l.tid[d] != first.tid[d]).then_some(l)
        });
        if let Some(l) = pair {
            let da = l.addr as i128 - first.addr as i128;
            let dt = l.tid[d] as i128 - first.tid[d] as i128;
            if da % dt != 0 {
                return StrideClass::Unknown;
            }
            *c = da / dt;
        }
    }
    let affine = lanes.iter().all(|l| {
        let pred = first.addr as i128
            + (0..3)
                .map(|d| coef[d] * (l.tid[d] as i128 - first.tid[d] as i128))
                .sum::<i128>();
        pred == l.addr as i128
    });
    if !affine {
        return StrideClass::Unknown;
    }
    from_coefficient(coef[0], width)
}

/// Stride class from the byte coefficient of `%tid.x` in an address that is affine in the thread
/// index and not uniform (the static counter's entry point).
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

/// Distinct aligned `seg`-byte segments touched by the lanes' `width`-byte accesses.
pub fn segments(lanes: &[LaneAccess], width: u64, seg: u64) -> u64 {
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

/// 32-byte sectors touched by one warp access.
pub fn sectors(lanes: &[LaneAccess], width: u64) -> u64 {
    segments(lanes, width, 32)
}

/// 128-byte lines touched by one warp access.
pub fn lines(lanes: &[LaneAccess], width: u64) -> u64 {
    segments(lanes, width, 128)
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
