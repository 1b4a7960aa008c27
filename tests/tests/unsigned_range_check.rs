//! clang turns a range check `lo <= x && x < hi` into one unsigned comparison of `x - lo`
//! against `hi - lo` (`add.s32 %r, %x, -4; setp.gt.u32 %p, %r, 671` in rtm8): the threads below
//! `lo` make `x - lo` wrap to a huge unsigned number and fail the check. The symbolic counts of
//! such a guard, bound to a launch, equal the emulator's and the hand count (a stencil's FLOPs
//! were 4.7 % too high while the wrap was read as a negative number that passes).

use kerncast::engine::Counter;
use kerncast::symbolic::SymbolicCounter;
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::stats::{BoundStats, Feature, Granularity, Space};

const SRC: &str = r#"
// kerncast: workload grid=2 block=16
extern "C" __global__ void band(int *out) {}
"#;

/// `x = ctaid.x * ntid.x + tid.x`, then a store by the threads that pass the check; `CHECK` is
/// the comparison and the branch around the store.
fn ptx(check: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
.visible .entry band(.param .u64 band_out)\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [band_out];\ncvta.to.global.u64 %rd2, %rd1;\n\
mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
{check}\n\
mul.wide.u32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r4;\n\
DONE:\nret;\n}}\n"
    )
}

fn global_stores(s: &BoundStats) -> f64 {
    s.sum_where(|f| {
        matches!(
            f,
            Feature::Mem {
                space: Space::Global,
                gran: Granularity::Thread,
                ..
            }
        )
    })
}

/// Stores of the 32 threads of a 2 x 16 launch: symbolic, emulated.
fn stores(check: &str) -> (f64, f64) {
    let m = kerncast_passes::ptx::Module::parse(&ptx(check)).unwrap();
    let sk = kerncast::annotations::scan(SRC).unwrap()[0].clone();
    let p = SymbolicCounter::default().prepare(&m, "band").unwrap();
    let b = p
        .bind_spec(&sk.workloads[0], &Default::default(), &sk.params)
        .unwrap();
    assert_eq!(b.counter, "symbolic", "{:?}", b.notes);
    let launch = kerncast_passes::stats::Launch {
        grid: [2, 1, 1],
        block: [16, 1, 1],
    };
    let e = emu::run(&m, "band", &launch, &[KernelArg::u32s(&[0; 32])]).unwrap();
    (global_stores(&b.stats), global_stores(&e.stats))
}

#[test]
fn threads_below_the_range_fail_an_unsigned_check_of_their_offset() {
    // 4 <= x <= 15: skipped when x - 4 >u 11
    let above = "add.s32 %r5, %r4, -4;\nsetp.gt.u32 %p1, %r5, 11;\n@%p1 bra DONE;";
    assert_eq!(stores(above), (12.0, 12.0));
    // 2 <= x < 12: run when x - 2 <u 10
    let below = "add.s32 %r5, %r4, -2;\nsetp.lt.u32 %p1, %r5, 10;\n@!%p1 bra DONE;";
    assert_eq!(stores(below), (10.0, 10.0));
    // the same with the unsigned-only names `hi` and `lo`
    let hi = "add.s32 %r5, %r4, -4;\nsetp.hi.u32 %p1, %r5, 11;\n@%p1 bra DONE;";
    assert_eq!(stores(hi), (12.0, 12.0));
    let lo = "add.s32 %r5, %r4, -2;\nsetp.lo.u32 %p1, %r5, 10;\n@!%p1 bra DONE;";
    assert_eq!(stores(lo), (10.0, 10.0));
}

#[test]
fn a_signed_check_of_the_same_offset_lets_the_low_threads_through() {
    // x - 4 <= 11 signed: 0 <= x <= 15
    let signed = "add.s32 %r5, %r4, -4;\nsetp.gt.s32 %p1, %r5, 11;\n@%p1 bra DONE;";
    assert_eq!(stores(signed), (16.0, 16.0));
}
