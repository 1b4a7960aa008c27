//! Development aid: how many of gpuFLOPBench's profiled launches the host reader finds.
use kerncast_host::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A profiled launch: (kernel, launch, grid, block).
type Row = (String, String, String, String);

fn main() {
    let data = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or("/work/shared/data/gpuflopbench".into()),
    );
    let only: Option<String> = std::env::args().nth(2);
    let tools = Toolchain::discover();
    let units =
        compdb::read(&data.join("compile_commands.json"), &tools).unwrap_or_else(|e| panic!("{e}"));
    let csv = std::fs::read_to_string(data.join("measurements.csv")).unwrap_or_default();
    let mut rdr = csv.lines();
    rdr.next();
    // program -> (exe_args, its profiled launches)
    let mut rows: BTreeMap<String, (String, Vec<Row>)> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let f = split_csv(line);
        let e = rows
            .entry(f[0].clone())
            .or_insert((f[6].clone(), Vec::new()));
        e.1.push((f[1].clone(), f[3].clone(), f[4].clone(), f[5].clone()));
    }
    let programs: Vec<String> = rows
        .keys()
        .filter(|p| only.as_ref().is_none_or(|o| o == *p))
        .cloned()
        .collect();
    let (mut found, mut total) = (0, 0);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let t0 = std::time::Instant::now();
    for p in &programs {
        let (exe_args, want) = &rows[p];
        let prog = Program {
            units: units
                .iter()
                .filter(|u| u.program.as_deref() == Some(p))
                .cloned()
                .collect(),
            args: Some(shlex::split(exe_args).unwrap_or_default()),
        };
        eprintln!("reading {p}");
        let t = std::time::Instant::now();
        let r = match read(
            &prog,
            &Options {
                toolchain: tools.clone(),
                find_main_beside: true,
                ..Options::default()
            },
        ) {
            Ok(r) => r,
            Err(e) => {
                println!("{p}: ERROR {e}");
                total += want.len();
                *reasons.entry("error".into()).or_default() += want.len();
                continue;
            }
        };
        let have: BTreeSet<(String, String, String)> = r
            .launches
            .iter()
            .map(|l| {
                let d = |s: &[Scalar; 3]| format!("{}x{}x{}", s[0], s[1], s[2]);
                (l.name.clone(), d(&l.grid), d(&l.block))
            })
            .collect();
        let mut missing = Vec::new();
        for (k, _launch, g, b) in want {
            total += 1;
            let k = if k.starts_with("_Z") {
                kerncast_host::clang::lower::demangle(k).1
            } else {
                k.clone()
            };
            if have.contains(&(k.clone(), g.clone(), b.clone())) {
                found += 1;
            } else {
                missing.push(format!("{k} {g} {b}"));
            }
        }
        let status = if missing.is_empty() {
            "ok".to_string()
        } else {
            format!("MISSING {}", missing.join("; "))
        };
        println!(
            "{p} [{:.2}s, {} steps] {status}",
            t.elapsed().as_secs_f64(),
            r.steps
        );
        if !missing.is_empty() {
            let mine: Vec<String> = r
                .launches
                .iter()
                .map(|l| {
                    let d = |s: &[Scalar; 3]| format!("{}x{}x{}", s[0], s[1], s[2]);
                    let unk: Vec<String> = l
                        .unknowns()
                        .into_iter()
                        .take(2)
                        .map(|(w, why)| format!("{w}: {why}"))
                        .collect();
                    format!(
                        "{} {} {} x{} {}",
                        l.name,
                        d(&l.grid),
                        d(&l.block),
                        l.count,
                        unk.join(" | ")
                    )
                })
                .collect();
            for m in mine.iter().take(6) {
                println!("    have: {m}");
            }
            for u in r.unreached.iter().take(3) {
                println!("    unreached: {:?} line {} {}", u.kernel, u.line, u.reason);
            }
            for d in r.diagnostics.iter().take(2) {
                println!("    diag: {d}");
            }
            for n in r.notes.iter().skip(1) {
                println!("    note: {n}");
            }
            *reasons
                .entry(if r.launches.is_empty() {
                    "no launch".into()
                } else {
                    "different".into()
                })
                .or_default() += missing.len();
        }
    }
    println!(
        "found {found}/{total} = {:.1}% in {:.1}s; {reasons:?}",
        100.0 * found as f64 / total as f64,
        t0.elapsed().as_secs_f64()
    );
}

fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut q = false;
    for c in line.chars() {
        match c {
            '"' => q = !q,
            ',' if !q => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}
