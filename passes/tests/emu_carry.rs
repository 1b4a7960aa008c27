//! Extended-precision arithmetic through the carry flag (`add.cc`/`addc`, `sub.cc`/`subc`,
//! `mad.cc`/`madc`), as libdevice's double-precision argument reduction uses it: the emulator
//! computes the wide results exactly.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::stats::Launch;

mod common;
use common::kernel;

/// Per thread t, with a = t·0x9E3779B9 and c = 0xFFFFFFFF: words 0-1 are a·0xDEADBEEF + c
/// (mad.lo.cc + madc.hi), words 2-3 are a + 0xFFFFFFFF as 64 bits (add.cc + addc), words 4-5
/// are (5:0) − (0:a+1) as 64 bits (sub.cc + subc).
const BODY: &str = "mov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, -1640531527;\n\
    mad.lo.cc.u32 %r3, %r2, -559038737, -1;\nmadc.hi.u32 %r4, %r2, -559038737, 0;\n\
    add.cc.u32 %r5, %r2, -1;\naddc.u32 %r6, 0, 0;\n\
    add.u32 %r9, %r2, 1;\nsub.cc.u32 %r7, 0, %r9;\nsubc.u32 %r8, 5, 0;\n\
    mul.wide.u32 %rd3, %r1, 24;\nadd.s64 %rd4, %rd2, %rd3;\n\
    st.global.v2.u32 [%rd4], {%r3, %r4};\nst.global.v2.u32 [%rd4+8], {%r5, %r6};\nst.global.v2.u32 [%rd4+16], {%r7, %r8};\nret;";

#[test]
fn carry_chains_compute_the_wide_results() {
    let m = kernel(0, BODY);
    let r = emu::run_with(
        &m,
        "k",
        &Launch {
            grid: [1, 1, 1],
            block: [64, 1, 1],
        },
        &[KernelArg::Buffer(vec![0; 1 << 16])],
        &emu::Options::default(),
    )
    .expect("emulates");
    let out = &r.buffers[&0];
    let word = |k: usize| u32::from_le_bytes(out[k * 4..k * 4 + 4].try_into().unwrap()) as u64;
    for t in 0..64u64 {
        let a = (t as u32).wrapping_mul(0x9E37_79B9) as u64;
        let w = |k: u64| (word((6 * t + k) as usize), word((6 * t + k + 1) as usize));
        let pair = |(lo, hi): (u64, u64)| hi << 32 | lo;
        assert_eq!(
            pair(w(0)),
            a * 0xDEAD_BEEF + 0xFFFF_FFFF,
            "mad chain, thread {t}"
        );
        assert_eq!(pair(w(2)), a + 0xFFFF_FFFF, "add chain, thread {t}");
        let a1 = (a as u32).wrapping_add(1) as u64;
        assert_eq!(
            pair(w(4)),
            (5u64 << 32).wrapping_sub(a1),
            "sub chain, thread {t}"
        );
    }
}
