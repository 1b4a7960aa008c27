//! The counting oracle (issue 3, first acceptance point): for every corpus kernel with static
//! control flow, at three small workloads each, the symbolic counts of `kerncast_passes::count`
//! bound to the workload equal the emulator's counts for every feature key and every block.
//!
//! "Static control flow" is decided by the emulator alone, never by the counter: the emulator
//! gives the same counts on zero-filled and on pseudo-random buffers (an emulator error, such as
//! an access out of bounds under random data, also means that addresses or control depend on
//! the data). A kernel with static control flow fails the test when the counter fails on it, does
//! not finish in time, or assumes something data dependent about it (`trip.*`, `branch.*`,
//! `pred.*`, or control flow it could not resolve once bound to the workload's parameters);
//! data-dependent kernels are listed with the reason.
//! Each kernel is checked in a child process of this test binary (see `CHILD`), so a counter that
//! never returns is killed at its deadline instead of eating a core and memory for the rest.

mod emu_common;

use emu_common::*;
use kerncast_passes::count;
use std::collections::BTreeMap;

/// Seconds the counter may take to analyse one kernel here: a guard of this test against a
/// counter that does not finish (the build tool itself bounds the analysis by its work
/// budgets, `--isl-ops`); how fast it is is measured by the `count_corpus` bench (the slowest
/// kernels take about 5 s).
const ANALYZE_DEADLINE_S: u64 = 30;

fn data_dependent(a: &kerncast_passes::stats::Assumption) -> bool {
    ["trip.", "branch.", "pred."]
        .iter()
        .any(|p| a.hint_key.starts_with(p))
}

/// Control flow the counts of a bound workload still assume something about: data-dependent
/// hints, or what was left open for the parameter values and is still open with them.
fn unresolved(a: &kerncast_passes::stats::Assumption) -> bool {
    data_dependent(a) || a.hint_key.starts_with(kerncast_passes::domains::NON_AFFINE)
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
/// reported instead of stalling the suite (the thread dies with the test process). A kernel
/// whose counts depend on the grid size (grid-stride loops) and stay data dependent with a
/// symbolic grid is analysed again for the first workload's grid; `bind` then re-analyses for
/// each workload's grid.
fn analyze(c: &Case) -> Result<count::KernelStats, String> {
    let launch = c.workloads.first().map(|w| w.launch);
    let ks = analyze_with(c, launch.as_ref().map(|l| l.block), None)?;
    match launch {
        Some(l) if ks.reads_grid_size() && ks.assumptions.iter().any(data_dependent) => {
            let at_grid = analyze_with(c, Some(l.block), Some(l.grid))?;
            Ok(if at_grid.assumptions.iter().any(data_dependent) {
                ks
            } else {
                at_grid
            })
        }
        _ => Ok(ks),
    }
}

fn analyze_with(
    c: &Case,
    block: Option<[u64; 3]>,
    grid: Option<[u64; 3]>,
) -> Result<count::KernelStats, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (m, k) = (c.module.clone(), c.kernel.clone());
    std::thread::spawn(move || {
        let r = count::analyze_kernel_with(&m, &k, &count::Options { block, grid });
        let _ = tx.send(r.map_err(|e| e.to_string()));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(ANALYZE_DEADLINE_S)) {
        Ok(r) => r.map_err(|e| format!("counter error: {e}")),
        Err(_) => Err(format!("counter did not finish in {ANALYZE_DEADLINE_S} s")),
    }
}

/// What the comparison of one kernel found, one line each.
#[derive(Default)]
struct Outcome {
    compared: Vec<String>,
    mismatches: Vec<String>,
    excluded: Vec<String>,
    few: Vec<String>,
}

/// Environment variable that makes the test binary check one kernel (`file<TAB>kernel`) and
/// print its outcome: the parent runs each kernel in such a child process, so a counter that
/// hangs is killed with its process instead of holding a core and memory for the rest of the run.
const CHILD: &str = "KC_ORACLE_KERNEL";
/// Seconds a child may take for everything (emulation of three workloads included).
const CHILD_DEADLINE_S: u64 = 120;

fn check_kernel(c: &Case, o: &mut Outcome) {
    let id = format!("{} {}", c.file, c.kernel);
    if c.workloads.is_empty() {
        o.excluded.push(format!("{id}: no workload"));
        return;
    }
    // Static control flow, decided by the emulator alone, at every workload: the same counts on
    // zero-filled and on pseudo-random buffers. The zero-filled runs are what the counts are
    // compared with.
    let mut emulated = Vec::new();
    for w in &c.workloads {
        let zero = match run_case(c, w, Fill::Zero) {
            Ok(z) => z,
            Err(e) => {
                o.mismatches
                    .push(format!("{id} at {}: emulator error: {e}", w.name));
                return;
            }
        };
        match run_case(c, w, Fill::Random) {
            Ok(r) if r.features == zero.features && r.block_execs == zero.block_execs => {}
            Ok(_) => {
                o.excluded.push(format!(
                    "{id}: emulated counts depend on the data (at {})",
                    w.name
                ));
                return;
            }
            Err(e) => {
                o.excluded.push(format!(
                    "{id}: emulator error under random data, so addresses or control depend on it (at {}): {e}",
                    w.name
                ));
                return;
            }
        }
        emulated.push(zero);
    }
    let t0 = std::time::Instant::now();
    // A data-independent kernel the counter cannot count is a failure, not an exclusion.
    let ks = match analyze(c) {
        Ok(k) => k,
        Err(e) => {
            o.mismatches.push(format!("{id}: {e}"));
            return;
        }
    };
    eprintln!("analyzed {id} in {:.2?}", t0.elapsed());
    // The emulator found the control flow static: an assumption about it is a failure.
    if let Some(a) = ks.assumptions.iter().find(|a| data_dependent(a)) {
        o.mismatches.push(format!(
            "{id}: static control flow, yet the counter assumes {} ({})",
            a.hint_key, a.what
        ));
        return;
    }
    if c.workloads.len() < 3 {
        o.few.push(format!("{id}: {} workloads", c.workloads.len()));
    }
    for (w, emu) in c.workloads.iter().zip(&emulated) {
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
            reuse: false,
        };
        match ks.bind(&cw) {
            Ok(st) => {
                if let Some(a) = st.assumptions.iter().find(|a| unresolved(a)) {
                    o.mismatches.push(format!(
                        "{id} at {}: bound counts still assume {} ({})",
                        w.name, a.hint_key, a.what
                    ));
                }
                let d = diff(&st, emu);
                if !d.is_empty() {
                    o.mismatches.push(format!("{id} at {}: {d:?}", w.name));
                }
                o.compared.push(format!("{id} at {}", w.name));
            }
            Err(e) => o
                .mismatches
                .push(format!("{id} at {}: bind failed: {e}", w.name)),
        }
    }
}

/// Run one kernel's check in a child process; its outcome, or a failure when it dies or runs
/// past the deadline.
fn check_in_child(c: &Case) -> Outcome {
    use std::io::Read;
    let id = format!("{} {}", c.file, c.kernel);
    let mut o = Outcome::default();
    let exe = std::env::current_exe().expect("test binary");
    let mut child = std::process::Command::new(exe)
        .args([
            "static_counts_equal_emulated_counts",
            "--exact",
            "--nocapture",
            // the parent may itself run as an ignored test
            "--include-ignored",
        ])
        .env(CHILD, format!("{}\t{}", c.file, c.kernel))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the test binary");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break Some(st);
        }
        if t0.elapsed().as_secs() >= CHILD_DEADLINE_S {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let text = reader.join().unwrap_or_default();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("ORACLE ") else {
            continue;
        };
        let (kind, what) = rest.split_once(' ').unwrap_or((rest, ""));
        let v = match kind {
            "compared" => &mut o.compared,
            "mismatch" => &mut o.mismatches,
            "excluded" => &mut o.excluded,
            "few" => &mut o.few,
            _ => continue,
        };
        v.push(what.to_string());
    }
    match status {
        None => o
            .mismatches
            .push(format!("{id}: did not finish in {CHILD_DEADLINE_S} s")),
        Some(st) if !text.contains("ORACLE done") => {
            o.mismatches.push(format!("{id}: check died ({st})"))
        }
        Some(_) => {}
    }
    o
}

// Every kernel of the corpus whose control flow the emulator finds static, at three workloads
// each: 440 comparisons, none differing (2026-11-23). `--nocapture` prints one line per kernel;
// `KC_ORACLE_FILTER=substring` checks part of the corpus.
#[test]
fn static_counts_equal_emulated_counts() {
    if let Ok(which) = std::env::var(CHILD) {
        let (file, kernel) = which.split_once('\t').expect("file<TAB>kernel");
        let cases = corpus_cases_in(|f| f == file);
        let c = cases
            .iter()
            .find(|c| c.kernel == kernel)
            .expect("the kernel is in the corpus");
        let mut o = Outcome::default();
        check_kernel(c, &mut o);
        for (kind, v) in [
            ("compared", &o.compared),
            ("mismatch", &o.mismatches),
            ("excluded", &o.excluded),
            ("few", &o.few),
        ] {
            for line in v {
                println!("ORACLE {kind} {line}");
            }
        }
        // A counter thread past its deadline must not keep the process alive.
        println!("ORACLE done");
        std::process::exit(0);
    }
    let t_start = std::time::Instant::now();
    let mut all = Outcome::default();
    // KC_ORACLE_FILTER=substring restricts the run to matching "file kernel" ids while iterating.
    let filter = std::env::var("KC_ORACLE_FILTER").unwrap_or_default();
    for c in corpus_cases()
        .into_iter()
        .filter(|c| format!("{} {}", c.file, c.kernel).contains(&filter))
    {
        let o = check_in_child(&c);
        for m in &o.mismatches {
            eprintln!("MISMATCH {m}");
        }
        eprintln!(
            "{} {}: {} compared, {} mismatching, {}",
            c.file,
            c.kernel,
            o.compared.len(),
            o.mismatches.len(),
            o.excluded.join("; ")
        );
        all.compared.extend(o.compared);
        all.mismatches.extend(o.mismatches);
        all.excluded.extend(o.excluded);
        all.few.extend(o.few);
    }
    let (compared, mismatches, excluded, few) =
        (all.compared, all.mismatches, all.excluded, all.few);
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
