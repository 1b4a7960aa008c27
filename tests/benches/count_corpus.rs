//! Symbolic counting of the whole corpus (issue 3): `count::analyze_kernel_with` for every
//! kernel of `tests/ptx` at the block size of its source's first workload annotation, one
//! criterion benchmark per kernel, then the per-kernel median over the corpus from criterion's
//! own estimates. This is the cost a build pays per kernel before any workload is evaluated.
//!
//! `cargo bench -p kerncast-tests --bench count_corpus` (about five minutes; pass a filter such
//! as `nvcc.` to run part of it; the summary then covers the kernels measured so far).

use criterion::Criterion;
use kerncast_passes::count::{analyze_kernel_with, Options};
use std::path::PathBuf;
use std::time::Duration;

// the allocator the kerncast binary uses: counting allocates many small polynomials
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const GROUP: &str = "count_corpus";

fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| kerncast_tests::workspace_root().join("target"))
        .join("criterion")
        .join(GROUP)
}

/// The per-kernel median time over every kernel criterion has an estimate for.
fn summarise() {
    let mut times: Vec<(f64, String)> = Vec::new();
    let Ok(dirs) = std::fs::read_dir(criterion_dir()) else {
        return;
    };
    for d in dirs.flatten() {
        let f = d.path().join("new/estimates.json");
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_str(&text).expect("criterion estimates");
        if let Some(ns) = v["median"]["point_estimate"].as_f64() {
            times.push((ns / 1e6, d.file_name().to_string_lossy().into_owned()));
        }
    }
    if times.is_empty() {
        return;
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].0;
    println!(
        "\nsymbolic counting, {} corpus kernels: per-kernel median {:.2} ms (quartiles {:.2} / {:.2} ms, slowest {} {:.1} ms)",
        times.len(),
        at(0.5),
        at(0.25),
        at(0.75),
        times[times.len() - 1].1,
        times[times.len() - 1].0
    );
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    {
        let mut g = c.benchmark_group(GROUP);
        for k in kerncast_tests::corpus_kernels() {
            let opts = Options {
                block: Some(k.block),
                ..Default::default()
            };
            g.bench_function(&k.id, |b| {
                b.iter(|| analyze_kernel_with(&k.module, &k.kernel, &opts).expect("analyses"))
            });
        }
        g.finish();
    }
    c.final_summary();
    summarise();
}
