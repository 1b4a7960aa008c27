//! `analyze` end to end: sources → PTX → counts → predictions → one [`Report`].
//!
//! Work is split in two parallel stages on a rayon pool of `--jobs` threads: lowering and parsing
//! per source file, then one item per (kernel, workload, device). Every failure becomes a
//! [`Failure`] in the report with its file and line, never a skipped kernel, so the gate can refuse
//! to pass. Results are sorted before rendering, so the output does not depend on scheduling.

use crate::annotations::{self, template_base, SourceKernel};
use crate::cache::Cache;
use crate::config::{Config, Frontend};
use crate::engine::{Counter, Prepared, Target};
use crate::hotlines;
use crate::lower::{self, LowerOptions};
use crate::report::{
    Failure, KernelReport, Prediction, Report, Resources, Scaling, ScalingPoint, SourceLoc,
};
use crate::workload::WorkloadSpec;
use kerncast_passes::ptx::Module;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod host_programs;
pub mod hosts;
mod templates;
pub mod workloads;
pub use host_programs::{prepare_compiled_file, prepare_embedded};
use templates::{not_instantiated, uninstantiated};

/// One source file to analyse and how.
#[derive(Clone, Debug)]
pub struct Job {
    pub path: PathBuf,
    /// The path as shown in reports and SARIF (relative where the user gave it so).
    pub display_path: String,
    pub lower: LowerOptions,
    /// Only this kernel (source or PTX name); all kernels when `None`.
    pub kernel: Option<String>,
    /// Workloads from kerncast.toml; when empty, the source's annotations are used.
    pub workloads: Vec<WorkloadSpec>,
    /// Where the PTX the source lowers to and ptxas's resources are kept between runs
    /// ([`crate::cache`]); `None`: lowered and assembled every time.
    pub cache: Option<PathBuf>,
}

/// How to analyse.
#[derive(Clone, Debug)]
pub struct Options {
    pub devices: Vec<String>,
    pub model: String,
    /// Worker threads (0 = rayon's default, one per core).
    pub jobs: usize,
    pub progress: bool,
    pub cache: Option<PathBuf>,
    /// Lines listed in the hot-line table.
    pub hot_lines: usize,
    /// Values the command line gives (`--param [KERNEL:]NAME=VALUE`): to the host code where
    /// it leaves the name unknown, else to the kernels' parameters and workloads.
    pub params: Vec<crate::params::Given>,
    /// How the host code runs and is built (`--args`, `--compile-commands`).
    pub run: crate::host_workloads::RunSpec,
    /// Whether each report charts time against the size parameter (up to five more counts of
    /// the kernel, each an emulated run where the counts are emulated); `realcode` needs only
    /// the measured launch.
    pub size_chart: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            devices: vec!["gtx-titan-x".into()],
            model: "auto".into(),
            jobs: 0,
            progress: false,
            cache: None,
            hot_lines: 8,
            size_chart: true,
            params: Vec::new(),
            run: Default::default(),
        }
    }
}

fn to_lower_frontend(f: Frontend) -> lower::Frontend {
    match f {
        Frontend::Nvcc => lower::Frontend::Nvcc,
        Frontend::Clang => lower::Frontend::Clang,
        Frontend::Llvm => lower::Frontend::Llvm,
        Frontend::Ptx => lower::Frontend::Ptx,
    }
}

/// Jobs for files and folders given on the command line (folders: every kernel source inside,
/// sorted, skipping what git ignores and hidden entries, as ripgrep does: a project's `target/`
/// holds lowered PTX and build outputs that are not the user's kernels).
pub fn jobs_from_paths(paths: &[PathBuf], base: &LowerOptions) -> Result<Vec<Job>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect(p, &mut files).map_err(|e| format!("{}: {e}", p.display()))?;
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(format!("{}: no such file or folder", p.display()));
        }
    }
    files.sort();
    files.dedup();
    Ok(files
        .into_iter()
        .map(|f| Job {
            display_path: f.display().to_string(),
            path: f,
            lower: base.clone(),
            kernel: None,
            workloads: Vec::new(),
            cache: None,
        })
        .collect())
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ignore::Error> {
    let mut python: Vec<PathBuf> = Vec::new();
    // A .gitignore counts outside a git checkout too (an unpacked tarball, a fresh copy).
    for e in ignore::WalkBuilder::new(dir).require_git(false).build() {
        let p = e?.into_path();
        if !p.is_file() {
            continue;
        }
        if crate::host_workloads::is_python(&p) {
            python.push(p);
        } else if Frontend::for_path(&p).is_some() || is_host_source(&p) {
            out.push(p);
        }
    }
    // A Python file that neither imports a GPU module nor an extension the folder builds (a
    // test, a plotting script) is not a host, so not read; one given by name is.
    out.extend(kerncast_host::gpu_scripts(&python));
    Ok(())
}

/// A C, C++ or Python file (`main.c`, `host.cpp`, `run.py`): host code that kerncast reads for
/// its kernel launches (an OpenCL program's `clEnqueueNDRangeKernel`s, a CuPy kernel's calls)
/// and the programs its strings carry, never lowers as it is.
pub fn is_host_source(p: &Path) -> bool {
    hosts::is_host_only(p)
}

/// Jobs for the kernels of a kerncast.toml.
pub fn jobs_from_config(cfg: &Config, base: &LowerOptions) -> Vec<Job> {
    let root = cfg
        .file
        .as_ref()
        .and_then(|f| f.parent())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    cfg.kernels
        .iter()
        .map(|k| {
            let mut lo = base.clone();
            lo.frontend = Some(to_lower_frontend(k.frontend));
            if let Some(a) = &cfg.arch {
                lo.arch = a.clone();
                lo.arch_note = None;
            }
            lo.defines
                .extend(k.defines.iter().map(|(n, v)| (n.clone(), Some(v.clone()))));
            lo.include_dirs.extend(k.include_dirs.iter().cloned());
            lo.extra_args.extend(k.flags.iter().cloned());
            Job {
                display_path: k
                    .path
                    .strip_prefix(&root)
                    .unwrap_or(&k.path)
                    .display()
                    .to_string(),
                path: k.path.clone(),
                lower: lo,
                kernel: k.name.clone(),
                workloads: k.workloads.clone(),
                cache: None,
            }
        })
        .collect()
}

/// A lowered, parsed source with its kernels matched to their annotations.
pub struct Unit {
    pub job: Job,
    pub ptx: String,
    pub ptx_sha256: String,
    pub frontend: String,
    /// The parsed PTX with device-function calls inlined (`kerncast_passes::inline`).
    pub module: Module,
    /// Calls that stay calls, with the reason: their callees' work is not counted.
    pub not_inlined: Vec<kerncast_passes::inline::NotInlined>,
    pub source_text: Option<String>,
    /// The project headers the source includes, for the kernels defined in them.
    pub headers: Vec<crate::includes::Header>,
    /// (PTX entry, source kernel when found).
    pub kernels: Vec<(String, Option<SourceKernel>)>,
    /// Registers per kernel from ptxas (for occupancy), or why they are unknown.
    pub registers: crate::registers::Assembled,
    /// Report notes that hold for every kernel of the unit: where its source is when not in a
    /// file of its own, the options its host builds it with.
    pub notes: Vec<String>,
    /// The kernel templates of its sources that its PTX has no instance of.
    pub uninstantiated: Vec<crate::report::NotLaunched>,
}

pub use crate::names::demangle;

/// The source kernel an entry is: the one of its demangled name (an explicit instantiation
/// `tiled_sum<128>` included), the template it instantiates, or the same name outside its
/// namespace (the source says `scan` inside `namespace ns`), in that order; the first of them
/// that carries workloads, so an unannotated `template __global__ void f<256>(…);` takes its
/// template's annotations.
pub fn source_kernel<'a>(src: &'a [SourceKernel], entry: &str) -> Option<&'a SourceKernel> {
    let plain = demangle(entry);
    let same = |a: &str, b: &str| {
        a.chars()
            .filter(|c| !c.is_whitespace())
            .eq(b.chars().filter(|c| !c.is_whitespace()))
    };
    let base = template_base(&plain);
    let unqualified = base.rsplit("::").next().unwrap_or(base);
    let candidates: Vec<&SourceKernel> = [
        src.iter()
            .find(|s| s.name == entry || same(&s.name, &plain)),
        src.iter().find(|s| same(&s.name, base)),
        src.iter().find(|s| same(&s.name, unqualified)),
    ]
    .into_iter()
    .flatten()
    .collect();
    candidates
        .iter()
        .find(|s| !s.workloads.is_empty())
        .or(candidates.first())
        .copied()
}

/// The PTX entries `want` names: all of them without a name; else those whose mangled or
/// demangled name it is (`_Z4histPKhPji`, `hist`, `reduce<256>`, `ns::scan<float>`); else the one
/// instantiation of the template or the one kernel outside its namespace it names (`reduce`,
/// `scan`). Several instantiations of one template are ambiguous and an error that lists them,
/// as is a name no entry has, so a typo never analyses some other kernel.
pub fn select_entries(entries: &[String], want: Option<&str>) -> Result<Vec<String>, String> {
    let Some(want) = want else {
        return if entries.is_empty() {
            Err("no kernel entry in the PTX".into())
        } else {
            Ok(entries.to_vec())
        };
    };
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let wanted = squeeze(want);
    let exact: Vec<String> = entries
        .iter()
        .filter(|e| **e == want || squeeze(&demangle(e)) == wanted)
        .cloned()
        .collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    let loose: Vec<&String> = entries
        .iter()
        .filter(|e| {
            let plain = demangle(e);
            let base = squeeze(template_base(&plain));
            base == wanted || base.rsplit("::").next() == Some(wanted.as_str())
        })
        .collect();
    let names = |es: &[&String]| {
        es.iter()
            .map(|e| format!("`{}`", demangle(e)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match loose.as_slice() {
        [one] => Ok(vec![(*one).clone()]),
        [] => {
            let all: Vec<&String> = entries.iter().collect();
            Err(if all.is_empty() {
                format!("kernel `{want}` not found: the PTX has no kernel entry")
            } else {
                format!(
                    "kernel `{want}` not found in the PTX; its kernels: {}",
                    names(&all)
                )
            })
        }
        several => Err(format!(
            "kernel `{want}` is ambiguous: it names {}; give one of them",
            names(several)
        )),
    }
}

fn sha256(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn fail(
    job: &Job,
    line: Option<u32>,
    kernel: Option<&str>,
    stage: &str,
    message: String,
) -> Failure {
    Failure {
        file: job.display_path.clone(),
        line,
        kernel: kernel.map(str::to_string),
        stage: stage.into(),
        message,
    }
}

impl Unit {
    /// Why the source was lowered for its architecture, when kerncast chose it for the devices
    /// (PTX input keeps its own `.target`).
    pub fn arch_note(&self) -> Option<String> {
        let lowered = self.frontend != lower::Frontend::Ptx.name();
        self.job.lower.arch_note.clone().filter(|_| lowered)
    }
}

/// A failure at a kernel's definition: in the header that defines it, or in the analysed file.
fn fail_at_kernel(
    u: &Unit,
    sk: Option<&SourceKernel>,
    entry: &str,
    stage: &str,
    message: String,
) -> Failure {
    let mut f = fail(
        &u.job,
        sk.map(|s| s.line as u32),
        Some(entry),
        stage,
        message,
    );
    if let Some(file) = sk.and_then(|s| s.file.clone()) {
        f.file = file;
    }
    f
}

/// Lowers and parses one source; matches PTX entries to source kernels. Host code only (a C,
/// C++ or Python file) is no unit: the programs its strings carry are ([`prepare_embedded`]).
pub fn prepare_unit(job: &Job) -> Result<Unit, Failure> {
    if is_host_source(&job.path) {
        return Err(fail(
            job,
            None,
            job.kernel.as_deref(),
            "lower",
            "host code with no OpenCL or CUDA program in its strings: kerncast reads it only for the launches it makes; give the kernel's own file, with this one as --host".into(),
        ));
    }
    let parsed = lower_and_parse(job, &job.path)?;
    let source_text = std::fs::read_to_string(&job.path)
        .ok()
        .filter(|_| job.path.extension().is_none_or(|e| e != "bc"));
    let headers = match &source_text {
        Some(t) => {
            crate::includes::local_headers(&job.path, &job.display_path, t, &job.lower.include_dirs)
        }
        None => Vec::new(),
    };
    let mut src_kernels = match &source_text {
        Some(t) => annotations::scan(t)
            .map_err(|e| fail(job, Some(e.line as u32), None, "annotation", e.message))?,
        None => Vec::new(),
    };
    for h in &headers {
        src_kernels.extend(header_kernels(h, &src_kernels)?);
    }
    let instances = "a template that this compilation unit never instantiates, so the compiler emitted no code for it: instantiate it (`template __global__ void NAME<float>(…);`) or launch an instance in this file (`NAME<float><<<…>>>`)";
    unit(job, parsed, source_text, headers, &src_kernels, instances)
}

/// A source lowered and parsed: the PTX, its registers from ptxas, and the module with its
/// device-function calls inlined.
struct Parsed {
    lowered: lower::Lowered,
    registers: crate::registers::Assembled,
    inlined: kerncast_passes::inline::Inlined,
}

/// `path` (the job's file, or a program written out from it) lowered, parsed, assembled for its
/// registers and with its calls inlined; failures name the job's file.
fn lower_and_parse(job: &Job, path: &Path) -> Result<Parsed, Failure> {
    let cache = job.cache.clone().map(Cache::new);
    let lowered = lower_cached(job, path, cache.as_ref()).map_err(|e| {
        let line = e.location().map(|(_, l)| l);
        fail(job, line, None, "lower", e.to_string())
    })?;
    let module = Module::parse(&lowered.ptx)
        .and_then(|m| kerncast_passes::ptx::verify(&m).map(|()| m))
        .map_err(|e| {
            if lowered.frontend == lower::Frontend::Ptx {
                // the file is the PTX: its own line and column
                let (line, col) = (e.span.line, e.span.col);
                let at = format!("{}:{line}:{col}", job.display_path);
                return fail(
                    job,
                    Some(line),
                    None,
                    "parse",
                    format!("{at}: {}", e.message),
                );
            }
            let what = format!("PTX from {}: {e}", lowered.command);
            fail(job, None, None, "parse", what)
        })?;
    let registers = assemble_cached(&module, &lowered.ptx, cache.as_ref());
    let inlined = kerncast_passes::inline::inline_calls(&module);
    Ok(Parsed {
        lowered,
        registers,
        inlined,
    })
}

/// `path` lowered for `job`, from the cache where the same source, project headers, flags,
/// compiler and kerncast lowered it before. PTX input is read, not cached.
fn lower_cached(
    job: &Job,
    path: &Path,
    cache: Option<&Cache>,
) -> Result<lower::Lowered, lower::LowerError> {
    let frontend = job
        .lower
        .frontend
        .or_else(|| lower::SourceKind::of(path).map(lower::default_frontend));
    let tool = match frontend {
        Some(lower::Frontend::Nvcc) => "nvcc",
        Some(lower::Frontend::Clang) => "clang",
        Some(lower::Frontend::Llvm) => "",
        Some(lower::Frontend::Ptx) | None => return lower::lower_file(path, &job.lower),
    };
    let Some((cache, source)) = cache.zip(std::fs::read(path).ok()) else {
        return lower::lower_file(path, &job.lower);
    };
    let text = String::from_utf8_lossy(&source);
    let headers =
        crate::includes::local_headers(path, &job.display_path, &text, &job.lower.include_dirs);
    let mut parts: Vec<Vec<u8>> = vec![
        b"lowered".to_vec(),
        env!("CARGO_PKG_VERSION").into(),
        Cache::tool_fingerprint().into(),
        path.display().to_string().into(),
        source.clone(),
        format!("{:?} {:?}", frontend, job.lower).into(),
        Cache::tool_identity(tool).into(),
    ];
    for h in &headers {
        parts.push(h.display.clone().into());
        parts.push(h.text.clone().into());
    }
    let key = Cache::key(&parts);
    if let Some(hit) = cache.get_value::<lower::Lowered>(&key) {
        return Ok(hit);
    }
    let lowered = lower::lower_file(path, &job.lower)?;
    cache.put_value(&key, &lowered);
    Ok(lowered)
}

/// [`crate::registers::assemble`], from the cache where ptxas assembled the same PTX before.
fn assemble_cached(
    module: &Module,
    ptx: &str,
    cache: Option<&Cache>,
) -> crate::registers::Assembled {
    let Some(cache) = cache else {
        return crate::registers::assemble(module, ptx);
    };
    let key = Cache::key(&[
        "ptxas",
        env!("CARGO_PKG_VERSION"),
        &Cache::tool_fingerprint(),
        ptx,
        &Cache::tool_identity("ptxas"),
    ]);
    if let Some(hit) = cache.get_value(&key) {
        return hit;
    }
    let a = crate::registers::assemble(module, ptx);
    cache.put_value(&key, &a);
    a
}

/// The unit of a lowered source: its kernels (all, or `job.kernel`), each with its source
/// kernel when one of `src_kernels` matches, and the templates nothing instantiates (with
/// `instances`, what would make one; `NAME` stands for the template).
fn unit(
    job: &Job,
    parsed: Parsed,
    source_text: Option<String>,
    headers: Vec<crate::includes::Header>,
    src_kernels: &[SourceKernel],
    instances: &str,
) -> Result<Unit, Failure> {
    let Parsed {
        lowered,
        registers,
        inlined,
    } = parsed;
    let entries: Vec<String> = inlined.module.kernels().map(|k| k.name.clone()).collect();
    // host code only: nothing to predict here, but its launches give other files' kernels
    // their workloads
    let host_only = entries.is_empty() && job.kernel.is_none();
    let chosen = if host_only {
        Vec::new()
    } else {
        select_entries(&entries, job.kernel.as_deref())
            .map_err(|what| fail(job, None, job.kernel.as_deref(), "kernel selection", what))?
    };
    let kernels = chosen
        .into_iter()
        .map(|name| {
            let sk = source_kernel(src_kernels, &name).cloned();
            (name, sk)
        })
        .collect();
    Ok(Unit {
        ptx_sha256: sha256(&lowered.ptx),
        frontend: lowered.frontend.name().to_string(),
        ptx: lowered.ptx,
        module: inlined.module,
        not_inlined: inlined.not_inlined,
        source_text,
        headers,
        kernels,
        registers,
        job: job.clone(),
        notes: lowered.notes,
        uninstantiated: if job.kernel.is_none() {
            uninstantiated(job, src_kernels, &entries, instances)
        } else {
            Vec::new()
        },
    })
}

/// The kernels `header` defines that the analysed file (`known`) does not, each with the
/// header's annotations (its launches in the host code give the others their workloads).
fn header_kernels(
    header: &crate::includes::Header,
    known: &[SourceKernel],
) -> Result<Vec<SourceKernel>, Failure> {
    let kernels = annotations::scan(&header.text).map_err(|e| Failure {
        file: header.display.clone(),
        line: Some(e.line as u32),
        kernel: None,
        stage: "annotation".into(),
        message: e.message,
    })?;
    Ok(kernels
        .into_iter()
        .filter(|k| !known.iter().any(|s| s.name == k.name))
        .map(|mut k| {
            k.file = Some(header.display.clone());
            k
        })
        .collect())
}

/// The build's integer `-D` values replace the source's `#define`s in a workload's expressions,
/// as they do in the compiler: a kernel built with `-D TILE=32` is launched with TILE = 32.
pub fn apply_defines(w: &mut WorkloadSpec, defines: &[(String, Option<String>)]) {
    for (name, val) in defines {
        let val = val.as_deref().unwrap_or("1").trim();
        if let Ok(x) = val.parse::<i64>() {
            w.macros.insert(name.clone(), x);
        }
    }
}

/// Analyses every job for every device.
pub fn analyze(jobs: &[Job], opts: &Options, counter: &dyn Counter) -> Report {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build();
    match pool {
        Ok(pool) => pool.install(|| analyze_in_pool(jobs, opts, counter)),
        Err(e) => Report::new(
            vec![],
            vec![Failure {
                file: String::new(),
                line: None,
                kernel: None,
                stage: "setup".into(),
                message: format!("cannot start {} worker threads: {e}", opts.jobs),
            }],
        ),
    }
}

/// One kernel's share of an analysis: (unit, kernel, its runs as (target, workload)).
type KernelRuns = (usize, usize, Vec<(usize, WorkloadSpec)>);

fn analyze_in_pool(jobs: &[Job], opts: &Options, counter: &dyn Counter) -> Report {
    let mut errors = Vec::new();
    let mut targets = Vec::new();
    for d in &opts.devices {
        match Target::load(d, &opts.model) {
            Ok(t) => targets.push(t),
            Err(message) => errors.push(Failure {
                file: format!("devices/{d}.toml"),
                line: None,
                kernel: None,
                stage: "device".into(),
                message,
            }),
        }
    }
    let side = hosts::HostSide::new(jobs, opts, &targets, &mut errors);
    let kernel_jobs: Vec<&Job> = jobs.iter().filter(|j| !is_host_source(&j.path)).collect();
    let units = side.units(jobs, &kernel_jobs);
    let cache = opts.cache.as_ref().map(|d| Cache::new(d.clone()));
    let mut ok_units = Vec::new();
    for u in units {
        match u {
            Ok(u) => ok_units.push(u),
            Err(f) => errors.push(f),
        }
    }
    let not_instantiated = not_instantiated(&ok_units);
    // a host file that carries a program is also a kernel file, whether or not it compiles
    let carry_programs = side.carrying_programs(&kernel_jobs);
    let mut host_only: Vec<String> = ok_units
        .iter()
        .filter(|u| u.kernels.is_empty())
        .filter(|u| {
            let display = &u.job.display_path;
            !not_instantiated.iter().any(|n| &n.file == display)
        })
        .map(|u| u.job.display_path.clone())
        .chain(
            jobs.iter()
                .filter(|j| is_host_source(&j.path))
                .map(|j| j.display_path.clone()),
        )
        .filter(|display| !carry_programs.contains(display))
        .collect();
    host_only.sort();
    host_only.dedup();
    let answers: Vec<_> = targets.iter().map(|t| side.answers(&ok_units, t)).collect();
    let mut found = workloads::Found::default();
    let mut items = Vec::new();
    for (ui, u) in ok_units.iter().enumerate() {
        for (ki, (entry, sk)) in u.kernels.iter().enumerate() {
            for (ti, t) in targets.iter().enumerate() {
                let specs = workloads::of_kernel(
                    &side,
                    u,
                    entry,
                    sk.as_ref(),
                    (ti, t),
                    answers[ti].as_ref(),
                    opts,
                    &mut found,
                );
                match specs {
                    Ok(specs) => items.extend(specs.into_iter().map(|s| (ui, ki, ti, s))),
                    Err(workloads::Missing::NotLaunched(n)) => found.not_launched(n),
                    Err(workloads::Missing::Library(n)) => found.library(n),
                    Err(workloads::Missing::Failed(f)) => errors.push(f),
                }
            }
        }
    }
    errors.extend(found.param_errors(&opts.params, &side));
    // the host code's compile errors in a file whose lowering failed say nothing more
    let unlowered: Vec<String> = errors
        .iter()
        .filter(|f| f.stage == "lower")
        .map(|f| f.file.clone())
        .collect();
    errors.extend(
        side.failures()
            .into_iter()
            .filter(|f| !unlowered.contains(&f.file)),
    );
    let (not_launched, library_kernels) = found.listed();
    let bar = progress_bar(items.len() as u64, opts.progress);
    // One task per kernel: it is prepared once (its symbolic analysis serves every workload and
    // device), its workloads run, and it is dropped before the worker takes the next kernel, so
    // memory holds the kernels in progress, not every kernel analysed so far.
    let mut per_kernel: Vec<KernelRuns> = Vec::new();
    // a kernel's items come together (the loop above goes file, kernel, device)
    for (ui, ki, ti, spec) in items {
        match per_kernel
            .last_mut()
            .filter(|(u, k, _)| (*u, *k) == (ui, ki))
        {
            Some((_, _, runs)) => runs.push((ti, spec)),
            None => per_kernel.push((ui, ki, vec![(ti, spec)])),
        }
    }
    let results: Vec<Result<KernelReport, Failure>> = per_kernel
        .par_iter()
        .flat_map_iter(|(ui, ki, runs)| {
            let u = &ok_units[*ui];
            let prepared = counter.prepare(&u.module, &u.kernels[*ki].0);
            let out: Vec<Result<KernelReport, Failure>> = runs
                .iter()
                .map(|(ti, spec)| {
                    let r = match &prepared {
                        Ok(p) => one(
                            u,
                            *ki,
                            spec,
                            &targets[*ti],
                            p.as_ref(),
                            counter,
                            opts,
                            cache.as_ref(),
                        ),
                        Err(m) => Err(fail(
                            &u.job,
                            None,
                            Some(&u.kernels[*ki].0),
                            "count",
                            m.clone(),
                        )),
                    };
                    bar.inc(1);
                    r
                })
                .collect();
            out
        })
        .collect();
    bar.finish_and_clear();
    let mut kernels = Vec::new();
    for r in results {
        match r {
            Ok(k) => kernels.push(k),
            Err(f) => errors.push(f),
        }
    }
    let mut report = Report::new(kernels, crate::report::Failure::merge_repeated(errors));
    report.host_only = host_only;
    report.not_launched = not_launched;
    report.not_instantiated = not_instantiated;
    report.library_kernels = library_kernels;
    report
}

/// Where `entry` is defined when that is a library's header: the file and line of the first
/// `.loc` of its body (its definition, as the compiler records it), where that file is neither
/// the analysed source nor a project header it includes. `None` for a kernel of the project
/// that no source scan found (one a macro defines), and where the PTX has no line table.
pub(crate) fn library_definition(u: &Unit, entry: &str) -> Option<(String, u32)> {
    use kerncast_passes::ptx::Statement;
    let f = u.module.functions.iter().find(|f| f.name == entry)?;
    let loc = f.body.iter().find_map(|s| match s {
        Statement::Loc(l) => Some(l),
        _ => None,
    })?;
    let file = u.module.files.iter().find(|d| d.index == loc.file)?;
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    let at = canonical(std::path::Path::new(&file.name))?;
    let mut project = std::iter::once(canonical(&u.job.path))
        .chain(
            u.headers
                .iter()
                .map(|h| canonical(std::path::Path::new(&h.display))),
        )
        .flatten();
    (!project.any(|p| p == at)).then(|| (file.name.clone(), loc.line))
}

fn progress_bar(n: u64, want: bool) -> indicatif::ProgressBar {
    if !want {
        return indicatif::ProgressBar::hidden();
    }
    crate::progress::bar(
        n,
        "{spinner} analysing kernels [{bar:30}] {pos}/{len} {elapsed}",
    )
}

#[allow(clippy::too_many_arguments)]
fn one(
    u: &Unit,
    ki: usize,
    spec: &WorkloadSpec,
    t: &Target,
    prepared: &dyn Prepared,
    counter: &dyn Counter,
    opts: &Options,
    cache: Option<&Cache>,
) -> Result<KernelReport, Failure> {
    let (entry, sk) = &u.kernels[ki];
    let src_line = sk.as_ref().map(|s| s.line as u32);
    let err = |stage: &str, m: String| fail_at_kernel(u, sk.as_ref(), entry, stage, m);
    let w = spec.resolve_launch(&Default::default()).map_err(|m| {
        let how = spec.how_to_set(&m);
        match &spec.origin {
            Some(o) => err("workload", format!("{m}{how} (the workload of {o})")),
            None => err("workload", format!("{m}{how}")),
        }
    })?;
    let params: Vec<String> = sk.as_ref().map(|s| s.params.clone()).unwrap_or_default();
    let key = Cache::key(&[
        &u.ptx_sha256,
        entry,
        &serde_json::to_string(&w).unwrap_or_default(),
        &params.join(","),
        &t.device.name,
        &serde_json::to_string(&t.device).unwrap_or_default(),
        &t.model_name,
        counter.name(),
        // a budget decides whether a kernel is counted or refused
        &format!("{:?}", kerncast_passes::budget::get()),
        env!("CARGO_PKG_VERSION"),
        &Cache::tool_fingerprint(),
        &u.job.display_path,
        &format!("{:?}", u.registers.of(entry)),
        // the notes the host code gives (where the launch is, how often it runs) change with
        // the host file, which the kernel's PTX does not
        &format!("{:?} {:?}", spec.origin, spec.launches),
    ]);
    if let Some(hit) = cache.and_then(|c| c.get(&key)) {
        return Ok(hit);
    }
    let bound = prepared
        .bind_spec(spec, &BTreeMap::new(), &params)
        .map_err(|m| err("count", spec.why_unset(m)))?;
    let mut stats = bound.stats;
    let mut notes = spec.host_notes();
    notes.extend(
        u.not_inlined
            .iter()
            .filter(|c| c.kernel == *entry)
            .map(|c| c.to_string()),
    );
    notes.extend(u.notes.iter().cloned());
    notes.extend(u.arch_note());
    notes.extend(u.registers.apply(entry, &mut stats));
    notes.extend(crate::registers::launch_fails(&stats, &t.device));
    let blocks = t.blocks(&u.module, entry);
    let p = t
        .predict(&stats, &blocks, &w.hints)
        .map_err(|m| err("model", m))?;
    let f = u
        .module
        .kernels()
        .find(|k| k.name == *entry)
        .ok_or_else(|| err("count", format!("kernel `{entry}` vanished from the PTX")))?;
    let src_name = Path::new(&u.job.display_path)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let file_of = |ptx_file: &str| -> String {
        let base = Path::new(ptx_file)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if base == src_name || ptx_file.is_empty() {
            u.job.display_path.clone()
        } else {
            ptx_file.to_string()
        }
    };
    let breakdown: BTreeMap<String, f64> = p
        .breakdown
        .iter()
        .map(|c| (c.name.clone(), c.time_s))
        .collect();
    let mut hot = hotlines::attribute(
        f,
        &stats,
        &breakdown,
        p.energy_j,
        p.time_s,
        &file_of,
        opts.hot_lines,
    );
    let texts = u
        .source_text
        .iter()
        .map(|t| (u.job.display_path.as_str(), t.as_str()))
        .chain(
            u.headers
                .iter()
                .map(|h| (h.display.as_str(), h.text.as_str())),
        );
    for (file, text) in texts {
        for h in hot.iter_mut().filter(|h| h.loc.file == file) {
            h.text = (h.loc.line as usize)
                .checked_sub(1)
                .and_then(|i| text.lines().nth(i))
                .map(|l| l.trim().to_string());
        }
    }
    let scaling = if opts.size_chart {
        scaling(
            spec,
            prepared,
            &params,
            t,
            &blocks,
            &w,
            stats.regs_per_thread,
        )
    } else {
        None
    };
    let mut counts = BTreeMap::new();
    let mut unknowns = BTreeMap::new();
    for (f, v) in &stats.features {
        if let kerncast_passes::stats::Feature::Unknown { opcode } = f {
            unknowns.insert(opcode.clone(), *v);
        }
        counts.insert(f.to_string(), *v);
    }
    // the linear model's features (Stevens & Klöckner's), for `kerncast fit` to read back
    for (k, v) in kerncast_models::linear::features(&stats) {
        counts.insert(format!("linear.{k}"), v);
    }
    // FLOPs as Nsight counts them on SASS (the PTX-level counts stay under their own keys)
    if !stats.block_execs.is_empty() {
        let arch = u
            .job
            .lower
            .command
            .as_ref()
            .and_then(|c| c.arch())
            .unwrap_or_else(|| u.job.lower.arch.clone());
        match crate::sass_flops::FlopTable::for_arch(&arch) {
            Ok((table, note)) => {
                let s = crate::sass_flops::count(f, &stats, &table);
                counts.insert("flops.f32".into(), s.f32);
                counts.insert("flops.f64".into(), s.f64);
                counts.insert("flops.f16".into(), s.f16);
                counts.insert("flops.ptx.f32".into(), s.ptx_f32);
                counts.insert("flops.ptx.f64".into(), s.ptx_f64);
                notes.extend(note);
                if !s.unlisted.is_empty() {
                    notes.push(format!(
                        "SASS FLOPs: forms the {arch} expansion table lacks, counted at the PTX level: {}",
                        s.unlisted.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            Err(e) => notes.push(format!("no SASS FLOPs: {e}")),
        }
    }
    notes.extend(p.notes.iter().cloned());
    notes.extend(bound.notes);
    notes.extend(spec.runs_note(p.time_s, p.energy_j));
    if !hot.is_empty() {
        notes.push("energy per source line assumes constant power over the kernel".into());
    }
    let roofline = t.roofline(&stats, &w.hints, p.time_s);
    let report = KernelReport {
        kernel: entry.clone(),
        // the instantiation (`block_sum<256>`), even where its template's annotation applies
        display_name: demangle(entry),
        source: Some(SourceLoc {
            file: sk
                .as_ref()
                .and_then(|s| s.file.clone())
                .unwrap_or_else(|| u.job.display_path.clone()),
            line: src_line.unwrap_or(1),
        }),
        frontend: u.frontend.clone(),
        ptx_sha256: u.ptx_sha256.clone(),
        device: t.device.name.clone(),
        model: p.model.clone(),
        workload: w,
        prediction: Prediction {
            time_s: p.time_s,
            power_w: p.power_w,
            energy_j: p.energy_j,
            bottleneck: p.bottleneck.clone(),
            error_band: p.error_band,
        },
        breakdown: p.breakdown,
        roofline,
        dvfs: p.dvfs,
        scaling,
        hot_lines: hot,
        counts,
        unknowns,
        assumptions: stats.assumptions.clone(),
        resources: Resources {
            regs_per_thread: stats.regs_per_thread,
            shared_bytes_per_block: stats.shared_bytes_per_block,
        },
        notes,
        counter: bound.counter,
        models: p.models,
        host_runs: spec.host_runs(),
    };
    if let Some(c) = cache {
        c.put(&key, &report);
    }
    Ok(report)
}

/// Predicted time for the size parameter at 1/16 … 4× its value (symbolic counts) or 1/16 … 1×
/// (emulated counts, which run the kernel). Sizes that fail to count or predict end the series.
fn scaling(
    spec: &WorkloadSpec,
    prepared: &dyn Prepared,
    params: &[String],
    t: &Target,
    blocks: &Result<crate::engine::Blocks, String>,
    w: &crate::workload::Workload,
    regs_per_thread: Option<u32>,
) -> Option<Scaling> {
    let param = spec.size_param()?;
    let base = *w.params.get(&param)?;
    if base <= 0 {
        return None;
    }
    let factors: &[f64] = if prepared.cheap() {
        &[1.0 / 16.0, 1.0 / 8.0, 0.25, 0.5, 1.0, 2.0, 4.0]
    } else {
        &[1.0 / 16.0, 1.0 / 8.0, 0.25, 0.5, 1.0]
    };
    let scales: Vec<f64> = factors
        .iter()
        .copied()
        .filter(|f| ((base as f64) * f).round() >= 1.0)
        .collect();
    let mut points = Vec::new();
    if let Ok(bounds) = prepared.bind_sizes(spec, &BTreeMap::new(), params, &scales) {
        for (f, mut b) in scales.iter().zip(bounds) {
            let v = ((base as f64) * f).round() as i64;
            b.stats.regs_per_thread = regs_per_thread;
            let Ok(q) = t.quick(&b.stats, blocks, &w.hints) else {
                break;
            };
            if points.iter().all(|p: &ScalingPoint| p.value != v) {
                points.push(ScalingPoint {
                    value: v,
                    time_s: q.time_s,
                    energy_j: q.energy_j.unwrap_or(0.0),
                });
            }
        }
    }
    (points.len() >= 2).then_some(Scaling { param, points })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_itanium_names_with_templates_and_namespaces() {
        assert_eq!(demangle("_Z6matmuliPKfS0_Pf"), "matmul");
        assert_eq!(demangle("saxpy"), "saxpy");
        assert_eq!(demangle("_Z99x"), "_Z99x");
        assert_eq!(demangle("_Z9tiled_sumILi128EEvPKfPfi"), "tiled_sum<128>");
        assert_eq!(demangle("_ZN2ns4scanIfEEvPT_i"), "ns::scan<float>");
        // `template <unsigned B>`: the source's `256`, not the demangler's `(unsigned int)256`
        assert_eq!(
            demangle("_Z7reduce6IfLj256EEvPT_S1_j"),
            "reduce6<float, 256>"
        );
        assert_eq!(demangle("_Z1kILln3EEvv"), "k<-3>");
        assert_eq!(template_base("tiled_sum<128>"), "tiled_sum");
        assert_eq!(template_base("f<g<1>, 2>"), "f");
        assert_eq!(template_base("saxpy"), "saxpy");
    }

    #[test]
    fn a_kernel_is_selected_by_mangled_demangled_template_or_unqualified_name() {
        let entries: Vec<String> = [
            "_Z4histPKhPji",
            "_Z8reduce_tILi256EEvPKfPfi",
            "_ZN2ns4scanIfEEvPT_i",
            "_Z3maxILi1EEvPf",
            "_Z3maxILi2EEvPf",
        ]
        .map(String::from)
        .to_vec();
        let pick = |w: &str| select_entries(&entries, Some(w));
        assert_eq!(pick("hist").unwrap(), ["_Z4histPKhPji"]);
        assert_eq!(pick("_Z4histPKhPji").unwrap(), ["_Z4histPKhPji"]);
        assert_eq!(pick("reduce_t").unwrap(), ["_Z8reduce_tILi256EEvPKfPfi"]);
        assert_eq!(
            pick("reduce_t<256>").unwrap(),
            ["_Z8reduce_tILi256EEvPKfPfi"]
        );
        assert_eq!(pick("scan").unwrap(), ["_ZN2ns4scanIfEEvPT_i"]);
        assert_eq!(
            pick("ns::scan < float >").unwrap(),
            ["_ZN2ns4scanIfEEvPT_i"]
        );
        assert_eq!(pick("max<2>").unwrap(), ["_Z3maxILi2EEvPf"]);
        let ambiguous = pick("max").unwrap_err();
        assert!(ambiguous.contains("ambiguous") && ambiguous.contains("`max<1>`, `max<2>`"));
        let missing = pick("hsit").unwrap_err();
        assert!(
            missing.contains("`hist`, `reduce_t<256>`, `ns::scan<float>`"),
            "{missing}"
        );
        assert_eq!(select_entries(&entries, None).unwrap(), entries);
        assert!(select_entries(&[], None).is_err());
    }

    #[test]
    fn entries_match_instantiations_before_their_template() {
        let k = |name: &str| SourceKernel {
            name: name.into(),
            line: 1,
            params: vec![],
            param_types: vec![],
            fields: vec![],
            workloads: vec![],
            file: None,
            required_local_size: None,
            template: false,
        };
        let annotated = |name: &str| SourceKernel {
            workloads: crate::annotations::scan(
                "// kerncast: workload n=64 grid=1 block=64\n__global__ void k(int n) {}",
            )
            .unwrap()[0]
                .workloads
                .clone(),
            ..k(name)
        };
        // an unannotated instantiation takes its template's workloads
        let src = [annotated("block_sum"), k("block_sum<256>")];
        let found = source_kernel(&src, "_Z9block_sumILi256EEvPKfPfi").unwrap();
        assert_eq!(found.name, "block_sum");
        let src = [k("tiled_sum"), k("tiled_sum<512>")];
        let at = |e: &str| source_kernel(&src, e).map(|s| s.name.clone());
        assert_eq!(
            at("_Z9tiled_sumILi512EEvPKfPfi").as_deref(),
            Some("tiled_sum<512>")
        );
        assert_eq!(
            at("_Z9tiled_sumILi128EEvPKfPfi").as_deref(),
            Some("tiled_sum")
        );
        assert_eq!(at("_Z5otherv"), None);
        let src = [k("scan")];
        assert_eq!(
            source_kernel(&src, "_ZN2ns4scanIfEEvPT_i").map(|s| s.name.as_str()),
            Some("scan")
        );
    }

    #[test]
    fn folders_skip_ignored_and_hidden_entries() {
        let d = tempfile::tempdir().unwrap();
        let touch = |rel: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        };
        for f in [
            "a.cu",
            "sub/b.cl",
            "target/lowered.ptx",
            ".cache/c.cu",
            "notes.txt",
        ] {
            touch(f);
        }
        std::fs::write(d.path().join(".gitignore"), "target/\n").unwrap();
        let jobs = jobs_from_paths(&[d.path().to_path_buf()], &LowerOptions::default()).unwrap();
        let names: Vec<_> = jobs
            .iter()
            .map(|j| j.path.strip_prefix(d.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(names, [PathBuf::from("a.cu"), PathBuf::from("sub/b.cl")]);
        // A file named on the command line is taken even where a folder walk would skip it.
        let ignored = d.path().join("target/lowered.ptx");
        let jobs =
            jobs_from_paths(std::slice::from_ref(&ignored), &LowerOptions::default()).unwrap();
        assert_eq!(jobs.len(), 1);
    }
}
