//! Ranking throughput: 10^4 workload points of one prepared variant (saxpy from the corpus's
//! checked-in PTX, sizes n = 2^20 … 2^20 + 10^4·256), each bound and predicted at the default
//! clocks of gtx-titan-x. The prepared kernel is reused across points, which is what lets an
//! autotuner sweep workloads cheaply.

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast::annotations;
use kerncast::engine::{default_counter, Target};
use kerncast::rank::predict_points;
use kerncast_passes::ptx::Module;
use std::collections::BTreeMap;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ptx = std::fs::read_to_string(root.join("tests/ptx/nvcc/saxpy.ptx")).expect("saxpy PTX");
    let src = std::fs::read_to_string(root.join("tests/kernels/saxpy.cu")).expect("saxpy source");
    let module = Module::parse(&ptx).expect("PTX parses");
    let sk = annotations::scan(&src).expect("annotations")[0].clone();
    let spec = sk.workloads[0].clone();
    let entry = module.kernels().next().expect("a kernel").name.clone();
    let counter = default_counter();
    let prepared = counter.prepare(&module, &entry).expect("prepare");
    let target = Target::load("gtx-titan-x", "auto").expect("device");
    let blocks = target.blocks(&module, &entry, "sm_52");
    blocks.sched.as_ref().expect("scheduler blocks");
    let points: Vec<BTreeMap<String, i64>> = (0..10_000)
        .map(|k| {
            [("n".to_string(), (1i64 << 20) + 256 * k)]
                .into_iter()
                .collect()
        })
        .collect();
    // Warm the prepared kernel's samples once, as the first point of a sweep does.
    let first = predict_points(
        prepared.as_ref(),
        None,
        &spec,
        &sk.params,
        &points[..1],
        &target,
        &blocks,
    );
    assert!(first[0].is_ok(), "{:?}", first[0]);
    let mut g = c.benchmark_group("rank");
    g.sample_size(10);
    g.bench_function("10k_workload_points_saxpy", |b| {
        b.iter(|| {
            let r = predict_points(
                prepared.as_ref(),
                None,
                &spec,
                &sk.params,
                &points,
                &target,
                &blocks,
            );
            assert_eq!(r.len(), points.len());
            r
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
