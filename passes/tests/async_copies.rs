//! sm_80 memory instructions that used to be counted nowhere: `cp.async` with its group
//! operations, and `wmma.load` / `wmma.store`. The counter and the emulator agree on a kernel that
//! stages a tile through `cp.async`, and a tensor-core kernel shows its global traffic. A
//! Hopper warpgroup's `wgmma` counts its share of the multiply–adds.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::reuse::Reuse;
use kerncast_passes::stats::{
    DType, Dir, Feature, Granularity, Launch, OpKind, Space, StrideClass,
};

mod common;
use common::{analyze, data_dependent, emulate, kernel, workload};

/// Each thread copies 16 bytes of `out` (8 of them read, 8 zero-filled) at `gid * 16` into a
/// shared tile with `cp.async`, commits and waits for the group, syncs the block, and stores
/// the word of the mirrored thread (`ntid - 1 - tid`) at `32768 + gid * 4`.
const STAGED: &str = ".shared .align 16 .b8 tile[4096];\n\
     mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmad.lo.s32 %r4, %r2, %r3, %r1;\n\
     mul.wide.s32 %rd3, %r4, 16;\nadd.s64 %rd4, %rd2, %rd3;\n\
     mov.u32 %r5, tile;\nshl.b32 %r6, %r1, 4;\nadd.s32 %r7, %r5, %r6;\n\
     cp.async.cg.shared.global [%r7], [%rd4], 16, 8;\n\
     cp.async.commit_group;\ncp.async.wait_group 0;\nbar.sync 0;\n\
     sub.s32 %r8, %r3, %r1;\nadd.s32 %r9, %r8, -1;\nshl.b32 %r10, %r9, 4;\nadd.s32 %r11, %r5, %r10;\n\
     ld.shared.u32 %r12, [%r11];\n\
     mul.wide.s32 %rd5, %r4, 4;\nadd.s64 %rd6, %rd2, %rd5;\nst.global.u32 [%rd6+32768], %r12;\n\
     ret;";

#[test]
fn cp_async_counter_and_emulator_agree() {
    let m = kernel(1, STAGED);
    for (grid, block) in [([2, 1, 1], [64, 1, 1]), ([3, 1, 1], [40, 1, 1])] {
        let ks = analyze(&m, "k", block);
        assert_eq!(data_dependent(&ks.assumptions), Vec::<String>::new());
        let w = workload(grid, block, &[("0", 0)]);
        let s = ks.bind(&w).expect("binds");
        let e = emulate(&m, grid, block, &[0]);
        assert_eq!(s.features, e.features, "features at {grid:?} {block:?}");
        assert_eq!(
            s.block_execs, e.block_execs,
            "block executions at {grid:?} {block:?}"
        );
        let threads = (grid[0] * block[0]) as f64;
        let sum = |pick: &dyn Fn(&Feature) -> bool| -> f64 {
            s.features
                .iter()
                .filter(|(k, _)| pick(k))
                .map(|(_, v)| *v)
                .sum()
        };
        // the copy is a 128-bit global load per thread …
        let copies = sum(&|k| {
            matches!(
                k,
                Feature::Mem {
                    space: Space::Global,
                    dir: Dir::Load,
                    bits: 128,
                    gran: Granularity::Thread,
                    ..
                }
            )
        });
        assert_eq!(copies, threads);
        // … commit and wait are two barrier ops per thread, and only `bar.sync` is a CTA barrier
        let groups = sum(&|k| {
            matches!(
                k,
                Feature::Op {
                    kind: OpKind::Barrier,
                    gran: Granularity::Thread,
                    ..
                }
            )
        });
        assert_eq!(groups, 3.0 * threads, "commit, wait and bar.sync");
        let cta = sum(&|k| {
            matches!(
                k,
                Feature::Barrier {
                    gran: Granularity::Thread
                }
            )
        });
        assert_eq!(cta, threads);
        assert!(
            !s.features
                .keys()
                .any(|k| matches!(k, Feature::Unknown { .. })),
            "nothing unknown: {:?}",
            s.features.keys().collect::<Vec<_>>()
        );
    }
}

/// The copy's bytes: the first `src-size` from global, zeros after them; all zeros when the
/// ignore-src predicate holds.
#[test]
fn cp_async_copies_and_zero_fills() {
    let text = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry copy(.param .u64 a, .param .u64 out)\n{\n\
        .reg .pred %p<2>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
        .shared .align 16 .b8 tile[512];\n\
        ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [out];\n\
        mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 16;\nadd.s64 %rd4, %rd1, %rd3;\n\
        mov.u32 %r2, tile;\nshl.b32 %r3, %r1, 4;\nadd.s32 %r4, %r2, %r3;\n\
        and.b32 %r5, %r1, 3;\nshl.b32 %r6, %r5, 2;\n\
        cp.async.ca.shared.global [%r4], [%rd4], 16, %r6;\n\
        setp.eq.u32 %p1, %r1, 5;\n\
        cp.async.ca.shared.global [%r4+256], [%rd4], 16, %p1;\n\
        cp.async.wait_all;\nbar.sync 0;\n\
        add.s64 %rd5, %rd2, %rd3;\n\
        ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r4];\nst.global.v4.u32 [%rd5], {%r7, %r8, %r9, %r10};\n\
        ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r4+256];\nst.global.v4.u32 [%rd5+256], {%r7, %r8, %r9, %r10};\n\
        ret;\n}\n";
    let m = Module::parse(text).expect("parses");
    let a: Vec<u32> = (1..=64).collect();
    let r = emu::run(
        &m,
        "copy",
        &Launch {
            grid: [1, 1, 1],
            block: [16, 1, 1],
        },
        &[KernelArg::u32s(&a), KernelArg::Buffer(vec![0xff; 512])],
    )
    .expect("emulates");
    let out = r.u32s(1);
    for t in 0..16usize {
        let words = t % 4; // src-size = 4 * (t % 4) bytes
        for k in 0..4 {
            let want = if k < words { a[4 * t + k] } else { 0 };
            assert_eq!(out[4 * t + k], want, "thread {t} word {k} (src-size)");
            let want = if t == 5 { 0 } else { a[4 * t + k] };
            assert_eq!(
                out[64 + 4 * t + k],
                want,
                "thread {t} word {k} (ignore-src)"
            );
        }
    }
}

/// A 16×16×16 tensor-core tile per block as nvcc writes `nvcuda::wmma`: block `b` loads the `a`
/// tile at `a + 512 b` and the one `b` tile, multiplies them, and stores the f32 result at
/// `c + 1024 b`; `ldm` is 16 elements throughout.
const WMMA_GEMM: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry gemm(.param .u64 a, .param .u64 b, .param .u64 c)\n{\n\
    .reg .b32 %r<20>;\n.reg .f32 %f<10>;\n.reg .b64 %rd<12>;\n\
    ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [b];\nld.param.u64 %rd3, [c];\n\
    cvta.to.global.u64 %rd4, %rd2;\ncvta.to.global.u64 %rd5, %rd1;\n\
    mov.u32 %r1, %ctaid.x;\nshl.b32 %r2, %r1, 8;\nmov.u32 %r3, 16;\n\
    mul.wide.u32 %rd7, %r2, 2;\nadd.s64 %rd8, %rd5, %rd7;\n\
    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, [%rd8], %r3;\n\
    wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, [%rd4], %r3;\n\
    mov.f32 %f1, 0f00000000;\n\
    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, {%r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};\n\
    cvta.to.global.u64 %rd9, %rd3;\nmul.wide.u32 %rd10, %r2, 4;\nadd.s64 %rd11, %rd9, %rd10;\n\
    wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd11], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, %r3;\n\
    ret;\n}\n";

/// The fragment loads and the store of a tensor-core kernel are global memory traffic, only
/// `wmma.mma` is an Mma op.
#[test]
fn wmma_loads_and_stores_are_global_traffic() {
    let m = Module::parse(WMMA_GEMM).expect("parses");
    let ks = analyze(&m, "gemm", [32, 1, 1]);
    let w = workload([4, 1, 1], [32, 1, 1], &[]);
    let s = ks.bind(&w).expect("binds");
    let total = |space: Space, dir: Dir, bits: u16| -> f64 {
        s.features
            .iter()
            .filter(|(k, _)| {
                matches!(k, Feature::Mem { space: sp, dir: d, bits: b, gran: Granularity::Thread, .. }
                    if *sp == space && *d == dir && *b == bits)
            })
            .map(|(_, v)| *v)
            .sum()
    };
    // 4 blocks of one warp: two 256-bit fragment loads and one 256-bit store per lane
    assert_eq!(total(Space::Global, Dir::Load, 256), 2.0 * 128.0);
    assert_eq!(total(Space::Global, Dir::Store, 256), 128.0);
    assert!(ks.features.keys().any(|k| k.starts_with("mem.global.load")));
    let mma: f64 = s
        .features
        .iter()
        .filter(|(k, _)| {
            matches!(
                k,
                Feature::Op {
                    kind: OpKind::Mma,
                    gran: Granularity::Thread,
                    ..
                }
            )
        })
        .map(|(_, v)| *v)
        .sum();
    assert_eq!(mma, 128.0, "only wmma.mma is an Mma op");
    // one warp instruction a block, of 16·16·16 multiply–adds of f16 into f32
    let tensor = Feature::TensorMma {
        input: DType::F16,
        acc: DType::F32,
        fmas: 4096,
    };
    assert_eq!(s.features.get(&tensor), Some(&4.0));
    // the operand is the warp's tile base, not a lane's address: the stride is unknown, and the
    // sectors and lines are the tile's rows (16 rows of 32 bytes for a and b, of 64 bytes for the
    // f32 result), under a listed alignment assumption
    for k in s.features.keys() {
        if let Feature::Mem { stride, .. } = k {
            if !matches!(
                k,
                Feature::Mem {
                    space: Space::Param,
                    ..
                }
            ) {
                assert_eq!(*stride, StrideClass::Unknown, "{k}");
            }
        }
    }
    let get = |k: Feature| s.features.get(&k).copied().unwrap_or(0.0);
    let (g, ld, st) = (Space::Global, Dir::Load, Dir::Store);
    assert_eq!(
        get(Feature::Sectors { space: g, dir: ld }),
        4.0 * 2.0 * 16.0
    );
    assert_eq!(get(Feature::Lines { space: g, dir: ld }), 4.0 * 2.0 * 16.0);
    assert_eq!(
        get(Feature::Sectors { space: g, dir: st }),
        4.0 * 16.0 * 2.0
    );
    assert_eq!(get(Feature::Lines { space: g, dir: st }), 4.0 * 16.0);
    let keys: Vec<&str> = s.assumptions.iter().map(|a| a.hint_key.as_str()).collect();
    assert!(keys.contains(&"wmma.rows_aligned"), "{keys:?}");
    assert!(
        !keys.contains(&"sectors"),
        "nothing left uncounted: {keys:?}"
    );
}

/// The L2 reuse profile walks a tile's rows from the warp's base, `ldm` elements apart: each
/// block's 16 sectors of `a` and 32 of the result are first touches, and the `b` tile every
/// block loads is re-touched by the next block (distance 1).
#[test]
fn the_reuse_profile_walks_wmma_tiles_row_by_row() {
    let m = Module::parse(WMMA_GEMM).expect("parses");
    let ks = analyze(&m, "gemm", [32, 1, 1]);
    let mut w = workload([4, 1, 1], [32, 1, 1], &[]);
    w.reuse = true;
    let s = ks.bind(&w).expect("binds");
    let Some(Reuse::Profile(p)) = &s.reuse else {
        panic!("no reuse profile: {:?}", s.reuse);
    };
    assert_eq!(p.left_out, Vec::<String>::new());
    assert_eq!(p.requests, 4.0 * (16.0 + 16.0 + 32.0));
    assert_eq!(p.first_touches, 4.0 * 16.0 + 16.0 + 4.0 * 32.0);
    let reuse: Vec<(u64, f64)> = p
        .reuse
        .iter()
        .map(|b| (b.min_distance, b.requests))
        .collect();
    assert_eq!(reuse, vec![(1, 3.0 * 16.0)]);
    assert_eq!(p.footprint.last().map(|f| f.sectors), Some(208.0));
}

/// `kt` trips of one m64n8k16 `wgmma` of f16 into f32, fenced, committed and waited for, as
/// CUTLASS's Hopper mainloop issues them (operands through shared-memory descriptors).
const WGMMA_LOOP: &str = ".version 8.0\n.target sm_90a\n.address_size 64\n\
    .visible .entry wg(.param .u64 desc, .param .u32 kt)\n{\n\
    .reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .f32 %f<5>;\n.reg .b64 %rd<2>;\n\
    ld.param.u64 %rd1, [desc];\nld.param.u32 %r1, [kt];\n\
    mov.f32 %f1, 0f00000000;\nmov.f32 %f2, 0f00000000;\nmov.f32 %f3, 0f00000000;\nmov.f32 %f4, 0f00000000;\n\
    mov.u32 %r2, 0;\n\
    $L_k:\n\
    wgmma.fence.sync.aligned;\n\
    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd1, 1, 1, 1, 0, 0;\n\
    wgmma.commit_group.sync.aligned;\n\
    wgmma.wait_group.sync.aligned 0;\n\
    add.s32 %r2, %r2, 1;\nsetp.lt.s32 %p1, %r2, %r1;\n@%p1 bra $L_k;\n\
    ret;\n}\n";

/// Each of a warpgroup's four warps executes the `wgmma`, and the four share its 64·8·16
/// multiply–adds: 2048 a warp instruction. The fence and the group operations are ordering,
/// not tensor work.
#[test]
fn a_warpgroup_s_wgmma_counts_a_quarter_of_its_shape_per_warp() {
    let m = Module::parse(WGMMA_LOOP).expect("parses");
    let ks = analyze(&m, "wg", [128, 1, 1]);
    let s = ks
        .bind(&workload([3, 1, 1], [128, 1, 1], &[("kt", 10)]))
        .expect("binds");
    let warps = 3.0 * 4.0;
    let tensor = Feature::TensorMma {
        input: DType::F16,
        acc: DType::F32,
        fmas: 2048,
    };
    assert_eq!(s.features.get(&tensor), Some(&(warps * 10.0)));
    let warp_ops = |kind: OpKind| -> f64 {
        s.features
            .iter()
            .filter(|(k, _)| matches!(k, Feature::Op { kind: kd, gran: Granularity::Warp, .. } if *kd == kind))
            .map(|(_, v)| *v)
            .sum()
    };
    assert_eq!(warp_ops(OpKind::Mma), warps * 10.0);
    assert_eq!(warp_ops(OpKind::Barrier), warps * 10.0 * 3.0);
    // the whole launch: 3 warpgroups × 10 trips × 64·8·16
    let fmas: f64 = s
        .features
        .iter()
        .filter_map(|(k, v)| match k {
            Feature::TensorMma { fmas, .. } => Some(*fmas as f64 * v),
            _ => None,
        })
        .sum();
    assert_eq!(fmas, 3.0 * 10.0 * 64.0 * 8.0 * 16.0);
}
