//! Global sectors and lines of a 3-D grid of 3-D blocks (`grid3d_scale`) at sizes too large to
//! count point by point, against a direct walk of every warp's addresses. The block indices'
//! address coefficients (32, 16384 and 2^22 bytes at 512×512×64) used to split the count into
//! more residue classes than the counter takes, and the kernel was not counted at all.

use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::{Dir, Feature, Space};
use kerncast_tests::ptx_dir;
use std::collections::{BTreeMap, BTreeSet};

const BLOCK: [u64; 3] = [8, 8, 4];

/// Distinct `seg`-byte segments each warp touches, summed over the launch: every thread with
/// `x < nx && y < ny && z < nz` reads 4 bytes at `4·((z·ny + y)·nx + x)`, warps taking 32
/// consecutive linear thread indices of a block.
fn walked(n: [u64; 3], seg: u64) -> u64 {
    let grid = [0, 1, 2].map(|d| n[d].div_ceil(BLOCK[d]));
    let per_block = (BLOCK[0] * BLOCK[1] * BLOCK[2]) as usize;
    let mut total = 0;
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                let mut warps: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); per_block.div_ceil(32)];
                for t in 0..per_block as u64 {
                    let (tx, ty, tz) = (t % 8, t / 8 % 8, t / 64);
                    let (x, y, z) = (bx * 8 + tx, by * 8 + ty, bz * 4 + tz);
                    if x < n[0] && y < n[1] && z < n[2] {
                        let addr = 4 * ((z * n[1] + y) * n[0] + x);
                        warps[t as usize / 32].insert(addr / seg);
                    }
                }
                total += warps.iter().map(|w| w.len() as u64).sum::<u64>();
            }
        }
    }
    total
}

#[test]
fn sectors_of_a_3d_grid_are_counted_at_full_size() {
    let p = ptx_dir().join("nvcc/grid3d_scale.ptx");
    let m = Module::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let ks = analyze_kernel_with(
        &m,
        "grid3d_scale",
        &Options {
            block: Some(BLOCK),
            grid: None,
        },
    )
    .unwrap();
    // 512×512×64 fills the grid; 200×100×39 leaves partial blocks in y and z. Both are past
    // the point-by-point budget (2^20 estimated points).
    for n in [[512u64, 512, 64], [200, 100, 39]] {
        let w = Workload {
            grid: [0, 1, 2].map(|d| n[d].div_ceil(BLOCK[d])),
            block: BLOCK,
            params: [("2", n[0]), ("3", n[1]), ("4", n[2])]
                .map(|(k, v)| (k.to_string(), v as i64))
                .into(),
            hints: BTreeMap::new(),
            reuse: false,
        };
        let s = ks.bind(&w).unwrap_or_else(|e| panic!("{n:?}: {e}"));
        let (sectors, lines) = (walked(n, 32) as f64, walked(n, 128) as f64);
        for dir in [Dir::Load, Dir::Store] {
            let space = Space::Global;
            assert_eq!(
                s.get(&Feature::Sectors { space, dir }),
                sectors,
                "{n:?} {dir:?}"
            );
            assert_eq!(
                s.get(&Feature::Lines { space, dir }),
                lines,
                "{n:?} {dir:?}"
            );
        }
    }
    // Each warp is 4 rows of 8 floats: 4 sectors in 4 lines.
    assert_eq!(walked([512, 512, 64], 32), 64 * 64 * 16 * 8 * 4);
}
