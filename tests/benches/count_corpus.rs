//! Symbolic counting of the whole corpus (issue 3): `count::analyze_kernel_with` for every
//! kernel of `tests/ptx` at the block size of its source's first workload annotation, one
//! criterion benchmark per kernel, then the per-kernel median over the corpus from criterion's
//! own estimates. This is the cost a build pays per kernel before any workload is evaluated.
//!
//! `cargo bench -p kerncast-tests --bench count_corpus` (about five minutes; pass a filter such
//! as `nvcc.` to run part of it; the summary then covers the kernels measured so far).

use criterion::Criterion;
use kerncast_passes::count::{analyze_kernel_with, Options};
use kerncast_passes::ptx::Module;
use std::path::PathBuf;
use std::time::Duration;

const GROUP: &str = "count_corpus";

/// (benchmark id `compiler.kernel`, module, kernel, block)
fn corpus() -> Vec<(String, Module, String, [u64; 3])> {
    let root = kerncast_tests::workspace_root();
    let mut out = Vec::new();
    for p in kerncast_tests::ptx_files() {
        let compiler = p
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
            .unwrap_or("ptx")
            .to_string();
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let Some(src) = ["cu", "cl"]
            .iter()
            .map(|e| root.join("tests/kernels").join(format!("{stem}.{e}")))
            .find(|s| s.exists())
        else {
            continue;
        };
        let Ok(kernels) =
            kerncast::annotations::scan(&std::fs::read_to_string(&src).expect("source reads"))
        else {
            continue;
        };
        let module =
            Module::parse(&std::fs::read_to_string(&p).expect("PTX reads")).expect("PTX parses");
        for f in module.kernels() {
            let plain = kerncast::pipeline::demangle(&f.name);
            let Some(block) = kernels
                .iter()
                .find(|k| k.name == f.name || k.name == plain)
                .and_then(|k| k.workloads.first())
                .and_then(|w| w.resolve().ok())
                .map(|w| w.block)
            else {
                continue;
            };
            out.push((
                format!("{compiler}.{}", f.name),
                module.clone(),
                f.name.clone(),
                block,
            ));
        }
    }
    out
}

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
        for (id, module, kernel, block) in corpus() {
            let opts = Options {
                block: Some(block),
                ..Default::default()
            };
            g.bench_function(&id, |b| {
                b.iter(|| analyze_kernel_with(&module, &kernel, &opts).expect("analyses"))
            });
        }
        g.finish();
    }
    c.final_summary();
    summarise();
}
