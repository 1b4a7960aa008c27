//! Bounded by construction: a chain of joins that each split the lanes reaching them into two
//! groups (one side may return early) has 2^n ways in after n joins; the walk that builds the
//! blocks' domains keeps at most `MAX_WAYS` of them apart and the counter then refuses the
//! kernel with the reason, where it used to take time exponential in n.

use kerncast_passes::count::{self, AnalyzeError, Options};
use kerncast_passes::domains::MAX_WAYS;
use kerncast_passes::poly::count::CountError;
use kerncast_passes::ptx::Module;

/// `k(in)`: `n` times, a data-dependent test that either runs a block or tests again and may
/// return, and the two ways meet again.
fn chain(n: usize) -> String {
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!(
            "\tsetp.eq.s32 %p1, %r1, {i};\n\t@%p1 bra $ELSE{i};\n\
             \tsetp.eq.s32 %p2, %r2, {i};\n\t@%p2 bra $RET;\n\
             \tadd.s32 %r3, %r3, 1;\n\tbra.uni $JOIN{i};\n\
             $ELSE{i}:\n\tadd.s32 %r3, %r3, 2;\n$JOIN{i}:\n"
        ));
    }
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_in)\n{{\n\
         \t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\
         \tld.param.u64 %rd1, [k_in];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tld.global.u32 %r1, [%rd2];\n\tld.global.u32 %r2, [%rd2+4];\n\tmov.u32 %r3, 0;\n\
         {body}\tst.global.u32 [%rd2+8], %r3;\n$RET:\n\tret;\n}}\n"
    )
}

// the chain of 7 below splits into more ways than the bound
const _: () = assert!(1 << 7 > MAX_WAYS);

fn analyze(n: usize) -> Result<count::KernelStats, AnalyzeError> {
    let m = Module::parse(&chain(n)).expect("parses");
    count::analyze_kernel_with(
        &m,
        "k",
        &Options {
            block: Some([32, 1, 1]),
            grid: None,
        },
    )
}

#[test]
fn a_few_splitting_joins_are_counted_and_many_are_refused_with_the_reason() {
    // 2^3 = 8 ways: counted (on data: the branches are hints)
    let few = analyze(3).expect("a few joins are counted");
    assert!(few
        .assumptions
        .iter()
        .any(|a| a.hint_key.contains("branch")));
    // 2^7 = 128 ways in at the last join, over the bound
    match analyze(7) {
        Err(AnalyzeError::Count {
            source: CountError::TooManyPaths(max),
            ..
        }) => assert_eq!(max, MAX_WAYS),
        other => panic!(
            "expected a refusal for too many ways, got {:?}",
            other.map(|_| ())
        ),
    }
    // a long chain too: the walk merges the ways before they multiply, so its work grows
    // polynomially with the chain (2^20 ways, enumerated, would not finish)
    assert!(analyze(20).is_err());
}
