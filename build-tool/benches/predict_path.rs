//! The per-workload path in process (issue 50), beside the whole-process figures of
//! `cargo xtask bench`:
//! - `count_with_launch/*`: a loop nest of `tests/bench/nest.ptx` analysed for its block and
//!   bound to a launch with the L2 reuse profile, as `kerncast count --grid …` does;
//! - `bind/*`: a corpus kernel already analysed, bound to its annotated workload (the closed
//!   forms evaluated, sectors and wavefronts counted, the reuse profile walked): what every
//!   further workload point of a kernel costs.

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
use kerncast_passes::inline::inline_calls;
use kerncast_passes::ptx::Module;
use std::collections::BTreeMap;
use std::path::Path;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn module(rel: &str) -> Module {
    let text = std::fs::read_to_string(root().join(rel)).expect("PTX reads");
    inline_calls(&Module::parse(&text).expect("PTX parses")).module
}

fn workload(grid: u64, block: u64, params: &[(&str, i64)]) -> Workload {
    Workload {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        hints: BTreeMap::new(),
        reuse: true,
    }
}

fn bench(c: &mut Criterion) {
    let nest = module("tests/bench/nest.ptx");
    let mut g = c.benchmark_group("count_with_launch");
    g.sample_size(10);
    for (kernel, n) in [("nest6", 24), ("box6", 16)] {
        let w = workload(n as u64 * 32 / 128, 128, &[("2", n)]);
        let opts = Options {
            block: Some([128, 1, 1]),
            ..Default::default()
        };
        g.bench_function(kernel, |b| {
            b.iter(|| {
                let s = analyze_kernel_with(&nest, kernel, &opts).expect("analyses");
                s.bind(&w).expect("binds")
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("bind");
    g.sample_size(10);
    // (PTX file, kernel, grid, block, parameters by position)
    type Case = (
        &'static str,
        &'static str,
        [u64; 3],
        [u64; 3],
        &'static [(&'static str, i64)],
    );
    let cases: [Case; 3] = [
        (
            "tests/ptx/nvcc/saxpy.ptx",
            "saxpy",
            [4096, 1, 1],
            [256, 1, 1],
            &[("0", 1 << 20)],
        ),
        (
            "tests/ptx/nvcc/pb_gemm.ptx",
            "pb_gemm",
            [16, 64, 1],
            [32, 8, 1],
            &[("0", 512), ("1", 512), ("2", 512)],
        ),
        (
            "tests/ptx/nvcc/matmul_tiled.ptx",
            "matmul_tiled",
            [64, 64, 1],
            [16, 16, 1],
            &[("0", 1024)],
        ),
    ];
    for (ptx, kernel, grid, block, params) in cases {
        let m = module(ptx);
        let stats = analyze_kernel_with(
            &m,
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
            ..workload(1, 1, params)
        };
        g.bench_function(kernel, |b| b.iter(|| stats.bind(&w).expect("binds")));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
