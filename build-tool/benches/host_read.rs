//! Reading a large host file: a `main` of 400 local sizes (some assigned twice) and 80 launches
//! of one kernel, half through a helper called with a size of its own. Every launch's workload
//! is worked out, as `kerncast analyze` does for the kernel. The host reader's cost grows with
//! launches × the names their functions assign, which this file has many of.

use criterion::{criterion_group, criterion_main, Criterion};
use kerncast::launch_sites::HostFile;

fn host() -> String {
    let mut lines = vec![
        "__global__ void k(float *x, int n);".to_string(),
        "void run(float *x, int n) { k<<<(n + 255) / 256, 256>>>(x, n); }".into(),
        "int main() {".into(),
        "  float *x;".into(),
    ];
    for i in 0..400 {
        lines.push(format!("  int v{i} = {i} * 3;"));
        if i % 7 == 0 {
            lines.push(format!("  v{i} = v{i} + 1;"));
        }
    }
    for i in 0..40 {
        lines.push(format!("  int n{i} = {};", 1000 + i));
        lines.push(format!("  run(x, n{i});"));
        lines.push(format!("  k<<<(n{i} + 127) / 128, 128>>>(x, n{i});"));
    }
    lines.push("}".into());
    lines.join("\n")
}

fn bench(c: &mut Criterion) {
    let text = host();
    let params = ["x".to_string(), "n".to_string()];
    let mut g = c.benchmark_group("host_read");
    g.sample_size(10);
    g.bench_function("400_locals_80_launches", |b| {
        b.iter(|| {
            let ws = HostFile::new(&text, None).workloads("k", &params, &[]);
            assert_eq!(ws.len(), 80);
            ws
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
