//! Shared-memory wavefronts are counted by walking the warps of an access. A block-invariant
//! access is walked in one block and weighted by the grid, so a 16M-thread launch is counted
//! exactly; an access whose guard reads `%ctaid` is walked block by block and agrees with the
//! emulator.

use kerncast_passes::stats::{Dir, Feature};

mod common;
use common::{analyze, data_dependent, emulate, kernel, workload};

/// `buf[2 * tid] = 1` where `tid < s0` (two threads per bank: a 2-way conflict in full warps),
/// and, in blocks `ctaid < 2` only, a unit-stride load of `buf[tid]`.
fn two_accesses() -> kerncast_passes::ptx::Module {
    kernel(
        1,
        ".shared .align 4 .b8 buf[2048];\n\
         mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 3;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\n\
         setp.lt.u32 %p1, %r1, %r20;\n@%p1 st.shared.f32 [%r4], 0f3F800000;\n\
         mov.u32 %r5, %ctaid.x;\nsetp.lt.u32 %p2, %r5, 2;\nshl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r3, %r6;\n\
         @%p2 ld.shared.f32 %f1, [%r7];\nret;",
    )
}

#[test]
fn counter_and_emulator_agree_on_both_accesses() {
    let m = two_accesses();
    let ks = analyze(&m, "k", [256, 1, 1]);
    assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
    for (grid, s0) in [([1, 1, 1], 256), ([4, 1, 1], 200), ([3, 2, 1], 17)] {
        let s = ks.bind(&workload(grid, [256, 1, 1], &[("0", s0)])).unwrap();
        let e = emulate(&m, grid, [256, 1, 1], &[s0]);
        for dir in [Dir::Store, Dir::Load] {
            let f = Feature::SharedWavefronts { dir };
            assert_eq!(s.get(&f), e.get(&f), "{f} at {grid:?} s0={s0}");
        }
    }
}

#[test]
fn a_block_invariant_access_is_counted_at_any_grid() {
    let m = kernel(
        1,
        ".shared .align 4 .b8 buf[2048];\n\
         mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 3;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\n\
         setp.lt.u32 %p1, %r1, %r20;\n@%p1 st.shared.f32 [%r4], 0f3F800000;\nret;",
    );
    let ks = analyze(&m, "k", [256, 1, 1]);
    // 65536 × 256 threads: four times the points the walk may visit.
    let s = ks
        .bind(&workload([65536, 1, 1], [256, 1, 1], &[("0", 200)]))
        .unwrap();
    assert!(
        s.assumptions.is_empty(),
        "{:?}",
        s.assumptions.iter().map(|a| &a.what).collect::<Vec<_>>()
    );
    // Six full warps at 2 wavefronts, and warp 6 with 8 lanes on 8 distinct banks at 1.
    let f = Feature::SharedWavefronts { dir: Dir::Store };
    assert_eq!(s.get(&f), 65536.0 * (6.0 * 2.0 + 1.0));
}

/// A shared store at an address loaded from global memory has no countable wavefronts. That is
/// listed as not resolved, and a hint with its key cannot mark it as given: no hint is read
/// there, so a user who sets one must still see the gap.
#[test]
fn a_data_dependent_shared_address_stays_unresolved_whatever_the_hints() {
    let m = kernel(
        0,
        ".shared .align 4 .b8 buf[1024];\n\
         mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         ld.global.u32 %r2, [%rd4];\nand.b32 %r3, %r2, 255;\nshl.b32 %r4, %r3, 2;\n\
         mov.u32 %r5, buf;\nadd.s32 %r6, %r5, %r4;\nst.shared.u32 [%r6], 1;\nret;",
    );
    let ks = analyze(&m, "k", [64, 1, 1]);
    let mut w = workload([1, 1, 1], [64, 1, 1], &[]);
    w.hints.insert("wavefronts".into(), 2.0);
    let s = ks.bind(&w).unwrap();
    let a = s
        .assumptions
        .iter()
        .find(|a| a.hint_key == "wavefronts")
        .expect("the unresolved wavefronts are listed");
    assert!(!a.settable());
    assert!(!a.from_user, "{a:?}");
    assert_eq!(s.get(&Feature::SharedWavefronts { dir: Dir::Store }), 0.0);
}

/// An OpenCL `__local` argument is a pointer parameter that shared-memory addresses are based
/// on: dynamic shared memory the launch sizes, listed as such and counted toward the shared
/// bytes of a block once the workload gives `dynamic_shared_bytes`.
#[test]
fn a_local_memory_argument_is_dynamic_shared_memory() {
    let m = kernel(
        0,
        "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n\
         st.shared.f32 [%rd4], 0f3F800000;\nret;",
    );
    let ks = analyze(&m, "k", [64, 1, 1]);
    assert_eq!(ks.dynamic_shared, vec!["k_out".to_string()]);
    let key = |s: &kerncast_passes::stats::BoundStats| {
        s.assumptions
            .iter()
            .find(|a| a.hint_key == "dynamic_shared_bytes")
            .map(|a| (a.from_user, a.default))
    };
    let unsized_ = ks.bind(&workload([2, 1, 1], [64, 1, 1], &[])).unwrap();
    assert_eq!(unsized_.shared_bytes_per_block, Some(0));
    assert_eq!(key(&unsized_), Some((false, 0.0)));
    let mut w = workload([2, 1, 1], [64, 1, 1], &[]);
    w.hints.insert("dynamic_shared_bytes".into(), 256.0);
    let sized = ks.bind(&w).unwrap();
    assert_eq!(sized.shared_bytes_per_block, Some(256));
    assert_eq!(key(&sized), Some((true, 256.0)));
    assert!(analyze(&two_accesses(), "k", [256, 1, 1])
        .dynamic_shared
        .is_empty());
}
