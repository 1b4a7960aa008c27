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
mod link;
mod run;
mod templates;
pub mod workloads;

pub use host_programs::{prepare_compiled_file, prepare_embedded};
pub use run::analyze;
use templates::uninstantiated;

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
    /// Whether the FLOPs are counted on ptxas's own SASS of each PTX block where ptxas
    /// assembles for the counted architecture ([`crate::sass_flops::in_context`]), not only
    /// the expansion table: an `nvdisasm` run per module, about 0.3 s of CPU whatever its size.
    pub sass_in_context: bool,
}

impl Job {
    /// The architecture whose SASS the FLOPs are counted for: the compile command's, else the
    /// one kerncast lowers for.
    pub fn sass_arch(&self) -> String {
        self.lower
            .command
            .as_ref()
            .and_then(|c| c.arch())
            .unwrap_or_else(|| self.lower.arch.clone())
    }
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
    /// Whether each report charts time against the size parameter (`--size-chart`: up to
    /// seven more counts and reuse walks of the kernel, each an emulated run where the counts
    /// are emulated). Off by default: most of an analysis's time, which a build does not read.
    pub size_chart: bool,
    /// Only the launches these keys name are analysed (`realcode`: the measured ones); the
    /// host code's other launches are left out, and so are the units that define none of
    /// their kernels ([`hosts::HostSide::defining`]). `None`: every launch.
    pub only_launches: Option<Vec<LaunchKey>>,
}

/// A launch by kernel and sizes: the kernel's name without namespace, template arguments and
/// parameters ([`launch_base_name`]), its grid and its block, and where known the template
/// instance it ran (`float, 128`): the other instances launched at the same sizes are then
/// left out too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchKey {
    pub kernel: String,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub instance: Option<String>,
}

/// A kernel's name without namespace, template arguments and parameters
/// (`ns::fill<float>(float*)` → `fill`), as measured launches and the PTX's kernels both
/// spell it.
pub fn launch_base_name(n: &str) -> String {
    let n = n.split(['<', '(']).next().unwrap_or(n).trim();
    n.rsplit("::").next().unwrap_or(n).to_string()
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
            size_chart: false,
            only_launches: None,
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
            sass_in_context: false,
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
    let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
    ["c", "cc", "cpp", "cxx", "c++", "py"].contains(&ext)
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
                sass_in_context: false,
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
    /// The PTX of the other units device functions were linked from, hashed (empty when none
    /// was): a cached result of this unit holds only while they are the same.
    pub linked_sha256: String,
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
    /// The architecture the unit's SASS is for ([`Job::sass_arch`]).
    pub fn sass_arch(&self) -> String {
        self.job.sass_arch()
    }

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
        // a line of the source's own (or of the host file whose string it is, which its
        // `#line`s name): an error in a header (or kerncast's prelude) is named by the
        // compiler's message, not taken for this file's line
        let line = e
            .location()
            .filter(|(file, _)| {
                let file = Path::new(file);
                same_file(file, path) || same_file(file, &job.path)
            })
            .map(|(_, l)| l);
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
    let sass_arch = job.sass_in_context.then(|| job.sass_arch());
    let registers = assemble_cached(&module, &lowered.ptx, sass_arch.as_deref(), cache.as_ref());
    let inlined = kerncast_passes::inline::inline_calls(&module);
    Ok(Parsed {
        lowered,
        registers,
        inlined,
    })
}

/// Whether a compiler's name for a file is `path`: the same file once both are resolved, or
/// the same name where either cannot be.
fn same_file(named: &Path, path: &Path) -> bool {
    match (named.canonicalize(), path.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => named == path,
    }
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
        cache.tool_identity(tool).into(),
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

/// [`crate::registers::assemble_for`], from the cache where ptxas assembled the same PTX before.
fn assemble_cached(
    module: &Module,
    ptx: &str,
    sass_arch: Option<&str>,
    cache: Option<&Cache>,
) -> crate::registers::Assembled {
    let Some(cache) = cache else {
        return crate::registers::assemble_for(module, ptx, sass_arch);
    };
    // nvdisasm's version only where its listing is part of the result
    let nvdisasm = sass_arch.map(|_| cache.tool_identity("nvdisasm"));
    let key = Cache::key(&[
        "ptxas",
        env!("CARGO_PKG_VERSION"),
        &Cache::tool_fingerprint(),
        ptx,
        sass_arch.unwrap_or_default(),
        &cache.tool_identity("ptxas"),
        nvdisasm.as_deref().unwrap_or_default(),
    ]);
    if let Some(hit) = cache.get_value(&key) {
        return hit;
    }
    let a = crate::registers::assemble_for(module, ptx, sass_arch);
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
        linked_sha256: String::new(),
        source_text,
        headers,
        kernels,
        registers,
        job: job.clone(),
        notes: lowered.notes,
        uninstantiated: if job.kernel.is_none() {
            uninstantiated(&job.display_path, src_kernels, &entries, instances)
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
