//! Speed of the list scheduler on a long straight-line block (criterion; never asserted in tests).

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast_models::schedule::dag::{schedule_block, SchedInst, UnitClass, Units};

fn bench_schedule(c: &mut Criterion) {
    let insts: Vec<SchedInst> = (0..2000)
        .map(|i| {
            let class = if i % 5 == 0 {
                UnitClass::Lsu
            } else {
                UnitClass::Sp
            };
            let src = format!("r{}", i.max(1) - 1);
            let dst = format!("r{i}");
            SchedInst::new(class, &[&dst], &[&src], if i % 5 == 0 { 300 } else { 9 })
        })
        .collect();
    let units = Units {
        sp: 128,
        sfu: 32,
        dpu: 4,
        lsu: 32,
    };
    c.bench_function("schedule_block_2000", |b| {
        b.iter(|| schedule_block(&insts, &units, 2048, 1))
    });
}

criterion_group!(benches, bench_schedule);
criterion_main!(benches);
