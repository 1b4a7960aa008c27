//! Byte dot products, `sad`, and the hints that change no value (`griddepcontrol`,
//! `nanosleep`, `createpolicy`, `setmaxnreg`, `prefetch`, `discard`): the emulator runs them with
//! the values the PTX ISA gives, and the counter and the emulator count them alike.

use kerncast_passes::stats::{BoundStats, Dir, Feature, Granularity};

mod common;
use common::{analyze, data_dependent, emulate, kernel, workload};

fn thread_stores(s: &BoundStats) -> f64 {
    s.sum_where(|f| {
        matches!(
            f,
            Feature::Mem {
                dir: Dir::Store,
                gran: Granularity::Thread,
                ..
            }
        )
    })
}

/// The result of `op` on the scalars `a`, `b`, `c`, read back as the number of lanes of a
/// 64-thread block whose index is below it (each stores once).
fn result_of(op: &str, a: u32, b: u32, c: u32) -> f64 {
    let m = kernel(
        3,
        &format!(
            "mov.u32 %r1, %tid.x;\n{op} %r3, %r20, %r21, %r22;\n\
             setp.ge.s32 %p1, %r1, %r3;\n@%p1 bra DONE;\nst.global.u32 [%rd2], %r1;\nDONE:\nret;"
        ),
    );
    let s = emulate(&m, [1, 1, 1], [64, 1, 1], &[a as i64, b as i64, c as i64]);
    thread_stores(&s)
}

#[test]
fn dot_products_and_sad_give_the_isa_values() {
    // bytes of a: 0xff, 3, 2, 1; of b: 7, 6, 5, 4
    let (a, b) = (0x0102_03ff, 0x0405_0607);
    // signed: −7 + 18 + 10 + 4 + 10
    assert_eq!(result_of("dp4a.s32.s32", a, b, 10), 35.0);
    // unsigned a: 255·7 + 32 + 10 lanes, so every lane
    assert_eq!(result_of("dp4a.u32.s32", a, b, 10), 64.0);
    assert_eq!(result_of("dp4a.u32.u32", 0x0102_0304, 0x0101_0101, 0), 10.0);
    // halves of a: 3, −2; the low bytes of b: 7, 6; the high ones: 5, 4
    let halves = 0xfffe_0003;
    assert_eq!(result_of("dp2a.lo.s32.s32", halves, b, 20), 29.0);
    assert_eq!(result_of("dp2a.hi.s32.s32", halves, b, 20), 27.0);
    // the product −3·7 wraps the sum below zero: no lane stores
    assert_eq!(result_of("dp4a.s32.s32", 0xfd, 7, 20), 0.0);
    assert_eq!(result_of("sad.s32", 5, 12, 3), 10.0);
    assert_eq!(result_of("sad.u32", 12, 5, 3), 10.0);
}

#[test]
fn hints_run_and_are_counted_alike() {
    let m = kernel(
        1,
        "mov.u32 %r1, %tid.x;\ngriddepcontrol.wait;\nnanosleep.u32 100;\n\
         setmaxnreg.inc.sync.aligned.u32 240;\n\
         createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;\n\
         prefetch.global.L2 [%rd2];\ndiscard.global.L2 [%rd2], 128;\n\
         dp4a.u32.u32 %r3, %r1, %r20, %r1;\nsad.u32 %r4, %r1, %r20, %r3;\n\
         setp.ge.u32 %p1, %r1, %r20;\n@%p1 bra DONE;\n\
         st.global.u32 [%rd2], %r4;\ngriddepcontrol.launch_dependents;\nDONE:\nret;",
    );
    let block = [64, 1, 1];
    let ks = analyze(&m, "k", block);
    assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
    for n in [5, 40] {
        let s = ks
            .bind(&workload([2, 1, 1], block, &[("0", n)]))
            .expect("binds");
        let e = emulate(&m, [2, 1, 1], block, &[n]);
        assert_eq!(s.features, e.features, "n={n}");
        assert_eq!(thread_stores(&e), 2.0 * n as f64);
        // only the two memory hints stay unclassified, once per thread
        let unknown: Vec<String> = e
            .features
            .iter()
            .filter(|(f, _)| matches!(f, Feature::Unknown { .. }))
            .map(|(f, v)| format!("{f}={v}"))
            .collect();
        assert_eq!(
            unknown,
            [
                "unknown.discard.global.L2=128",
                "unknown.prefetch.global.L2=128"
            ]
        );
    }
}
