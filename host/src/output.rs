//! The host reading's result as callers and reports see it: distinct launches with numbers
//! (or the reason a number is unknown), how often each runs, where it is, and the launch
//! sites that were never reached.

use crate::ast::Ty;
use crate::clang::lower::ProgramAst;
use crate::interp::launches::{describe, Record};
// named where the interpreter records launches, which gives those values the names
pub use crate::interp::launches::LOCAL_SIZE_NAMES;
use crate::interp::value::{DevicePtr, Ptr, Value};
use crate::interp::Outcome;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A number of a launch, or why it is unknown.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
    /// A pointer, a record or another value that is not a number.
    Other(String),
    Unknown(String),
}

impl Serialize for Scalar {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Scalar::Int(i) => s.serialize_i64(*i),
            Scalar::Float(f) => s.serialize_f64(*f),
            Scalar::Other(o) => s.serialize_str(o),
            Scalar::Unknown(_) => s.serialize_none(),
        }
    }
}

impl Scalar {
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Scalar::Int(i) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    pub fn unknown_reason(&self) -> Option<&str> {
        match self {
            Scalar::Unknown(r) => Some(r),
            _ => None,
        }
    }

    /// The name of an unknown value, where the host code stored it under one (`n` of
    /// "`n`: read from a file"): the name a value can be given by (`--param n=…`).
    pub fn unknown_name(&self) -> Option<&str> {
        let r = self.unknown_reason()?;
        let (name, _) = r.strip_prefix('`')?.split_once("`: ")?;
        (!name.is_empty()).then_some(name)
    }

    fn of(v: &Value) -> Scalar {
        match v {
            Value::Int(i) => i64::try_from(*i)
                .map(Scalar::Int)
                .unwrap_or_else(|_| Scalar::Unknown(format!("{i} does not fit 64 bits"))),
            Value::Float(f) => Scalar::Float(*f),
            Value::Unknown(_) => Scalar::Unknown(v.reason().unwrap_or_default()),
            other => Scalar::Other(describe(other)),
        }
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x}"),
            Scalar::Other(o) => write!(f, "{o}"),
            Scalar::Unknown(_) => write!(f, "?"),
        }
    }
}

/// The bytes the host wrote into a pointer argument's device allocation, from where it
/// points to the allocation's end (zero where the host wrote nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferData {
    pub bytes: Vec<u8>,
    /// The elements described instead of listed, where the allocation is over 64 KiB
    /// (`bytes` is then empty): see [`crate::drawn`].
    pub drawn: Option<crate::drawn::Drawn>,
    /// Whether the allocation was passed to a kernel before this launch (which may have
    /// changed the bytes).
    pub after_a_kernel: bool,
    /// Why some bytes are zeros that stand for host values kerncast does not know, where so.
    pub zeros_for: Option<String>,
}

/// One distinct launch of the program.
#[derive(Clone, Debug, Serialize)]
pub struct Launch {
    /// The kernel as clang resolved it, demangled (`fp32::axpy(float*, int)`).
    pub kernel: String,
    /// Its name alone, as profilers list it (`axpy`).
    pub name: String,
    /// The device symbol (as in the PTX), or the name the host passes (OpenCL, the driver API).
    pub symbol: String,
    /// Whether `symbol` is a name the host passes (`clCreateKernel(p, "scale")`,
    /// `cuModuleGetFunction`, CuPy's `get_function`), not a declaration clang resolved.
    pub by_name: bool,
    pub grid: [Scalar; 3],
    pub block: [Scalar; 3],
    pub shared_bytes: Scalar,
    /// Argument values by the kernel's parameter names.
    pub args: BTreeMap<String, Scalar>,
    /// The names of `args` in the order of the kernel's parameters (the names are those of
    /// the declaration the host code sees, which may differ from the definition's).
    #[serde(skip)]
    pub arg_order: Vec<String>,
    /// The fields of arguments passed by value as structs, by path (`p.n`, `p.inner.x`; a
    /// PyTorch packed accessor's as ATen names them, `x.sizes[0]`, `x.strides[1]`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, Scalar>,
    /// The byte offset of each of `fields` within its argument, as clang lays the struct out
    /// (where it does): a kernel reads a by-value struct's fields by offset.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub field_offsets: BTreeMap<String, u64>,
    /// The bytes from each pointer argument to the end of the device allocation it points
    /// into (`cudaMalloc`, `clCreateBuffer`), by the names of `args` (a by-value struct's
    /// pointer fields by path, as in `fields`): a number, or why it is unknown. Where the
    /// launch stands for runs on allocations of different sizes, the largest known.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffer_bytes: BTreeMap<String, Scalar>,
    /// What the host wrote into the device allocations of `buffer_bytes` before the launch
    /// (`cudaMemcpy` from host memory, `cudaMemset`), from where each argument points: the
    /// emulator's data for a kernel whose work depends on it. Left out of `--json`.
    #[serde(skip)]
    pub buffer_data: BTreeMap<String, BufferData>,
    /// How many times the program makes this launch.
    pub count: u64,
    /// Why `count` is a lower bound, where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count_note: Option<String>,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// `<<<>>>`, `cudaLaunchKernel`, `cuLaunchKernel`, `clEnqueueNDRangeKernel`, …
    pub api: String,
    /// Conditions kerncast could not decide that the launch runs under.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<String>,
    /// The calls that reach it, outermost first (`run_all (main.cu:40)`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
    /// The same calls with the file and line of each, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallSite>,
    /// The launch's place among its kernel's launches in program order (1 = first), where it
    /// is among the first few.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub order: Vec<usize>,
}

impl Launch {
    /// What of this launch is unknown, and why: `grid.x`, `block`, an argument's name.
    pub fn unknowns(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (what, dims) in [("grid", &self.grid), ("block", &self.block)] {
            for (axis, s) in ["x", "y", "z"].iter().zip(dims.iter()) {
                if let Some(r) = s.unknown_reason() {
                    out.push((format!("{what}.{axis}"), r.to_string()));
                }
            }
        }
        if let Some(r) = self.shared_bytes.unknown_reason() {
            out.push(("shared memory".into(), r.to_string()));
        }
        for (n, v) in &self.args {
            if let Some(r) = v.unknown_reason() {
                out.push((n.clone(), r.to_string()));
            }
        }
        out
    }

    pub fn dims_known(&self) -> Option<([u64; 3], [u64; 3])> {
        let g = [
            self.grid[0].as_u64()?,
            self.grid[1].as_u64()?,
            self.grid[2].as_u64()?,
        ];
        let b = [
            self.block[0].as_u64()?,
            self.block[1].as_u64()?,
            self.block[2].as_u64()?,
        ];
        Some((g, b))
    }
}

/// A call on the way to a launch: the function called, and where the call is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallSite {
    pub function: String,
    pub file: String,
    pub line: u32,
}

/// A launch written in the code that the program never made when run as read.
#[derive(Clone, Debug, Serialize)]
pub struct Unreached {
    pub kernel: Option<String>,
    /// The kernel's device symbol, where clang resolved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub file: String,
    pub line: u32,
    pub api: String,
    pub function: String,
    pub reason: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct HostReading {
    pub launches: Vec<Launch>,
    pub unreached: Vec<Unreached>,
    /// Names the launches depend on that kerncast could not know, with why; each can be given
    /// a value (`--param NAME=…`).
    pub assumptions: BTreeMap<String, String>,
    /// The given values (`Options::params`) the program read: the others name nothing it
    /// leaves unknown.
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub params_used: BTreeSet<String>,
    /// The compiler's errors (a missing header, a syntax error).
    pub diagnostics: Vec<String>,
    pub notes: Vec<String>,
    /// Files the program reads that are not where it runs (`Options::run_dir`): what it reads
    /// from them is unknown. Each with the call that reads it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub missing_inputs: BTreeMap<String, String>,
    /// Steps the interpreter spent (deterministic; the budget is in the same unit).
    pub steps: u64,
    /// Kernel programs the host carries or reads and compiles at run time (a Python script's
    /// CuPy, PyCUDA, PyOpenCL or `load_inline` sources), for the caller to lower.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub embedded: Vec<EmbeddedSource>,
    /// Every file the reading read (each unit, every file its translation unit included, the
    /// headers of a precompiled prelude it loaded), so a cache of readings can tell whether one
    /// still holds; `None` where that is not all it read (a Python host reads files as it runs).
    #[serde(skip)]
    pub inputs: Option<BTreeSet<std::path::PathBuf>>,
    /// The kernels each C, C++ or CUDA unit defines (its file as read → the kernels' names
    /// without namespace or template arguments, from the unit and every header it includes),
    /// so a caller that wants only some kernels can leave the other units unlowered. A unit
    /// parsed with its own opening includes precompiled is not listed (their declarations are
    /// not visited); `None` where the reading does not say (a Python host).
    #[serde(skip)]
    pub kernels_defined: Option<BTreeMap<std::path::PathBuf, BTreeSet<String>>>,
}

/// How a note on a statement the reading did not run ends ([`HostReading::unread_statements`]).
pub(crate) const NOT_FOUND_IN_IT: &str = "a launch in it is not found";

impl HostReading {
    /// The notes on statements kerncast did not read (an OpenMP region libclang hides, a
    /// statement it does not lower): where a launch no reading found may be.
    pub fn unread_statements(&self) -> impl Iterator<Item = &String> {
        self.notes.iter().filter(|n| n.ends_with(NOT_FOUND_IN_IT))
    }
}

/// A kernel program a host compiles at run time from a string it holds: what it is, where its
/// text comes from, and what the host asks of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmbeddedSource {
    /// The call that compiles it: `cupy.RawKernel`, `cupy.RawModule`,
    /// `pycuda.compiler.SourceModule`, `pyopencl.Program`,
    /// `torch.utils.cpp_extension.load_inline`.
    pub api: String,
    /// `cuda`, `opencl` or `c++`.
    pub language: String,
    /// The program's text, where kerncast knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Why the text is unknown, where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
    pub origin: SourceOrigin,
    /// The kernels the host asks for by name (`get_function("scale")`, `prg.vadd`).
    pub kernels: Vec<String>,
    /// Compiler options the host passes (`options=("-DREPS=3",)`, `build(options=[…])`).
    pub options: Vec<String>,
    /// Template instances to compile (CuPy's `name_expressions`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub name_expressions: Vec<String>,
    /// PyCUDA's `SourceModule` wraps the text in `extern "C" { … }` (unless
    /// `no_extern_c=True`), so its kernels keep their source names.
    pub extern_c: bool,
    /// Headers the host gives the compiler as strings (NVRTC's `headers` and
    /// `includeNames`), by the name the program includes them by.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// The program's name where the host gives one (NVRTC's `name`, by convention the file
    /// it was read from).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where the host compiles it.
    pub file: String,
    pub line: u32,
}

/// Where an embedded program's text comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SourceOrigin {
    /// A string literal of the host: the file, and the line and column of its first character
    /// of text (so line `k` of the program is line `line + k - 1` of the file).
    Literal { file: String, line: u32, col: u32 },
    /// A file the host reads (`open(path).read()`).
    File { path: String },
    /// String literals of the host joined (C's adjacent literals, a `\`-continued one, a raw
    /// string): the file, and the line of each line of the program.
    Lines { file: String, lines: Vec<u32> },
    /// Text the host computes (joined, formatted): no place in a file.
    Computed,
}

/// A unit's errors, each as [`diagnostic`] gives it; the first in a file that is not what the
/// compiler took it for says so ([`lfs_pointer_note`]).
pub(crate) fn error_diagnostics(diags: &[crate::clang::Diagnostic], out: &mut Vec<String>) {
    let mut seen = std::collections::BTreeSet::new();
    for d in diags
        .iter()
        .filter(|d| d.severity >= crate::clang::Severity::Error)
    {
        let mut msg = diagnostic(d);
        if seen.insert(d.file.as_str()) {
            if let Some(note) = lfs_pointer_note(&d.file) {
                msg.push_str(&format!(" ({note})"));
            }
        }
        out.push(msg);
    }
}

pub(crate) fn diagnostic(d: &crate::clang::Diagnostic) -> String {
    let mut msg = format!("{}:{}:{}: error: {}", d.file, d.line, d.col, d.message);
    if let Some(h) = d
        .message
        .strip_prefix('\'')
        .and_then(|m| m.split('\'').next())
    {
        if d.message.ends_with("file not found") {
            msg.push_str(&format!(" ({})", header_hint(h)));
        }
    }
    msg
}

/// What a file is when it holds a Git LFS pointer instead of its content (a clone made without
/// `git lfs`): the compiler's own message about it ("unknown type name 'version'") does not say.
pub fn lfs_pointer_note(file: &str) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 64];
    let n = std::fs::File::open(file)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    head[..n]
        .starts_with(b"version https://git-lfs.github.com/spec/")
        .then(|| {
            format!(
                "{file} {LFS_POINTER}, not the file it stands for: fetch it with `git lfs pull`"
            )
        })
}

const LFS_POINTER: &str = "is a Git LFS pointer";
const NO_PACKAGE_HINT: &str = "add the folder that has it with -I, or --compile-commands";

/// Whether a reading's diagnostic says that a file of the program's own is not there: a
/// header no known package provides, or a Git LFS pointer never fetched.
pub fn names_missing_program_file(diagnostic: &str) -> bool {
    diagnostic.contains(LFS_POINTER)
        || (diagnostic.contains("file not found") && diagnostic.contains(NO_PACKAGE_HINT))
}

/// Where a missing header comes from.
fn header_hint(h: &str) -> String {
    let from = match h {
        h if h.starts_with("cublas") => Some(
            "the CUDA 12 cuBLAS headers (nvidia-cublas-cu12, installed by `cargo xtask bootstrap`)",
        ),
        h if h.starts_with("cusparse") => {
            Some("nvidia-cusparse-cu12 (installed by `cargo xtask bootstrap`)")
        }
        h if h.starts_with("cufft") => {
            Some("nvidia-cufft-cu12 (installed by `cargo xtask bootstrap`)")
        }
        h if h.starts_with("curand") => {
            Some("nvidia-curand-cu12 (installed by `cargo xtask bootstrap`)")
        }
        h if h.starts_with("cub/") || h.starts_with("thrust/") => {
            Some("CCCL (nvidia-cuda-cccl-cu12, installed by `cargo xtask bootstrap`)")
        }
        h if h.starts_with("cuda") || h.starts_with("cooperative_groups") => {
            Some("the CUDA 12 runtime headers (`cargo xtask bootstrap`)")
        }
        "mpi.h" => Some("an MPI implementation (e.g. Debian's libopenmpi-dev)"),
        "omp.h" => Some("OpenMP (e.g. Debian's libomp-19-dev)"),
        _ => None,
    };
    match from {
        Some(f) => format!("provided by {f}"),
        None => NO_PACKAGE_HINT.to_string(),
    }
}

/// The readings of the programs one read holds (files that each define `main`) as one: their
/// launches, and the sites that none of them reached.
pub(crate) fn merge(mut readings: Vec<HostReading>) -> HostReading {
    if readings.len() <= 1 {
        return readings.pop().unwrap_or_default();
    }
    let mut out = HostReading::default();
    // a site one program never reaches and another does is reached
    let launched = |u: &Unreached| {
        readings.iter().any(|r| {
            r.launches
                .iter()
                .any(|l| (&l.file, l.line) == (&u.file, u.line))
        })
    };
    for u in readings.iter().flat_map(|r| &r.unreached) {
        let listed = out
            .unreached
            .iter()
            .any(|o| (&o.file, o.line, &o.symbol) == (&u.file, u.line, &u.symbol));
        if !listed && !launched(u) {
            out.unreached.push(u.clone());
        }
    }
    for r in readings {
        out.launches.extend(r.launches);
        for (k, v) in r.assumptions {
            out.assumptions.entry(k).or_insert(v);
        }
        out.params_used.extend(r.params_used);
        for d in r.diagnostics {
            if !out.diagnostics.contains(&d) {
                out.diagnostics.push(d);
            }
        }
        for n in r.notes {
            if !out.notes.contains(&n) {
                out.notes.push(n);
            }
        }
        for (file, by) in r.missing_inputs {
            out.missing_inputs.entry(file).or_insert(by);
        }
        out.steps += r.steps;
        out.embedded.extend(r.embedded);
    }
    out
}

pub(crate) fn build(
    ast: &ProgramAst,
    outcome: Outcome,
    diagnostics: Vec<String>,
    args_given: bool,
) -> HostReading {
    let rec = &outcome.recorder;
    let mut order: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for ids in rec.trace.values() {
        for (pos, id) in ids.iter().enumerate() {
            order.entry(*id).or_default().push(pos + 1);
        }
    }
    let mut launches: Vec<Launch> = rec
        .records
        .iter()
        .enumerate()
        .map(|(id, r)| launch(ast, r, order.get(&id).cloned().unwrap_or_default()))
        .collect();
    // a reading that stopped before the program ended counted each launch so far only
    if let Some(h) = &outcome.halted {
        for l in launches.iter_mut().filter(|l| l.count_note.is_none()) {
            l.count_note = Some(format!(
                "the reading stopped before the program ended ({h})"
            ));
        }
    }
    // a site is reached for the kernel it launched: a dispatch's other instances, written at
    // the same place, are not
    let reached: BTreeSet<(String, u32, u32, Option<String>)> = rec
        .records
        .iter()
        .map(|r| {
            let s = &r.event.site;
            (
                s.file.to_string(),
                s.line,
                s.col,
                Some(r.event.kernel.clone()),
            )
        })
        .collect();
    let reached_site = |s: &crate::clang::lower::StaticSite| {
        let at = (s.span.file.to_string(), s.span.line, s.span.col);
        match &s.kernel {
            Some(k) => reached.contains(&(at.0, at.1, at.2, Some(k.clone()))),
            None => reached
                .iter()
                .any(|r| (&r.0, r.1, r.2) == (&at.0, at.1, at.2)),
        }
    };
    // the kernel another instance launched at the same place is, where one did
    let other_instance = |s: &crate::clang::lower::StaticSite| {
        let at = (s.span.file.to_string(), s.span.line, s.span.col);
        reached
            .iter()
            .find(|r| (&r.0, r.1, r.2) == (&at.0, at.1, at.2) && r.3 != s.kernel)
            .and_then(|r| r.3.as_ref())
            .map(|k| {
                ast.kernels.get(k).map_or(k.clone(), |d| {
                    let head = d.signature.split('(').next().unwrap_or(&d.signature);
                    head.trim_start_matches("void ").to_string()
                })
            })
    };
    let mut seen = BTreeSet::new();
    let unreached = ast
        .sites
        .iter()
        .filter(|s| !reached_site(s))
        .filter(|s| {
            seen.insert((
                s.span.file.to_string(),
                s.span.line,
                s.span.col,
                s.kernel.clone(),
            ))
        })
        .map(|s| Unreached {
            kernel: s.kernel.as_ref().map(|k| {
                ast.kernels
                    .get(k)
                    .map(|d| d.signature.clone())
                    .unwrap_or_else(|| k.clone())
            }),
            symbol: s.kernel.clone(),
            file: s.span.file.to_string(),
            line: s.span.line,
            api: s.api.to_string(),
            function: s.function.to_string(),
            reason: match (&outcome.halted, other_instance(s)) {
                (Some(h), _) => format!("not reached before {h}"),
                // Destructors run when objects go out of scope, which the interpreter does
                // not follow: the launch may well run.
                (None, _) if s.function.contains("::~") => {
                    "in a destructor, which kerncast does not run".into()
                }
                (None, _) if s.kernel.is_none() && s.api.as_ref() == "<<<>>>" => {
                    "clang does not resolve which kernel it launches".into()
                }
                (None, Some(other)) => format!(
                    "never made: the program launches another instance here, `{other}` (an \
                     `AT_DISPATCH` or a template picks it by the values the program has)"
                ),
                (None, None) => format!(
                    "never reached when the program runs{}",
                    if args_given {
                        " with these arguments"
                    } else {
                        " without arguments"
                    }
                ),
            },
        })
        .collect();
    let mut notes = Vec::new();
    if !args_given {
        notes.push(
            "the program is read as run without arguments (give them with --args \"…\")".into(),
        );
    }
    if let Some(h) = &outcome.halted {
        notes.push(h.clone());
    }
    if let Some(x) = &outcome.exited_at {
        notes.push(x.clone());
    }
    notes.extend(outcome.notes.iter().cloned());
    // Keep only the assumptions the launches depend on.
    HostReading {
        launches,
        unreached,
        assumptions: outcome.assumptions,
        params_used: outcome.used,
        diagnostics,
        notes,
        missing_inputs: outcome.missing_inputs,
        steps: outcome.steps,
        embedded: Vec::new(),
        inputs: None,
        kernels_defined: None,
    }
}

/// The numeric fields of a by-value struct argument `v` named `prefix`, by path (`p.n`,
/// `p.inner.x`, an array member's elements `p.a[3]`).
fn fields_of(prefix: &str, v: &Value) -> Vec<(String, Scalar)> {
    let Value::Record(r) = v else {
        return Vec::new();
    };
    let r = r.borrow();
    let accessor = r.ty.contains("PackedTensorAccessor");
    let mut out = Vec::new();
    for (k, f) in &r.fields {
        // ATen's accessor holds `sizes_[N]` and `strides_[N]`, which the host reading keeps as
        // `size0`, `stride0`, …
        let member = match (accessor, k.strip_prefix("size"), k.strip_prefix("stride")) {
            (true, Some(i), _) if i.parse::<usize>().is_ok() => format!("sizes[{i}]"),
            (true, _, Some(i)) if i.parse::<usize>().is_ok() => format!("strides[{i}]"),
            _ => k.to_string(),
        };
        scalars_in(&format!("{prefix}.{member}"), f, &mut out);
    }
    out
}

/// The scalars of a struct member `v` at `path`: itself, its fields, or its elements.
fn scalars_in(path: &str, v: &Value, out: &mut Vec<(String, Scalar)>) {
    match v {
        Value::Record(_) => out.extend(fields_of(path, v)),
        Value::Array(_) => {
            for (i, e) in array_elements(v).iter().enumerate() {
                scalars_in(&format!("{path}[{i}]"), e, out);
            }
        }
        Value::Int(_) | Value::Float(_) | Value::Unknown(_) => {
            out.push((path.to_string(), Scalar::of(v)))
        }
        _ => {}
    }
}

/// The elements of an array member whose every element the host reading holds (a struct's
/// arrays are small: [`crate::interp::value`] keeps up to 4096 elements dense), else none.
fn array_elements(v: &Value) -> Vec<Value> {
    let Value::Array(b) = v else {
        return Vec::new();
    };
    let b = b.borrow();
    match b.len {
        Some(n) if n as usize == b.dense.len() => b.dense.clone(),
        _ => Vec::new(),
    }
}

/// The byte offsets of the scalar fields of a record `v` named `prefix` that starts `base`
/// bytes into its argument, by the paths [`fields_of`] gives them, where clang's layout of the
/// program's own record types, or of the library records kernels take, says.
fn offsets_of(ast: &ProgramAst, prefix: &str, v: &Value, base: u64) -> Vec<(String, u64)> {
    let Value::Record(r) = v else {
        return Vec::new();
    };
    let r = r.borrow();
    let Some(layout) = ast.record_layout(&r.ty) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for field in layout.iter() {
        let (Some(off), Some(f)) = (field.offset, r.fields.get(&field.name)) else {
            continue;
        };
        let path = format!("{prefix}.{}", field.name);
        offsets_in(ast, &path, f, &field.ty, base + off, &mut out);
    }
    out
}

/// The byte offsets of the scalars of a struct member `v` of type `ty` at byte `at`, as
/// [`scalars_in`] names them.
fn offsets_in(
    ast: &ProgramAst,
    path: &str,
    v: &Value,
    ty: &Ty,
    at: u64,
    out: &mut Vec<(String, u64)>,
) {
    match (v, ty) {
        (Value::Record(_), _) => out.extend(offsets_of(ast, path, v, at)),
        (Value::Array(_), Ty::Array(elem, _)) => {
            let Some(size) = elem.bytes() else { return };
            for (i, e) in array_elements(v).iter().enumerate() {
                offsets_in(
                    ast,
                    &format!("{path}[{i}]"),
                    e,
                    elem,
                    at + i as u64 * size,
                    out,
                );
            }
        }
        (Value::Int(_) | Value::Float(_) | Value::Unknown(_), _) => {
            out.push((path.to_string(), at))
        }
        _ => {}
    }
}

/// The device allocations an argument `v` named `path` points into, with their bytes from
/// where it points: the argument itself, or the pointer fields of a by-value struct.
fn buffers_of(path: String, v: &Value) -> Vec<(String, Scalar)> {
    device_pointers(path, v)
        .into_iter()
        .map(|(path, d)| (path, Scalar::of(&d.left)))
        .collect()
}

/// The pointer arguments (and by-value structs' pointer fields) whose allocations hold bytes
/// the host wrote, with them.
fn data_of(path: String, v: &Value) -> Vec<(String, BufferData)> {
    device_pointers(path, v)
        .into_iter()
        .filter_map(|(path, d)| {
            let c = d.contents().ok()?;
            Some((
                path,
                BufferData {
                    bytes: c.bytes.to_vec(),
                    drawn: c.drawn.map(|d| (*d).clone()),
                    after_a_kernel: c.launched,
                    zeros_for: c.zeros_for.map(|w| w.to_string()),
                },
            ))
        })
        .collect()
}

fn device_pointers(path: String, v: &Value) -> Vec<(String, DevicePtr)> {
    match v {
        Value::Ptr(Ptr::Device(d)) => vec![(path, d.clone())],
        Value::Record(r) => r
            .borrow()
            .fields
            .iter()
            .flat_map(|(k, f)| device_pointers(format!("{path}.{k}"), f))
            .collect(),
        _ => Vec::new(),
    }
}

fn launch(ast: &ProgramAst, r: &Record, order: Vec<usize>) -> Launch {
    let e = &r.event;
    let (kernel, name) = match ast.kernels.get(&e.kernel) {
        Some(k) => (k.signature.clone(), k.name.clone()),
        None => (e.kernel.clone(), e.kernel.clone()),
    };
    let dim = |v: &[Value; 3]| [Scalar::of(&v[0]), Scalar::of(&v[1]), Scalar::of(&v[2])];
    Launch {
        kernel,
        name,
        symbol: e.kernel.clone(),
        by_name: e.by_name,
        grid: dim(&e.grid),
        block: dim(&e.block),
        shared_bytes: Scalar::of(&e.shared_bytes),
        args: e
            .args
            .iter()
            .map(|(n, v)| (n.to_string(), Scalar::of(v)))
            .collect(),
        arg_order: e.args.iter().map(|(n, _)| n.to_string()).collect(),
        fields: e.args.iter().flat_map(|(n, v)| fields_of(n, v)).collect(),
        field_offsets: e
            .args
            .iter()
            .flat_map(|(n, v)| offsets_of(ast, n, v, 0))
            .collect(),
        buffer_bytes: e
            .args
            .iter()
            .flat_map(|(n, v)| buffers_of(n.to_string(), v))
            .collect(),
        buffer_data: e
            .args
            .iter()
            .flat_map(|(n, v)| data_of(n.to_string(), v))
            .collect(),
        count: r.count,
        count_note: r.partial.as_ref().map(|p| p.to_string()),
        file: e.site.file.to_string(),
        line: e.site.line,
        col: e.site.col,
        api: e.api.to_string(),
        conditions: e.guards.iter().map(|g| g.to_string()).collect(),
        via: e
            .stack
            .iter()
            .skip(1)
            .map(|(f, at)| format!("{f} (line {})", at.line))
            .collect(),
        calls: e
            .stack
            .iter()
            .skip(1)
            .map(|(f, at)| CallSite {
                function: f.to_string(),
                file: at.file.to_string(),
                line: at.line,
            })
            .collect(),
        order,
    }
}

#[cfg(test)]
mod tests {
    use super::Scalar;

    #[test]
    fn an_unknown_value_is_named_where_the_host_stored_it_under_a_name() {
        let named = Scalar::Unknown("`n`: read from a file".into());
        assert_eq!(named.unknown_name(), Some("n"));
        let field = Scalar::Unknown("`x.sizes[0]`: a tensor's size".into());
        assert_eq!(field.unknown_name(), Some("x.sizes[0]"));
        let unnamed = Scalar::Unknown("written by `cudaFoo`".into());
        assert_eq!(unnamed.unknown_name(), None);
        assert_eq!(Scalar::Int(3).unknown_name(), None);
    }
}
