//! Symbolic counting of the corpus: `analyze_kernel` per kernel (affine recovery, domains,
//! exact counts of every feature), the cost a build pays per kernel; and `bind` of kernels with
//! shared memory at a million threads, where the wavefronts are counted warp by warp.

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
use kerncast_passes::ptx::Module;
use std::collections::BTreeMap;

// the allocator the kerncast binaries use
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const KERNELS: &[(&str, &str, [u64; 3])] = &[
    ("saxpy", "saxpy", [256, 1, 1]),
    ("vecadd", "vecadd", [256, 1, 1]),
    ("matmul_tiled", "matmul_tiled", [16, 16, 1]),
    ("matmul_naive", "matmul_naive", [16, 16, 1]),
    ("transpose_tiled", "transpose_tiled", [32, 32, 1]),
    ("stencil5", "stencil5", [16, 16, 1]),
    ("triangular", "triangular", [128, 1, 1]),
    ("strided_loop", "strided_loop", [128, 1, 1]),
    ("reduce_shared", "reduce_shared", [256, 1, 1]),
    ("dot_unroll4", "dot_unroll4", [256, 1, 1]),
    ("pb_gemm", "pb_gemm", [32, 8, 1]),
    ("conv2d", "conv2d", [16, 16, 1]),
];

/// A corpus kernel's nvcc PTX, and the analysis options for its block size.
fn corpus(file: &str, block: [u64; 3]) -> (Module, Options) {
    let path = format!(
        "{}/../tests/ptx/nvcc/{file}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("corpus PTX");
    let m = Module::parse(&text).expect("parses");
    let opts = Options {
        block: Some(block),
        ..Default::default()
    };
    (m, opts)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("count");
    g.sample_size(10);
    for (file, kernel, block) in KERNELS {
        let (m, opts) = corpus(file, *block);
        g.bench_function(*kernel, |b| {
            b.iter(|| analyze_kernel_with(&m, kernel, &opts).expect("analyses"))
        });
    }
    g.finish();
}

/// (PTX file, kernel, block, grid, parameters by position).
type Bind = (
    &'static str,
    &'static str,
    [u64; 3],
    [u64; 3],
    &'static [(&'static str, i64)],
);

/// Launches of 2^20 threads.
const BINDS: &[Bind] = &[
    (
        "transpose_tiled",
        "transpose_tiled",
        [32, 32, 1],
        [32, 32, 1],
        &[("0", 1024), ("1", 1024)],
    ),
    (
        "reduce_shared",
        "reduce_shared",
        [256, 1, 1],
        [4096, 1, 1],
        &[("0", 1 << 20)],
    ),
];

fn bench_bind(c: &mut Criterion) {
    let mut g = c.benchmark_group("bind");
    g.sample_size(10);
    for (file, kernel, block, grid, params) in BINDS {
        let (m, opts) = corpus(file, *block);
        let ks = analyze_kernel_with(&m, kernel, &opts).expect("analyses");
        let w = Workload {
            grid: *grid,
            block: *block,
            params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            hints: BTreeMap::new(),
            reuse: false,
        };
        g.bench_function(*kernel, |b| b.iter(|| ks.bind(&w).expect("binds")));
    }
    g.finish();
}

criterion_group!(benches, bench, bench_bind);
criterion_main!(benches);
