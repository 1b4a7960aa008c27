//! `cargo xtask bench`'s whole-process measurements (issue 50), side by side in one run, each
//! beside its target: `kerncast predict` over the corpus PTX, counting the loop nests of
//! `tests/bench/nest.ptx` with a launch, `rank` points per second, `kerncast analyze
//! tests/kernels` cold and again unchanged, and kerncast's analysis of a `.cu` beside `nvcc -c`
//! of it. Prints a table and writes `target/kerncast-bench/bench.json`.
//!
//! `kerncast-bench [--kerncast PATH] [--only SECTION,...] [--analyze-limit SECONDS]`
//! (sections: predict, nest, rank, analyze, cu). `kerncast-bench timed-exec LOG PROGRAM ARGS…`
//! runs PROGRAM and appends its CPU seconds to LOG (the recording nvcc and ptxas of the `cu` section).

use kerncast_tests::bench::{
    l2_of_prediction, measure, measure_output, predict_cases, quantile, recording_toolchain, Usage,
};
use kerncast_tests::workspace_root;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Args {
    kerncast: PathBuf,
    only: Vec<String>,
    analyze_limit_s: f64,
    /// `.cu` files of the corpus the `cu` section compares (the first N, sorted).
    cu_files: usize,
    /// An earlier bench.json whose L2 hit rates and DRAM bytes the predict section compares.
    compare: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let root = workspace_root();
    let mut a = Args {
        kerncast: root.join("target/release/kerncast"),
        only: Vec::new(),
        analyze_limit_s: 600.0,
        cu_files: 12,
        compare: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut val = || it.next().ok_or(format!("{x} needs a value"));
        match x.as_str() {
            "--kerncast" => a.kerncast = PathBuf::from(val()?),
            "--only" => a.only = val()?.split(',').map(str::to_string).collect(),
            "--analyze-limit" => {
                a.analyze_limit_s = val()?.parse().map_err(|e| format!("{e}"))?;
            }
            "--cu-files" => a.cu_files = val()?.parse().map_err(|e| format!("{e}"))?,
            "--compare" => a.compare = Some(PathBuf::from(val()?)),
            "--bench" => {} // cargo bench passes it
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("timed-exec") {
        std::process::exit(timed_exec(&argv[2..]));
    }
    if argv.get(1).map(String::as_str) == Some("list-predict") {
        // the predict command lines, one a line, for profiling one of them
        for c in predict_cases() {
            println!("{}\tpredict {} {}", c.id, c.ptx.display(), c.args.join(" "));
        }
        return;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("kerncast-bench: {e}");
            std::process::exit(2);
        }
    };
    if !args.kerncast.is_file() {
        eprintln!(
            "kerncast-bench: no kerncast binary at {} (cargo build --release -p kerncast-cli)",
            args.kerncast.display()
        );
        std::process::exit(2);
    }
    let want = |s: &str| args.only.is_empty() || args.only.iter().any(|o| o == s);
    println!(
        "kerncast-bench: {} on {} CPUs, load average {}",
        args.kerncast.display(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    let mut results = serde_json::Map::new();
    if want("predict") {
        results.insert("predict".into(), predict_section(&args));
    }
    if want("nest") {
        results.insert("nest".into(), nest_section(&args));
    }
    if want("rank") {
        results.insert("rank".into(), rank_section(&args));
    }
    if want("analyze") {
        results.insert("analyze".into(), analyze_section(&args));
    }
    if want("cu") {
        results.insert("cu".into(), cu_section(&args));
    }
    let out = workspace_root().join("target/kerncast-bench");
    let _ = std::fs::create_dir_all(&out);
    let text =
        serde_json::to_string_pretty(&serde_json::Value::Object(results)).unwrap_or_default();
    match std::fs::write(out.join("bench.json"), text) {
        Ok(()) => println!("written: {}", out.join("bench.json").display()),
        Err(e) => eprintln!("kerncast-bench: writing bench.json: {e}"),
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn kerncast(args: &Args) -> Command {
    let mut c = Command::new(&args.kerncast);
    c.current_dir(workspace_root());
    if std::env::var_os("KERNCAST_TOOLCHAIN").is_none() {
        c.env("KERNCAST_TOOLCHAIN", workspace_root().join(".toolchain"));
    }
    c
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT MET"
    }
}

fn run(c: Command) -> Usage {
    measure(c).unwrap_or_else(|e| Usage {
        stderr_tail: format!("could not start: {e}"),
        ..Usage::default()
    })
}

/// `kerncast predict` of every corpus kernel at its first annotated workload, one at a time,
/// twice each in a cache of its own: first cold (ptxas assembles the PTX for its registers),
/// then again with ptxas's answer in the cache, as the next build finds it for a kernel whose
/// PTX did not change. The targets are read on the second: ptxas is the compiler's own
/// work, which the build does anyway, as `nvcc -c`'s own call is left out of the `cu` ratio.
fn predict_section(args: &Args) -> serde_json::Value {
    let cases = predict_cases();
    println!(
        "\n== predict: {} corpus kernels as whole processes, cold, then with ptxas's result cached",
        cases.len()
    );
    let cache = tempfile::tempdir().expect("a temporary cache folder");
    let mut rows = Vec::new();
    let mut cold_wall = Vec::new();
    let mut failed = Vec::new();
    let mut l2 = Vec::new();
    for case in &cases {
        let run = || {
            let mut c = kerncast(args);
            c.env("KERNCAST_CACHE", cache.path())
                .arg("predict")
                .arg(&case.ptx)
                .args(&case.args)
                .arg("--json");
            measure_output(c).unwrap_or_else(|e| Usage {
                stderr_tail: format!("could not start: {e}"),
                ..Usage::default()
            })
        };
        cold_wall.push(run().wall_s);
        let u = run();
        if !u.success {
            failed.push(json!({"kernel": case.id, "error": u.stderr_tail}));
        }
        l2.push(l2_of_prediction(&u.stdout));
        rows.push((case.id.clone(), u));
    }
    if let Some(base) = &args.compare {
        compare_dram(base, &rows, &l2);
    }
    cold_wall.sort_by(f64::total_cmp);
    println!(
        "cold (ptxas runs): wall median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        quantile(&cold_wall, 0.5) * 1e3,
        quantile(&cold_wall, 0.9) * 1e3,
        quantile(&cold_wall, 1.0) * 1e3
    );
    let mut wall: Vec<f64> = rows.iter().map(|(_, u)| u.wall_s).collect();
    let mut cpu: Vec<f64> = rows.iter().map(|(_, u)| u.cpu_s).collect();
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let peak = rows.iter().map(|(_, u)| u.peak_mb).fold(0.0, f64::max);
    let slowest = rows
        .iter()
        .max_by(|a, b| a.1.wall_s.total_cmp(&b.1.wall_s))
        .map(|(id, _)| id.clone())
        .unwrap_or_default();
    let (median, p90, max) = (
        quantile(&wall, 0.5),
        quantile(&wall, 0.9),
        quantile(&wall, 1.0),
    );
    println!(
        "ptxas cached: wall median {:.1} ms (target <= 30: {}), p90 {:.1} ms, max {:.1} ms (target <= 300: {}; {slowest})",
        median * 1e3,
        verdict(median <= 0.030),
        p90 * 1e3,
        max * 1e3,
        verdict(max <= 0.300)
    );
    println!(
        "cpu median {:.1} ms, max {:.1} ms; peak memory {:.0} MB (target <= 150: {}); {} failed",
        quantile(&cpu, 0.5) * 1e3,
        quantile(&cpu, 1.0) * 1e3,
        peak,
        verdict(peak <= 150.0),
        failed.len()
    );
    let mut by_time: Vec<&(String, Usage)> = rows.iter().collect();
    by_time.sort_by(|a, b| b.1.wall_s.total_cmp(&a.1.wall_s));
    println!("slowest:");
    for (id, u) in by_time.iter().take(8) {
        println!(
            "  {:>8.1} ms wall {:>8.1} ms cpu {:>6.0} MB  {id}",
            u.wall_s * 1e3,
            u.cpu_s * 1e3,
            u.peak_mb
        );
    }
    for f in &failed {
        println!("failed: {}", f["kernel"]);
    }
    json!({
        "kernels": rows.len(),
        "cold_wall_median_s": quantile(&cold_wall, 0.5), "cold_wall_max_s": quantile(&cold_wall, 1.0),
        "wall_median_s": median, "wall_p90_s": p90, "wall_max_s": max, "slowest": slowest,
        "cpu_median_s": quantile(&cpu, 0.5), "cpu_max_s": quantile(&cpu, 1.0),
        "peak_mb": peak, "failed": failed,
        "per_kernel": rows.iter().zip(&l2).map(|((id, u), l2)| json!({"kernel": id, "wall_s": u.wall_s, "cpu_s": u.cpu_s, "peak_mb": u.peak_mb, "l2_hit_rate": l2.map(|x| x.0), "sectors": l2.map(|x| x.1)})).collect::<Vec<_>>(),
    })
}

/// The L2 hit rates and DRAM bytes (sectors × 32 × (1 − hit rate)) of this run's predictions
/// beside those of an earlier bench.json: the largest moves, in points of the sector traffic
/// (the hit rate's change) and relative to the earlier DRAM bytes.
fn compare_dram(base: &Path, rows: &[(String, Usage)], l2: &[Option<(f64, f64)>]) {
    let Some(before) = std::fs::read_to_string(base)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        println!("compare: cannot read {}", base.display());
        return;
    };
    let empty = Vec::new();
    let old = before["predict"]["per_kernel"].as_array().unwrap_or(&empty);
    let mut moves: Vec<(f64, f64, String)> = Vec::new();
    let mut missing = Vec::new();
    for ((id, _), now) in rows.iter().zip(l2) {
        let was = old
            .iter()
            .find(|k| k["kernel"].as_str() == Some(id))
            .and_then(|k| Some((k["l2_hit_rate"].as_f64()?, k["sectors"].as_f64()?)));
        match (was, now) {
            (Some((h0, s0)), Some((h1, s1))) => {
                let (d0, d1) = (32.0 * s0 * (1.0 - h0), 32.0 * s1 * (1.0 - h1));
                let rel = if d0 > 0.0 {
                    (d1 - d0) / d0
                } else if d1 > 0.0 {
                    1.0
                } else {
                    0.0
                };
                moves.push(((h1 - h0) * 100.0, rel * 100.0, id.clone()));
            }
            (None, None) => {}
            _ => missing.push(id.clone()),
        }
    }
    moves.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    let worst_rel = moves.iter().map(|m| m.1.abs()).fold(0.0, f64::max);
    println!(
        "DRAM bytes against {}: {} kernels compared, largest hit-rate move {:.2} points (target <= 1: {}), largest relative DRAM-byte move {:.2} %; {} with a hit rate on one side only",
        base.display(),
        moves.len(),
        moves.first().map_or(0.0, |m| m.0.abs()),
        verdict(moves.first().is_none_or(|m| m.0.abs() <= 1.0)),
        worst_rel,
        missing.len()
    );
    for (dp, rel, id) in moves.iter().take(5) {
        println!("  {dp:+.2} points, DRAM bytes {rel:+.2} %  {id}");
    }
    for id in &missing {
        println!("  hit rate on one side only: {id}");
    }
}

/// `kerncast count` of the nests of `tests/bench/nest.ptx` with a launch, depth 1 to 6.
fn nest_section(args: &Args) -> serde_json::Value {
    println!("\n== nest: counting with a launch, depth 1 to 6 (tests/bench/nest.ptx)");
    let mut out = Vec::new();
    for family in ["nest", "box"] {
        for d in 1..=6 {
            let kernel = format!("{family}{d}");
            let n = if family == "nest" { 24 } else { 16 };
            let mut c = kerncast(args);
            c.args(["count", "tests/bench/nest.ptx", "--kernel", &kernel])
                .args(["--grid", &(n * 32 / 128).to_string(), "--block", "128"])
                .args(["--param", &format!("2={n}")]);
            let u = run(c);
            let ok = u.success && (d < 6 || u.wall_s <= 1.0);
            println!(
                "  {kernel:<6} {:>8.1} ms wall {:>8.1} ms cpu {:>5.0} MB{}{}",
                u.wall_s * 1e3,
                u.cpu_s * 1e3,
                u.peak_mb,
                if d == 6 {
                    format!("  (target <= 1 s: {})", verdict(ok))
                } else {
                    String::new()
                },
                if u.success { "" } else { "  FAILED" }
            );
            out.push(json!({"kernel": kernel, "wall_s": u.wall_s, "cpu_s": u.cpu_s, "peak_mb": u.peak_mb, "ok": u.success}));
        }
    }
    json!(out)
}

/// `kerncast rank` of saxpy over 1 point and over many: points per second after the first.
fn rank_section(args: &Args) -> serde_json::Value {
    println!("\n== rank: workload points per second after the first (tests/kernels/saxpy.cu)");
    let points = |k: usize| -> String {
        (0..k)
            .map(|i| ((1u64 << 20) + 256 * i as u64).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let time = |k: usize| {
        let mut c = kerncast(args);
        c.args(["rank", "tests/kernels/saxpy.cu", "--json", "--top", "1"])
            .arg(format!("--vary=n={}", points(k)));
        run(c)
    };
    let one = time(1);
    let n = 2001;
    let many = time(n);
    let rate = (n - 1) as f64 / (many.wall_s - one.wall_s).max(1e-9);
    let cpu_rate = (n - 1) as f64 / (many.cpu_s - one.cpu_s).max(1e-9);
    println!(
        "1 point {:.2} s, {n} points {:.2} s: {:.0} points/s wall, {:.0} points/s cpu (target >= 1000: {}){}",
        one.wall_s,
        many.wall_s,
        rate,
        cpu_rate,
        verdict(rate >= 1000.0 && one.success && many.success),
        if one.success && many.success {
            String::new()
        } else {
            format!("  FAILED: {}{}", one.stderr_tail, many.stderr_tail)
        }
    );
    json!({"one_point_s": one.wall_s, "points": n, "many_points_s": many.wall_s,
           "points_per_s": rate, "points_per_cpu_s": cpu_rate, "peak_mb": many.peak_mb})
}

/// `kerncast analyze tests/kernels` with an empty cache, then again with nothing changed.
fn analyze_section(args: &Args) -> serde_json::Value {
    println!(
        "\n== analyze tests/kernels, -j 2, cold cache then unchanged (limit {:.0} s)",
        args.analyze_limit_s
    );
    let Ok(tmp) = tempfile::tempdir() else {
        return json!({"error": "no temporary folder"});
    };
    let time = |label: &str| {
        let mut c = kerncast(args);
        c.args([
            "analyze",
            "tests/kernels",
            "--device",
            "gtx-titan-x",
            "-j",
            "2",
        ])
        .arg("--out")
        .arg(tmp.path().join("out"))
        .env("KERNCAST_CACHE", tmp.path().join("cache"));
        let u = run_limited(c, args.analyze_limit_s);
        println!(
            "  {label:<9} {:>7.2} s wall {:>7.2} s cpu {:>6.0} MB{}",
            u.wall_s,
            u.cpu_s,
            u.peak_mb,
            if u.success {
                ""
            } else {
                "  (did not finish or failed)"
            }
        );
        u
    };
    let cold = time("cold");
    let warm = time("unchanged");
    let kernels = count_kernels(&tmp.path().join("out/kerncast-report.json"));
    println!(
        "cold {:.1} s (target <= 30 s: {}), {:.0} MB (target <= 1024: {}); unchanged {:.2} s (target <= 2 s: {}); {kernels} kernel results",
        cold.wall_s,
        verdict(cold.success && cold.wall_s <= 30.0),
        cold.peak_mb,
        verdict(cold.peak_mb <= 1024.0),
        warm.wall_s,
        verdict(warm.success && warm.wall_s <= 2.0)
    );
    json!({"cold_s": cold.wall_s, "cold_cpu_s": cold.cpu_s, "cold_peak_mb": cold.peak_mb,
           "cold_finished": cold.success, "unchanged_s": warm.wall_s,
           "unchanged_peak_mb": warm.peak_mb, "kernel_results": kernels})
}

/// Kernel results in a written report (0 when it cannot be read).
fn count_kernels(report: &Path) -> usize {
    std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["kernels"].as_array().map(Vec::len))
        .unwrap_or(0)
}

/// [`measure`] with a limit: past it the child is killed and the result marked failed.
fn run_limited(c: Command, limit_s: f64) -> Usage {
    let (tx, rx) = std::sync::mpsc::channel();
    let mut c = c;
    // the child's process group, so the kill reaches what it started too
    std::os::unix::process::CommandExt::process_group(&mut c, 0);
    let handle = std::thread::spawn(move || {
        let _ = tx.send(());
        measure(c)
    });
    let _ = rx.recv();
    let start = std::time::Instant::now();
    while !handle.is_finished() {
        if start.elapsed().as_secs_f64() > limit_s {
            kill_children_of_self();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    handle.join().ok().and_then(Result::ok).unwrap_or_default()
}

/// SIGKILL the process groups of this process's direct children (only ever the one running).
fn kill_children_of_self() {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for e in entries.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // the fields after the command name's closing parenthesis: state, ppid, …
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(me) {
            // SAFETY: kill(2) with a negative pid signals that process group; no memory is shared.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

/// Runs of each command per `.cu` file, of which the median counts.
const CU_RUNS: usize = 3;

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    quantile(&v, 0.5)
}

/// kerncast's analysis of each of the first `.cu` files of the corpus beside `nvcc -c` of it:
/// `kerncast analyze FILE` with a toolchain whose nvcc and ptxas record their CPU time, less that
/// time: compiling is the build's own work (as in the `predict` section, where ptxas's answer
/// is cached), and what is left is kerncast's analysis.
fn cu_section(args: &Args) -> serde_json::Value {
    println!(
        "\n== .cu: kerncast analyze (its own nvcc and ptxas calls excluded) beside nvcc -c, CPU time, median of {CU_RUNS} runs each, first {} corpus files",
        args.cu_files
    );
    let Ok(tmp) = tempfile::tempdir() else {
        return json!({"error": "no temporary folder"});
    };
    let real = std::env::var_os("KERNCAST_TOOLCHAIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".toolchain"));
    let log = tmp.path().join("compiler-cpu.log");
    let me = std::env::current_exe().unwrap_or_default();
    if let Err(e) = recording_toolchain(&tmp.path().join("tc"), &real, &me, &log) {
        println!("  cannot set up the recording toolchain: {e}");
        return json!({"error": e.to_string()});
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("tests/kernels"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "cu"));
    files.sort();
    files.truncate(args.cu_files);
    let mut ratios = Vec::new();
    let mut rows = Vec::new();
    for f in &files {
        // The two commands alternate, three times each, and each side's median is kept: on a
        // shared machine one disturbed run moved a file's ratio from 7 % to 65 %.
        let mut nvcc_cpu = Vec::new();
        let mut kerncast_cpu = Vec::new();
        let mut compilers_cpu = Vec::new();
        let mut nvcc_ok = true;
        for _ in 0..CU_RUNS {
            let mut nvcc = Command::new(real.join("bin/nvcc"));
            nvcc.arg("-c").arg(f).arg("-o").arg(tmp.path().join("x.o"));
            let n = run(nvcc);
            nvcc_ok &= n.success;
            nvcc_cpu.push(n.cpu_s);
            let _ = std::fs::remove_file(&log);
            let mut k = kerncast(args);
            k.args([
                "analyze",
                "--no-cache",
                "--device",
                "gtx-titan-x",
                "-j",
                "1",
            ])
            .arg(f)
            .arg("--out")
            .arg(tmp.path().join("out"))
            .env("KERNCAST_TOOLCHAIN", tmp.path().join("tc"));
            let u = run(k);
            let own: f64 = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.trim().parse::<f64>().ok())
                .sum();
            kerncast_cpu.push(u.cpu_s);
            compilers_cpu.push(own);
        }
        let analyses: Vec<f64> = kerncast_cpu
            .iter()
            .zip(&compilers_cpu)
            .map(|(k, c)| (k - c).max(0.0))
            .collect();
        let (nvcc_s, kerncast_s, own_compilers, analysis) = (
            median(nvcc_cpu),
            median(kerncast_cpu),
            median(compilers_cpu),
            median(analyses),
        );
        let ratio = analysis / nvcc_s.max(1e-9);
        let name = f
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        println!(
            "  {name:<24} nvcc -c {:>6.2} s, kerncast {:>6.2} s of which its nvcc+ptxas {:>6.2} s: analysis {:>5.1} %{}",
            nvcc_s,
            kerncast_s,
            own_compilers,
            100.0 * ratio,
            if nvcc_ok { "" } else { "  (nvcc -c failed)" }
        );
        if nvcc_ok {
            ratios.push(ratio);
        }
        rows.push(
            json!({"file": name, "nvcc_c_cpu_s": nvcc_s, "kerncast_cpu_s": kerncast_s,
                         "kerncast_compilers_cpu_s": own_compilers, "ratio": ratio}),
        );
    }
    ratios.sort_by(f64::total_cmp);
    let (median, max) = (quantile(&ratios, 0.5), quantile(&ratios, 1.0));
    println!(
        "analysis / nvcc -c: median {:.1} %, max {:.1} % (target <= 15 %: {})",
        100.0 * median,
        100.0 * max,
        verdict(max <= 0.15)
    );
    json!({"median_ratio": median, "max_ratio": max, "files": rows})
}

/// Run `argv[1..]`, then append its CPU seconds to the file `argv[0]`; exit with its status.
fn timed_exec(argv: &[String]) -> i32 {
    let (Some(log), Some(prog)) = (argv.first(), argv.get(1)) else {
        eprintln!("timed-exec LOG PROGRAM ARGS...");
        return 2;
    };
    let mut c = Command::new(prog);
    c.args(&argv[2..]);
    // the wrapped program's output is the caller's
    let mut child = match c.spawn() {
        Ok(ch) => ch,
        Err(e) => {
            eprintln!("timed-exec: {prog}: {e}");
            return 127;
        }
    };
    let status = child.wait();
    // SAFETY: getrusage fills the plain C struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
    {
        let _ = writeln!(f, "{cpu}");
    }
    match status {
        Ok(s) => s.code().unwrap_or(1),
        Err(_) => 1,
    }
}
