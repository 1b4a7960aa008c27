//! The counting oracle (issue 3, first acceptance point): for every corpus kernel with static
//! control flow, at three small workloads each, the symbolic counts of `kerncast_passes::count`
//! bound to the workload equal the emulator's counts for every feature key and every block.
//!
//! "Static control flow" is decided independently of the counter: the emulator gives the same
//! counts on zero-filled and on pseudo-random buffers, and the counter lists no data-dependent
//! assumption (`trip.*`, `branch.*`, `pred.*`). A kernel with static control flow that the counter
//! fails on or does not finish in time fails the test; data-dependent kernels are listed.

mod emu_common;

use emu_common::*;
use kerncast_passes::count;
use std::collections::BTreeMap;

/// Seconds the counter may take to analyse one kernel.
const ANALYZE_DEADLINE_S: u64 = 10;

fn data_dependent(a: &kerncast_passes::stats::Assumption) -> bool {
    ["trip.", "branch.", "pred."]
        .iter()
        .any(|p| a.hint_key.starts_with(p))
}

/// Differences between two count sets: (key, static, emulator).
fn diff(s: &BoundStats, e: &BoundStats) -> Vec<(String, f64, f64)> {
    let mut out = Vec::new();
    let keys: std::collections::BTreeSet<&Feature> =
        s.features.keys().chain(e.features.keys()).collect();
    for k in keys {
        let (a, b) = (s.get(k), e.get(k));
        if a != b {
            out.push((k.to_string(), a, b));
        }
    }
    let blocks: std::collections::BTreeSet<&usize> =
        s.block_execs.keys().chain(e.block_execs.keys()).collect();
    for b in blocks {
        let z = Default::default();
        let (x, y) = (
            s.block_execs.get(b).unwrap_or(&z),
            e.block_execs.get(b).unwrap_or(&z),
        );
        if x.threads != y.threads || x.warps != y.warps {
            out.push((
                format!("block_execs[{b}] (threads, warps)"),
                x.threads * 1e6 + x.warps,
                y.threads * 1e6 + y.warps,
            ));
        }
    }
    out
}

/// The counter on one kernel, in a thread with a deadline, so a kernel it cannot finish is
/// reported instead of stalling the suite (the thread dies with the test process).
fn analyze(c: &Case) -> Result<count::KernelStats, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (m, k, block) = (
        c.module.clone(),
        c.kernel.clone(),
        c.workloads.first().map(|w| w.launch.block),
    );
    std::thread::spawn(move || {
        let r = count::analyze_kernel_with(&m, &k, &count::Options { block });
        let _ = tx.send(r.map_err(|e| e.to_string()));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(ANALYZE_DEADLINE_S)) {
        Ok(r) => r.map_err(|e| format!("counter error: {e}")),
        Err(_) => Err(format!("counter did not finish in {ANALYZE_DEADLINE_S} s")),
    }
}

#[test]
fn static_counts_equal_emulated_counts() {
    let t_start = std::time::Instant::now();
    let mut compared = Vec::new();
    let mut excluded = Vec::new();
    let mut mismatches = Vec::new();
    // Kernels compared at fewer than three workloads (a fixed grid over the launch-size cap).
    let mut few = Vec::new();
    for c in corpus_cases() {
        let id = format!("{} {}", c.file, c.kernel);
        let Some(small) = c.workloads.last() else {
            excluded.push(format!("{id}: no workload"));
            continue;
        };
        // Static control flow, decided by the emulator alone: the same counts on zero-filled
        // and on pseudo-random buffers.
        let z = run_case(&c, small, Fill::Zero);
        let r = run_case(&c, small, Fill::Random);
        match (&z, &r) {
            (Ok(a), Ok(b)) if a.features == b.features && a.block_execs == b.block_execs => {}
            (Ok(_), Ok(_)) => {
                excluded.push(format!("{id}: emulated counts depend on the data"));
                continue;
            }
            (Err(e), _) | (_, Err(e)) => {
                excluded.push(format!("{id}: emulator error: {e}"));
                continue;
            }
        }
        let t0 = std::time::Instant::now();
        // A data-independent kernel the counter cannot count is a failure, not an exclusion.
        let ks = match analyze(&c) {
            Ok(k) => k,
            Err(e) => {
                eprintln!("FAIL {id}: {e}");
                mismatches.push(format!("{id}: {e}"));
                continue;
            }
        };
        eprintln!("analyzed {id} in {:.2?}", t0.elapsed());
        if let Some(a) = ks.assumptions.iter().find(|a| data_dependent(a)) {
            excluded.push(format!("{id}: counter assumes {} ({})", a.hint_key, a.what));
            continue;
        }
        if c.workloads.len() < 3 {
            few.push(format!("{id}: {} workloads", c.workloads.len()));
        }
        for w in &c.workloads {
            let emu = match run_case(&c, w, Fill::Zero) {
                Ok(e) => e,
                Err(e) => {
                    mismatches.push(format!("{id} at {}: emulator error: {e}", w.name));
                    continue;
                }
            };
            let params: BTreeMap<String, i64> = c
                .params
                .iter()
                .enumerate()
                .filter_map(|(i, n)| w.params.get(n).map(|v| (i.to_string(), *v)))
                .collect();
            let cw = count::Workload {
                grid: w.launch.grid,
                block: w.launch.block,
                params,
                hints: BTreeMap::new(),
            };
            match ks.bind(&cw) {
                Ok(st) => {
                    let d = diff(&st, &emu);
                    if !d.is_empty() {
                        eprintln!("MISMATCH {id} at {}: {d:?}", w.name);
                        mismatches.push(format!("{id} at {}: {d:?}", w.name));
                    } else {
                        eprintln!("MATCH {id} at {}", w.name);
                    }
                    compared.push(format!("{id} at {}", w.name));
                }
                Err(e) => mismatches.push(format!("{id} at {}: bind failed: {e}", w.name)),
            }
        }
    }
    eprintln!(
        "oracle: {} workload comparisons, {} mismatching or failing, {} kernels excluded, in {:.1?}; excluded kernels:\n{}",
        compared.len(),
        mismatches.len(),
        excluded.len(),
        t_start.elapsed(),
        excluded.join("\n")
    );
    if !few.is_empty() {
        eprintln!("compared at fewer than 3 workloads:\n{}", few.join("\n"));
    }
    assert!(
        !compared.is_empty(),
        "nothing compared; excluded: {excluded:#?}"
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} comparisons differ:\n{}",
        mismatches.len(),
        compared.len(),
        mismatches.join("\n")
    );
}
