//! What `cargo xtask bench` measures as whole processes (issue 50): the corpus's `predict`
//! command lines, and one child process's wall time, CPU time and peak memory.
//!
//! A child's CPU time and peak resident memory come from `wait4`, which reports the child with
//! the descendants it waited for (a `kerncast predict` with its ptxas call): the cost a build
//! pays for the command, however many threads or processes it uses.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One `kerncast predict` of a corpus kernel at its source's first annotated workload.
#[derive(Clone, Debug)]
pub struct PredictCase {
    /// `<compiler>/<file>:<kernel>`
    pub id: String,
    pub ptx: PathBuf,
    /// Arguments after `kerncast predict <ptx>`: the kernel and its launch.
    pub args: Vec<String>,
}

/// Every kernel of the checked-in PTX whose source annotates a workload that resolves, with
/// that workload as `--grid`, `--block`, `--param PTX_NAME=VALUE`, `--buffer PTX_NAME=GEN` and
/// `--hint KEY=VALUE`.
/// A workload value that is not a kernel parameter (a helper name) is left out: the annotation
/// resolved it into the launch already.
pub fn predict_cases() -> Vec<PredictCase> {
    let mut out = Vec::new();
    for p in crate::ptx_files() {
        let compiler = p
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
            .unwrap_or("ptx")
            .to_string();
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let Some(src) = ["cu", "cl"]
            .iter()
            .map(|e| crate::kernels_dir().join(format!("{stem}.{e}")))
            .find(|s| s.exists())
        else {
            continue;
        };
        let (Ok(text), Ok(ptx)) = (std::fs::read_to_string(&src), std::fs::read_to_string(&p))
        else {
            continue;
        };
        let (Ok(kernels), Ok(module)) = (
            kerncast::annotations::scan(&text),
            kerncast_passes::ptx::Module::parse(&ptx),
        ) else {
            continue;
        };
        for f in module.kernels() {
            let plain = kerncast::pipeline::demangle(&f.name);
            let Some(sk) = kernels.iter().find(|k| k.name == f.name || k.name == plain) else {
                continue;
            };
            let Some(w) = sk.workloads.first().and_then(|w| w.resolve().ok()) else {
                continue;
            };
            let dims = |d: [u64; 3]| format!("{},{},{}", d[0], d[1], d[2]);
            let mut args = vec![
                "--kernel".to_string(),
                f.name.clone(),
                "--grid".into(),
                dims(w.grid),
                "--block".into(),
                dims(w.block),
            ];
            for (name, v) in &w.params {
                let at = sk.params.iter().position(|p| p == name);
                if let Some(p) = at.and_then(|i| f.params.get(i)) {
                    args.extend(["--param".to_string(), format!("{}={v}", p.name)]);
                }
            }
            for (name, gen) in &w.buffers {
                let at = sk.params.iter().position(|p| p == name);
                if let Some(p) = at.and_then(|i| f.params.get(i)) {
                    args.extend(["--buffer".to_string(), format!("{}={gen}", p.name)]);
                }
            }
            for (k, v) in &w.hints {
                args.extend(["--hint".to_string(), format!("{k}={v}")]);
            }
            out.push(PredictCase {
                id: format!("{compiler}/{stem}:{}", f.name),
                ptx: p.clone(),
                args,
            });
        }
    }
    out
}

/// What one child process cost.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    pub wall_s: f64,
    /// User plus system time of the child and the descendants it waited for.
    pub cpu_s: f64,
    /// Peak resident memory of the child (or of its largest waited-for descendant), MB.
    pub peak_mb: f64,
    pub success: bool,
    /// The end of its standard error, when it failed.
    pub stderr_tail: String,
    /// Its standard output, when asked for ([`measure_output`]).
    pub stdout: String,
}

/// Run `cmd` to completion (standard output discarded) and measure it.
pub fn measure(cmd: Command) -> std::io::Result<Usage> {
    measure_with(cmd, false)
}

/// [`measure`], keeping the standard output (written to a file, read after the child ended).
pub fn measure_output(cmd: Command) -> std::io::Result<Usage> {
    measure_with(cmd, true)
}

fn measure_with(mut cmd: Command, keep_stdout: bool) -> std::io::Result<Usage> {
    let err_file = tempfile::NamedTempFile::new()?;
    let out_file = tempfile::NamedTempFile::new()?;
    cmd.stdout(if keep_stdout {
        Stdio::from(out_file.reopen()?)
    } else {
        Stdio::null()
    })
    .stderr(Stdio::from(err_file.reopen()?));
    let start = Instant::now();
    let child = cmd.spawn()?;
    let (status, ru) = wait4(child.id())?;
    let wall_s = start.elapsed().as_secs_f64();
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let success = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let stderr_tail = if success {
        String::new()
    } else {
        let text = std::fs::read_to_string(err_file.path()).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(6).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    };
    Ok(Usage {
        wall_s,
        cpu_s: tv(ru.ru_utime) + tv(ru.ru_stime),
        peak_mb: ru.ru_maxrss as f64 / 1024.0,
        success,
        stderr_tail,
        stdout: if keep_stdout {
            std::fs::read_to_string(out_file.path()).unwrap_or_default()
        } else {
            String::new()
        },
    })
}

/// Wait for child `pid`, with its resource usage.
fn wait4(pid: u32) -> std::io::Result<(i32, libc::rusage)> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `ru` are valid for writes for the duration of the call.
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut ru) };
        if r >= 0 {
            return Ok((status, ru));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `q` (0 to 1) of sorted `v`, by nearest rank.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// A toolchain folder whose compilers (`nvcc`, and `ptxas`, the assembler `nvcc -c` runs too)
/// record the CPU time of every call in `log` (one line of seconds each) and then are the real
/// ones, and whose other tools are the real ones: so a kerncast run's CPU time less its own
/// compiler calls can be read off. `bench` is the benchmark
/// binary, which has the `timed-exec` subcommand the wrapper calls.
pub fn recording_toolchain(
    dir: &Path,
    real: &Path,
    bench: &Path,
    log: &Path,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin)?;
    for entry in std::fs::read_dir(real.join("bin"))? {
        let entry = entry?;
        let name = entry.file_name();
        let to = bin.join(&name);
        let _ = std::fs::remove_file(&to);
        if name == "nvcc" || name == "ptxas" {
            let script = format!(
                "#!/bin/sh\nexec '{}' timed-exec '{}' '{}' \"$@\"\n",
                bench.display(),
                log.display(),
                entry.path().display()
            );
            std::fs::write(&to, script)?;
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755))?;
        } else {
            std::os::unix::fs::symlink(entry.path(), &to)?;
        }
    }
    Ok(())
}

/// The L2 hit rate a `predict --json` output's notes give (`l2_hit_rate 0.123 …`) and its global
/// sector requests (loads and stores): what the DRAM bytes are made of.
pub fn l2_of_prediction(json: &str) -> Option<(f64, f64)> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let hit = v["notes"].as_array()?.iter().find_map(|n| {
        let rest = n.as_str()?.strip_prefix("l2_hit_rate ")?;
        rest.split_whitespace().next()?.parse::<f64>().ok()
    })?;
    let counts = v["counts"].as_object()?;
    let sectors: f64 = ["sectors.global.load", "sectors.global.store"]
        .iter()
        .filter_map(|k| counts.get(*k).and_then(|x| x.as_f64()))
        .sum();
    Some((hit, sectors))
}
