//! Loops with constant, non-affine trip counts: the counts of the unrolled graph against the
//! emulator's, and loops that must stay as they are.

use crate::cfg::Cfg;
use crate::count::{self, Workload};
use crate::emu;
use crate::ptx::Module;
use crate::stats::{BoundStats, Launch};

/// `for (s = ntid/2; s > 0; s >>= 1) { if (tid < s) buf[tid] += buf[tid + s]; __syncthreads(); }`
/// as nvcc lays it out (test at the bottom); a doubling loop with `pout = 1 - pout`; the halving
/// loop inside a loop over a parameter; a loop whose bound is loaded from memory.
const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry halve()
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<4>;
	.shared .align 4 .b8 buf[1024];

	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ntid.x;
	shl.b32 	%r3, %r1, 2;
	mov.u32 	%r4, buf;
	add.s32 	%r5, %r4, %r3;
	shr.u32 	%r6, %r2, 1;
	setp.eq.s32 	%p1, %r6, 0;
	@%p1 bra 	$L__BB0_4;
$L__BB0_1:
	setp.ge.u32 	%p2, %r1, %r6;
	@%p2 bra 	$L__BB0_3;
	shl.b32 	%r7, %r6, 2;
	add.s32 	%r7, %r5, %r7;
	ld.shared.f32 	%f1, [%r7];
	ld.shared.f32 	%f2, [%r5];
	add.f32 	%f3, %f1, %f2;
	st.shared.f32 	[%r5], %f3;
$L__BB0_3:
	bar.sync 	0;
	shr.u32 	%r6, %r6, 1;
	setp.ne.s32 	%p3, %r6, 0;
	@%p3 bra 	$L__BB0_1;
$L__BB0_4:
	ret;
}

.visible .entry twice()
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<12>;
	.reg .f32 	%f<4>;
	.shared .align 4 .b8 tmp[2048];

	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, 1;
	mov.u32 	%r4, 0;
	mov.u32 	%r8, tmp;
	setp.lt.s32 	%p1, %r2, 2;
	@%p1 bra 	$L__BB1_4;
$L__BB1_1:
	mov.u32 	%r5, 1;
	sub.s32 	%r4, %r5, %r4;
	sub.s32 	%r6, %r5, %r4;
	mad.lo.s32 	%r7, %r6, %r2, %r1;
	shl.b32 	%r7, %r7, 2;
	add.s32 	%r7, %r8, %r7;
	ld.shared.f32 	%f1, [%r7];
	setp.lt.s32 	%p2, %r1, %r3;
	@%p2 bra 	$L__BB1_3;
	shl.b32 	%r10, %r3, 2;
	sub.s32 	%r9, %r7, %r10;
	ld.shared.f32 	%f2, [%r9];
	add.f32 	%f1, %f1, %f2;
$L__BB1_3:
	mad.lo.s32 	%r11, %r4, %r2, %r1;
	shl.b32 	%r11, %r11, 2;
	add.s32 	%r11, %r8, %r11;
	st.shared.f32 	[%r11], %f1;
	bar.sync 	0;
	shl.b32 	%r3, %r3, 1;
	setp.lt.s32 	%p3, %r3, %r2;
	@%p3 bra 	$L__BB1_1;
$L__BB1_4:
	ret;
}

.visible .entry nest(
	.param .u32 nest_param_0
)
{
	.reg .pred 	%p<5>;
	.reg .b32 	%r<10>;
	.reg .f32 	%f<4>;
	.shared .align 4 .b8 buf2[1024];

	ld.param.u32 	%r8, [nest_param_0];
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ntid.x;
	shl.b32 	%r3, %r1, 2;
	mov.u32 	%r4, buf2;
	add.s32 	%r5, %r4, %r3;
	mov.u32 	%r9, 0;
	setp.lt.s32 	%p4, %r8, 1;
	@%p4 bra 	$L__BB3_5;
$L__BB3_0:
	shr.u32 	%r6, %r2, 1;
$L__BB3_1:
	setp.ge.u32 	%p2, %r1, %r6;
	@%p2 bra 	$L__BB3_3;
	shl.b32 	%r7, %r6, 2;
	add.s32 	%r7, %r5, %r7;
	ld.shared.f32 	%f1, [%r7];
	ld.shared.f32 	%f2, [%r5];
	add.f32 	%f3, %f1, %f2;
	st.shared.f32 	[%r5], %f3;
$L__BB3_3:
	bar.sync 	0;
	shr.u32 	%r6, %r6, 1;
	setp.ne.s32 	%p3, %r6, 0;
	@%p3 bra 	$L__BB3_1;
	add.s32 	%r9, %r9, 1;
	setp.lt.s32 	%p1, %r9, %r8;
	@%p1 bra 	$L__BB3_0;
$L__BB3_5:
	ret;
}

.visible .entry loaded(
	.param .u64 loaded_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [loaded_param_0];
	cvta.to.global.u64 	%rd1, %rd1;
	ld.global.u32 	%r1, [%rd1];
$L__BB2_1:
	shr.u32 	%r1, %r1, 1;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB2_1;
	ret;
}
"#;

fn module() -> Module {
    Module::parse(PTX).expect("test PTX parses")
}

fn counted(m: &Module, kernel: &str, grid: [u64; 3], block: [u64; 3]) -> BoundStats {
    counted_with(m, kernel, grid, block, &[])
}

fn counted_with(
    m: &Module,
    kernel: &str,
    grid: [u64; 3],
    block: [u64; 3],
    params: &[i32],
) -> BoundStats {
    let opts = count::Options {
        block: Some(block),
        ..Default::default()
    };
    let ks = count::analyze_kernel_with(m, kernel, &opts).expect("analyses");
    let w = Workload {
        grid,
        block,
        params: params
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), *v as i64))
            .collect(),
        ..Default::default()
    };
    ks.bind(&w).expect("binds")
}

fn emulated(
    m: &Module,
    kernel: &str,
    grid: [u64; 3],
    block: [u64; 3],
    params: &[i32],
) -> BoundStats {
    let opts = emu::Options {
        max_steps: 10_000_000,
        ..emu::Options::default()
    };
    let args: Vec<emu::KernelArg> = params.iter().map(|v| emu::KernelArg::S32(*v)).collect();
    emu::run_with(m, kernel, &Launch { grid, block }, &args, &opts)
        .expect("emulates")
        .stats
}

/// Every feature and every block's (threads, warps) equal, and nothing assumed.
fn assert_exact(kernel: &str, block: [u64; 3], params: &[i32]) {
    let m = module();
    let grid = [2, 1, 1];
    let s = counted_with(&m, kernel, grid, block, params);
    let e = emulated(&m, kernel, grid, block, params);
    assert!(
        s.assumptions.is_empty(),
        "{kernel} at {block:?}: {:?}",
        s.assumptions
    );
    assert_eq!(s.features, e.features, "{kernel} at {block:?}: features");
    let execs = |b: &BoundStats| -> Vec<(usize, f64, f64)> {
        b.block_execs
            .iter()
            .filter(|(_, x)| x.threads != 0.0)
            .map(|(k, x)| (*k, x.threads, x.warps))
            .collect()
    };
    assert_eq!(execs(&s), execs(&e), "{kernel} at {block:?}: block_execs");
}

#[test]
fn halving_loop_with_guard_is_exact() {
    for n in [256, 64, 48, 33] {
        assert_exact("halve", [n, 1, 1], &[]);
    }
}

#[test]
fn doubling_loop_with_toggle_is_exact() {
    for n in [256, 64, 48, 5] {
        assert_exact("twice", [n, 1, 1], &[]);
    }
}

#[test]
fn halving_loop_inside_a_parametric_loop_is_exact() {
    for (n, outer) in [(64, 3), (48, 1), (256, 0)] {
        assert_exact("nest", [n, 1, 1], &[outer]);
    }
}

#[test]
fn concrete_steps_wrap_as_the_hardware_does() {
    use super::eval::{step, State, C};
    let m = Module::parse(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<2>;\n\tmov.u32 %r1, -8;\n\tshr.s32 %r2, %r1, 1;\n\tshr.u32 %r3, %r1, 28;\n\tmul.wide.u32 %rd1, %r1, 2;\n\tsetp.lo.u32 %p1|%p2, %r3, %r1;\n\tshl.b32 %r4, %r3, 31;\n\tadd.s32 %r5, %r4, %r4;\n\tret;\n}\n",
    )
    .expect("parses");
    let f = m.function("k").expect("kernel");
    let mut s = State::new();
    for i in f.instructions() {
        step(i, &mut s, &|_| None);
    }
    let int = |r: &str| s.get(r).copied();
    assert_eq!(int("%r2"), Some(C::Int((-4i32) as u32 as u64)));
    assert_eq!(int("%r3"), Some(C::Int(15)));
    assert_eq!(int("%rd1"), Some(C::Int(2 * 0xffff_fff8u64)));
    assert_eq!(int("%p1"), Some(C::Pred(true)));
    assert_eq!(int("%p2"), Some(C::Pred(false)));
    assert_eq!(int("%r4"), Some(C::Int(0x8000_0000)));
    // 2^31 + 2^31 wraps to 0 in 32 bits
    assert_eq!(int("%r5"), Some(C::Int(0)));
}

#[test]
fn unrolled_blocks_fold_onto_the_original_ones() {
    let m = module();
    let f = m.function("halve").expect("kernel");
    let cfg = Cfg::build(f);
    let n = cfg.blocks.len();
    let (u, origin) = super::constant_trip_loops(f, cfg, [64, 1, 1]);
    // s = 32, 16, 8, 4, 2, 1: six copies of the three loop blocks
    assert_eq!(u.blocks.len(), n + 5 * 3);
    assert!(u.loops.is_empty());
    assert_eq!(origin.len(), u.blocks.len());
    // copies follow the loop's last block (3); it and the blocks before keep their ids
    assert!(origin[..4].iter().enumerate().all(|(i, o)| i == *o));
    assert!(origin.iter().all(|o| *o < n));
    let s = counted(&m, "halve", [1, 1, 1], [64, 1, 1]);
    assert_eq!(s.block_execs.len(), n);
    // the loop header runs six times per thread
    assert_eq!(s.block_execs[&1].threads, 6.0 * 64.0);
}

#[test]
fn loop_bounded_by_memory_stays_an_assumption() {
    let m = module();
    let f = m.function("loaded").expect("kernel");
    let cfg = Cfg::build(f);
    let n = cfg.blocks.len();
    let (u, origin) = super::constant_trip_loops(f, cfg, [32, 1, 1]);
    assert_eq!(u.blocks.len(), n);
    assert_eq!(origin, (0..n).collect::<Vec<_>>());
    let s = counted(&m, "loaded", [1, 1, 1], [32, 1, 1]);
    assert!(
        s.assumptions
            .iter()
            .any(|a| a.hint_key.starts_with("trip.")),
        "{:?}",
        s.assumptions
    );
}
