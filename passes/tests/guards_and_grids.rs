//! Guards through min/max, predicate logic and joins, and grid-stride loops: the symbolic
//! counts, bound to small launches, equal the emulator's for every feature and block, with no
//! data-dependent assumption left.

use kerncast_passes::count::{self, Options, Workload};
use kerncast_passes::ptx::Module;
use std::collections::BTreeMap;

mod common;
use common::{analyze, data_dependent, emulate, kernel, workload};

/// Counter and emulator agree at every launch (`grid`, `block`, `n`).
fn exact(m: &Module, grid_specialised: bool, launches: &[([u64; 3], [u64; 3], i64)]) {
    for &(grid, block, n) in launches {
        let opts = Options {
            block: Some(block),
            grid: grid_specialised.then_some(grid),
        };
        let ks = count::analyze_kernel_with(m, "k", &opts).expect("analyses");
        assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
        let w = workload(grid, block, &[("0", n)]);
        let s = ks.bind(&w).expect("binds");
        let e = emulate(m, grid, block, &[n]);
        assert_eq!(
            s.features, e.features,
            "features at {grid:?} {block:?} n={n}"
        );
        assert_eq!(
            s.block_execs, e.block_execs,
            "block executions at {grid:?} {block:?} n={n}"
        );
    }
}

const TWO_D: [([u64; 3], [u64; 3], i64); 3] = [
    ([2, 2, 1], [8, 8, 1], 5),
    ([2, 2, 1], [8, 8, 1], 12),
    ([3, 2, 1], [8, 8, 1], 20),
];

/// `if (row < n && col < n)` as clang writes it: `max(row, col) >= n` skips.
#[test]
fn max_guard_is_exact() {
    let m = kernel(
            1,
        "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
         mov.u32 %r5, %ctaid.y;\nmov.u32 %r6, %ntid.y;\nmov.u32 %r7, %tid.y;\nmad.lo.s32 %r8, %r5, %r6, %r7;\n\
         max.s32 %r9, %r8, %r4;\nsetp.ge.s32 %p1, %r9, %r20;\n@%p1 bra DONE;\n\
         mad.lo.s32 %r10, %r8, %r20, %r4;\nmul.wide.s32 %rd3, %r10, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r10;\n\
         DONE:\nret;",
    );
    exact(&m, false, &TWO_D);
}

/// Nested: `min(max(row, col), n - 3) + not(col) ... `: a band `n - 3 >= max(row, col)` written
/// through `min`, `not` and a `selp` of two affine values.
#[test]
fn nested_min_max_select_guards_are_exact() {
    let m = kernel(
            1,
        "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
         mov.u32 %r5, %ctaid.y;\nmov.u32 %r6, %ntid.y;\nmov.u32 %r7, %tid.y;\nmad.lo.s32 %r8, %r5, %r6, %r7;\n\
         max.s32 %r9, %r8, %r4;\nadd.s32 %r11, %r20, -3;\nmin.s32 %r12, %r9, %r11;\n\
         setp.lt.s32 %p1, %r12, %r9;\n@%p1 bra DONE;\n\
         not.b32 %r13, %r4;\nsetp.gt.s32 %p2, %r8, 2;\nselp.b32 %r14, %r8, %r13, %p2;\n\
         setp.lt.s32 %p3, %r14, 4;\n@%p3 st.global.u32 [%rd2], %r14;\n\
         DONE:\nret;",
    );
    exact(&m, false, &TWO_D);
}

/// `if (tid % 2 == 0)` as nvcc and clang write it (`xor.pred` with a constant `mov.pred`):
/// every warp runs both sides.
#[test]
fn parity_branch_through_xor_pred_is_exact() {
    let m = kernel(
        1,
        "mov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 1;\nsetp.eq.b32 %p1, %r2, 1;\nmov.pred %p2, 0;\n\
         xor.pred %p3, %p1, %p2;\nnot.pred %p4, %p3;\n@%p4 bra EVEN;\n\
         st.global.u32 [%rd2], %r1;\nbra.uni DONE;\n\
         EVEN:\nst.global.u32 [%rd2+4], %r1;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        false,
        &[([3, 1, 1], [64, 1, 1], 1), ([1, 1, 1], [40, 1, 1], 1)],
    );
}

/// `if (i == 0 || j < 1 || j >= n - 1) A else B` as clang lays it out: A is reached from two
/// tests, and a warp runs it once per way in.
#[test]
fn join_of_two_tests_counts_each_lane_group() {
    let m = kernel(
            1,
        "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
         mov.u32 %r5, %ctaid.y;\nmov.u32 %r6, %ntid.y;\nmov.u32 %r7, %tid.y;\nmad.lo.s32 %r8, %r5, %r6, %r7;\n\
         max.s32 %r9, %r8, %r4;\nsetp.ge.s32 %p1, %r9, %r20;\n@%p1 bra DONE;\n\
         setp.eq.s32 %p2, %r8, 0;\n@%p2 bra EDGE;\n\
         add.s32 %r10, %r20, -1;\nsetp.lt.s32 %p3, %r4, 1;\nsetp.le.s32 %p4, %r10, %r4;\nor.pred %p5, %p3, %p4;\n@%p5 bra EDGE;\n\
         st.global.u32 [%rd2], %r4;\nbra.uni JOIN;\n\
         EDGE:\nmul.wide.s32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r8;\n\
         JOIN:\nadd.s32 %r11, %r8, %r4;\n\
         DONE:\nret;",
    );
    exact(&m, false, &TWO_D);
}

/// `for (i = gid; i < n; i += blockDim.x * gridDim.x)`.
const GRID_STRIDE: &str = "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
     mov.u32 %r5, %nctaid.x;\nmul.lo.s32 %r6, %r5, %r2;\n\
     setp.ge.s32 %p1, %r4, %r20;\n@%p1 bra DONE;\n\
     LOOP:\nmul.wide.s32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r4;\n\
     add.s32 %r4, %r4, %r6;\nsetp.lt.s32 %p2, %r4, %r20;\n@%p2 bra LOOP;\n\
     DONE:\nret;";

#[test]
fn grid_stride_loop_is_exact_for_a_fixed_grid() {
    let m = kernel(1, GRID_STRIDE);
    let symbolic = analyze(&m, "k", [32, 1, 1]);
    // with a symbolic grid the step ntid·nctaid is not affine: an explicit assumption, of what
    // the launch decides (not data), which binding resolves for the workload's grid
    assert_eq!(data_dependent(&symbolic.assumptions), Vec::<String>::new());
    assert!(symbolic
        .assumptions
        .iter()
        .any(|a| a.hint_key.starts_with("nonaffine.trip.")));
    assert!(symbolic.reads_grid_size());
    let w = Workload {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        params: BTreeMap::from([("0".to_string(), 100)]),
        hints: BTreeMap::new(),
        reuse: false,
    };
    let s = symbolic.bind(&w).expect("binds");
    assert!(s.assumptions.is_empty(), "{:?}", s.assumptions);
    assert_eq!(
        s.features,
        emulate(&m, [2, 1, 1], [32, 1, 1], &[100]).features
    );
    exact(
        &m,
        true,
        &[([2, 1, 1], [32, 1, 1], 5), ([2, 1, 1], [32, 1, 1], 100)],
    );
}

/// A grid-specialised analysis bound to another grid re-analyses for it.
#[test]
fn grid_specialised_counts_follow_the_workload_grid() {
    let m = kernel(1, GRID_STRIDE);
    let ks = count::analyze_kernel_with(
        &m,
        "k",
        &Options {
            block: Some([32, 1, 1]),
            grid: Some([2, 1, 1]),
        },
    )
    .expect("analyses");
    assert!(!ks.reads_grid_size());
    let w = Workload {
        grid: [3, 1, 1],
        block: [32, 1, 1],
        params: BTreeMap::from([("0".to_string(), 150)]),
        hints: BTreeMap::new(),
        reuse: false,
    };
    let s = ks.bind(&w).expect("binds");
    let e = emulate(&m, [3, 1, 1], [32, 1, 1], &[150]);
    assert_eq!(s.features, e.features);
}

/// `tid < (n - 1) / 3` as nvcc (`mul.wide.u32` by 0xAAAAAAAB, `shr.u64` 33) and clang
/// (`mul.hi.u32`, `shr.u32` 1) divide by 3: read as floor((n - 1)/3).
#[test]
fn multiply_high_division_by_a_constant_is_exact() {
    for div in [
        "mul.wide.u32 %rd5, %r2, -1431655765;\nshr.u64 %rd6, %rd5, 33;\ncvt.u32.u64 %r3, %rd6;",
        "mul.hi.u32 %r4, %r2, -1431655765;\nshr.u32 %r3, %r4, 1;",
    ] {
        let m = kernel(
            1,
            &format!(
                "mov.u32 %r1, %tid.x;\nadd.s32 %r2, %r20, -1;\n{div}\n\
             setp.ge.u32 %p1, %r1, %r3;\n@%p1 bra DONE;\nst.global.u32 [%rd2], %r1;\n\
             DONE:\nret;"
            ),
        );
        exact(
            &m,
            false,
            &[
                ([1, 1, 1], [64, 1, 1], 1),
                ([1, 1, 1], [64, 1, 1], 20),
                ([2, 1, 1], [64, 1, 1], 98),
            ],
        );
    }
}

/// `bfe.u32 r, n, 1, 30` (clang's trip count of a loop unrolled by 2) is floor(n / 2) for
/// non-negative n; a field below the top bit is floor(n / 2) mod 4.
#[test]
fn bit_field_extracts_are_exact() {
    for field in ["bfe.u32 %r3, %r20, 1, 30;", "bfe.u32 %r3, %r20, 1, 2;"] {
        let m = kernel(
            1,
            &format!(
                "mov.u32 %r1, %tid.x;\n{field}\nshl.b32 %r4, %r3, 1;\n\
             setp.ge.u32 %p1, %r1, %r4;\n@%p1 bra DONE;\nst.global.u32 [%rd2], %r1;\n\
             DONE:\nret;"
            ),
        );
        exact(
            &m,
            false,
            &[
                ([1, 1, 1], [64, 1, 1], 1),
                ([1, 1, 1], [64, 1, 1], 13),
                ([1, 1, 1], [64, 1, 1], 40),
            ],
        );
    }
}

/// `(x << 1) | 1` and `(x << 1) ^ 1` are 2x + 1 (clang writes 2m + 1 so), so the access is
/// stride 2; `x | 1` with x of either parity is not affine and stays unknown.
#[test]
fn or_and_xor_of_clear_low_bits_are_additions() {
    for (op, stride) in [
        ("shl.b32 %r2, %r1, 1;\nor.b32 %r3, %r2, 1;", Some(2)),
        ("shl.b32 %r2, %r1, 2;\nxor.b32 %r3, 3, %r2;", Some(4)),
        ("or.b32 %r3, %r1, 1;", None),
    ] {
        let m = kernel(
            1,
            &format!(
            "mov.u32 %r1, %tid.x;\n{op}\nmul.wide.u32 %rd3, %r3, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
             st.global.u32 [%rd4], %r1;\nret;"
        ),
        );
        let ks = analyze(&m, "k", [64, 1, 1]);
        let classes: Vec<String> = ks
            .features
            .keys()
            .filter(|k| k.starts_with("mem.global.store") && k.ends_with(".thread"))
            .cloned()
            .collect();
        let want = match stride {
            Some(s) => format!("mem.global.store.b32.stride{s}_1of{s}.thread"),
            None => "mem.global.store.b32.unknown_stride.thread".to_string(),
        };
        assert_eq!(classes, vec![want], "{op}");
        // an unknown address leaves its sectors uncounted (the build tool then emulates)
        if stride.is_some() {
            exact(
                &m,
                false,
                &[([1, 1, 1], [64, 1, 1], 1), ([2, 1, 1], [64, 1, 1], 1)],
            );
        }
    }
}

/// A 2-D boundary, `i == 0 || i == n - 1 || j == 0 || j == n - 1` inside `i < n && j < n`: the
/// disjunction links the row and column groups. Thread counts by complement, warp counts by
/// inclusion–exclusion over the groups; blocks whose warps hold whole rows (8x8, 16x4) and one
/// whose warps do not (48x2).
#[test]
fn boundary_disjunctions_are_exact() {
    let m = kernel(
            1,
        "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
         mov.u32 %r5, %ctaid.y;\nmov.u32 %r6, %ntid.y;\nmov.u32 %r7, %tid.y;\nmad.lo.s32 %r8, %r5, %r6, %r7;\n\
         setp.ge.s32 %p1, %r4, %r20;\n@%p1 bra DONE;\nsetp.ge.s32 %p2, %r8, %r20;\n@%p2 bra DONE;\n\
         add.s32 %r9, %r20, -1;\n\
         setp.eq.s32 %p3, %r4, 0;\nsetp.eq.s32 %p4, %r4, %r9;\nor.pred %p5, %p3, %p4;\n\
         setp.eq.s32 %p6, %r8, 0;\nor.pred %p7, %p5, %p6;\nsetp.eq.s32 %p3, %r8, %r9;\nor.pred %p7, %p7, %p3;\n\
         @!%p7 bra DONE;\n\
         mad.lo.s32 %r10, %r8, %r20, %r4;\nmul.wide.s32 %rd3, %r10, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r10;\n\
         DONE:\nret;",
    );
    exact(&m, false, &TWO_D);
    exact(
        &m,
        false,
        &[
            ([2, 3, 1], [16, 4, 1], 9),
            ([3, 4, 1], [16, 4, 1], 40),
            ([1, 5, 1], [48, 2, 1], 9),
            ([2, 6, 1], [48, 2, 1], 50),
        ],
    );
}

/// A data-dependent branch is named by the source line it is on. nvcc marks code it made up
/// with line 0 (`.loc 1 0 5`), often the first instruction of the branch's block; that line
/// is no place a user can find, so the block's first real line names it.
#[test]
fn a_branch_is_named_by_a_real_source_line() {
    let m = Module::parse(
        ".version 7.0\n.target sm_80\n.address_size 64\n.file 1 \"/src/k.cu\"\n\
         .visible .entry k(.param .u64 k_x, .param .u32 k_n)\n{\n\
         .reg .pred %p<3>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<5>;\n.reg .f32 %f<2>;\n\
         .loc 1 3 5\nld.param.u64 %rd1, [k_x];\nld.param.u32 %r2, [k_n];\nmov.u32 %r1, %tid.x;\n\
         setp.ge.u32 %p1, %r1, %r2;\n@%p1 bra $L_end;\n\
         .loc 1 0 5\ncvta.to.global.u64 %rd2, %rd1;\n\
         .loc 1 4 5\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         ld.global.f32 %f1, [%rd4];\nsetp.lt.f32 %p2, %f1, 0f00000000;\n@%p2 bra $L_end;\n\
         .loc 1 5 5\nst.global.f32 [%rd4], %f1;\n$L_end:\nret;\n}\n",
    )
    .expect("parses");
    let ks = analyze(&m, "k", [32, 1, 1]);
    assert_eq!(data_dependent(&ks.assumptions), vec!["branch.k.cu:4"]);
}

/// `threadIdx.x == 0 && blockIdx.x == 0`, as nvcc writes it: `(tid | ctaid) != 0` skips the
/// store, and `tid ^ ctaid == 0` (`tid == ctaid`) takes another. `a | b` is zero where both are
/// and `a ^ b` where they are equal, so both guards are exact.
#[test]
fn zero_tests_of_or_and_xor_are_exact() {
    let m = kernel(
        1,
        "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n\
         or.b32 %r3, %r1, %r2;\nsetp.ne.s32 %p1, %r3, 0;\n@%p1 bra NEXT;\n\
         st.global.u32 [%rd2], %r20;\n\
         NEXT:\nxor.b32 %r4, %r2, %r1;\nsetp.eq.s32 %p2, %r4, 0;\n@!%p2 bra DONE;\n\
         mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4+4], %r1;\n\
         DONE:\nret;",
    );
    exact(
        &m,
        false,
        &[([1, 1, 1], [32, 1, 1], 1), ([5, 1, 1], [64, 1, 1], 1)],
    );
    let ks = analyze(&m, "k", [64, 1, 1]);
    let s = ks
        .bind(&workload([5, 1, 1], [64, 1, 1], &[("0", 1)]))
        .expect("binds");
    // one store from thread 0 of block 0, and one from thread b of each block b
    let stores: f64 = s
        .features
        .iter()
        .filter(|(k, _)| {
            k.to_string().starts_with("mem.global.store") && k.to_string().ends_with(".thread")
        })
        .map(|(_, v)| *v)
        .sum();
    assert_eq!(stores, 1.0 + 5.0);
}

/// A kernel compiled for clusters of two blocks (`__cluster_dims__(2, 1, 1)` writes
/// `.reqnctapercluster 2, 1, 1`): the first block of each cluster (`%cluster_ctarank == 0`)
/// stores at its cluster's index (`%clusterid.x`), read from the grid as the hardware cuts it.
#[test]
fn cluster_registers_follow_the_block_index() {
    let text = ".version 7.8\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 k_out)\n.reqnctapercluster 2, 1, 1\n{\n\
        .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
        ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd2, %rd1;\n\
        mov.u32 %r1, %cluster_ctarank;\nsetp.ne.s32 %p1, %r1, 0;\n@%p1 bra DONE;\n\
        mov.u32 %r2, %clusterid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r2, 64, %r3;\n\
        mul.wide.u32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r4;\n\
        DONE:\nret;\n}\n";
    let m = Module::parse(text).expect("parses");
    let ks = analyze(&m, "k", [64, 1, 1]);
    assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
    let s = ks
        .bind(&workload([6, 1, 1], [64, 1, 1], &[]))
        .expect("binds");
    let get = |name: &str| {
        s.features
            .iter()
            .find(|(k, _)| k.to_string() == name)
            .map_or(0.0, |(_, v)| *v)
    };
    // blocks 0, 2 and 4 store, each a contiguous row of 64 words: 3 x 64 threads, 3 x 8 sectors
    assert_eq!(get("mem.global.store.b32.stride1.thread"), 3.0 * 64.0);
    assert_eq!(get("sectors.global.store"), 3.0 * 8.0);
}
