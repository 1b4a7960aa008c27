//! `kerncast realcode`: kerncast on real programs, from their sources, compile commands and
//! the command lines they were profiled with (a folder in gpuFLOPBench's layout:
//! `compile_commands.json` with a `program` key per entry, `measurements.csv` with one row per
//! profiled launch), against what the profiler measured.
//!
//! It reads each program's host code as a user's build would, with no annotation and no
//! `--param`, and reports which profiled launches — (kernel, grid, block) — kerncast finds,
//! the rest grouped by reason.

use crate::lower::compile_command::{self, CompileCommand};
use crate::pipeline::launch_base_name as base_name;
use crate::report::{KernelReport, Report};
use crate::Error;
use kerncast_host::{compdb, HostReading, Options, Program, Toolchain};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A folder in gpuFLOPBench's layout (default: the shared data's gpuflopbench).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The measured launches (default: `measurements.csv` in `--data`), e.g. the same
    /// programs measured on another GPU.
    #[arg(long)]
    pub measurements: Option<PathBuf>,
    /// The compilation database the programs were built with (default:
    /// `compile_commands.json` in `--data`), e.g. the nvcc build of the other GPU's measurement.
    #[arg(long)]
    pub compile_commands: Option<PathBuf>,
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
    /// Only match launches: do not lower, count or predict.
    #[arg(long)]
    pub no_predict: bool,
    /// The model that predicts time (`auto`: the device's fitted model where it ships one).
    #[arg(long, default_value = "auto")]
    pub model: String,
    /// Keep the rows `--json` already holds and analyse only the programs it lacks (a run that
    /// was cut off goes on where it stopped).
    #[arg(long, requires = "json")]
    pub resume: bool,
    /// Analyse every program in this process instead of one child process per program (a
    /// child that uses more than `--max-memory-gib` is stopped and its launches say so).
    #[arg(long)]
    pub in_process: bool,
    /// Resident memory one program's analysis may use before it is stopped (child processes).
    #[arg(long, default_value_t = 6.0)]
    pub max_memory_gib: f64,
    /// Wall-clock seconds after which one program's analysis is stopped (child processes): a
    /// safety net only; the work itself is bounded by the budgets (isl operations, emulator
    /// steps and bytes), which give the same answer on any machine.
    #[arg(long, default_value_t = 600)]
    pub max_program_seconds: u64,
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
    /// What the profiler measured (None where the cell is empty).
    pub time_ns: Option<f64>,
    pub dram_bytes: Option<f64>,
    pub sp_flops: Option<f64>,
    pub dp_flops: Option<f64>,
}

/// A measured launch and what kerncast found for it.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Row {
    pub program: String,
    pub kernel: String,
    pub launch: u32,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub found: bool,
    /// The template arguments of the measured instance (`float` of `k<float>`), one spelling
    /// ([`crate::names::template_args`]); a prediction is only taken from that instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The group the reason falls in, for the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_group: Option<String>,
    /// What the profiler measured.
    pub measured_time_ns: Option<f64>,
    pub measured_dram_bytes: Option<f64>,
    pub measured_flops_f32: Option<f64>,
    pub measured_flops_f64: Option<f64>,
    /// kerncast's prediction for the launch (null where there is none, with `predict_reason`).
    pub predicted_time_ns: Option<f64>,
    /// FP32 / FP64 FLOPs as Nsight counts them (the SASS expansion table's).
    pub flops_f32: Option<f64>,
    pub flops_f64: Option<f64>,
    /// The PTX-level counts (div, sqrt 1 each; fma 2), kept beside them.
    pub ptx_flops_f32: Option<f64>,
    pub ptx_flops_f64: Option<f64>,
    /// DRAM bytes read and written while the launch runs (the L2 model's).
    pub dram_bytes: Option<f64>,
    /// The written bytes `dram_bytes` leaves out as still dirty in the L2 when the launch
    /// ends (the device's `hw.l2_dirty_at_exit_bytes`, which `kerncast fit` refits from these).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_dirty_at_exit_bytes: Option<f64>,
    /// The roofline's time for the same launch (the figure the fitted model is judged beside).
    pub roofline_time_ns: Option<f64>,
    /// Model, counter and bottleneck of the prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<String>,
    /// Why the symbolic counter handed the launch to the emulator (the report's note), where
    /// it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_note: Option<String>,
    /// The features the fitted model reads (the report's counts, by key).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counts: BTreeMap<String, f64>,
    /// Registers per thread and static shared memory per block, for occupancy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regs_per_thread: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_bytes_per_block: Option<u64>,
    /// Whether the counts' control flow was static (symbolic counter, no assumption made but
    /// the launch's dynamic shared memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_counts: Option<bool>,
    /// Why there is no prediction (lowering, counting or model failure, or the launch was not found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict_reason: Option<String>,
    /// Wall-clock seconds kerncast spent on the launch's whole program (reading, lowering,
    /// counting and predicting every launch of it): an observation of this run, not an input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program_seconds: Option<f64>,
}

impl Args {
    fn database(&self, data: &Path) -> PathBuf {
        self.compile_commands
            .clone()
            .unwrap_or_else(|| data.join("compile_commands.json"))
    }

    fn measurements_file(&self, data: &Path) -> PathBuf {
        self.measurements
            .clone()
            .unwrap_or_else(|| data.join("measurements.csv"))
    }
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

pub(crate) fn dims(s: &str) -> Option<[u64; 3]> {
    let v: Vec<u64> = s
        .split('x')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    (v.len() == 3).then(|| [v[0], v[1], v[2]])
}

pub fn read_measurements(path: &Path) -> crate::Result<Vec<Measured>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| Error::Input(format!("{}: cannot read: {e}", path.display())))?;
    let headers = rdr
        .headers()
        .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?
        .clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::Input(format!("{}: no column `{name}`", path.display())))
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
    let opt = |name: &str| headers.iter().position(|h| h == name);
    let (t, d, sp, dp) = (
        opt("time_ns"),
        opt("dram_bytes"),
        opt("sp_flops"),
        opt("dp_flops"),
    );
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| Error::Input(format!("{}:{}: {e}", path.display(), i + 2)))?;
        let field = |c: usize| rec.get(c).unwrap_or("").to_string();
        let bad = |what: &str| {
            Error::Input(format!(
                "{}:{}: `{what}` is not X×Y×Z",
                path.display(),
                i + 2
            ))
        };
        out.push(Measured {
            program: field(p),
            kernel: field(k),
            signature: sig.map(field).unwrap_or_default(),
            launch: field(l).parse().unwrap_or(1),
            grid: dims(&field(g)).ok_or_else(|| bad("grid"))?,
            block: dims(&field(b)).ok_or_else(|| bad("block"))?,
            exe_args: field(a),
            time_ns: t
                .and_then(|c| rec.get(c))
                .and_then(|v| v.trim().parse().ok()),
            dram_bytes: d
                .and_then(|c| rec.get(c))
                .and_then(|v| v.trim().parse().ok()),
            sp_flops: sp
                .and_then(|c| rec.get(c))
                .and_then(|v| v.trim().parse().ok()),
            dp_flops: dp
                .and_then(|c| rec.get(c))
                .and_then(|v| v.trim().parse().ok()),
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
pub(crate) fn launched_kernel(m: &Measured) -> String {
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

/// The template arguments of the instance a measured launch ran, from its signature.
fn measured_instance(m: &Measured) -> Option<String> {
    let sig = m.signature.trim();
    if sig.starts_with("_Z") {
        crate::names::template_args(&crate::names::demangle(sig))
    } else {
        crate::names::template_args(sig)
    }
}

/// Reads one program's host code as profiled; with `readings`, through the host reading cache
/// there ([`crate::host_cache`]), where the analysis of the program finds it again.
pub fn read_program(
    units: &[compdb::UnitSpec],
    exe_args: &str,
    opts: &Options,
    readings: Option<&Path>,
) -> Result<HostReading, String> {
    let program = Program {
        units: units.to_vec(),
        args: Some(command_line(exe_args)),
    };
    match readings {
        Some(dir) => crate::host_cache::read(&program, opts, dir),
        None => kerncast_host::read(&program, opts).map_err(|e| e.to_string()),
    }
}

/// How realcode reads a program's host code to match its launches: as an analysis first
/// reads it (the device's properties, no occupancy answers yet, since no kernel is compiled),
/// so that the analysis finds the reading in the program's cache ([`read_program`]).
fn reading_options(device: &str, tools: Toolchain) -> crate::Result<Options> {
    let d = kerncast_models::Device::load(device).map_err(|e| Error::Device(e.to_string()))?;
    Ok(Options {
        device: crate::host_workloads::program::device_props(&d),
        toolchain: tools,
        // the database lists some programs' CUDA files only; `main` is in a file beside them
        find_main_beside: true,
        prelude_cache: Some(crate::cache::Cache::host_preludes_dir()),
        occupancy: Some(std::sync::Arc::new(crate::occupancy::Answers::default())),
        ..Options::default()
    })
}

/// A profiled command line as the program's arguments.
fn command_line(exe_args: &str) -> Vec<String> {
    shlex::split(exe_args)
        .unwrap_or_else(|| exe_args.split_whitespace().map(String::from).collect())
}

/// The folder gpuFLOPBench runs program `p` in.
fn run_dir(data: &Path, p: &str) -> PathBuf {
    data.join("src").join(p)
}

/// Matches a program's measured launches with its reading.
/// A program's measured rows grouped by the command line they were profiled with, in the
/// order each first appears.
fn by_command_line<'a>(rows: &[&'a Measured]) -> Vec<(&'a str, Vec<&'a Measured>)> {
    let mut groups: Vec<(&'a str, Vec<&'a Measured>)> = Vec::new();
    for m in rows {
        match groups.iter_mut().find(|(a, _)| *a == m.exe_args) {
            Some((_, g)) => g.push(m),
            None => groups.push((m.exe_args.as_str(), vec![*m])),
        }
    }
    groups
}

pub fn match_rows(measured: &[&Measured], reading: &Result<HostReading, String>) -> Vec<Row> {
    measured
        .iter()
        .map(|m| {
            let name = launched_kernel(m);
            let (found, mut reason) = match reading {
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
            let mut reason_group = reason.as_deref().map(group_of);
            // A value the program computes from a file that is not there is unknown for that
            // reason, whatever the value's own reason names (the call that read it).
            // So is one left unknown where a file the program includes is missing (its
            // declarations did not compile).
            if let (Some(why), Ok(r)) = (&reason, reading) {
                let header = r
                    .diagnostics
                    .iter()
                    .find(|d| kerncast_host::names_missing_program_file(d));
                let unknown_value = why.contains(" unknown: ");
                if unknown_value && !r.missing_inputs.is_empty() {
                    reason = Some(format!("{why}; {}", missing_inputs(&r.missing_inputs)));
                    reason_group = Some(INPUTS_MISSING.to_string());
                } else if let (true, Some(d)) = (unknown_value, header) {
                    reason = Some(format!("{why}; the compiler said: {}", first_line(d)));
                    reason_group = Some(INCLUDE_MISSING.to_string());
                }
            }
            Row {
                program: m.program.clone(),
                kernel: name,
                instance: measured_instance(m),
                launch: m.launch,
                grid: m.grid,
                block: m.block,
                found,
                reason,
                reason_group,
                measured_time_ns: m.time_ns,
                measured_dram_bytes: m.dram_bytes,
                measured_flops_f32: m.sp_flops,
                measured_flops_f64: m.dp_flops,
                predicted_time_ns: None,
                flops_f32: None,
                flops_f64: None,
                ptx_flops_f32: None,
                ptx_flops_f64: None,
                dram_bytes: None,
                dram_dirty_at_exit_bytes: None,
                roofline_time_ns: None,
                model: None,
                counter: None,
                counter_note: None,
                counts: BTreeMap::new(),
                regs_per_thread: None,
                shared_bytes_per_block: None,
                static_counts: None,
                predict_reason: None,
                program_seconds: None,
            }
        })
        .collect()
}

/// The summary's group of a launch left unknown in a program that reads files the data
/// does not hold.
const INPUTS_MISSING: &str = "the program reads input files that are not in its folder";

/// The summary's group of a launch left unknown in a program whose own included files are
/// not all there (absent, or Git LFS pointers to files never fetched).
const INCLUDE_MISSING: &str = "the program includes files that are not in its folder";

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// `the program reads `a.ppm` (by `stbi_load`), …, which are not in its folder`.
fn missing_inputs(files: &BTreeMap<String, String>) -> String {
    let named: Vec<String> = files
        .iter()
        .map(|(f, by)| format!("`{f}` (by `{by}`)"))
        .collect();
    let verb = if named.len() == 1 { "is" } else { "are" };
    format!(
        "the program reads {}, which {verb} not in its folder",
        named.join(", ")
    )
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
        if let Some(n) = r.unread_statements().next() {
            return format!("no launch of it in the host code kerncast read ({n})");
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

pub fn run(args: Args) -> crate::Result<()> {
    let data = args.data.clone().unwrap_or_else(default_data);
    let tools = Toolchain::discover();
    if tools.cuda_path.is_none() {
        return Err(Error::Input("no CUDA 12 headers found to read host code against: run `cargo xtask bootstrap` (or set KERNCAST_CUDA_PATH)".to_string()));
    }
    let database = args.database(&data);
    let units = compdb::read(&database, &tools).map_err(|e| Error::Input(e.to_string()))?;
    let measured = read_measurements(&args.measurements_file(&data))?;
    let commands =
        compile_command::read_database(&database).map_err(|e| Error::Input(e.to_string()))?;
    let mut by_program: BTreeMap<String, Vec<&Measured>> = BTreeMap::new();
    for m in &measured {
        if args.programs.is_empty() || args.programs.contains(&m.program) {
            by_program.entry(m.program.clone()).or_default().push(m);
        }
    }
    let opts = reading_options(&args.device, tools)?;
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Error::Analysis(e.to_string()))?;
    // Rows of an earlier, cut-off run: their programs are not analysed again.
    let mut kept: Vec<Row> = Vec::new();
    if let (true, Some(path)) = (args.resume, &args.json) {
        if path.is_file() {
            kept = read_rows(path)?;
            let done: std::collections::BTreeSet<String> =
                kept.iter().map(|r| r.program.clone()).collect();
            by_program.retain(|p, _| !done.contains(p));
            kept.retain(|r| args.programs.is_empty() || args.programs.contains(&r.program));
            eprintln!(
                "realcode: {} rows of {} programs kept from {}; {} programs to go",
                kept.len(),
                done.len(),
                path.display(),
                by_program.len()
            );
        }
    }
    let bar = crate::progress::bar(
        by_program.len() as u64,
        "realcode {bar:40} {pos}/{len} programs read ({elapsed})",
    );
    let started = std::time::Instant::now();
    // Every finished program's rows go to `--json` at once (the whole file rewritten
    // atomically), so a run that is cut off keeps what it did and `--resume` goes on from it.
    // A child (one program, in process) checkpoints its host reading into `--json`; a run with
    // other rows in that file never does, since the checkpoint holds one program's rows only.
    let checkpoint = args.in_process && by_program.len() == 1 && kept.is_empty();
    let sink = std::sync::Mutex::new(Sink {
        rows: kept,
        path: args.json.clone(),
        error: None,
    });
    pool.install(|| {
        by_program.par_iter().for_each(|(p, rows)| {
            let t0 = std::time::Instant::now();
            let mine: Vec<compdb::UnitSpec> = units
                .iter()
                .filter(|u| u.program.as_deref() == Some(p))
                .cloned()
                .collect();
            let isolate = !args.in_process && by_program.len() > 1;
            let matched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if isolate {
                    return in_child(p, rows, &data, &args);
                }
                // The program's readings are kept for this program's analysis only: its
                // matching reading is the analysis's first, which then reads it from here.
                let cache = tempfile::Builder::new()
                    .prefix("kerncast-realcode-")
                    .tempdir();
                let cache = cache.as_ref().ok().map(|d| d.path());
                // A program profiled with several command lines is read once for each, and
                // each row is matched against the launches of its own command line. Every
                // command line is read before any is predicted, and the reading is written at
                // once, so a child stopped while predicting still reports what it found.
                let groups = by_command_line(rows);
                let mut read: Vec<(&str, Vec<Row>)> = groups
                    .iter()
                    .map(|(exe_args, group)| {
                        // gpuFLOPBench runs each program in its own folder
                        let opts = Options {
                            run_dir: Some(run_dir(&data, p)),
                            ..opts.clone()
                        };
                        let readings = cache.map(crate::cache::Cache::host_readings_dir);
                        let reading = if mine.is_empty() {
                            Err("no compile command for it".to_string())
                        } else {
                            read_program(&mine, exe_args, &opts, readings.as_deref())
                        };
                        (*exe_args, match_rows(group, &reading))
                    })
                    .collect();
                if args.no_predict {
                    return read.into_iter().flat_map(|(_, r)| r).collect();
                }
                if let (true, Some(path)) = (checkpoint, &args.json) {
                    let mut so_far: Vec<Row> =
                        read.iter().flat_map(|(_, r)| r.iter().cloned()).collect();
                    for r in &mut so_far {
                        r.predict_reason = Some(PREDICTION_UNFINISHED.to_string());
                    }
                    // a checkpoint only: the finished rows replace it
                    let _ = write_rows(path, &so_far);
                }
                let mine: Vec<&CompileCommand> = commands
                    .iter()
                    .filter(|c| c.program.as_deref() == Some(p))
                    .collect();
                let mut matched = Vec::new();
                for (exe_args, group_rows) in &mut read {
                    let keys = measured_keys(group_rows);
                    let run = crate::host_workloads::RunSpec {
                        args: Some(command_line(exe_args)),
                        compile_commands: Some(args.database(&data)),
                        run_dir: Some(run_dir(&data, p)),
                    };
                    let report = predict_program(&mine, run, &keys, &data, cache, &args);
                    attach(group_rows, &report);
                    matched.append(group_rows);
                }
                matched
            }));
            let mut matched = matched.unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panicked(rows, &what)
            });
            let secs = t0.elapsed().as_secs_f64();
            for r in &mut matched {
                r.program_seconds = Some(secs);
            }
            sink.lock().unwrap_or_else(|e| e.into_inner()).add(matched);
            bar.inc(1);
        })
    });
    bar.finish_and_clear();
    let sink = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = sink.error {
        return Err(e);
    }
    let mut rows = sink.rows;
    sort_rows(&mut rows);
    let programs = rows
        .iter()
        .map(|r| r.program.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    print!(
        "{}",
        summary(
            &rows,
            programs,
            started.elapsed().as_secs_f64(),
            args.verbose,
            kerncast_models::Device::load(&args.device).ok().as_ref(),
        )
    );
    if let Some(path) = &args.json {
        eprintln!(
            "realcode: {} rows written to {}",
            rows.len(),
            path.display()
        );
    }
    Ok(())
}

/// One program analysed by a child process (this executable, `realcode --program P
/// --in-process`), whose resident memory and wall time are watched: a program that would take
/// the machine's memory stops alone, and its launches say why.
fn in_child(program: &str, measured: &[&Measured], data: &Path, args: &Args) -> Vec<Row> {
    let stopped = |why: String| stopped_child_rows(None, measured, &why);
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return stopped(format!("kerncast could not start a child process: {e}")),
    };
    let out = match tempfile::Builder::new().suffix(".json").tempfile() {
        Ok(f) => f.into_temp_path(),
        Err(e) => return stopped(format!("kerncast could not make a temporary file: {e}")),
    };
    let b = kerncast_passes::budget::get();
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("realcode")
        .arg("--data")
        .arg(data)
        .arg("--compile-commands")
        .arg(args.database(data))
        .arg("--measurements")
        .arg(args.measurements_file(data))
        .arg("--program")
        .arg(program)
        .arg("--json")
        .arg(&*out)
        .args([
            "--jobs",
            "1",
            "--in-process",
            "--device",
            &args.device,
            "--model",
            &args.model,
        ])
        .args(["--isl-ops", &b.isl_ops.to_string()])
        .args(["--emu-steps", &b.emu_steps.to_string()])
        .args(["--emu-bytes", &b.emu_bytes.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    if args.no_predict {
        cmd.arg("--no-predict");
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return stopped(format!("kerncast could not start a child process: {e}")),
    };
    // stderr is drained on its own thread so a chatty child never blocks on a full pipe
    let err = child.stderr.take().map(|mut e| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
            s
        })
    });
    let limit_kib = (args.max_memory_gib * 1024.0 * 1024.0) as u64;
    let started = std::time::Instant::now();
    let mut killed: Option<String> = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        if killed.is_none() {
            if rss_kib(child.id()).is_some_and(|k| k > limit_kib) {
                killed = Some(format!(
                    "the analysis of the program was stopped: it used more than {} GiB of memory (--max-memory-gib)",
                    args.max_memory_gib
                ));
            } else if started.elapsed().as_secs() > args.max_program_seconds {
                killed = Some(format!(
                    "the analysis of the program was stopped after {} s of wall clock (--max-program-seconds; a safety net, not a work budget)",
                    args.max_program_seconds
                ));
            }
            if killed.is_some() {
                let _ = child.kill();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    if let Some(why) = killed {
        // A child stopped while predicting has written its host reading: what it found stands,
        // and only the predictions say why they are missing.
        return stopped_child_rows(read_rows::<Row>(&out).ok(), measured, &why);
    }
    let rows = read_rows(&out).ok().filter(|r| !r.is_empty());
    match (status, rows) {
        (Some(st), Some(rows)) if st.success() => rows,
        (st, _) => {
            let last: String = stderr
                .lines()
                .rfind(|l| !l.trim().is_empty())
                .unwrap_or("")
                .chars()
                .take(300)
                .collect();
            let how = st.map_or("unknown".to_string(), |s| s.to_string());
            stopped(format!(
                "the analysis of the program failed ({how}): {last}"
            ))
        }
    }
}

/// The rows of a child stopped for `why`: its checkpoint (the host reading, written before any
/// prediction) where it wrote one for every measured launch, each unfinished prediction saying
/// why; else every launch not found, for `why`.
fn stopped_child_rows(checkpoint: Option<Vec<Row>>, measured: &[&Measured], why: &str) -> Vec<Row> {
    match checkpoint {
        Some(mut rows) if rows.len() == measured.len() => {
            for r in &mut rows {
                if r.predict_reason.as_deref() == Some(PREDICTION_UNFINISHED) {
                    r.predict_reason = Some(format!("{PREDICTION_UNFINISHED}: {why}"));
                }
            }
            rows
        }
        _ => {
            let mut rows = match_rows(measured, &Err(why.to_string()));
            for r in &mut rows {
                r.predict_reason = Some(why.to_string());
            }
            rows
        }
    }
}

/// Resident memory of a process, in KiB (Linux; None elsewhere).
fn rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The rows finished so far, and the file they are kept in.
struct Sink {
    rows: Vec<Row>,
    path: Option<PathBuf>,
    error: Option<Error>,
}

impl Sink {
    /// Adds a finished program's rows and rewrites the file with every row so far.
    fn add(&mut self, rows: Vec<Row>) {
        self.rows.extend(rows);
        sort_rows(&mut self.rows);
        let Some(path) = &self.path else { return };
        if self.error.is_some() {
            return;
        }
        if let Err(e) = write_rows(path, &self.rows) {
            self.error = Some(e);
        }
    }
}

/// The `predict_reason` of a launch found by a child that was stopped before its prediction.
const PREDICTION_UNFINISHED: &str = "the prediction did not finish";

/// Writes rows as `--json` holds them, atomically.
fn write_rows(path: &Path, rows: &[Row]) -> crate::Result<()> {
    let text = serde_json::to_string_pretty(rows).map_err(|e| Error::Output(e.to_string()))?;
    crate::fsio::write_atomic(path, text.as_bytes())
        .map_err(|e| Error::Output(format!("{}: {e}", path.display())))
}

/// Rows in a fixed order (by program, each program's in measurements.csv's order), whatever
/// order the threads finished in.
fn sort_rows(rows: &mut [Row]) {
    rows.sort_by(|a, b| a.program.cmp(&b.program));
}

/// `kerncast realcode --json` rows read back, as [`Row`]s or as any subset of their fields
/// (`kerncast fit` reads only what it fits on).
pub fn read_rows<R: serde::de::DeserializeOwned>(path: &Path) -> crate::Result<Vec<R>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("{}: cannot read: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "{}:{}:{}: not kerncast realcode --json rows: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// A program whose analysis panicked: each of its launches says so (the run goes on).
fn panicked(measured: &[&Measured], what: &str) -> Vec<Row> {
    let mut rows = match_rows(measured, &Err(format!("kerncast panicked: {what}")));
    for r in &mut rows {
        r.predict_reason = Some(format!("kerncast panicked: {}", first_lines(what)));
    }
    rows
}

/// The run's figures; the device (its L2, its SM limits) lets the DRAM figure and the time
/// model be cross-validated.
pub fn summary(
    rows: &[Row],
    programs: usize,
    seconds: f64,
    verbose: bool,
    device: Option<&kerncast_models::Device>,
) -> String {
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
    out.push_str(&found_with_files(rows));
    out.push_str(&timing(rows));
    out.push_str(&accuracy(rows, device));
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

/// The found fraction over the programs whose every file was there: those none of whose
/// launches was left unknown for a file the program reads or includes that the data lacks.
fn found_with_files(rows: &[Row]) -> String {
    let lacking: BTreeSet<&str> = rows
        .iter()
        .filter(|r| {
            let g = r.reason_group.as_deref();
            g == Some(INPUTS_MISSING) || g == Some(INCLUDE_MISSING)
        })
        .map(|r| r.program.as_str())
        .collect();
    if lacking.is_empty() {
        return String::new();
    }
    let rest: Vec<&Row> = rows
        .iter()
        .filter(|r| !lacking.contains(r.program.as_str()))
        .collect();
    let found = rest.iter().filter(|r| r.found).count();
    format!(
        "found in the programs whose files are all there (all but {} programs): {found} of {} = {:.1} %\n",
        lacking.len(),
        rest.len(),
        100.0 * found as f64 / rest.len().max(1) as f64
    )
}

/// The launches `rows` measured, by kernel and sizes: the only ones a program's analysis
/// predicts, since the others have nothing to be compared with (a program that launches a
/// kernel at 500 sizes in a loop was measured at two of them).
fn measured_keys(rows: &[Row]) -> Vec<crate::pipeline::LaunchKey> {
    rows.iter()
        .map(|r| crate::pipeline::LaunchKey {
            kernel: base_name(&plain(&r.kernel)),
            grid: r.grid,
            block: r.block,
            instance: r.instance.clone(),
        })
        .collect()
}

/// One program analysed as its measured build made it: every CUDA unit that may define a
/// measured kernel lowered with its own compile command (device side; see
/// [`crate::pipeline::Options::only_launches`]), its host code read with the command line it
/// was profiled with, and the first launch the host code makes at each of the `measured`
/// launches counted and predicted on the device.
pub fn predict_program(
    commands: &[&CompileCommand],
    run: crate::host_workloads::RunSpec,
    measured: &[crate::pipeline::LaunchKey],
    data: &Path,
    cache: Option<&Path>,
    args: &Args,
) -> Report {
    let base = std::fs::canonicalize(data).unwrap_or_else(|_| data.to_path_buf());
    let jobs: Vec<crate::pipeline::Job> = commands
        .iter()
        .map(|c| {
            let mut lower = crate::lower::LowerOptions::default();
            if let Some(a) = c.arch() {
                lower.arch = a;
            }
            if c.is_cuda() {
                lower.command = Some((*c).clone());
            }
            crate::pipeline::Job {
                display_path: c
                    .file
                    .strip_prefix(&base)
                    .unwrap_or(&c.file)
                    .display()
                    .to_string(),
                path: c.file.clone(),
                lower,
                kernel: None,
                workloads: Vec::new(),
                // each program is lowered once per run: nothing to keep between runs
                cache: None,
                // the measured FLOPs are Nsight's, on the SASS the GPU ran
                sass_in_context: true,
            }
        })
        .collect();
    let opts = crate::pipeline::Options {
        devices: vec![args.device.clone()],
        model: args.model.clone(),
        jobs: 1,
        progress: false,
        // a folder of this program's only (its host readings among what is kept there)
        cache: cache.map(Path::to_path_buf),
        hot_lines: 0,
        params: Vec::new(),
        run,
        size_chart: false,
        only_launches: Some(measured.to_vec()),
    };
    let counter = crate::engine::default_counter();
    crate::pipeline::analyze(&jobs, &opts, counter.as_ref())
}

/// Puts each measured launch's prediction from `report` on its row, or why there is none.
pub fn attach(rows: &mut [Row], report: &Report) {
    for r in rows.iter_mut() {
        let name = base_name(&plain(&r.kernel));
        // the measured instance only: `k<double>`'s counts are not `k<float>`'s
        let hit: Option<&KernelReport> = report.kernels.iter().find(|k| {
            base_name(&k.display_name) == name
                && k.workload.grid == r.grid
                && k.workload.block == r.block
                && r.instance.as_deref().is_none_or(|want| {
                    crate::names::template_args(&k.display_name)
                        .is_some_and(|got| crate::names::same_instance(want, &got))
                })
        });
        match hit {
            Some(k) => {
                r.predicted_time_ns = Some(k.prediction.time_s * 1e9);
                r.flops_f32 = k.counts.get("flops.f32").copied();
                r.flops_f64 = k.counts.get("flops.f64").copied();
                r.ptx_flops_f32 = k.counts.get("flops.ptx.f32").copied();
                r.ptx_flops_f64 = k.counts.get("flops.ptx.f64").copied();
                r.dram_bytes = k.dram.as_ref().map(|d| d.bytes);
                r.dram_dirty_at_exit_bytes = k.dram.as_ref().map(|d| d.dirty_at_exit_bytes);
                r.roofline_time_ns = k
                    .models
                    .iter()
                    .find(|m| m.model == "roofline")
                    .and_then(|m| m.time_s)
                    .map(|t| t * 1e9);
                r.model = Some(k.model.clone());
                r.counter = Some(k.counter.clone());
                r.counter_note = k.notes.iter().find_map(|n| emulator_reason(n));
                // an instruction the counter could not class (a call left to an external
                // function) counts as nothing: the counts are not the launch's whole work
                let unknown = k.counts.keys().any(|c| c.starts_with("unknown."));
                r.static_counts = Some(
                    k.counter == "symbolic"
                        && k.assumptions.iter().all(sizes_memory_only)
                        && !unknown,
                );
                r.counts = k.counts.clone();
                r.regs_per_thread = k.resources.regs_per_thread;
                r.shared_bytes_per_block = k.resources.shared_bytes_per_block;
                if r.flops_f32.is_none() {
                    r.predict_reason = Some("no per-block counts for SASS FLOPs".into());
                }
            }
            None => r.predict_reason = Some(no_prediction(r, &name, report)),
        }
    }
}

/// Whether an assumption only sizes memory, with the value the launch gives: the bytes of
/// dynamic shared memory, which limit the blocks per SM but decide no branch or trip count, so
/// the control flow of counts that assume nothing else is static.
fn sizes_memory_only(a: &kerncast_passes::stats::Assumption) -> bool {
    a.from_user && a.hint_key == kerncast_passes::count::DYNAMIC_SHARED_BYTES
}

/// The reason in the symbolic counter's note "symbolic counter not used: WHY; the emulator
/// counted …".
fn emulator_reason(note: &str) -> Option<String> {
    let why = note.strip_prefix("symbolic counter not used: ")?;
    Some(
        why.split("; the emulator counted")
            .next()
            .unwrap_or(why)
            .to_string(),
    )
}

/// The summary's group of an emulator reason: which kinds of data-dependent keys the counts
/// depend on (loop trips, branches, predicates), or the reason's first clause.
fn emulator_reason_group(why: &str) -> String {
    if let Some(keys) = why.strip_prefix("counts depend on data (") {
        let keys = keys.split(';').next().unwrap_or("");
        let kinds: BTreeSet<&str> = keys
            .split(", ")
            .filter_map(|k| match k.split('.').next()? {
                "trip" => Some("loop trips"),
                "branch" => Some("branches"),
                "pred" => Some("predicates"),
                _ => None,
            })
            .collect();
        return format!(
            "counts depend on data: {}",
            kinds.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    why.split([':', '(', ';'])
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(70)
        .collect()
}

/// The predicted launches the emulator counted, grouped by why the symbolic counter did not.
fn emulator_reasons(predicted: &[&Row]) -> String {
    use std::fmt::Write;
    let emulated: Vec<&&Row> = predicted
        .iter()
        .filter(|r| r.counter.as_deref() == Some("emulator"))
        .collect();
    let mut out = String::new();
    if emulated.is_empty() {
        return out;
    }
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for r in &emulated {
        let g = r
            .counter_note
            .as_deref()
            .map_or_else(|| "no reason recorded".to_string(), emulator_reason_group);
        *groups.entry(g).or_default() += 1;
    }
    let mut groups: Vec<(String, usize)> = groups.into_iter().collect();
    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
    let _ = writeln!(
        out,
        "counted by the emulator: {} of {} predicted launches, by why the symbolic counter did not:",
        emulated.len(),
        predicted.len()
    );
    for (g, n) in groups.iter().take(12) {
        let _ = writeln!(out, "  {n:>5}  {g}");
    }
    out
}

fn no_prediction(r: &Row, name: &str, report: &Report) -> String {
    let of_kernel = |k: &Option<String>| {
        k.as_deref()
            .is_some_and(|k| base_name(&crate::pipeline::demangle(k)) == name)
    };
    if let Some(f) = report.errors.iter().find(|f| of_kernel(&f.kernel)) {
        return format!(
            "{} failed ({}): {}",
            f.stage,
            f.file,
            first_lines(&f.message)
        );
    }
    if let Some(f) = report.errors.iter().find(|f| f.stage == "lower") {
        return format!("lowering {} failed: {}", f.file, first_lines(&f.message));
    }
    if let Some(n) = report
        .not_launched
        .iter()
        .chain(&report.not_instantiated)
        .chain(&report.library_kernels)
        .find(|n| base_name(&n.kernel) == name)
    {
        return format!("not predicted: {}", n.shown());
    }
    if !r.found {
        return format!(
            "launch not found: {}",
            r.reason
                .as_deref()
                .unwrap_or("kerncast found no launch with this grid and block")
        );
    }
    let other_instances: Vec<&str> = report
        .kernels
        .iter()
        .filter(|k| {
            base_name(&k.display_name) == name
                && k.workload.grid == r.grid
                && k.workload.block == r.block
        })
        .map(|k| k.display_name.as_str())
        .collect();
    if let (Some(want), false) = (&r.instance, other_instances.is_empty()) {
        return format!(
            "the measured instance <{want}> was not analysed at this launch; analysed: {}",
            other_instances.join(", ")
        );
    }
    let same: Vec<String> = report
        .kernels
        .iter()
        .filter(|k| base_name(&k.display_name) == name)
        .take(3)
        .map(|k| format!("{:?}/{:?}", k.workload.grid, k.workload.block))
        .collect();
    if same.is_empty() {
        match report.errors.first() {
            Some(f) => format!(
                "no prediction of the kernel; first error: {} {}",
                f.stage,
                first_lines(&f.message)
            ),
            None => "the analysis predicted no launch of this kernel".into(),
        }
    } else {
        format!(
            "the analysis predicted other launches of it: {}",
            same.join(", ")
        )
    }
}

fn first_lines(m: &str) -> String {
    let s: String = m.lines().take(3).collect::<Vec<_>>().join(" | ");
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 400 {
        return s;
    }
    // the head names the stage, the tail the last cause (the emulator's, after the counter's
    // list of assumptions): both are kept
    let head: String = chars[..200].iter().collect();
    let tail: String = chars[chars.len() - 200..].iter().collect();
    format!("{head} … {tail}")
}

/// How long the programs took (wall clock on this machine; the work itself is bounded by the
/// budgets, isl operations and emulator steps, not by time).
fn timing(rows: &[Row]) -> String {
    let mut per: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for r in rows {
        if let Some(s) = r.program_seconds {
            let e = per.entry(r.program.as_str()).or_insert((s, 0));
            e.1 += 1;
        }
    }
    if per.is_empty() {
        return String::new();
    }
    let mut v: Vec<(&str, f64, usize)> = per.into_iter().map(|(p, (s, n))| (p, s, n)).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1));
    let over: Vec<&(&str, f64, usize)> = v.iter().filter(|x| x.1 > 10.0).collect();
    let over_launch = v.iter().filter(|x| x.1 / x.2.max(1) as f64 > 10.0).count();
    format!(
        "seconds per program: median {:.1}, slowest {} {:.1}; {} programs took over 10 s ({} over 10 s per measured launch)\n",
        median(v.iter().map(|x| x.1).collect()),
        v[0].0,
        v[0].1,
        over.len(),
        over_launch
    )
}

/// Median of `v` (0 for none).
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// Spearman's rank correlation of two equally long lists.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            let avg = (i + j) as f64 / 2.0 + 1.0;
            for k in i..=j {
                r[idx[k]] = avg;
            }
            i = j + 1;
        }
        r
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    if n < 2.0 {
        return f64::NAN;
    }
    let ma = ra.iter().sum::<f64>() / n;
    let mb = rb.iter().sum::<f64>() / n;
    let (mut c, mut va, mut vb) = (0.0, 0.0, 0.0);
    for i in 0..a.len() {
        c += (ra[i] - ma) * (rb[i] - mb);
        va += (ra[i] - ma).powi(2);
        vb += (rb[i] - mb).powi(2);
    }
    c / (va * vb).sqrt()
}

/// Time figures of predicted against measured: median absolute relative error, share within
/// 2×, rank correlation.
pub fn time_figures(pairs: &[(f64, f64)]) -> (f64, f64, f64) {
    let errs: Vec<f64> = pairs.iter().map(|(p, m)| ((p - m) / m).abs()).collect();
    let within = pairs
        .iter()
        .filter(|(p, m)| *p > 0.0 && p / m <= 2.0 && m / p <= 2.0)
        .count() as f64
        / pairs.len().max(1) as f64;
    let (p, m): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    (median(errs), within, spearman(&p, &m))
}

/// FLOP, DRAM and time accuracy of the rows that have a prediction, against the measured.
pub fn accuracy(rows: &[Row], device: Option<&kerncast_models::Device>) -> String {
    let l2_bytes = device.and_then(|d| d.hw.l2_bytes.as_ref().map(|l| l.value));
    use std::fmt::Write;
    let mut out = String::new();
    let predicted: Vec<&Row> = rows
        .iter()
        .filter(|r| r.predicted_time_ns.is_some())
        .collect();
    if predicted.is_empty() && rows.iter().all(|r| r.predict_reason.is_none()) {
        return out;
    }
    let _ = writeln!(
        out,
        "launches predicted: {} of {} ({:.1} %)",
        predicted.len(),
        rows.len(),
        100.0 * predicted.len() as f64 / rows.len().max(1) as f64
    );
    out.push_str(&emulator_reasons(&predicted));
    // FLOPs: FP32 + FP64 within 0.1 % (both measured 0 counts as exact when predicted 0)
    let close = |p: f64, m: f64| (p - m).abs() <= 1e-3 * m.abs().max(1.0);
    let flop_rows: Vec<&&Row> = predicted
        .iter()
        .filter(|r| r.flops_f32.is_some() && r.measured_flops_f32.is_some())
        .collect();
    let flops_ok = |r: &Row| {
        let p = r.flops_f32.unwrap_or(0.0) + r.flops_f64.unwrap_or(0.0);
        let m = r.measured_flops_f32.unwrap_or(0.0) + r.measured_flops_f64.unwrap_or(0.0);
        close(p, m)
    };
    let ptx_ok = |r: &Row| {
        let p = r.ptx_flops_f32.unwrap_or(0.0) + r.ptx_flops_f64.unwrap_or(0.0);
        let m = r.measured_flops_f32.unwrap_or(0.0) + r.measured_flops_f64.unwrap_or(0.0);
        close(p, m)
    };
    let stat: Vec<&&&Row> = flop_rows
        .iter()
        .filter(|r| r.static_counts == Some(true))
        .collect();
    let _ = writeln!(
        out,
        "FLOPs (FP32+FP64, on SASS) within 0.1 %: {} of {} predicted launches; static control flow: {} of {} (PTX-level counts: {} of {})",
        flop_rows.iter().filter(|r| flops_ok(r)).count(),
        flop_rows.len(),
        stat.iter().filter(|r| flops_ok(r)).count(),
        stat.len(),
        flop_rows.iter().filter(|r| ptx_ok(r)).count(),
        flop_rows.len(),
    );
    out.push_str(&static_flop_misses(&stat, rows));
    let big: Vec<&&Row> = predicted
        .iter()
        .filter(|r| r.measured_dram_bytes.is_some_and(|m| m > 1e6) && r.dram_bytes.is_some())
        .collect();
    let dram_ok = big.iter().filter(|r| dram_within_a_tenth(r)).count();
    let _ = write!(
        out,
        "DRAM bytes within 10 % (launches moving > 1 MB): {dram_ok} of {}",
        big.len()
    );
    let dram = crate::ops::fit_dram::usable(big.iter().filter_map(|r| {
        crate::ops::fit_dram::DramRow::from_realcode(
            &r.program,
            r.measured_dram_bytes,
            r.dram_bytes,
            r.dram_dirty_at_exit_bytes,
            &r.counts,
        )
    }));
    // the shipped amount was fitted on these very launches: the held-out figure is the fair one
    match l2_bytes.filter(|_| !dram.is_empty()) {
        Some(l2) => {
            let v = crate::ops::fit_dram::cross_validate(&dram, 5, l2);
            let _ = writeln!(
                out,
                "; {} with no writes left dirty in the L2 at the kernel's end, {} with hw.l2_dirty_at_exit_bytes refitted in 5-fold CV grouped by program",
                v.within_without, v.within_cv
            );
        }
        None => out.push('\n'),
    }
    out.push_str(&dram_misses(&big, rows));
    let pairs = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
        predicted
            .iter()
            .filter_map(|r| Some((f(r)?, r.measured_time_ns?)))
            .filter(|(p, m)| *p > 0.0 && *m > 0.0)
            .collect()
    };
    let models: BTreeSet<&str> = predicted
        .iter()
        .filter_map(|r| r.model.as_deref())
        .collect();
    let model_name = format!(
        "prediction: {}",
        models.into_iter().collect::<Vec<_>>().join(", ")
    );
    let model = pairs(&|r| {
        if r.roofline_time_ns.is_some() {
            r.predicted_time_ns
        } else {
            None
        }
    });
    let roof = pairs(&|r| r.roofline_time_ns);
    for (name, p) in [(model_name.as_str(), &model), ("roofline", &roof)] {
        let (mae, w2, rho) = time_figures(p);
        let _ = writeln!(
            out,
            "time ({name}, {} launches): median abs error {:.1} %, within 2x {:.1} %, rank correlation {:.3}",
            p.len(),
            100.0 * mae,
            100.0 * w2,
            rho
        );
    }
    // the shipped weights were fitted on these very launches: the held-out figure is the fair one
    if let Some(line) = device.and_then(|d| crate::ops::fit::cross_validated_time(rows, d, 5)) {
        out.push_str(&line);
    }
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.predicted_time_ns.is_none()) {
        let why = r.predict_reason.clone().unwrap_or_default();
        let g = why
            .split(':')
            .next()
            .unwrap_or("")
            .chars()
            .take(70)
            .collect::<String>();
        *reasons.entry(g).or_default() += 1;
    }
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    if !reasons.is_empty() {
        let _ = writeln!(out, "not predicted, by reason:");
        for (g, n) in reasons.iter().take(15) {
            let _ = writeln!(out, "  {n:>5}  {g}");
        }
    }
    out
}

/// FP32 + FP64 FLOPs: kerncast's SASS-table count, its PTX-level count, and Nsight's.
fn flop_totals(r: &Row) -> (f64, f64, f64) {
    (
        r.flops_f32.unwrap_or(0.0) + r.flops_f64.unwrap_or(0.0),
        r.ptx_flops_f32.unwrap_or(0.0) + r.ptx_flops_f64.unwrap_or(0.0),
        r.measured_flops_f32.unwrap_or(0.0) + r.measured_flops_f64.unwrap_or(0.0),
    )
}

/// Whether two rows are launches of the same kernel of a program with the same sizes.
fn same_launch(a: &Row, b: &Row) -> bool {
    a.program == b.program && a.kernel == b.kernel && a.grid == b.grid && a.block == b.block
}

fn within_a_thousandth(p: f64, m: f64) -> bool {
    (p - m).abs() <= 1e-3 * m.abs().max(1.0)
}

/// Why a launch with static control flow misses Nsight's FLOPs, as far as the rows tell: Nsight
/// counted none at all, or the measured count itself moves between launches of the same kernel
/// and sizes (data the count cannot see), or the miss comes with SASS that counts otherwise than
/// the PTX (a division, square root or transcendental's expansion, a product fused or kept),
/// or the SASS count is the PTX's (the code kerncast compiled is not the measured build's, the
/// data takes a slow path, or a block the expansion table counts, not ptxas's own SASS).
fn flop_miss_cause(r: &Row, rows: &[Row]) -> &'static str {
    let (_, _, m) = flop_totals(r);
    let varies = rows
        .iter()
        .any(|o| same_launch(o, r) && !within_a_thousandth(flop_totals(o).2, m));
    let (p, ptx, _) = flop_totals(r);
    if m == 0.0 {
        "Nsight counted no FLOP in the launch"
    } else if varies {
        "the measured count differs between launches of the same kernel and sizes"
    } else if !within_a_thousandth(p, ptx) {
        "with SASS that differs from the PTX's count (a division, root or transcendental's expansion, a product fused or kept)"
    } else {
        "SASS and PTX counts agree: the measured build, the data's path or a block counted by the expansion table"
    }
}

/// The launches with static control flow whose FLOPs miss Nsight's by more than 0.1 %, by
/// likely cause, each with kerncast's count over the measured one.
fn static_flop_misses(stat: &[&&&Row], rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut by_cause: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for r in stat {
        let (p, _, m) = flop_totals(r);
        if within_a_thousandth(p, m) {
            continue;
        }
        let ratio = if m > 0.0 { p / m } else { f64::INFINITY };
        by_cause
            .entry(flop_miss_cause(r, rows))
            .or_default()
            .push(format!(
                "{}/{} #{} {ratio:.4}",
                r.program, r.kernel, r.launch
            ));
    }
    let mut out = String::new();
    if by_cause.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "FLOP misses with static control flow (kerncast / measured), by likely cause:"
    );
    for (cause, launches) in by_cause {
        let _ = writeln!(
            out,
            "  {:>5}  {cause}: {}",
            launches.len(),
            launches.join(", ")
        );
    }
    out
}

/// Whether kerncast's DRAM bytes are within 10 % of the measured ones.
fn dram_within_a_tenth(r: &Row) -> bool {
    match (r.dram_bytes, r.measured_dram_bytes) {
        (Some(p), Some(m)) if m > 0.0 => ((p - m) / m).abs() <= 0.10,
        _ => false,
    }
}

/// Why a launch's DRAM bytes miss the measured ones by more than 10 %, as far as the rows tell:
/// the measurement itself moves that much between launches of the same kernel and sizes (what
/// the L2 held before the launch, other traffic), or the emulator counted the launch (its
/// control flow or addresses depend on data, which it ran on the data it had), or else the
/// symbolic counts' addresses and the L2 model, above or below the measured bytes.
fn dram_miss_cause(r: &Row, rows: &[Row]) -> &'static str {
    let same: Vec<f64> = rows
        .iter()
        .filter(|o| same_launch(o, r))
        .filter_map(|o| o.measured_dram_bytes)
        .filter(|m| *m > 0.0)
        .collect();
    let (lo, hi) = same.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), m| {
        (lo.min(*m), hi.max(*m))
    });
    if same.len() > 1 && hi > 1.10 * lo {
        "the measured bytes differ by more than 10 % between launches of the same kernel and sizes"
    } else if r.counter.as_deref() == Some("emulator") {
        "the emulator's counts: control flow or addresses depend on data"
    } else if r.dram_bytes.unwrap_or(0.0) < r.measured_dram_bytes.unwrap_or(0.0) {
        "symbolic counts, fewer bytes than measured"
    } else {
        "symbolic counts, more bytes than measured"
    }
}

/// How many of `big` (launches moving over 1 MB) miss their measured DRAM bytes by more than
/// 10 %, by likely cause.
fn dram_misses(big: &[&&Row], rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut by_cause: BTreeMap<&str, usize> = BTreeMap::new();
    for r in big.iter().filter(|r| !dram_within_a_tenth(r)) {
        *by_cause.entry(dram_miss_cause(r, rows)).or_default() += 1;
    }
    let mut out = String::new();
    if by_cause.is_empty() {
        return out;
    }
    let _ = writeln!(out, "DRAM misses (over 10 %), by likely cause:");
    for (cause, n) in by_cause {
        let _ = writeln!(out, "  {n:>5}  {cause}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The launch's dynamic shared memory leaves the control flow static; a data-dependent
    /// trip count does not, even with a hint's value, nor dynamic shared memory of unknown size.
    #[test]
    fn only_a_given_dynamic_shared_size_keeps_the_control_flow_static() {
        let a = |key: &str, from_user: bool| kerncast_passes::stats::Assumption {
            hint_key: key.into(),
            what: String::new(),
            default: 12.0,
            from_user,
            at: None,
        };
        assert!(sizes_memory_only(&a("dynamic_shared_bytes", true)));
        assert!(!sizes_memory_only(&a("dynamic_shared_bytes", false)));
        assert!(!sizes_memory_only(&a("trip.main.cu:12", true)));
        assert!(!sizes_memory_only(&a("branch.main.cu:40", true)));
    }

    fn measured(kernel: &str, signature: &str) -> Measured {
        Measured {
            program: "p".into(),
            kernel: kernel.into(),
            signature: signature.into(),
            launch: 1,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            exe_args: String::new(),
            time_ns: None,
            dram_bytes: None,
            sp_flops: None,
            dp_flops: None,
        }
    }

    #[test]
    fn a_long_failure_keeps_its_stage_and_its_last_cause() {
        let m = format!(
            "count failed: {} and so did the emulator: no memory",
            "x, ".repeat(300)
        );
        let short = first_lines(&m);
        assert!(short.starts_with("count failed: x, "), "{short}");
        assert!(
            short.ends_with("and so did the emulator: no memory"),
            "{short}"
        );
        assert!(short.chars().count() < 410);
        assert_eq!(first_lines("short"), "short");
    }

    /// A launch whose size the program reads from a file that is not in its folder says so
    /// and is grouped under it; with the file there, it is not (the file's numbers are still
    /// not read: `fscanf` is not modelled).
    #[test]
    fn a_launch_left_unknown_by_a_missing_input_file_is_grouped_under_it() {
        let dir = tempfile::tempdir().unwrap();
        let source =
            "#include <cstdio>\n__global__ void k(int n) {}\nint main(int argc, char** argv) {\n  \
             int n = 0;\n  FILE* f = fopen(argv[1], \"r\");\n  fscanf(f, \"%d\", &n);\n  \
             k<<<n / 32, 32>>>(n);\n  return 0;\n}\n";
        let mut m = measured("k", "k(int)");
        (m.grid, m.block, m.exe_args) = ([4, 1, 1], [32, 1, 1], "sizes.txt".into());
        let rows = rows_of_main_cu(dir.path(), source, &[], &m);
        assert_eq!(rows[0].reason_group.as_deref(), Some(INPUTS_MISSING));
        let reason = rows[0].reason.clone().unwrap_or_default();
        assert!(reason.contains("`sizes.txt` (by `fopen`)"), "{reason}");
        std::fs::write(dir.path().join("sizes.txt"), "128").unwrap();
        let rows = rows_of_main_cu(dir.path(), source, &[], &m);
        assert!(!rows[0].found);
        assert_ne!(rows[0].reason_group.as_deref(), Some(INPUTS_MISSING));
    }

    /// `source` written to `dir/main.cu`, read with `flags` as run in `dir` with `m`'s
    /// arguments, and matched against the one measured launch `m`.
    fn rows_of_main_cu(dir: &Path, source: &str, flags: &[String], m: &Measured) -> Vec<Row> {
        let src = dir.join("main.cu");
        std::fs::write(&src, source).unwrap();
        let tools = Toolchain::discover();
        let units = Program::from_files(&[src], flags, &tools).units;
        let opts = Options {
            toolchain: tools,
            run_dir: Some(dir.to_path_buf()),
            ..Options::default()
        };
        match_rows(&[m], &read_program(&units, &m.exe_args, &opts, None))
    }

    /// A kernel launched only in an OpenMP region of a unit built with `-fopenmp`, whose
    /// statement libclang does not show, is not found, and its reason names the region.
    #[test]
    fn a_launch_in_a_region_kerncast_cannot_read_is_not_found_and_the_reason_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let source = "__global__ void k(int n) {}\nint main() {\n#pragma omp parallel\n  {\n    \
             k<<<4, 32>>>(4);\n  }\n  return 0;\n}\n";
        let mut m = measured("k", "k(int)");
        (m.grid, m.block) = ([4, 1, 1], [32, 1, 1]);
        let rows = rows_of_main_cu(dir.path(), source, &["-fopenmp".to_string()], &m);
        assert!(!rows[0].found);
        let reason = rows[0].reason.clone().unwrap_or_default();
        assert!(
            reason.contains("main.cu:3: kerncast does not read an OpenMP region"),
            "{reason}"
        );
    }

    /// The analysis of a program takes the reading realcode matched its launches with from
    /// the program's cache: its host code is read once, not once to match and again to predict.
    #[test]
    fn the_analysis_takes_the_matching_reading_from_the_cache() {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join("src").join("p");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("main.cu"),
            "__global__ void k(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  \
             if (i < n) x[i] *= 2.0f;\n}\nint main(int argc, char** argv) {\n  int n = 1 << 12;\n  \
             float* x;\n  cudaMalloc(&x, n * sizeof(float));\n  k<<<n / 128, 128>>>(x, n);\n  \
             return 0;\n}\n",
        )
        .unwrap();
        let db = data.path().join("compile_commands.json");
        let entry = serde_json::json!([{
            "directory": data.path(),
            "file": "src/p/main.cu",
            "command": "clang++ -O3 -std=c++17 --cuda-gpu-arch=sm_86 -x cuda -c src/p/main.cu",
            "program": "p",
        }]);
        std::fs::write(&db, entry.to_string()).unwrap();
        let tools = Toolchain::discover();
        let units = compdb::read(&db, &tools).unwrap();
        let opts = Options {
            run_dir: Some(run_dir(data.path(), "p")),
            ..reading_options("rtx-3080", tools).unwrap()
        };
        let cache = data.path().join("cache");
        let readings = crate::cache::Cache::host_readings_dir(&cache);
        let reading = read_program(&units, "", &opts, Some(&readings)).unwrap();
        assert_eq!(reading.launches.len(), 1, "{:?}", reading.diagnostics);
        // each entry with a digest of its bytes (an entry is a large JSON file)
        let stored = |dir: &Path| -> Vec<(PathBuf, u64)> {
            let digest = |bytes: Vec<u8>| {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                bytes.hash(&mut h);
                h.finish()
            };
            let mut files: Vec<_> = walkdir::WalkDir::new(dir)
                .into_iter()
                .map(|e| e.unwrap().into_path())
                .filter(|f| f.is_file())
                .map(|f| (f.clone(), digest(std::fs::read(&f).unwrap())))
                .collect();
            files.sort();
            files
        };
        let before = stored(&readings);
        assert_eq!(before.len(), 1, "one reading kept");
        let key = ("k", [32, 1, 1], [128, 1, 1]);
        let report = predicted_at(data.path(), &db, key, Some(&cache));
        assert_eq!(report.kernels.len(), 1, "{:?}", report.errors);
        // a reading the analysis made itself would be a second entry, or a rewritten one
        assert_eq!(stored(&readings), before);
    }

    /// Program `p` of the folder `data` (its compilation database `db`) analysed at one
    /// measured launch (kernel, grid, block), run without arguments, as `realcode` does.
    fn predicted_at(
        data: &Path,
        db: &Path,
        (kernel, grid, block): (&str, [u64; 3], [u64; 3]),
        cache: Option<&Path>,
    ) -> crate::report::Report {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let args = <Cli as clap::Parser>::parse_from(["realcode"]).args;
        let run = crate::host_workloads::RunSpec {
            args: Some(Vec::new()),
            compile_commands: Some(db.to_path_buf()),
            run_dir: Some(run_dir(data, "p")),
        };
        let keys = vec![crate::pipeline::LaunchKey {
            kernel: kernel.into(),
            grid,
            block,
            instance: None,
        }];
        let commands = compile_command::read_database(db).unwrap();
        let mine: Vec<&CompileCommand> = commands.iter().collect();
        predict_program(&mine, run, &keys, data, cache, &args)
    }

    /// A unit that defines none of the measured kernels is not lowered (its device compile
    /// would fail here: it is seen failing where the unit is lowered), unless the program's
    /// device code is relocatable, where a kernel may call a device function it defines, or a
    /// measured kernel's name is left mangled (nothing can be matched with it).
    #[test]
    fn a_unit_that_defines_no_measured_kernel_is_lowered_only_for_relocatable_code() {
        let analysed = |extra_flag: &str, kernel: &str| -> crate::report::Report {
            let data = tempfile::tempdir().unwrap();
            let dir = data.path().join("src").join("p");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("main.cu"),
                "__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n\
                 __global__ void other(float* x);\n\
                 int main() {\n  float* x;\n  cudaMalloc(&x, 128 * sizeof(float));\n  \
                 k<<<1, 128>>>(x);\n  other<<<1, 128>>>(x);\n  return 0;\n}\n",
            )
            .unwrap();
            std::fs::write(
                dir.join("other.cu"),
                "#ifdef __CUDA_ARCH__\n#error the device side of other.cu was compiled\n#endif\n\
                 __global__ void other(float* x) { x[threadIdx.x] += 1.0f; }\n",
            )
            .unwrap();
            let command = |file: &str| {
                format!("clang++ -O3 --cuda-gpu-arch=sm_86 -x cuda {extra_flag} -c src/p/{file}")
            };
            let db = data.path().join("compile_commands.json");
            let entries = serde_json::json!([
                {"directory": data.path(), "file": "src/p/main.cu",
                 "command": command("main.cu"), "program": "p"},
                {"directory": data.path(), "file": "src/p/other.cu",
                 "command": command("other.cu"), "program": "p"},
            ]);
            std::fs::write(&db, entries.to_string()).unwrap();
            predicted_at(data.path(), &db, (kernel, [1, 1, 1], [128, 1, 1]), None)
        };
        let whole = analysed("", "k");
        assert_eq!(whole.kernels.len(), 1, "{:?}", whole.errors);
        assert!(whole.errors.is_empty(), "{:?}", whole.errors);
        let lowered = |r: &crate::report::Report| {
            r.errors
                .iter()
                .any(|e| e.file.ends_with("other.cu") && e.stage == "lower")
        };
        let relocatable = analysed("-fgpu-rdc", "k");
        assert_eq!(relocatable.kernels.len(), 1, "{:?}", relocatable.errors);
        assert!(lowered(&relocatable), "{:?}", relocatable.errors);
        let mangled = analysed("", "_Z1kPf");
        assert!(lowered(&mangled), "{:?}", mangled.errors);
    }

    #[test]
    fn the_found_fraction_with_files_leaves_out_programs_that_lack_them() {
        let (a, b) = (measured("a", "a()"), measured("b", "b()"));
        let mut rows = match_rows(&[&a, &b, &a], &Err("not read in this test".into()));
        (rows[0].program, rows[0].found) = ("whole".into(), true);
        rows[1].program = "whole".into();
        rows[2].program = "lacking".into();
        rows[2].reason_group = Some(INCLUDE_MISSING.into());
        let line = found_with_files(&rows);
        assert!(
            line.contains("(all but 1 programs): 1 of 2 = 50.0 %"),
            "{line}"
        );
        rows[2].reason_group = None;
        assert_eq!(found_with_files(&rows), "");
    }

    /// A child stopped while predicting keeps the launches its checkpoint found; one stopped
    /// before writing a checkpoint for every launch finds none.
    #[test]
    fn a_child_stopped_while_predicting_keeps_what_its_host_reading_found() {
        let (a, b) = (measured("a", "a()"), measured("b", "b()"));
        let mut checkpoint = match_rows(&[&a, &b], &Err("not read in this test".into()));
        checkpoint[0].found = true;
        checkpoint[0].reason = None;
        for r in &mut checkpoint {
            r.predict_reason = Some(PREDICTION_UNFINISHED.into());
        }
        let rows = stopped_child_rows(Some(checkpoint.clone()), &[&a, &b], "out of memory");
        assert!(rows[0].found && !rows[1].found);
        assert_eq!(
            rows[0].predict_reason.as_deref(),
            Some("the prediction did not finish: out of memory")
        );
        let rows = stopped_child_rows(Some(checkpoint[..1].to_vec()), &[&a, &b], "out of memory");
        assert!(rows.iter().all(|r| !r.found));
        assert_eq!(
            rows[0].reason.as_deref(),
            Some("the program could not be read: out of memory")
        );
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

    /// `k<float>` measured, `k<double>` and `k<float>` analysed at the same launch: the row
    /// takes `k<float>`'s prediction, and with only `k<double>` analysed it takes none.
    #[test]
    fn a_prediction_is_taken_from_the_measured_template_instance_only() {
        let mut report = crate::report::sample::report();
        let instance = |name: &str, time_s: f64| {
            let mut k = report.kernels[0].clone();
            k.display_name = name.into();
            k.workload.grid = [8, 1, 1];
            k.workload.block = [64, 1, 1];
            k.prediction.time_s = time_s;
            k
        };
        let (double, float) = (instance("k<double>", 2e-3), instance("k<float>", 1e-3));
        let m = Measured {
            grid: [8, 1, 1],
            block: [64, 1, 1],
            ..measured("k", "void k<float>(const T1 *, int)")
        };
        let mut rows = match_rows(&[&m], &Err("not read in this test".into()));
        assert_eq!(rows[0].instance.as_deref(), Some("float"));
        report.kernels = vec![double.clone(), float];
        attach(&mut rows, &report);
        assert_eq!(rows[0].predicted_time_ns, Some(1e6));
        let mut rows = match_rows(&[&m], &Err("not read in this test".into()));
        rows[0].found = true;
        report.kernels = vec![double];
        attach(&mut rows, &report);
        assert_eq!(rows[0].predicted_time_ns, None);
        let why = rows[0].predict_reason.as_deref().unwrap_or_default();
        assert!(why.contains("instance <float> was not analysed"), "{why}");
    }

    /// A kernel without floating-point work has no roofline, but its row still carries the DRAM
    /// bytes the L2 model predicts.
    #[test]
    fn a_kernel_without_flops_still_has_its_dram_bytes() {
        let mut report = crate::report::sample::report();
        let k = &mut report.kernels[0];
        k.display_name = "popcount".into();
        k.workload.grid = [8, 1, 1];
        k.workload.block = [64, 1, 1];
        k.roofline = None;
        k.dram = Some(crate::report::DramTraffic {
            sector_bytes: 4096.0,
            l2_hit_rate: 0.5,
            local_bytes: 0.0,
            dirty_at_exit_bytes: 0.0,
            bytes: 2048.0,
        });
        let m = Measured {
            grid: [8, 1, 1],
            block: [64, 1, 1],
            ..measured("popcount", "popcount(const unsigned *, int *)")
        };
        let mut rows = match_rows(&[&m], &Err("not read in this test".into()));
        attach(&mut rows, &report);
        assert_eq!(rows[0].dram_bytes, Some(2048.0));
    }

    #[test]
    fn counts_with_a_call_left_to_an_external_function_are_not_static() {
        let mut report = crate::report::sample::report();
        let k = &mut report.kernels[0];
        k.display_name = "phase0".into();
        k.workload.grid = [8, 1, 1];
        k.workload.block = [32, 1, 1];
        k.counter = "symbolic".into();
        k.assumptions.clear();
        let m = Measured {
            grid: [8, 1, 1],
            block: [32, 1, 1],
            ..measured("phase0", "phase0(const unsigned long *)")
        };
        let rows = |report: &Report| {
            let mut rows = match_rows(&[&m], &Err("not read in this test".into()));
            attach(&mut rows, report);
            rows.remove(0).static_counts
        };
        assert_eq!(rows(&report), Some(true));
        report.kernels[0]
            .counts
            .insert("unknown.call:_Z5mergePKm".into(), 8.0);
        assert_eq!(rows(&report), Some(false));
    }

    fn row_of(program: &str) -> Row {
        let m = Measured {
            program: program.into(),
            ..measured("k", "k(int)")
        };
        match_rows(&[&m], &Err("not read in this test".into())).remove(0)
    }

    /// A launch of static control flow with FLOPs (SASS, PTX, measured per launch).
    fn counted(program: &str, launch: u32, flops: (f64, f64), measured: f64) -> Row {
        Row {
            launch,
            predicted_time_ns: Some(1.0),
            flops_f32: Some(flops.0),
            flops_f64: Some(0.0),
            ptx_flops_f32: Some(flops.1),
            ptx_flops_f64: Some(0.0),
            measured_flops_f32: Some(measured),
            measured_flops_f64: Some(0.0),
            static_counts: Some(true),
            ..row_of(program)
        }
    }

    #[test]
    fn static_flop_misses_are_listed_by_cause() {
        let rows = vec![
            counted("exact", 1, (100.0, 100.0), 100.0),
            // Nsight counted 100 and 130 on two launches of the same sizes: data decides
            counted("varies", 1, (100.0, 100.0), 130.0),
            counted("varies", 2, (100.0, 100.0), 100.0),
            // the SASS's expansion (150) is not the measured 140
            counted("expanded", 1, (150.0, 110.0), 140.0),
            // PTX and table agree and both miss
            counted("compiled", 1, (80.0, 80.0), 100.0),
            // Nsight saw no floating-point instruction
            counted("none", 1, (1.0, 1.0), 0.0),
        ];
        let text = accuracy(&rows, None);
        assert!(text.contains("static control flow: 2 of 6"), "{text}");
        let line = |cause: &str| {
            text.lines()
                .find(|l| l.contains(cause))
                .unwrap_or_else(|| panic!("no line for {cause}: {text}"))
                .to_string()
        };
        let varies = line("differs between launches");
        assert!(varies.trim_start().starts_with("1  "), "{varies}");
        assert!(varies.contains("varies/k #1 0.7692"), "{varies}");
        assert!(line("SASS that differs").contains("expanded/k #1 1.0714"));
        assert!(line("SASS and PTX counts agree").contains("compiled/k #1 0.8000"));
        assert!(line("counted no FLOP").contains("none/k #1 inf"));
        assert!(!text.contains("exact/k"));
    }

    /// A launch moving `measured` DRAM bytes, of which kerncast's `counter` counted `bytes`.
    fn moved(program: &str, launch: u32, counter: &str, bytes: f64, measured: f64) -> Row {
        Row {
            launch,
            predicted_time_ns: Some(1.0),
            dram_bytes: Some(bytes),
            measured_dram_bytes: Some(measured),
            counter: Some(counter.into()),
            ..row_of(program)
        }
    }

    #[test]
    fn dram_misses_are_counted_by_cause() {
        let mb = 1e6;
        let rows = vec![
            moved("exact", 1, "symbolic", 2.0 * mb, 2.1 * mb),
            // 1.9 and 3.7 MB measured for the same launch: neither is a fair target
            moved("noisy", 1, "symbolic", 1.9 * mb, 3.7 * mb),
            moved("noisy", 2, "symbolic", 1.9 * mb, 1.9 * mb),
            moved("zeros", 1, "emulator", 1.0 * mb, 5.0 * mb),
            moved("under", 1, "symbolic", 4.0 * mb, 5.0 * mb),
            moved("over", 1, "symbolic", 6.0 * mb, 5.0 * mb),
            // under 1 MB: not judged
            moved("small", 1, "symbolic", 0.1 * mb, 0.5 * mb),
        ];
        let text = accuracy(&rows, None);
        assert!(
            text.contains("DRAM bytes within 10 % (launches moving > 1 MB): 2 of 6"),
            "{text}"
        );
        let misses = text
            .split_once("DRAM misses (over 10 %), by likely cause:")
            .unwrap_or_else(|| panic!("no DRAM misses: {text}"))
            .1;
        let count = |cause: &str| -> usize {
            misses
                .lines()
                .find(|l| l.contains(cause))
                .unwrap_or_else(|| panic!("no line for {cause}: {text}"))
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap()
        };
        assert_eq!(count("differ by more than 10 % between launches"), 1);
        assert_eq!(count("the emulator's counts"), 1);
        assert_eq!(count("fewer bytes than measured"), 1);
        assert_eq!(count("more bytes than measured"), 1);
    }

    #[test]
    fn every_finished_program_is_on_disk_before_the_next_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.json");
        let mut sink = Sink {
            rows: Vec::new(),
            path: Some(path.clone()),
            error: None,
        };
        sink.add(vec![row_of("zeta"), row_of("zeta")]);
        let first = read_rows::<Row>(&path).unwrap();
        assert_eq!(first.len(), 2);
        sink.add(vec![row_of("alpha")]);
        let second = read_rows::<Row>(&path).unwrap();
        let programs: Vec<&str> = second.iter().map(|r| r.program.as_str()).collect();
        assert_eq!(programs, ["alpha", "zeta", "zeta"], "rows in program order");
        assert!(sink.error.is_none());
        // what was read back is what was written (the fields a fit and a resume read)
        assert_eq!(
            second[0].reason.as_deref(),
            Some("the program could not be read: not read in this test")
        );
    }

    #[test]
    fn a_program_whose_analysis_panicked_names_it_on_every_launch() {
        let (a, b) = (measured("k", "k(int)"), measured("j", "j(float)"));
        let rows = panicked(&[&a, &b], "index out of bounds");
        assert_eq!(rows.len(), 2);
        for r in rows {
            assert!(r.predicted_time_ns.is_none());
            assert_eq!(
                r.predict_reason.as_deref(),
                Some("kerncast panicked: index out of bounds")
            );
        }
    }

    /// The summary groups the emulator's launches by the kinds of data their counts depend on,
    /// or by the first clause of another reason, and counts a launch with no note apart.
    #[test]
    fn emulator_launches_are_grouped_by_why_the_symbolic_counter_did_not_count_them() {
        let note = "symbolic counter not used: counts depend on data (trip.k@12, branch.7; set \
                    them as hints to count symbolically: `--hint trip.k@12=…`); the emulator \
                    counted on zero-filled buffers";
        let why = emulator_reason(note).unwrap();
        assert!(
            why.starts_with("counts depend on data (trip.k@12, branch.7;"),
            "{why}"
        );
        assert!(!why.contains("the emulator counted"), "{why}");
        assert_eq!(emulator_reason("a note of another kind"), None);
        assert_eq!(
            emulator_reason_group(&why),
            "counts depend on data: branches, loop trips"
        );
        assert_eq!(
            emulator_reason_group(
                "the analysis ran out of its work budget (200000000 isl operations)"
            ),
            "the analysis ran out of its work budget"
        );
        let emulated = |note: Option<String>| Row {
            predicted_time_ns: Some(1.0),
            counter: Some("emulator".into()),
            counter_note: note,
            ..row_of("p")
        };
        let symbolic = Row {
            predicted_time_ns: Some(1.0),
            counter: Some("symbolic".into()),
            ..row_of("p")
        };
        let rows = [
            emulated(Some(why.clone())),
            emulated(Some(why)),
            emulated(None),
            symbolic,
        ];
        let text = emulator_reasons(&rows.iter().collect::<Vec<_>>());
        assert!(
            text.starts_with("counted by the emulator: 3 of 4 predicted launches"),
            "{text}"
        );
        assert!(
            text.contains("      2  counts depend on data: branches, loop trips\n"),
            "{text}"
        );
        assert!(text.contains("      1  no reason recorded\n"), "{text}");
    }
}
