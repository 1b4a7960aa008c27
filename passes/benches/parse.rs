//! Parser throughput on the checked-in PTX (tests/ptx, or the passes fixtures while that is
//! empty), reported by criterion as bytes per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;

fn corpus() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("../tests/ptx"), &mut files);
    collect(&root.join("tests/fixtures"), &mut files);
    files.sort();
    let mut all = String::new();
    for f in files {
        // Each file is a whole module; concatenating them would redeclare .version, so the
        // bench parses them one after another from one buffer of module texts.
        all.push_str(&std::fs::read_to_string(&f).expect("read ptx"));
        all.push('\u{0}');
    }
    all
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                collect(&p, out);
            } else if p.extension().is_some_and(|e| e == "ptx") {
                out.push(p);
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let all = corpus();
    let modules: Vec<&str> = all.split('\u{0}').filter(|s| !s.is_empty()).collect();
    let bytes: usize = modules.iter().map(|m| m.len()).sum();
    let mut g = c.benchmark_group("ptx");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("parse", |b| {
        b.iter(|| {
            for m in &modules {
                std::hint::black_box(kerncast_passes::ptx::parse(m).expect("corpus parses"));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
