//! Values that leave loops and meet at joins (`crate::loop_exit`), as [`analyze`] gives them:
//! the proofs run inside the driver's rounds, so they are tested through it, from here.

use super::{analyze, Env, Val};
use crate::cfg::Cfg;
use crate::ptx::parse;

/// Register values at the entry of the block labelled `label` of a one-parameter kernel.
fn entry_at(body: &str, label: &str) -> Env {
    let src = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 k_param_0)\n{{\n.reg .pred %p<8>;\n.reg .b32 %r<16>;\nld.param.u32 %r1, [k_param_0];\n{body}\n}}\n"
    );
    let m = parse(&src).unwrap();
    let f = &m.functions[0];
    let cfg = Cfg::build(f);
    let vals = analyze(f, &cfg, [32, 1, 1]);
    let b = (0..cfg.blocks.len())
        .find(|&b| cfg.blocks[b].labels.iter().any(|l| l == label))
        .unwrap();
    vals.entry[b].clone()
}

/// The value of `reg` at `n = p0` for each `n` in `ns`; panics if it is not a number.
fn at(env: &Env, reg: &str, ns: std::ops::Range<i128>) -> Vec<i128> {
    let Some(Val::Num(p)) = env.get(reg) else {
        panic!("{reg} is {:?}", env.get(reg));
    };
    ns.map(|n| {
        let v = p.eval(&|s| (s == "p0").then_some(n)).unwrap();
        assert!(v.is_integer());
        num_traits::ToPrimitive::to_i128(&v.to_integer()).unwrap()
    })
    .collect()
}

// nvcc's shape of `for (i = 0; i < n; i++)` unrolled by 4: the main loop counts down
// n - n%4 by 4 and is bypassed when n < 4; the remainder starts from the join of both.
const UNROLLED: &str = "
        setp.lt.s32 %p1, %r1, 1;
        @%p1 bra $L__done;
        and.b32 %r2, %r1, 3;
        add.s32 %r6, %r1, -1;
        setp.lt.u32 %p2, %r6, 3;
        mov.u32 %r3, 0;
        @%p2 bra $L__rem;
        sub.s32 %r4, %r1, %r2;
        mov.u32 %r3, 0;
    $L__main:
        add.s32 %r3, %r3, 4;
        add.s32 %r4, %r4, -4;
        setp.ne.s32 %p3, %r4, 0;
        @%p3 bra $L__main;
    $L__rem:
        setp.eq.s32 %p4, %r2, 0;
        @%p4 bra $L__done;
        mov.u32 %r5, %r3;
    $L__tail:
        add.s32 %r5, %r5, 1;
        add.s32 %r2, %r2, -1;
        setp.ne.s32 %p5, %r2, 0;
        @%p5 bra $L__tail;
    $L__done:
        ret;";

#[test]
fn remainder_starts_from_the_main_loops_exit_value() {
    let env = entry_at(UNROLLED, "$L__rem");
    // 0 on the bypass (1 <= n < 4), 4·floor(n/4) after the main loop: one expression
    let want: Vec<i128> = (1..40).map(|n| 4 * (n / 4)).collect();
    assert_eq!(at(&env, "%r3", 1..40), want);
}

#[test]
fn remainder_induction_variable_is_affine_in_its_counter() {
    let env = entry_at(UNROLLED, "$L__tail");
    let Some(Val::Num(p)) = env.get("%r5") else {
        panic!("%r5 is {:?}", env.get("%r5"));
    };
    // the remainder's index is 4·floor(n/4) + k at its iteration k
    for n in 1..20i128 {
        for k in 0..(n % 4) {
            let v = p
                .eval(&|s| match s {
                    "p0" => Some(n),
                    s if s.starts_with('k') => Some(k),
                    _ => None,
                })
                .unwrap();
            assert_eq!(v, crate::poly::poly::rat(4 * (n / 4) + k), "n={n} k={k}");
        }
    }
}

#[test]
fn counted_loop_leaves_with_its_trip_count() {
    // do { i++ } while (i < n), entered only when n >= 1: i == n afterwards
    let env = entry_at(
        "
            setp.lt.s32 %p1, %r1, 1;
            @%p1 bra $L__done;
            mov.u32 %r2, 0;
        $L__loop:
            add.s32 %r2, %r2, 1;
            setp.lt.s32 %p2, %r2, %r1;
            @%p2 bra $L__loop;
        $L__after:
            mov.u32 %r3, %r2;
        $L__done:
            ret;",
        "$L__after",
    );
    assert_eq!(at(&env, "%r2", 1..30), (1..30).collect::<Vec<_>>());
}

#[test]
fn unprovable_join_and_data_dependent_exit_stay_unknown() {
    // The bypass depends on loaded data, so 0 and n may meet: unknown, not a guess.
    let env = entry_at(
        "
            .reg .b64 %rd<2>;
            mov.u64 %rd1, 0;
            ld.global.u32 %r4, [%rd1];
            setp.eq.s32 %p1, %r4, 0;
            mov.u32 %r2, 0;
            @%p1 bra $L__join;
            mov.u32 %r2, %r1;
        $L__join:
            mov.u32 %r3, %r2;
            ret;",
        "$L__join",
    );
    assert_eq!(env.get("%r2"), Some(&Val::Unknown));
    // A loop left on a loaded value: its counter must not leak past the loop.
    let env = entry_at(
        "
            .reg .b64 %rd<2>;
            mov.u64 %rd1, 0;
            mov.u32 %r2, 0;
        $L__loop:
            add.s32 %r2, %r2, 1;
            ld.global.u32 %r4, [%rd1];
            setp.ne.s32 %p2, %r4, 0;
            @%p2 bra $L__loop;
        $L__after:
            mov.u32 %r3, %r2;
            ret;",
        "$L__after",
    );
    assert_eq!(env.get("%r2"), Some(&Val::Unknown));
    assert!(matches!(env.get("%r1"), Some(Val::Num(_))));
}

#[test]
fn remainder_first_loop_leaves_at_the_residue() {
    // clang/nvcc peel (n - tid) % 4 iterations first; the main loop starts where they end
    let env = entry_at(
        "
            mov.u32 %r2, %tid.x;
            setp.ge.s32 %p1, %r2, %r1;
            @%p1 bra $L__done;
            sub.s32 %r3, %r1, %r2;
            and.b32 %r4, %r3, 3;
            setp.eq.s32 %p2, %r4, 0;
            mov.u32 %r5, %r2;
            @%p2 bra $L__main;
        $L__rem:
            add.s32 %r5, %r5, 1;
            add.s32 %r4, %r4, -1;
            setp.ne.s32 %p3, %r4, 0;
            @%p3 bra $L__rem;
        $L__main:
            mov.u32 %r6, %r5;
        $L__done:
            ret;",
        "$L__main",
    );
    let Some(Val::Num(p)) = env.get("%r5") else {
        panic!("%r5 is {:?}", env.get("%r5"));
    };
    for n in 1..40i128 {
        for t in 0..n.min(32) {
            let v = p
                .eval(&|s| match s {
                    "p0" => Some(n),
                    "tid_x" => Some(t),
                    _ => None,
                })
                .unwrap();
            assert_eq!(v, crate::poly::poly::rat(t + (n - t) % 4), "n={n} tid={t}");
        }
    }
}
