//! Loopy's `test/test_statistics.py` cases, re-derived as our own CUDA kernels
//! (`tests/kernels/loopy/`): the static counts must be exact, and agree with the emulator.

use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::{
    BoundStats, DType, Dir, Feature, Granularity, Launch, OpKind, Space, StrideClass,
};
use kerncast_tests::ptx_dir;

fn load(name: &str) -> Module {
    let p = ptx_dir().join("nvcc/loopy").join(format!("{name}.ptx"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Module::parse(&text).expect("corpus PTX parses")
}

fn bound(m: &Module, kernel: &str, grid: [u64; 3], block: [u64; 3], n: i64) -> BoundStats {
    let ks = analyze_kernel_with(
        m,
        kernel,
        &Options {
            block: Some(block),
            ..Default::default()
        },
    )
    .expect("analyses");
    let w = Workload {
        grid,
        block,
        params: [("0".to_string(), n)].into_iter().collect(),
        hints: Default::default(),
        reuse: false,
    };
    ks.bind(&w).expect("binds")
}

fn op(kind: OpKind, ty: DType, gran: Granularity) -> Feature {
    Feature::Op { kind, ty, gran }
}

/// Every op, memory, barrier, sector and line key equals the emulator's.
fn agrees_with_emulator(
    s: &BoundStats,
    m: &Module,
    kernel: &str,
    launch: Launch,
    args: &[KernelArg],
) {
    let e = emu::run(m, kernel, &launch, args).expect("emulates");
    for (k, v) in &s.features {
        if matches!(
            k,
            Feature::Op { .. } | Feature::Mem { .. } | Feature::Barrier { .. }
        ) {
            assert_eq!(*v, e.stats.get(k), "{kernel}: {k}");
        }
    }
    for (k, v) in &e.stats.features {
        if matches!(
            k,
            Feature::Op { .. } | Feature::Mem { .. } | Feature::Barrier { .. }
        ) {
            assert_eq!(s.get(k), *v, "{kernel}: {k} (emulator)");
        }
    }
}

#[test]
fn triangle_is_78_at_13() {
    let m = load("triangle");
    for n in [13i64, 1, 0, 7, 30] {
        let s = bound(&m, "loopy_triangle", [1, 1, 1], [32, 1, 1], n);
        let per_point = s.get(&op(OpKind::Fma, DType::F32, Granularity::Warp));
        assert_eq!(per_point, (n * (n - 1) / 2).max(0) as f64, "n={n}");
        let launch = Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
        };
        let args = [KernelArg::S32(n as i32), KernelArg::f32s(&[0.0; 32])];
        agrees_with_emulator(&s, &m, "loopy_triangle", launch, &args);
    }
    let s = bound(&m, "loopy_triangle", [1, 1, 1], [32, 1, 1], 13);
    assert_eq!(s.get(&op(OpKind::Fma, DType::F32, Granularity::Warp)), 78.0);
}

#[test]
fn tiled_matmul_prefetch_loads_stores_barriers() {
    let m = load("matmul_prefetch");
    for n in [16i64, 32, 48] {
        let t = (n / 16) as u64;
        let s = bound(&m, "loopy_matmul_prefetch", [t, t, 1], [16, 16, 1], n);
        let threads = (n * n) as f64;
        let tiles = (n / 16) as f64;
        assert_eq!(
            s.get(&op(OpKind::Fma, DType::F32, Granularity::Thread)),
            threads * tiles * 16.0
        );
        assert_eq!(
            s.get(&Feature::Barrier {
                gran: Granularity::Thread
            }),
            threads * tiles * 2.0
        );
        let gl = |dir| Feature::Mem {
            space: Space::Global,
            dir,
            bits: 32,
            stride: StrideClass::Unit,
            nc: false,
            gran: Granularity::Thread,
        };
        // prefetch: one load of a and one of b per tile and thread; one store of c per thread
        assert_eq!(s.get(&gl(Dir::Load)), threads * tiles * 2.0);
        assert_eq!(s.get(&gl(Dir::Store)), threads);
        let launch = Launch {
            grid: [t, t, 1],
            block: [16, 16, 1],
        };
        let z = vec![1.0f32; (n * n) as usize];
        let args = [
            KernelArg::S32(n as i32),
            KernelArg::f32s(&z),
            KernelArg::f32s(&z),
            KernelArg::f32s(&z),
        ];
        agrees_with_emulator(&s, &m, "loopy_matmul_prefetch", launch, &args);
    }
}

#[test]
fn strided_footprints_have_their_stride_class() {
    let m = load("strided");
    for n in [1000i64, 256, 77] {
        let grid = (n as u64).div_ceil(256);
        let s = bound(&m, "loopy_strided", [grid, 1, 1], [256, 1, 1], n);
        let ld = |stride, nc| Feature::Mem {
            space: Space::Global,
            dir: Dir::Load,
            bits: 32,
            stride,
            nc,
            gran: Granularity::Thread,
        };
        let nc_or_not = |stride| s.get(&ld(stride, true)) + s.get(&ld(stride, false));
        assert_eq!(
            nc_or_not(StrideClass::Strided { stride: 2, used: 1 }),
            n as f64
        );
        assert_eq!(
            nc_or_not(StrideClass::Strided { stride: 3, used: 1 }),
            n as f64
        );
        let launch = Launch {
            grid: [grid, 1, 1],
            block: [256, 1, 1],
        };
        let a = vec![1.0f32; 3 * n as usize + 1];
        let b = vec![0.0f32; n as usize];
        let args = [
            KernelArg::S32(n as i32),
            KernelArg::f32s(&a),
            KernelArg::f32s(&b),
        ];
        agrees_with_emulator(&s, &m, "loopy_strided", launch, &args);
    }
}
