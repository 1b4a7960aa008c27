//! `kerncast realcode`: kerncast on real programs, from their sources, compile commands and
//! the command lines they were profiled with (a folder in gpuFLOPBench's layout:
//! `compile_commands.json` with a `program` key per entry, `measurements.csv` with one row per
//! profiled launch), against what the profiler measured.
//!
//! It reads each program's host code as a user's build would, with no annotation and no
//! `--param`, and reports which profiled launches — (kernel, grid, block) — kerncast finds,
//! the rest grouped by reason.

use kerncast_host::{compdb, HostReading, Options, Program, Toolchain};
use miette::{miette, IntoDiagnostic};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A folder in gpuFLOPBench's layout (default: the shared data's gpuflopbench).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Write one JSON object per measured launch here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Only these programs.
    #[arg(long = "program")]
    pub programs: Vec<String>,
    /// Threads (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// The device whose properties the host code asks for (the measured one).
    #[arg(long, default_value = "rtx-3080")]
    pub device: String,
    /// List every program's missing launches.
    #[arg(long)]
    pub verbose: bool,
}

/// One profiled launch (a row of `measurements.csv`).
#[derive(Clone, Debug)]
pub struct Measured {
    pub program: String,
    /// The profiler's kernel filter: a name, or a prefix that also matched other kernels.
    pub kernel: String,
    /// The launched kernel's signature (demangled, or the mangled symbol of a `static` one).
    pub signature: String,
    pub launch: u32,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub exe_args: String,
}

/// A measured launch and what kerncast found for it.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub program: String,
    pub kernel: String,
    pub launch: u32,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub found: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The group the reason falls in, for the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_group: Option<String>,
}

pub fn default_data() -> PathBuf {
    let here = std::env::current_dir().unwrap_or_default();
    for a in here.ancestors() {
        let c = a.join("shared/data/gpuflopbench");
        if c.join("measurements.csv").is_file() {
            return c;
        }
        let c = a.join("../shared/data/gpuflopbench");
        if c.join("measurements.csv").is_file() {
            return c;
        }
    }
    PathBuf::from("../shared/data/gpuflopbench")
}

fn dims(s: &str) -> Option<[u64; 3]> {
    let v: Vec<u64> = s
        .split('x')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

pub fn read_measurements(path: &Path) -> miette::Result<Vec<Measured>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| miette!("{}: cannot read: {e}", path.display()))?;
    let headers = rdr.headers().into_diagnostic()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| miette!("{}: no column `{name}`", path.display()))
    };
    // Older files have no signature column; the kernel column then names the kernel.
    let sig = headers.iter().position(|h| h == "kernel_signature");
    let (p, k, l, g, b, a) = (
        col("program")?,
        col("kernel")?,
        col("launch")?,
        col("grid")?,
        col("block")?,
        col("exe_args")?,
    );
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| miette!("{}:{}: {e}", path.display(), i + 2))?;
        let field = |c: usize| rec.get(c).unwrap_or("").to_string();
        let bad = |what: &str| miette!("{}:{}: `{what}` is not X×Y×Z", path.display(), i + 2);
        out.push(Measured {
            program: field(p),
            kernel: field(k),
            signature: sig.map(field).unwrap_or_default(),
            launch: field(l).parse().unwrap_or(1),
            grid: dims(&field(g)).ok_or_else(|| bad("grid"))?,
            block: dims(&field(b)).ok_or_else(|| bad("block"))?,
            exe_args: field(a),
        });
    }
    Ok(out)
}

/// A measured kernel name as the host reading names it: profilers list a `static` kernel
/// by its mangled symbol.
fn plain(kernel: &str) -> String {
    if kernel.starts_with("_Z") {
        kerncast_host::clang::lower::demangle(kernel).1
    } else {
        kernel.to_string()
    }
}

/// The name of the kernel a measured launch ran: the function its signature names, since the
/// profiler's kernel filter is a prefix (`step_4` also caught `step_4_init`'s launches).
fn launched_kernel(m: &Measured) -> String {
    let sig = m.signature.trim();
    if sig.is_empty() {
        return plain(&m.kernel);
    }
    if sig.starts_with("_Z") {
        return plain(sig);
    }
    // `void ns::k<float, 4>(float *, int)`: the name before the parameter list, without its
    // template arguments, scope or return type.
    match kerncast_host::clang::lower::plain_name(sig) {
        name if name.is_empty() => plain(&m.kernel),
        name => name,
    }
}

/// Reads one program's host code as profiled.
pub fn read_program(
    units: &[compdb::UnitSpec],
    exe_args: &str,
    opts: &Options,
) -> Result<HostReading, String> {
    let program = Program {
        units: units.to_vec(),
        args: Some(
            shlex::split(exe_args)
                .unwrap_or_else(|| exe_args.split_whitespace().map(String::from).collect()),
        ),
    };
    kerncast_host::read(&program, opts).map_err(|e| e.to_string())
}

/// Matches a program's measured launches with its reading.
pub fn match_rows(measured: &[&Measured], reading: &Result<HostReading, String>) -> Vec<Row> {
    measured
        .iter()
        .map(|m| {
            let name = launched_kernel(m);
            let (found, reason) = match reading {
                Err(e) => (false, Some(format!("the program could not be read: {e}"))),
                Ok(r) => {
                    let same_kernel: Vec<&kerncast_host::Launch> =
                        r.launches.iter().filter(|l| l.name == name).collect();
                    let hit = same_kernel
                        .iter()
                        .any(|l| l.dims_known() == Some((m.grid, m.block)));
                    if hit {
                        (true, None)
                    } else {
                        (false, Some(why_not(r, &name, &same_kernel)))
                    }
                }
            };
            let reason_group = reason.as_deref().map(group_of);
            Row {
                program: m.program.clone(),
                kernel: name,
                launch: m.launch,
                grid: m.grid,
                block: m.block,
                found,
                reason,
                reason_group,
            }
        })
        .collect()
}

fn why_not(r: &HostReading, name: &str, same: &[&kerncast_host::Launch]) -> String {
    if same.is_empty() {
        if let Some(u) = r.unreached.iter().find(|u| {
            u.kernel
                .as_deref()
                .is_some_and(|k| kerncast_host::clang::lower::plain_name(k) == name)
        }) {
            return format!(
                "its launch at line {} was not reached: {}",
                u.line, u.reason
            );
        }
        if let Some(d) = r.diagnostics.first() {
            return format!("no launch of it was read; the compiler said: {d}");
        }
        return "no launch of it in the host code kerncast read".to_string();
    }
    for l in same {
        let unknown = l.unknowns();
        if let Some((what, why)) = unknown
            .iter()
            .find(|(w, _)| w.starts_with("grid") || w.starts_with("block"))
        {
            return format!("{what} unknown: {why}");
        }
    }
    let found: Vec<String> = same
        .iter()
        .take(3)
        .filter_map(|l| l.dims_known())
        .map(|(g, b)| format!("{}x{}x{} / {}x{}x{}", g[0], g[1], g[2], b[0], b[1], b[2]))
        .collect();
    format!("kerncast's launches of it differ: {}", found.join(", "))
}

/// The summary's group of a reason.
fn group_of(reason: &str) -> String {
    let r = reason.to_lowercase();
    let g = if r.starts_with("the program could not be read") {
        "the program could not be read"
    } else if r.starts_with("kerncast's launches of it differ") {
        "kerncast's grid or block differ from the measured"
    } else if r.contains("budget") {
        "stopped on a work budget"
    } else if r.contains("not reached") {
        "launch not reached when run as profiled"
    } else if r.contains("no launch of it") {
        "no launch of the kernel found"
    } else if r.contains("random") {
        "depends on random numbers"
    } else if r.contains("file")
        || r.contains("stream")
        || r.contains("fscanf")
        || r.contains("fread")
        || r.contains("fgets")
    {
        "depends on data read from files"
    } else if r.contains("from the device") {
        "depends on data computed on the device"
    } else if r.contains("does not model") {
        "depends on a library call kerncast does not model"
    } else if r.contains("device") {
        "depends on a device property"
    } else if r.contains("uninitialised") || r.contains("never set") {
        "reads a value kerncast did not see set"
    } else if r.contains("loop") || r.contains("condition") {
        "depends on a loop or condition kerncast could not decide"
    } else {
        "other unknown values"
    };
    g.to_string()
}

pub fn run(args: Args) -> miette::Result<()> {
    let data = args.data.clone().unwrap_or_else(default_data);
    let tools = Toolchain::discover();
    if tools.cuda_path.is_none() {
        return Err(miette!(
            "no CUDA 12 headers found to read host code against: run `cargo xtask bootstrap` (or set KERNCAST_CUDA_PATH)"
        ));
    }
    let units =
        compdb::read(&data.join("compile_commands.json"), &tools).map_err(|e| miette!("{e}"))?;
    let measured = read_measurements(&data.join("measurements.csv"))?;
    let mut by_program: BTreeMap<String, Vec<&Measured>> = BTreeMap::new();
    for m in &measured {
        if args.programs.is_empty() || args.programs.contains(&m.program) {
            by_program.entry(m.program.clone()).or_default().push(m);
        }
    }
    let opts = Options {
        device: crate::cli::launches::device_props(&args.device)?,
        toolchain: tools,
        // the database lists some programs' CUDA files only; `main` is in a file beside them
        find_main_beside: true,
        ..Options::default()
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| miette!("{e}"))?;
    let bar = crate::progress::bar(
        by_program.len() as u64,
        "realcode {bar:40} {pos}/{len} programs read ({elapsed})",
    );
    let started = std::time::Instant::now();
    let results: Vec<(String, Vec<Row>)> = pool.install(|| {
        by_program
            .par_iter()
            .map(|(p, rows)| {
                let mine: Vec<compdb::UnitSpec> = units
                    .iter()
                    .filter(|u| u.program.as_deref() == Some(p))
                    .cloned()
                    .collect();
                let reading = if mine.is_empty() {
                    Err("no compile command for it".to_string())
                } else {
                    read_program(&mine, &rows[0].exe_args, &opts)
                };
                bar.inc(1);
                (p.clone(), match_rows(rows, &reading))
            })
            .collect()
    });
    bar.finish_and_clear();
    let rows: Vec<Row> = results.into_iter().flat_map(|(_, r)| r).collect();
    print!(
        "{}",
        summary(
            &rows,
            by_program.len(),
            started.elapsed().as_secs_f64(),
            args.verbose
        )
    );
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| miette!("{e}"))?;
        crate::check::write_atomic(path, text.as_bytes())
            .map_err(|e| miette!("{}: {e}", path.display()))?;
        eprintln!(
            "realcode: {} rows written to {}",
            rows.len(),
            path.display()
        );
    }
    Ok(())
}

pub fn summary(rows: &[Row], programs: usize, seconds: f64, verbose: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let found = rows.iter().filter(|r| r.found).count();
    let _ = writeln!(
        out,
        "programs read: {programs} in {seconds:.1} s\nprofiled launches found (kernel, grid, block): {found} of {} = {:.1} %",
        rows.len(),
        100.0 * found as f64 / rows.len().max(1) as f64
    );
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows.iter().filter(|r| !r.found) {
        *groups
            .entry(r.reason_group.clone().unwrap_or_default())
            .or_default() += 1;
    }
    let mut groups: Vec<(String, usize)> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    if !groups.is_empty() {
        let _ = writeln!(out, "not found, by reason:");
        for (g, n) in groups {
            let _ = writeln!(out, "  {n:>5}  {g}");
        }
    }
    if verbose {
        for r in rows.iter().filter(|r| !r.found) {
            let _ = writeln!(
                out,
                "  {} {} #{}: {}",
                r.program,
                r.kernel,
                r.launch,
                r.reason.as_deref().unwrap_or("")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(kernel: &str, signature: &str) -> Measured {
        Measured {
            program: "p".into(),
            kernel: kernel.into(),
            signature: signature.into(),
            launch: 1,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            exe_args: String::new(),
        }
    }

    #[test]
    fn the_launched_kernel_is_the_one_its_signature_names_not_the_filter() {
        assert_eq!(
            launched_kernel(&measured("step_4", "step_4_init()")),
            "step_4_init"
        );
        assert_eq!(
            launched_kernel(&measured(
                "comm_aosoa",
                "comm_aosoa_naive(const float2 *, float2 *, int)"
            )),
            "comm_aosoa_naive"
        );
        assert_eq!(
            launched_kernel(&measured("k", "void ns::k<float, (int)4>(float *, int)")),
            "k"
        );
        assert_eq!(
            launched_kernel(&measured("calc_x", "_ZL7calc_xliiPKfS0_Pf")),
            "calc_xl"
        );
        assert_eq!(launched_kernel(&measured("gemm", "")), "gemm");
    }
}
