//! Parser throughput on the checked-in PTX (tests/ptx plus the front end's fixtures), reported by
//! criterion as bytes per second, twice: `ptx/parse` in wall-clock time (criterion's default) and
//! `ptx-cpu/parse` in the thread's CPU time. The development machine has 2 cores shared by many
//! builds (load 5-8), where the wall clock measures the scheduler as much as the parser; the CPU
//! clock counts only the cycles the parser itself used.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;

/// Thread CPU time (`CLOCK_THREAD_CPUTIME_ID`) in nanoseconds.
struct CpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; the clock id is a constant the kernel supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns().saturating_sub(i)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (d, unit) = if typical < 1e3 {
            (1.0, "ns cpu")
        } else if typical < 1e6 {
            (1e3, "µs cpu")
        } else if typical < 1e9 {
            (1e6, "ms cpu")
        } else {
            (1e9, "s cpu")
        };
        values.iter_mut().for_each(|v| *v /= d);
        unit
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let per = match t {
            Throughput::Bytes(b) | Throughput::BytesDecimal(b) => *b as f64,
            Throughput::Elements(e) => *e as f64,
            Throughput::Bits(b) => *b as f64 / 8.0,
            Throughput::ElementsAndBytes { bytes, .. } => *bytes as f64,
        };
        values
            .iter_mut()
            .for_each(|v| *v = per * 1e9 / *v / (1024.0 * 1024.0));
        "MiB/s cpu"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

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
    run(c, "ptx");
}

fn bench_cpu(c: &mut Criterion<CpuTime>) {
    run(c, "ptx-cpu");
}

fn run<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let all = corpus();
    let modules: Vec<&str> = all.split('\u{0}').filter(|s| !s.is_empty()).collect();
    let bytes: usize = modules.iter().map(|m| m.len()).sum();
    let mut g = c.benchmark_group(group);
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
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_cpu
}
criterion_main!(benches, cpu);
