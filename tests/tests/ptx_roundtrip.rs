//! The PTX front end over every checked-in PTX file (tests/ptx) plus the front end's own
//! fixtures: each parses, parse → print → parse is the identity, and ptxas accepts the printed
//! text (skipped, with the reason printed, only when ptxas is absent). `KERNCAST_EXTRA_PTX=<dir>`
//! adds the `.ptx` files of another directory.

use kerncast_passes::ptx;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus plus the fixtures in passes/tests/fixtures (so the test is never vacuous).
fn files() -> Vec<PathBuf> {
    let mut v = kerncast_tests::ptx_files();
    let fx = kerncast_tests::workspace_root().join("passes/tests/fixtures");
    let mut extra: Vec<PathBuf> = std::fs::read_dir(&fx)
        .expect("passes/tests/fixtures exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    extra.sort();
    assert!(
        extra.len() >= 2,
        "front-end fixtures missing in {}",
        fx.display()
    );
    v.extend(extra);
    // Optional: more PTX to check, e.g. freshly lowered with other flags.
    if let Some(dir) = std::env::var_os("KERNCAST_EXTRA_PTX") {
        let mut more: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("KERNCAST_EXTRA_PTX is a directory")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        more.sort();
        v.extend(more);
    }
    // Once the corpus is checked in, it must be there in full (40+ kernels, two front ends).
    let corpus = kerncast_tests::ptx_files().len();
    assert!(
        corpus == 0 || corpus >= 80,
        "tests/ptx holds only {corpus} files"
    );
    v
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn parse(p: &Path, src: &str) -> ptx::Module {
    ptx::parse(src).unwrap_or_else(|e| panic!("{}:{e}", p.display()))
}

#[test]
fn every_file_parses_and_round_trips() {
    let files = files();
    let mut insts = 0usize;
    for p in &files {
        let src = read(p);
        let a = parse(p, &src);
        assert!(
            a.functions.iter().any(|f| !f.is_declaration),
            "{}: no function bodies",
            p.display()
        );
        insts += a
            .functions
            .iter()
            .map(|f| f.instructions().count())
            .sum::<usize>();
        let printed = a.to_string();
        let b = ptx::parse(&printed)
            .unwrap_or_else(|e| panic!("{} printed text does not parse: {e}", p.display()));
        assert!(
            a.without_spans() == b.without_spans(),
            "{}: parse(print(m)) != m",
            p.display()
        );
        // Printing is a fixed point after one round.
        assert_eq!(
            printed,
            b.to_string(),
            "{}: printer not stable",
            p.display()
        );
    }
    println!(
        "{} files, {} instructions round-tripped",
        files.len(),
        insts
    );
}

fn ptxas() -> Option<PathBuf> {
    let mut cands = Vec::new();
    if let Some(t) = std::env::var_os("KERNCAST_TOOLCHAIN") {
        cands.push(PathBuf::from(t).join("bin/ptxas"));
    }
    cands.push(kerncast_tests::workspace_root().join(".toolchain/bin/ptxas"));
    cands.into_iter().find(|p| p.is_file())
}

#[test]
fn ptxas_accepts_printed_ptx() {
    let Some(ptxas) = ptxas() else {
        println!(
            "SKIPPED: ptxas not found (set KERNCAST_TOOLCHAIN or run `cargo xtask bootstrap`)"
        );
        return;
    };
    let files = files();
    let dir = std::env::temp_dir().join(format!("kerncast-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = files.get(i) else { break };
                let m = parse(p, &read(p));
                let arch = m
                    .target
                    .iter()
                    .find(|t| t.starts_with("sm_"))
                    .cloned()
                    .unwrap_or_else(|| "sm_80".into());
                let tmp = dir.join(format!("{i}.ptx"));
                std::fs::write(&tmp, m.to_string()).unwrap();
                let out = Command::new(&ptxas)
                    .arg(format!("-arch={arch}"))
                    // Relocatable: extern device functions (libdevice calls) may stay unresolved.
                    .arg("-c")
                    .arg("-o")
                    .arg(dir.join(format!("{i}.cubin")))
                    .arg(&tmp)
                    .output()
                    .expect("run ptxas");
                if !out.status.success() {
                    failures.lock().unwrap().push(format!(
                        "{}: {}",
                        p.display(),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "ptxas rejected printed PTX:\n{}",
        failures.join("\n")
    );
    println!("ptxas accepted the printed PTX of {} files", files.len());
}
