//! The emulator's counts on kernels whose counts can be derived by hand: thread- and warp-level
//! ops and accesses, stride classes, sectors, lines, bank conflicts, barriers, block executions,
//! loop trips. These pin the counting convention of `kerncast_passes::classify`.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::{
    BoundStats, DType, Dir, Feature, Granularity, Launch, OpKind, Space, StrideClass,
};

fn fixtures() -> Module {
    let p = kerncast_tests::workspace_root().join("tests/tests/emu_fixtures/kernels.ptx");
    Module::parse(&std::fs::read_to_string(p).expect("fixture PTX")).expect("parses")
}

fn mem(space: Space, dir: Dir, bits: u16, stride: StrideClass, gran: Granularity) -> Feature {
    Feature::Mem {
        space,
        dir,
        bits,
        stride,
        nc: false,
        gran,
    }
}

fn op(kind: OpKind, ty: DType, gran: Granularity) -> Feature {
    Feature::Op { kind, ty, gran }
}

fn saxpy(n: usize) -> BoundStats {
    let m = fixtures();
    let l = Launch {
        grid: [4, 1, 1],
        block: [64, 1, 1],
    };
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::F32(2.0),
        KernelArg::f32s(&vec![1.0; 256]),
        KernelArg::f32s(&vec![1.0; 256]),
    ];
    emu::run(&m, "saxpy", &l, &args).unwrap().stats
}

#[test]
fn saxpy_counts() {
    use Granularity::*;
    let s = saxpy(200);
    assert_eq!(s.get(&Feature::Threads), 256.0);
    assert_eq!(s.get(&Feature::Warps), 8.0);
    assert_eq!(s.get(&Feature::Blocks), 4.0);
    // 200 threads pass the guard; they occupy warps 0..=6 (warp 6 has 8 active lanes).
    assert_eq!(s.get(&op(OpKind::Fma, DType::F32, Thread)), 200.0);
    assert_eq!(s.get(&op(OpKind::Fma, DType::F32, Warp)), 7.0);
    let ld = |g| mem(Space::Global, Dir::Load, 32, StrideClass::Unit, g);
    assert_eq!(s.get(&ld(Thread)), 400.0);
    assert_eq!(s.get(&ld(Warp)), 14.0);
    let st = mem(Space::Global, Dir::Store, 32, StrideClass::Unit, Thread);
    assert_eq!(s.get(&st), 200.0);
    // Per load: 6 full warps × 4 sectors + 8 lanes × 4 B = 1 sector.
    let sec = Feature::Sectors {
        space: Space::Global,
        dir: Dir::Load,
    };
    assert_eq!(s.get(&sec), 50.0);
    let lines = Feature::Lines {
        space: Space::Global,
        dir: Dir::Load,
    };
    assert_eq!(s.get(&lines), 14.0);
    // Every thread runs the setp; the guard is uniform per lane.
    assert_eq!(s.get(&op(OpKind::CmpSel, DType::S32, Thread)), 256.0);
    // Kernel params: nvcc loads all four (n, a: 32 bits; x, y: 64 bits) before the guard.
    let par = |bits| mem(Space::Param, Dir::Load, bits, StrideClass::Uniform, Thread);
    assert_eq!(s.get(&par(32)), 512.0);
    assert_eq!(s.get(&par(64)), 512.0);
    assert_eq!(s.sum_where(|f| matches!(f, Feature::Barrier { .. })), 0.0);
    // Block 0 runs in every thread; the rest only where the guard passed.
    assert_eq!(s.block_execs[&0].threads, 256.0);
    assert_eq!(s.block_execs[&0].warps, 8.0);
}

#[test]
fn reduction_barriers_and_shuffles() {
    use Granularity::*;
    let m = fixtures();
    let l = Launch {
        grid: [3, 1, 1],
        block: [256, 1, 1],
    };
    let args = [
        KernelArg::S32(768),
        KernelArg::f32s(&[1.0; 768]),
        KernelArg::f32s(&[0.0; 3]),
    ];
    let s = emu::run(&m, "reduce_sum", &l, &args).unwrap().stats;
    // One barrier after the fill, then strides 128, 64, 32: four per thread.
    assert_eq!(s.get(&Feature::Barrier { gran: Thread }), 3.0 * 256.0 * 4.0);
    assert_eq!(s.get(&Feature::Barrier { gran: Warp }), 3.0 * 8.0 * 4.0);
    // Five shuffle steps in the first warp of each block.
    assert_eq!(
        s.get(&op(OpKind::ShuffleVote, DType::Bits, Thread)),
        3.0 * 32.0 * 5.0
    );
    // Unit-stride 32-bit shared accesses are conflict-free: one wavefront per warp access.
    let sh_loads = s.get(&mem(Space::Shared, Dir::Load, 32, StrideClass::Unit, Warp));
    assert!(sh_loads > 0.0);
    assert_eq!(
        s.get(&Feature::SharedWavefronts { dir: Dir::Load }),
        sh_loads
    );
}

#[test]
fn transpose_padding_avoids_bank_conflicts() {
    use Granularity::*;
    let m = fixtures();
    let n = 32usize;
    let l = Launch {
        grid: [2, 2, 1],
        block: [16, 16, 1],
    };
    let args = [
        KernelArg::S32(n as i32),
        KernelArg::f32s(&vec![1.0; n * n]),
        KernelArg::f32s(&vec![0.0; n * n]),
    ];
    let s = emu::run(&m, "transpose", &l, &args).unwrap().stats;
    // A warp covers two 16-wide tile rows. Store tile[ty][tx]: words 17*ty + tx, so row 1's
    // word 32 meets row 0's word 0 in bank 0 (2-way). Load tile[tx][ty]: words 17*tx + ty, and
    // 17*15 + 1 = 256 meets word 0 in bank 0 (2-way). The column read has lane stride 17 floats.
    let warps = 4.0 * 8.0;
    assert_eq!(
        s.get(&Feature::SharedWavefronts { dir: Dir::Store }),
        2.0 * warps
    );
    assert_eq!(
        s.get(&Feature::SharedWavefronts { dir: Dir::Load }),
        2.0 * warps
    );
    let col = mem(
        Space::Shared,
        Dir::Load,
        32,
        StrideClass::Uncoalesced { quarters: 1 },
        Warp,
    );
    assert_eq!(s.get(&col), warps);
}

#[test]
fn spmv_loop_trips() {
    let m = fixtures();
    let rows = 64usize;
    // Row r has r % 4 nonzeros: trips per entry = mean over rows with at least one.
    let mut rowptr = vec![0i32];
    for r in 0..rows {
        rowptr.push(rowptr[r] + (r % 4) as i32);
    }
    let nnz = rowptr[rows] as usize;
    let args = [
        KernelArg::S32(rows as i32),
        KernelArg::i32s(&rowptr),
        KernelArg::i32s(&vec![0; nnz]),
        KernelArg::f32s(&vec![1.0; nnz]),
        KernelArg::f32s(&vec![1.0; rows]),
        KernelArg::f32s(&vec![0.0; rows]),
    ];
    let l = Launch {
        grid: [2, 1, 1],
        block: [32, 1, 1],
    };
    let r = emu::run(&m, "spmv_csr", &l, &args).unwrap();
    let total: u64 = r.loops.iter().map(|l| l.header_execs).sum();
    assert!(!r.loops.is_empty());
    // Every nonzero is one iteration of the inner loop (nvcc may unroll it; the counts of
    // iterations across the loops it produces still sum to the work).
    let fma = r
        .stats
        .get(&op(OpKind::Fma, DType::F32, Granularity::Thread));
    assert_eq!(fma, nnz as f64);
    assert!(total > 0);
}
