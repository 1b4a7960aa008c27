//! The L2 reuse profile's walk costs the same however large the launch: it walks a sample of
//! the leading blocks that its fixed point budget (not the grid) sizes.

mod common;

use common::{analyze, kernel, workload};
use kerncast_passes::reuse::Reuse;

/// `out[ctaid.x * 256 + tid.x] = 1`: one 4-byte store per thread, every block new data.
const STORE: &str = "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\n\
    mad.lo.s32 %r3, %r1, 256, %r2;\nmul.wide.s32 %rd3, %r3, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
    mov.u32 %r4, 1;\nst.global.u32 [%rd4], %r4;\nret;";

/// Grids of 10^4 and 10^6 blocks of 256 threads walk the same blocks and record the same
/// sector requests (a walk that grew with the grid would walk 100 times as many), and fewer
/// blocks than the smaller grid has.
#[test]
fn the_reuse_walk_does_not_grow_with_the_grid() {
    let m = kernel(0, STORE);
    let ks = analyze(&m, "k", [256, 1, 1]);
    let profile = |blocks: u64| {
        let mut w = workload([blocks, 1, 1], [256, 1, 1], &[]);
        w.reuse = true;
        match ks.bind(&w).expect("binds").reuse {
            Some(Reuse::Profile(p)) => p,
            other => panic!("no reuse profile: {other:?}"),
        }
    };
    let (small, large) = (profile(10_000), profile(1_000_000));
    assert_eq!((small.blocks, large.blocks), (10_000, 1_000_000));
    assert_eq!(small.blocks_walked, large.blocks_walked);
    assert!(small.blocks_walked < 10_000, "{}", small.blocks_walked);
    assert_eq!(small.requests, large.requests);
    // 4 sectors (128 bytes) a warp's store, 8 warps a block, each a first touch
    assert_eq!(small.requests, 32.0 * small.blocks_walked as f64);
    assert_eq!(small.first_touches, small.requests);
}
