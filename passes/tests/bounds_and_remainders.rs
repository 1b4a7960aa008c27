//! Loops bounded by min/max values and unrolled by a compiler, remainders peeled into chains
//! of tests, sign tests of bit operations, and control flow that only products of launch
//! indices and parameters decide: the symbolic counts, bound to several launches, equal the
//! emulator's for every feature and block, with no data-dependent assumption left.

use kerncast_passes::ptx::Module;

mod common;
use common::{analyze, data_dependent, emulate, kernel, workload};

/// One launch: grid, block, n, w.
type At = ([u64; 3], [u64; 3], i64, i64);

fn non_affine(a: &[kerncast_passes::stats::Assumption]) -> Vec<&str> {
    a.iter()
        .map(|a| a.hint_key.as_str())
        .filter(|k| k.starts_with(kerncast_passes::domains::NON_AFFINE))
        .collect()
}

/// The counts of one analysis per block size (grid symbolic) bound to every launch equal the
/// emulator's; the analysis assumes nothing data dependent, nor, where `closed` (closed forms
/// exact for every parameter value), anything it leaves to the parameter values; the bound
/// counts assume nothing about control flow.
fn exact(m: &Module, closed: bool, launches: &[At]) {
    for &(grid, block, n, w) in launches {
        let ks = analyze(m, "k", block);
        assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
        if closed {
            assert_eq!(non_affine(&ks.assumptions), Vec::<&str>::new());
        }
        let wl = workload(grid, block, &[("0", n), ("1", w)]);
        let s = ks.bind(&wl).expect("binds");
        assert_eq!(
            non_affine(&s.assumptions),
            Vec::<&str>::new(),
            "at {grid:?} {block:?} n={n} w={w}"
        );
        let e = emulate(m, grid, block, &[n, w]);
        assert_eq!(
            s.features, e.features,
            "features at {grid:?} {block:?} n={n} w={w}"
        );
        assert_eq!(
            s.block_execs, e.block_execs,
            "block executions at {grid:?} {block:?} n={n} w={w}"
        );
    }
}

/// `for (j = max(0, i - w); j <= min(n - 1, i + w); j++)` unrolled by 4 as clang writes it:
/// the remainder `(hi + 1 - lo) & 3` first, then the main loop from where it stopped, its
/// addresses stepping from `4·lo`.
#[test]
fn band_loop_unrolled_by_four_is_exact() {
    let m = kernel(
            2,
        "mov.u32 %r22, %ctaid.x;\nmov.u32 %r23, %ntid.x;\nmov.u32 %r24, %tid.x;\nmad.lo.s32 %r1, %r22, %r23, %r24;\n\
         setp.ge.s32 %p1, %r1, %r20;\n@%p1 bra DONE;\n\
         sub.s32 %r25, %r1, %r21;\nmax.s32 %r35, %r25, 0;\nadd.s32 %r26, %r20, -1;\nadd.s32 %r27, %r1, %r21;\nmin.s32 %r3, %r26, %r27;\n\
         setp.lt.s32 %p2, %r3, %r35;\nmov.f32 %f1, 0f00000000;\n@%p2 bra STORE;\n\
         add.s32 %r5, %r3, 1;\nsub.s32 %r28, %r5, %r35;\nsub.s32 %r6, %r3, %r35;\nand.b32 %r7, %r28, 3;\n\
         setp.eq.s32 %p3, %r7, 0;\n@%p3 bra MAIN_CHECK;\nshl.b32 %r33, %r7, 2;\n\
         REM:\nmul.wide.s32 %rd3, %r35, 4;\nadd.s64 %rd4, %rd2, %rd3;\nld.global.f32 %f2, [%rd4];\nadd.f32 %f1, %f1, %f2;\n\
         add.s32 %r35, %r35, 1;\nadd.s32 %r33, %r33, -4;\nsetp.ne.s32 %p4, %r33, 0;\n@%p4 bra REM;\n\
         MAIN_CHECK:\nsetp.lt.u32 %p5, %r6, 3;\n@%p5 bra STORE;\n\
         sub.s32 %r37, %r5, %r35;\nmul.wide.s32 %rd5, %r35, 4;\nadd.s64 %rd6, %rd2, %rd5;\n\
         MAIN:\nld.global.f32 %f3, [%rd6];\nld.global.f32 %f4, [%rd6+4];\nld.global.f32 %f5, [%rd6+8];\nld.global.f32 %f6, [%rd6+12];\n\
         add.f32 %f1, %f1, %f3;\nadd.f32 %f1, %f1, %f4;\nadd.f32 %f1, %f1, %f5;\nadd.f32 %f1, %f1, %f6;\n\
         add.s32 %r37, %r37, -4;\nadd.s64 %rd6, %rd6, 16;\nsetp.eq.s32 %p6, %r37, 0;\n@%p6 bra STORE;\nbra.uni MAIN;\n\
         STORE:\nmul.wide.s32 %rd7, %r1, 4;\nadd.s64 %rd8, %rd2, %rd7;\nst.global.f32 [%rd8], %f1;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        true,
        &[
            ([2, 1, 1], [32, 1, 1], 40, 3),
            ([2, 1, 1], [32, 1, 1], 37, 0),
            ([1, 1, 1], [32, 1, 1], 9, 16),
            ([3, 1, 1], [32, 1, 1], 70, 6),
        ],
    );
}

/// A chunk loop `for (c = 0; c < n; c += blockDim.x)` whose inner length is
/// `max(min(blockDim.x, n - c), 1)`, unrolled by 4 (`len & 0x7ffffffc`, then `len & 3`).
#[test]
fn clamped_chunk_length_unrolled_by_four_is_exact() {
    let m = kernel(
            2,
        "mov.u32 %r1, %ntid.x;\nmov.u32 %r2, %tid.x;\nmul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         setp.lt.s32 %p1, %r20, 1;\n@%p1 bra DONE;\nmov.u32 %r31, 0;\nmov.u32 %r30, %r20;\n\
         OUTER:\nmin.s32 %r8, %r1, %r30;\nmax.s32 %r9, %r8, 1;\nsetp.lt.s32 %p6, %r8, 4;\nmov.u32 %r33, 0;\n@%p6 bra TAIL;\n\
         and.b32 %r33, %r9, 2147483644;\nmov.u32 %r32, 0;\n\
         MAIN:\nst.global.u32 [%rd4], %r32;\nadd.s32 %r32, %r32, 4;\nsetp.ne.s32 %p7, %r33, %r32;\n@%p7 bra MAIN;\n\
         TAIL:\nand.b32 %r12, %r9, 3;\nsetp.eq.s32 %p8, %r12, 0;\n@%p8 bra NEXT;\n\
         mul.wide.u32 %rd5, %r33, 4;\nadd.s64 %rd6, %rd2, %rd5;\nmov.u32 %r34, %r12;\n\
         REM:\nst.global.u32 [%rd6], %r34;\nadd.s64 %rd6, %rd6, 4;\nadd.s32 %r34, %r34, -1;\nsetp.ne.s32 %p9, %r34, 0;\n@%p9 bra REM;\n\
         NEXT:\nadd.s32 %r31, %r31, %r1;\nsub.s32 %r30, %r30, %r1;\nsetp.lt.s32 %p10, %r31, %r20;\n@%p10 bra OUTER;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        true,
        &[
            ([1, 1, 1], [32, 1, 1], 5, 0),
            ([1, 1, 1], [32, 1, 1], 37, 0),
            ([2, 1, 1], [32, 1, 1], 70, 0),
            ([1, 1, 1], [64, 1, 1], 130, 0),
        ],
    );
}

/// `if (x >= 0 && y >= 0)` as nvcc tests it: the sign of `x | y`; and `x < 0 && y < 0` as the
/// sign of `x & y`.
#[test]
fn sign_tests_of_bit_operations_are_exact() {
    let m = kernel(
            2,
        "mov.u32 %r22, %ctaid.x;\nmov.u32 %r23, %ntid.x;\nmov.u32 %r24, %tid.x;\nmad.lo.s32 %r1, %r22, %r23, %r24;\n\
         sub.s32 %r3, %r1, %r21;\nsub.s32 %r4, %r20, %r1;\nadd.s32 %r4, %r4, -1;\n\
         or.b32 %r5, %r3, %r4;\nsetp.lt.s32 %p1, %r5, 0;\n@%p1 bra SECOND;\n\
         mul.wide.s32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r1;\n\
         SECOND:\nadd.s32 %r6, %r1, -40;\nsub.s32 %r7, %r21, %r1;\nand.b32 %r8, %r6, %r7;\n\
         setp.gt.s32 %p2, %r8, -1;\n@%p2 bra DONE;\nst.global.u32 [%rd2], %r8;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        true,
        &[
            ([2, 1, 1], [32, 1, 1], 40, 3),
            ([2, 1, 1], [32, 1, 1], 20, 50),
            ([3, 1, 1], [32, 1, 1], 70, 45),
        ],
    );
}

/// nvcc peels a remainder `r = (n + tid) % 4` into `if (r == 0) … if (r == 1) … if (r == 2) …`,
/// each test leaving with the index reached so far, then runs the main loop from where they
/// left: the join is `tid + r`, a value none of its ways in brings.
#[test]
fn peeled_remainder_chain_joins_into_one_start() {
    let m = kernel(
            2,
        "mov.u32 %r2, %tid.x;\nmul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         add.s32 %r8, %r20, %r2;\nand.b32 %r5, %r8, 3;\nsetp.eq.s32 %p1, %r5, 0;\nmov.u32 %r6, %r2;\n@%p1 bra JOIN;\n\
         st.global.u32 [%rd4], %r2;\nsetp.eq.s32 %p2, %r5, 1;\nadd.s32 %r6, %r2, 1;\n@%p2 bra JOIN;\n\
         st.global.u32 [%rd4], %r2;\nsetp.eq.s32 %p3, %r5, 2;\nadd.s32 %r6, %r2, 2;\n@%p3 bra JOIN;\n\
         st.global.u32 [%rd4], %r2;\nadd.s32 %r6, %r2, 3;\n\
         JOIN:\nadd.s32 %r7, %r20, %r2;\nsetp.ge.s32 %p4, %r6, %r7;\n@%p4 bra DONE;\n\
         LOOP:\nst.global.u32 [%rd4], %r6;\nadd.s32 %r6, %r6, 4;\nsetp.lt.s32 %p5, %r6, %r7;\n@%p5 bra LOOP;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        true,
        &[
            ([1, 1, 1], [32, 1, 1], 0, 0),
            ([1, 1, 1], [32, 1, 1], 13, 0),
            ([2, 1, 1], [32, 1, 1], 30, 0),
            ([1, 1, 1], [64, 1, 1], 7, 0),
        ],
    );
}

/// Rows `blockIdx.y * rows + r` for `r < rows`, guarded by `< n`: a product of a launch index
/// and a parameter decides the guard, so the symbolic counts leave it open (not as data) and
/// binding counts it for the workload's `rows`.
#[test]
fn guard_on_a_launch_parameter_product_is_exact_once_bound() {
    let m = kernel(
            2,
        "mov.u32 %r2, %tid.x;\nmul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         mov.u32 %r3, %ctaid.y;\nmul.lo.s32 %r4, %r3, %r21;\nsetp.lt.s32 %p1, %r21, 1;\n@%p1 bra DONE;\nmov.u32 %r5, 0;\n\
         LOOP:\nadd.s32 %r6, %r4, %r5;\nsetp.ge.s32 %p2, %r6, %r20;\n@%p2 bra NEXT;\nst.global.u32 [%rd4], %r6;\n\
         NEXT:\nadd.s32 %r5, %r5, 1;\nsetp.lt.s32 %p3, %r5, %r21;\n@%p3 bra LOOP;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        false,
        &[
            ([1, 3, 1], [32, 1, 1], 10, 4),
            ([2, 4, 1], [32, 1, 1], 7, 3),
            ([1, 2, 1], [64, 1, 1], 100, 5),
        ],
    );
}

/// A grid-stride loop whose trip count clang computes up front, `(n - 1 - i) / stride + 1`
/// with `stride = blockDim.x * gridDim.x`: a quotient by the grid size, decided by the launch,
/// counted exactly for each workload's grid.
#[test]
fn grid_stride_trip_count_by_division_is_exact_once_bound() {
    let m = kernel(
            2,
        "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
         setp.ge.s32 %p1, %r4, %r20;\n@%p1 bra DONE;\n\
         mov.u32 %r5, %nctaid.x;\nmul.lo.s32 %r6, %r5, %r2;\nsub.s32 %r7, %r20, %r4;\nadd.s32 %r7, %r7, -1;\n\
         div.u32 %r8, %r7, %r6;\nadd.s32 %r9, %r8, 1;\n\
         LOOP:\nmul.wide.s32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r9;\n\
         add.s32 %r4, %r4, %r6;\nadd.s32 %r9, %r9, -1;\nsetp.ne.s32 %p2, %r9, 0;\n@%p2 bra LOOP;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        false,
        &[
            ([2, 1, 1], [32, 1, 1], 5, 0),
            ([2, 1, 1], [32, 1, 1], 150, 0),
            ([3, 1, 1], [64, 1, 1], 1000, 0),
        ],
    );
}
