//! The functional emulator on corpus kernels at launches of the size a count samples
//! (65 536 threads, the release build's largest launch emulated whole): what a kernel whose
//! counts depend on data costs per run. The data is fixed (a seeded generator), so every run
//! executes the same instructions.

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast_passes::emu::{run_with, KernelArg, Options};
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::Launch;

// the allocator the kerncast binaries use
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const THREADS: u64 = 1 << 16;

fn module(file: &str) -> Module {
    let path = format!(
        "{}/../tests/ptx/nvcc/{file}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("corpus PTX");
    Module::parse(&text).expect("parses")
}

/// A small linear congruential generator: the same bytes on every machine.
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}

fn launch(grid: [u64; 3], block: [u64; 3]) -> Launch {
    Launch { grid, block }
}

/// (kernel, also its PTX file's name; launch; arguments; dynamic shared bytes)
fn cases() -> Vec<(&'static str, Launch, Vec<KernelArg>, u64)> {
    let n = THREADS as usize;
    // Collatz starts in 1..=4096: a few tens of data-dependent trips per thread
    let starts: Vec<u32> = bytes(2 * n, 7)
        .chunks(2)
        .map(|c| 1 + (u32::from(c[0]) << 4 | u32::from(c[1]) >> 4))
        .collect();
    // CSR rows of 0..=15 entries, columns anywhere in x
    let lens: Vec<i32> = bytes(n, 11).iter().map(|b| i32::from(b >> 4)).collect();
    let mut rowptr = vec![0i32];
    for l in &lens {
        rowptr.push(rowptr.last().unwrap() + l);
    }
    let nnz = *rowptr.last().unwrap() as usize;
    let cols: Vec<i32> = bytes(4 * nnz, 13)
        .chunks(4)
        .map(|c| (u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize % n) as i32)
        .collect();
    let side = 256u64; // matmul: 256 x 256 = 65 536 threads
    vec![
        (
            "histogram",
            launch([THREADS / 256, 1, 1], [256, 1, 1]),
            vec![
                KernelArg::U32(n as u32),
                KernelArg::Buffer(bytes(n, 3)),
                KernelArg::Zeros(256 * 4),
            ],
            0,
        ),
        (
            "saxpy",
            launch([THREADS / 256, 1, 1], [256, 1, 1]),
            vec![
                KernelArg::S32(n as i32),
                KernelArg::F32(2.0),
                KernelArg::Zeros(4 * n as u64),
                KernelArg::Zeros(4 * n as u64),
            ],
            0,
        ),
        (
            "reduce_shared",
            launch([THREADS / 256, 1, 1], [256, 1, 1]),
            vec![
                KernelArg::S32(n as i32),
                KernelArg::Zeros(4 * n as u64),
                KernelArg::Zeros(4 * THREADS / 256),
            ],
            1024,
        ),
        (
            "matmul_tiled",
            launch([side / 16, side / 16, 1], [16, 16, 1]),
            vec![
                KernelArg::S32(side as i32),
                KernelArg::Zeros(4 * side * side),
                KernelArg::Zeros(4 * side * side),
                KernelArg::Zeros(4 * side * side),
            ],
            0,
        ),
        (
            "while_collatz",
            launch([THREADS / 256, 1, 1], [256, 1, 1]),
            vec![
                KernelArg::S32(n as i32),
                KernelArg::u32s(&starts),
                KernelArg::Zeros(4 * n as u64),
            ],
            0,
        ),
        (
            "spmv_csr",
            launch([THREADS / 128, 1, 1], [128, 1, 1]),
            vec![
                KernelArg::S32(n as i32),
                KernelArg::i32s(&rowptr),
                KernelArg::i32s(&cols),
                KernelArg::Zeros(4 * nnz as u64),
                KernelArg::Zeros(4 * n as u64),
                KernelArg::Zeros(4 * n as u64),
            ],
            0,
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("emulate");
    g.sample_size(10);
    for (name, launch, args, dynamic_shared) in cases() {
        let m = module(name);
        let opts = Options {
            dynamic_shared,
            keep_buffers: false,
            ..Default::default()
        };
        // the run must succeed, or the bench would time an error path
        run_with(&m, name, &launch, &args, &opts).expect("emulates");
        g.bench_function(name, |b| {
            b.iter(|| run_with(&m, name, &launch, &args, &opts).expect("emulates"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
