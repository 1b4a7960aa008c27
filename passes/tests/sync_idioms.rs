//! A grid barrier's spin-wait and a check that traps are counted without hints: each block's
//! thread 0 arrives with an atomic and polls a flag with `ld.acquire` until the others have
//! arrived, and every thread traps unless a word it loads is non-zero. Data decides both; a run
//! that completes fixes them (one poll, no trap), and both are listed as assumptions.

use kerncast_passes::stats::{Dir, Feature, Granularity, Space};

mod common;
use common::{analyze, data_dependent, kernel, workload};

const BARRIER: &str = "mov.u32 %r1, %tid.x;\n\
     ld.global.u32 %r2, [%rd2];\n\
     setp.ne.s32 %p1, %r2, 0;\n\
     @%p1 bra $L_ok;\n\
     trap;\n\
     $L_ok:\n\
     setp.ne.s32 %p2, %r1, 0;\n\
     @%p2 bra $L_done;\n\
     atom.add.release.gpu.u32 %r3, [%rd2+4], 1;\n\
     $L_wait:\n\
     ld.acquire.gpu.u32 %r4, [%rd2+4];\n\
     xor.b32 %r5, %r4, %r3;\n\
     setp.gt.s32 %p3, %r5, -1;\n\
     @%p3 bra $L_wait;\n\
     $L_done:\n\
     bar.sync 0;\n\
     ret;";

fn global_loads(s: &kerncast_passes::stats::BoundStats) -> f64 {
    s.features
        .iter()
        .filter(|(k, _)| {
            matches!(
                k,
                Feature::Mem {
                    space: Space::Global | Space::Generic,
                    dir: Dir::Load,
                    gran: Granularity::Thread,
                    ..
                }
            )
        })
        .map(|(_, v)| *v)
        .sum()
}

#[test]
fn a_grid_barrier_and_a_trap_check_count_without_hints() {
    let m = kernel(0, BARRIER);
    let ks = analyze(&m, "k", [64, 1, 1]);
    assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
    let keys: Vec<(&str, f64)> = ks
        .assumptions
        .iter()
        .map(|a| (a.hint_key.as_str(), a.default))
        .collect();
    assert_eq!(keys, [("spin.loop0", 1.0), ("trap.bb0", 1.0)]);
    // 5 blocks of 64: every thread loads the checked word, each block's thread 0 polls once
    // (a generic load: `ld.acquire` names no space)
    let mut w = workload([5, 1, 1], [64, 1, 1], &[]);
    let s = ks.bind(&w).expect("binds");
    assert_eq!(global_loads(&s), 5.0 * 64.0 + 5.0);
    // the poll count is a hint like a trip count
    w.hints.insert("spin.loop0".into(), 3.0);
    let s = ks.bind(&w).expect("binds");
    assert_eq!(global_loads(&s), 5.0 * 64.0 + 5.0 * 3.0);
}
