//! Device-function inlining: the callee's work is counted (exactly, symbolically, through the
//! parameters it receives), the emulator computes the same values as the call would, and calls
//! that cannot be inlined stay calls and are listed with the reason.

use kerncast_passes::count::{self, Options};
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::inline::inline_calls;
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::{DType, Feature, Granularity, Launch, OpKind};
use std::collections::BTreeMap;

mod common;
use common::{analyze, data_dependent, workload};

/// `poly(x, deg)`: `deg` fused multiply-adds, as nvcc writes a `__noinline__` helper; the kernel
/// `k(n, deg, out)` stores `poly(tid, deg)` for `tid < n`.
const POLY: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.func  (.param .b32 func_retval0) poly(
	.param .b32 poly_param_0,
	.param .b32 poly_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<8>;
	.reg .b32 	%r<8>;

	ld.param.f32 	%f1, [poly_param_0];
	ld.param.u32 	%r1, [poly_param_1];
	mov.f32 	%f7, 0f00000000;
	setp.lt.s32 	%p1, %r1, 1;
	@%p1 bra 	$L__BB0_3;
	mov.u32 	%r2, 0;
$L__BB0_2:
	fma.rn.f32 	%f7, %f7, %f1, 0f3F800000;
	add.s32 	%r2, %r2, 1;
	setp.lt.s32 	%p2, %r2, %r1;
	@%p2 bra 	$L__BB0_2;
$L__BB0_3:
	st.param.f32 	[func_retval0+0], %f7;
	ret;
}

.visible .entry k(
	.param .u32 k_n,
	.param .u32 k_deg,
	.param .u64 k_out
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u32 	%r1, [k_n];
	ld.param.u32 	%r2, [k_deg];
	ld.param.u64 	%rd1, [k_out];
	mov.u32 	%r3, %tid.x;
	setp.ge.u32 	%p1, %r3, %r1;
	@%p1 bra 	$L__BB1_2;
	cvt.rn.f32.u32 	%f1, %r3;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.f32 	[param0+0], %f1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r2;
	.param .b32 retval0;
	call.uni (retval0),
	poly,
	(
	param0,
	param1
	);
	ld.param.f32 	%f2, [retval0+0];
	} // callseq 0
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r3, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.f32 	[%rd4], %f2;
$L__BB1_2:
	ret;
}
"#;

fn fma_f32(features: &BTreeMap<Feature, f64>) -> f64 {
    features
        .get(&Feature::Op {
            kind: OpKind::Fma,
            ty: DType::F32,
            gran: Granularity::Thread,
        })
        .copied()
        .unwrap_or(0.0)
}

fn run(m: &Module, block: u64, args: Vec<KernelArg>) -> (emu::EmuResult, Vec<u8>) {
    let out = emu::run_with(
        m,
        "k",
        &Launch {
            grid: [1, 1, 1],
            block: [block, 1, 1],
        },
        &args,
        &emu::Options::default(),
    )
    .expect("emulates");
    let last = args.len() - 1;
    let buf = out
        .buffers
        .get(&last)
        .cloned()
        .expect("the output buffer comes back");
    (out, buf)
}

#[test]
fn the_callees_loop_is_counted_exactly_through_its_parameters() {
    let m = Module::parse(POLY).expect("parses");
    let before = count::analyze_kernel_with(&m, "k", &Options::default()).expect("analyses");
    let inl = inline_calls(&m);
    assert_eq!(inl.inlined, 1);
    assert!(inl.not_inlined.is_empty(), "{:?}", inl.not_inlined);

    let block = [64, 1, 1];
    let ks = analyze(&inl.module, "k", block);
    assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
    for (n, deg) in [(40, 7), (64, 1), (10, 0)] {
        let s = ks
            .bind(&workload([1, 1, 1], block, &[("0", n), ("1", deg)]))
            .expect("binds");
        assert_eq!(fma_f32(&s.features), (n * deg) as f64, "n={n} deg={deg}");
        let (e, _) = run(
            &inl.module,
            64,
            vec![
                KernelArg::U32(n as u32),
                KernelArg::U32(deg as u32),
                KernelArg::Buffer(vec![0; 64 * 4]),
            ],
        );
        assert_eq!(s.features, e.stats.features, "n={n} deg={deg}");
    }
    // Before inlining the call hid the loop: no fma at all.
    let s = before
        .bind(&workload([1, 1, 1], block, &[("0", 40), ("1", 7)]))
        .expect("binds");
    assert_eq!(fma_f32(&s.features), 0.0);
}

#[test]
fn the_inlined_kernel_computes_what_the_call_returns() {
    let m = inline_calls(&Module::parse(POLY).expect("parses")).module;
    let (_, buf) = run(
        &m,
        8,
        vec![
            KernelArg::U32(8),
            KernelArg::U32(3),
            KernelArg::Buffer(vec![0; 8 * 4]),
        ],
    );
    for t in 0..8 {
        let got = f32::from_le_bytes(buf[t * 4..t * 4 + 4].try_into().unwrap());
        let x = t as f32;
        let want = (x + 1.0) * x + 1.0; // three steps of r = r·x + 1 from 0
        assert_eq!(got, want, "thread {t}");
    }
}

/// A struct returned in two slots (offsets 0 and 8) by a function that calls another.
const NESTED: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.func  (.param .b32 func_retval0) twice(
	.param .b32 twice_param_0
)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [twice_param_0];
	shl.b32 	%r2, %r1, 1;
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}

.func  (.param .align 8 .b8 func_retval0[16]) pair(
	.param .b32 pair_param_0
)
{
	.reg .b32 	%r<4>;
	.reg .f64 	%fd<3>;
	ld.param.u32 	%r1, [pair_param_0];
	cvt.rn.f64.u32 	%fd1, %r1;
	add.f64 	%fd2, %fd1, 0d3FF0000000000000;
	{ // callseq 1, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), twice, (param0);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 1
	st.param.f64 	[func_retval0+0], %fd2;
	st.param.b32 	[func_retval0+8], %r2;
	ret;
}

.visible .entry k(
	.param .u64 k_out
)
{
	.reg .b32 	%r<4>;
	.reg .f64 	%fd<2>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [k_out];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .align 8 .b8 retval0[16];
	call.uni (retval0), pair, (param0);
	ld.param.f64 	%fd1, [retval0+0];
	ld.param.b32 	%r2, [retval0+8];
	} // callseq 0
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.f64 	[%rd4], %fd1;
	st.global.u32 	[%rd4+8], %r2;
	ret;
}
"#;

#[test]
fn nested_calls_and_struct_returns_are_inlined() {
    let inl = inline_calls(&Module::parse(NESTED).expect("parses"));
    assert_eq!(inl.inlined, 2, "pair, and twice inside it");
    assert!(inl.not_inlined.is_empty(), "{:?}", inl.not_inlined);
    assert!(
        !inl.module
            .kernels()
            .next()
            .unwrap()
            .instructions()
            .any(|i| i.opcode == "call"),
        "no call left"
    );
    let (_, buf) = run(&inl.module, 4, vec![KernelArg::Buffer(vec![0; 4 * 16])]);
    for t in 0..4 {
        let d = f64::from_le_bytes(buf[t * 16..t * 16 + 8].try_into().unwrap());
        let r = u32::from_le_bytes(buf[t * 16 + 8..t * 16 + 12].try_into().unwrap());
        assert_eq!((d, r), (t as f64 + 1.0, 2 * t as u32), "thread {t}");
    }
    // The printed module parses again: the renamed registers, labels and slots are valid PTX names.
    let text = inl.module.to_string();
    Module::parse(&text).expect("the inlined module prints as parseable PTX");
}

#[test]
fn calls_without_a_body_or_recursive_stay_calls_with_the_reason() {
    let text = r#"
.version 8.0
.target sm_80
.address_size 64
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.func  (.param .b32 func_retval0) down(
	.param .b32 down_param_0
)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [down_param_0];
	{ // callseq 2, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), down, (param0);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 2
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}
.visible .entry k(
	.param .u64 k_out
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;
	mov.u64 	%rd1, 0;
	mov.u32 	%r1, %tid.x;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 0
	{ // callseq 1, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), down, (param0);
	ld.param.b32 	%r3, [retval0+0];
	} // callseq 1
	ret;
}
"#;
    let inl = inline_calls(&Module::parse(text).expect("parses"));
    let reasons: Vec<(&str, &str)> = inl
        .not_inlined
        .iter()
        .map(|n| (n.callee.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        reasons,
        vec![
            ("vprintf", "an external function: no body in this module"),
            ("down", "a recursive call"),
        ]
    );
    assert_eq!(inl.inlined, 1, "the first level of `down` is inlined");
    let calls = inl
        .module
        .kernels()
        .next()
        .unwrap()
        .instructions()
        .filter(|i| i.opcode == "call")
        .count();
    assert_eq!(
        calls, 2,
        "vprintf, and the recursive call inside the inlined `down`"
    );
}

#[test]
fn a_call_without_a_call_sequence_is_inlined_once() {
    let text = r#"
.version 8.0
.target sm_80
.address_size 64
.func bump()
{
	.reg .b32 	%r<3>;
	mov.u32 	%r1, %tid.x;
	add.s32 	%r2, %r1, 1;
	ret;
}
.visible .entry k(
	.param .u64 k_out
)
{
	call.uni bump;
	ret;
}
"#;
    let inl = inline_calls(&Module::parse(text).expect("parses"));
    assert_eq!(inl.inlined, 1);
    let k = inl.module.kernels().next().unwrap();
    let ops: Vec<&str> = k.instructions().map(|i| i.opcode.as_str()).collect();
    assert_eq!(
        ops,
        ["mov", "add", "bra", "ret"],
        "the body, its ret as a branch, no call left"
    );
}
