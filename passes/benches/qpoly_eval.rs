//! Evaluations per second of a compiled count (the fma count of the tiled matmul, with its
//! pieces and floors) — the ranking and DVFS sweeps evaluate counts at many workloads.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kerncast_passes::count::{analyze_kernel_with, Options};
use kerncast_passes::poly::Compiled;
use kerncast_passes::ptx::Module;
use kerncast_passes::stats::{DType, Feature, Granularity, OpKind};

fn bench(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/ptx/nvcc/matmul_tiled.ptx"
    );
    let text = std::fs::read_to_string(path).expect("corpus PTX");
    let m = Module::parse(&text).expect("parses");
    let ks = analyze_kernel_with(
        &m,
        "matmul_tiled",
        &Options {
            block: Some([16, 16, 1]),
            ..Default::default()
        },
    )
    .expect("analyses");
    let key = Feature::Op {
        kind: OpKind::Fma,
        ty: DType::F32,
        gran: Granularity::Thread,
    };
    let q = ks.feature_keys.get(&key).expect("fma count");
    let prog = Compiled::new(q, &["nctaid_x", "nctaid_y", "nctaid_z", "p0"]).expect("compiles");
    let mut regs = Vec::with_capacity(prog.registers());
    let mut g = c.benchmark_group("qpoly_eval");
    const N: u64 = 1024;
    g.throughput(Throughput::Elements(N));
    g.bench_function("matmul_tiled_fma_1024_points", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for n in 0..N as i64 {
                let t = (n + 15) / 16;
                acc += prog.eval(&[t, t, 1, n], &mut regs);
            }
            std::hint::black_box(acc)
        })
    });
    // the kernel's count with the most pieces (guards with floors of the parameters): the
    // dearest per evaluation
    let (big_key, big) = ks
        .feature_keys
        .iter()
        .max_by_key(|(_, q)| q.pieces.len())
        .expect("features");
    let big_prog =
        Compiled::new(big, &["nctaid_x", "nctaid_y", "nctaid_z", "p0"]).expect("compiles");
    eprintln!("largest count: {big_key} ({} pieces)", big.pieces.len());
    let mut regs = Vec::with_capacity(big_prog.registers());
    g.bench_function("matmul_tiled_largest_count_1024_points", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for n in 0..N as i64 {
                let t = (n + 15) / 16;
                acc += big_prog.eval(&[t, t, 1, n], &mut regs);
            }
            std::hint::black_box(acc)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
