//! `cargo xtask fuzz [--minutes N] [TARGET…]`: coverage-guided fuzzing with cargo-fuzz
//! (libFuzzer) on the stable toolchain. cargo-fuzz passes rustc `-Z` flags (sanitizer coverage,
//! AddressSanitizer); `RUSTC_BOOTSTRAP=1` lets the stable compiler take them, so no nightly
//! toolchain is needed. The corpora start from the project's own inputs (the PTX corpus,
//! device profiles, example configs and baselines); a crash leaves its input under
//! `fuzz/artifacts/TARGET/`, to be turned into a regression test.

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// Every target, and where its seeds come from (folder, file extension).
const TARGETS: &[(&str, &[(&str, &str)])] = &[
    (
        "ptx",
        &[("tests/ptx", "ptx"), ("tests/tests/bad_input", "ptx")],
    ),
    (
        "count",
        &[("tests/ptx", "ptx"), ("tests/tests/bad_input", "ptx")],
    ),
    (
        "emulate",
        &[("tests/ptx", "ptx"), ("tests/tests/bad_input", "ptx")],
    ),
    (
        "device_toml",
        &[("devices", "toml"), ("tests/tests/bad_input", "toml")],
    ),
    (
        "config_toml",
        &[("examples", "toml"), ("tests/tests/bad_input", "toml")],
    ),
    (
        "baseline",
        &[("examples", "json"), ("tests/tests/bad_input", "json")],
    ),
    ("host_python", &[("host/tests/python", "py")]),
    (
        "host_c",
        &[
            ("host/tests/programs", "cu"),
            ("host/tests/programs", "c"),
            ("host/tests/programs", "cpp"),
        ],
    ),
];

pub fn run(root: &Path, minutes: f64, only: &[String]) -> Result<()> {
    let targets: Vec<_> = TARGETS
        .iter()
        .filter(|(t, _)| only.is_empty() || only.iter().any(|o| o == t))
        .collect();
    if targets.is_empty() {
        bail!(
            "no such fuzz target; the targets: {}",
            TARGETS.iter().map(|t| t.0).collect::<Vec<_>>().join(", ")
        );
    }
    let have = Command::new("cargo").args(["fuzz", "--version"]).output();
    if !have.is_ok_and(|o| o.status.success()) {
        bail!("cargo-fuzz is not installed: cargo install cargo-fuzz --locked");
    }
    let secs = ((minutes * 60.0) / targets.len() as f64).max(1.0) as u64;
    let mut summary = Vec::new();
    for (t, seeds) in targets {
        let corpus = root.join("fuzz/corpus").join(t);
        std::fs::create_dir_all(&corpus)?;
        let n = seed(root, &corpus, seeds)?;
        eprintln!("fuzz: {t}: {n} seeds, {secs} s");
        let log = root.join(format!("fuzz/artifacts/{t}.log"));
        std::fs::create_dir_all(root.join("fuzz/artifacts").join(t))?;
        let out = std::fs::File::create(&log)?;
        let status = Command::new("cargo")
            .current_dir(root.join("fuzz"))
            .env("RUSTC_BOOTSTRAP", "1")
            // its own target folder: the instrumented build shares nothing with the workspace's
            .env("CARGO_TARGET_DIR", root.join("fuzz/target"))
            // libclang's crash recovery replaces AddressSanitizer's signal handlers: a stack
            // overflow in host_c would end the run silently, with no report and no input saved
            .env("LIBCLANG_DISABLE_CRASH_RECOVERY", "1")
            .args(["fuzz", "run", t])
            .arg(&corpus)
            .args([
                "--",
                &format!("-max_total_time={secs}"),
                "-timeout=60",
                "-rss_limit_mb=4096",
                "-max_len=65536",
                "-print_final_stats=1",
            ])
            .stderr(out.try_clone()?)
            .stdout(out)
            .status()
            .with_context(|| format!("cargo fuzz run {t}"))?;
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        // `stat::number_of_executed_units: 131804`
        let last = |key: &str| {
            text.lines()
                .rev()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.rsplit(':').next())
                .map(|v| v.trim().to_string())
                .unwrap_or_else(|| "?".into())
        };
        let cov = text
            .lines()
            .rev()
            .find_map(|l| l.split("cov: ").nth(1))
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("?")
            .to_string();
        let line = format!(
            "{t}: {} runs, coverage {cov} edges, {} s, {}",
            last("stat::number_of_executed_units"),
            secs,
            if status.success() {
                "no crash".to_string()
            } else {
                format!("CRASH ({status}), see {}", log.display())
            }
        );
        eprintln!("fuzz: {line}");
        summary.push((line, status.success()));
    }
    println!("fuzz summary:");
    for (l, _) in &summary {
        println!("  {l}");
    }
    if summary.iter().any(|(_, ok)| !ok) {
        bail!("a fuzz target crashed: turn its input under fuzz/artifacts into a regression test");
    }
    Ok(())
}

/// Copies the seed files into the corpus folder (named by content, so repeated runs add none).
fn seed(root: &Path, corpus: &Path, seeds: &[(&str, &str)]) -> Result<usize> {
    let mut n = 0;
    for (dir, ext) in seeds {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == *ext) {
                    let bytes = std::fs::read(&p)?;
                    if bytes.len() > 65536 {
                        continue;
                    }
                    let name = format!("seed-{:016x}", fnv(&bytes));
                    std::fs::write(corpus.join(name), bytes)?;
                    n += 1;
                }
            }
        }
    }
    Ok(n)
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, x| {
        (h ^ *x as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
