//! `cargo xtask regen`: lower tests/kernels with every available front end into tests/ptx.
//!
//! The PTX is checked in so that tests run where nvcc or clang are absent. Lowering goes through
//! the `kerncast lower` binary rather than the library: xtask must build before `bootstrap` has
//! installed LLVM and isl, so it cannot link kerncast itself. Each output is checked with ptxas.
//! Output paths mirror the source tree (`tests/kernels/loopy/x.cu` -> `tests/ptx/nvcc/loopy/x.ptx`)
//! and carry no host paths, so regenerating on an unchanged corpus changes no file.

use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Sources that also go clang -> .ll -> in-process LLVM (tests/ptx/llvm/): a few of each shape.
const LLVM_ROUTE: &[&str] = &[
    "saxpy.cu",
    "matmul_tiled.cu",
    "reduce_warp.cu",
    "triangular.cu",
    "pb_gemm.cu",
    "cl_matmul_tiled.cl",
    "cl_reduce_local.cl",
];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Fe {
    Nvcc,
    Clang,
    Llvm,
}

impl Fe {
    fn name(self) -> &'static str {
        match self {
            Fe::Nvcc => "nvcc",
            Fe::Clang => "clang",
            Fe::Llvm => "llvm",
        }
    }
}

struct Job {
    source: PathBuf, // relative to the root, e.g. tests/kernels/saxpy.cu
    rel: PathBuf,    // relative to tests/kernels
    fe: Fe,
}

#[derive(Clone, Debug)]
enum Outcome {
    Ok { lines: usize, ptxas: Option<bool> },
    Failed(String),
}

pub fn run(root: &Path) -> Result<()> {
    crate::cmd::build_kerncast(root, &["--quiet"])
        .context("building the kerncast binary that does the lowering")?;
    let kerncast = root.join("target/debug/kerncast");

    let kernels_dir = root.join("tests/kernels");
    let sources = collect_sources(&kernels_dir)?;
    check_collisions(&sources)?;

    let nvcc = tool(root, "nvcc");
    let clang = which("clang-19").or_else(|| {
        let p = PathBuf::from("/usr/lib/llvm-19/bin/clang");
        p.is_file().then_some(p)
    });
    let ptxas = tool(root, "ptxas");
    let mut available = BTreeSet::new();
    if nvcc.is_some() {
        available.insert(Fe::Nvcc);
    } else {
        println!(
            "nvcc absent: keeping the checked-in tests/ptx/nvcc (run `cargo xtask bootstrap`)"
        );
    }
    if clang.is_some() {
        available.insert(Fe::Clang);
        available.insert(Fe::Llvm);
    } else {
        println!("clang-19 absent: keeping tests/ptx/clang and tests/ptx/llvm");
    }
    if ptxas.is_none() {
        println!("ptxas absent: the produced PTX is not verified");
    }

    let mut jobs = Vec::new();
    for rel in &sources {
        let is_cuda = rel.extension().is_some_and(|e| e == "cu");
        let source = Path::new("tests/kernels").join(rel);
        let mut fes = vec![];
        if is_cuda {
            fes.push(Fe::Nvcc);
        }
        fes.push(Fe::Clang);
        if LLVM_ROUTE.contains(&rel.to_string_lossy().as_ref()) {
            fes.push(Fe::Llvm);
        }
        for fe in fes.into_iter().filter(|f| available.contains(f)) {
            jobs.push(Job {
                source: source.clone(),
                rel: rel.clone(),
                fe,
            });
        }
    }

    let results: Mutex<BTreeMap<(PathBuf, Fe), Outcome>> = Mutex::new(BTreeMap::new());
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                let outcome = lower_one(root, &kerncast, ptxas.as_deref(), job);
                // a worker that panicked holding the lock left the map whole (an insert is
                // the only thing done under it), and the scope re-raises that panic anyway
                results
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert((job.rel.clone(), job.fe), outcome);
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);

    let removed = remove_stale(root, &sources, &available)?;
    write_manifest(root, &sources)?;
    print_table(&sources, &results, &available);
    if removed > 0 {
        println!("removed {removed} stale file(s) from tests/ptx");
    }
    let failed: Vec<String> = results
        .iter()
        .filter_map(|((rel, fe), o)| match o {
            Outcome::Failed(msg) => Some(format!("{} [{}]: {msg}", rel.display(), fe.name())),
            Outcome::Ok {
                ptxas: Some(false), ..
            } => Some(format!(
                "{} [{}]: ptxas rejected it",
                rel.display(),
                fe.name()
            )),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        bail!(
            "{} lowering(s) failed:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }
    Ok(())
}

/// `tests/ptx/sources.txt`: one line per source, `<path> <fnv1a-64 of its bytes>`, so a test can
/// tell cheaply that a source changed after its PTX was generated.
fn write_manifest(root: &Path, sources: &[PathBuf]) -> Result<()> {
    let mut text = String::from(
        "# written by `cargo xtask regen`: source (under tests/kernels) and FNV-1a 64 of its bytes\n",
    );
    for rel in sources {
        let bytes = std::fs::read(root.join("tests/kernels").join(rel))?;
        text.push_str(&format!("{} {:016x}\n", rel.display(), fnv1a64(&bytes)));
    }
    let path = root.join("tests/ptx/sources.txt");
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

/// FNV-1a, 64-bit: tiny, dependency-free and stable across platforms.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

fn out_path(root: &Path, fe: Fe, rel: &Path, ext: &str) -> PathBuf {
    root.join("tests/ptx")
        .join(fe.name())
        .join(rel)
        .with_extension(ext)
}

fn lower_one(root: &Path, kerncast: &Path, ptxas: Option<&Path>, job: &Job) -> Outcome {
    let out = out_path(root, job.fe, &job.rel, "ptx");
    let res = match job.fe {
        Fe::Nvcc | Fe::Clang => {
            let mut c = lower_cmd(root, kerncast, &job.source);
            c.args(["--frontend", job.fe.name(), "-o"]).arg(&out);
            run_quiet(c)
        }
        Fe::Llvm => {
            let ll = out_path(root, job.fe, &job.rel, "ll");
            let mut c = lower_cmd(root, kerncast, &job.source);
            c.args(["--frontend", "clang", "--emit-llvm", "-o"])
                .arg(&ll);
            run_quiet(c).and_then(|_| {
                let rel_ll = ll.strip_prefix(root).unwrap_or(&ll).to_path_buf();
                let mut c = lower_cmd(root, kerncast, &rel_ll);
                c.args(["--frontend", "llvm", "-o"]).arg(&out);
                run_quiet(c)
            })
        }
    };
    if let Err(msg) = res {
        return Outcome::Failed(msg);
    }
    let lines = std::fs::read_to_string(&out)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    let ptxas_ok = ptxas.map(|p| {
        Command::new(p)
            .args(["-arch=sm_80", "-o", "/dev/null"])
            .arg(&out)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    });
    Outcome::Ok {
        lines,
        ptxas: ptxas_ok,
    }
}

fn lower_cmd(root: &Path, kerncast: &Path, source: &Path) -> Command {
    let mut c = Command::new(kerncast);
    c.current_dir(root)
        .env("KERNCAST_TOOLCHAIN", root.join(".toolchain"))
        .arg("lower")
        .arg(source);
    c
}

fn run_quiet(mut c: Command) -> std::result::Result<(), String> {
    match c.output() {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        Err(e) => Err(format!("could not start {c:?}: {e}")),
    }
}

/// .cu and .cl files under `dir`, relative to it, sorted.
fn collect_sources(dir: &Path) -> Result<Vec<PathBuf>> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let p = e?.path();
            if p.is_dir() {
                walk(base, &p, out)?;
            } else if p.extension().is_some_and(|x| x == "cu" || x == "cl") {
                out.push(p.strip_prefix(base)?.to_path_buf());
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// Two sources that would write the same `<name>.ptx` (x.cu and x.cl) are an error.
fn check_collisions(sources: &[PathBuf]) -> Result<()> {
    let mut seen: BTreeMap<PathBuf, &PathBuf> = BTreeMap::new();
    for s in sources {
        if let Some(other) = seen.insert(s.with_extension(""), s) {
            bail!(
                "tests/kernels/{} and tests/kernels/{} would both lower to {}.ptx; rename one",
                other.display(),
                s.display(),
                s.with_extension("").display()
            );
        }
    }
    Ok(())
}

/// Delete outputs whose source is gone (only for front ends that ran, so an absent nvcc keeps
/// the checked-in nvcc PTX).
fn remove_stale(root: &Path, sources: &[PathBuf], available: &BTreeSet<Fe>) -> Result<usize> {
    let stems: BTreeSet<PathBuf> = sources.iter().map(|s| s.with_extension("")).collect();
    let mut removed = 0;
    for fe in available {
        let dir = root.join("tests/ptx").join(fe.name());
        let mut files = Vec::new();
        collect_all(&dir, &mut files);
        for f in files {
            let rel = f.strip_prefix(&dir)?.with_extension("");
            let keep = stems.contains(&rel)
                && (*fe != Fe::Llvm
                    || sources.iter().any(|s| {
                        s.with_extension("") == rel
                            && LLVM_ROUTE.contains(&s.to_string_lossy().as_ref())
                    }));
            if !keep {
                std::fs::remove_file(&f).with_context(|| format!("removing {}", f.display()))?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

fn collect_all(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                collect_all(&p, out);
            } else {
                out.push(p);
            }
        }
    }
}

fn print_table(
    sources: &[PathBuf],
    results: &BTreeMap<(PathBuf, Fe), Outcome>,
    available: &BTreeSet<Fe>,
) {
    let width = sources
        .iter()
        .map(|s| s.as_os_str().len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "{:<width$}  {:>14}  {:>14}  {:>14}",
        "source", "nvcc", "clang", "llvm"
    );
    let mut per_fe: BTreeMap<Fe, (usize, usize)> = BTreeMap::new();
    for s in sources {
        let mut cell = |fe: Fe| -> String {
            match results.get(&(s.clone(), fe)) {
                Some(Outcome::Ok { lines, ptxas }) => {
                    let e = per_fe.entry(fe).or_default();
                    e.0 += 1;
                    let mark = match ptxas {
                        Some(true) => "ok",
                        Some(false) => "PTXAS-FAIL",
                        None => "unverified",
                    };
                    format!("{lines} lines {mark}")
                }
                Some(Outcome::Failed(_)) => {
                    per_fe.entry(fe).or_default().1 += 1;
                    "FAILED".into()
                }
                None if available.contains(&fe) => "-".into(),
                None => "absent".into(),
            }
        };
        let (n, c, l) = (cell(Fe::Nvcc), cell(Fe::Clang), cell(Fe::Llvm));
        println!("{:<width$}  {n:>14}  {c:>14}  {l:>14}", s.display());
    }
    let cuda = sources
        .iter()
        .filter(|s| s.extension().is_some_and(|e| e == "cu"))
        .count();
    println!(
        "{} sources ({} CUDA, {} OpenCL); written: {}",
        sources.len(),
        cuda,
        sources.len() - cuda,
        [Fe::Nvcc, Fe::Clang, Fe::Llvm]
            .iter()
            .map(|fe| {
                let (ok, bad) = per_fe.get(fe).copied().unwrap_or_default();
                format!("{} {ok} ok / {bad} failed", fe.name())
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// A tool from the project-local toolchain, else PATH.
fn tool(root: &Path, name: &str) -> Option<PathBuf> {
    let local = root.join(".toolchain/bin").join(name);
    if local.is_file() {
        return Some(local);
    }
    which(name)
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_reference_values() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn outputs_mirror_the_source_tree() {
        let p = out_path(Path::new("/r"), Fe::Nvcc, Path::new("loopy/tri.cu"), "ptx");
        assert_eq!(p, Path::new("/r/tests/ptx/nvcc/loopy/tri.ptx"));
        let p = out_path(Path::new("/r"), Fe::Llvm, Path::new("saxpy.cu"), "ll");
        assert_eq!(p, Path::new("/r/tests/ptx/llvm/saxpy.ll"));
    }

    #[test]
    fn same_stem_in_cuda_and_opencl_is_refused() {
        let ok = [PathBuf::from("a.cu"), PathBuf::from("loopy/a.cl")];
        assert!(check_collisions(&ok).is_ok());
        let clash = [PathBuf::from("a.cl"), PathBuf::from("a.cu")];
        let err = check_collisions(&clash).unwrap_err().to_string();
        assert!(err.contains("a.cl") && err.contains("a.cu"), "{err}");
    }
}
