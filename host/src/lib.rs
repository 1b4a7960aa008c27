//! kerncast's host-code reading: a program (its source files, the flags each is built with,
//! and the command line it runs with) in, typed kernel launches out.
//!
//! C, C++ and CUDA host code is parsed by libclang 19 with the program's real flags
//! ([`compdb`]), lowered to a small tree ([`ast`], [`clang::lower`]) and run by an abstract
//! interpreter ([`interp`]) that computes the values reaching each launch as C computes them.
//! The kernel a launch runs is the declaration clang resolved (namespace, overload, template
//! instance). What cannot be known (data read at run time) is a named assumption with its
//! reason, never a guess.

pub mod ast;
pub mod clang;
pub mod compdb;
mod embedded_c;
mod heap;
pub mod interp;
mod output;
mod python;
pub mod torch_api;

pub use python::gpu_scripts;

pub use compdb::{Toolchain, UnitSpec};
pub use interp::{Budget, DeviceProps, OccupancyOracle};
pub use output::{
    CallSite, EmbeddedSource, HostReading, Launch, Scalar, SourceOrigin, Unreached,
    LOCAL_SIZE_NAMES,
};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A program to read.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub units: Vec<UnitSpec>,
    /// The command line it runs with, without `argv[0]`; `None`: run without arguments.
    pub args: Option<Vec<String>>,
}

/// How to read it.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Values for named assumptions (`n=4096`).
    pub params: BTreeMap<String, f64>,
    pub device: DeviceProps,
    pub budget: Budget,
    pub toolchain: Toolchain,
    /// Answers to the CUDA occupancy API for the program's kernels on the device; without
    /// them, what the host code sizes with it is an assumption named after its variable.
    pub occupancy: Option<std::sync::Arc<dyn OccupancyOracle>>,
    /// Where no unit defines `main`, also read the C, C++ and CUDA sources beside them (a
    /// compilation database that lists a program's CUDA files only). Off for files a user
    /// names: a folder of many programs would be parsed whole for each of its files.
    pub find_main_beside: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    CompDb(#[from] compdb::CompDbError),
    #[error("{0}")]
    Parse(String),
}

impl Program {
    /// Source files with the same flags (`-I`, `-D`, `-std`), as from the command line or
    /// `kerncast.toml`.
    pub fn from_files(files: &[PathBuf], flags: &[String], tools: &Toolchain) -> Program {
        let units = files
            .iter()
            .map(|f| {
                let file = std::fs::canonicalize(f).unwrap_or_else(|_| f.clone());
                let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                let mut words = vec!["clang++".to_string()];
                words.extend(flags.iter().cloned());
                UnitSpec {
                    args: compdb::clang_args(&words, &file, &dir, tools),
                    file,
                    program: None,
                }
            })
            .collect();
        Program { units, args: None }
    }
}

/// Reads a program's host code: every unit parsed, `main` (or the launchers nothing calls)
/// interpreted, launches returned with what could not be resolved and why.
pub fn read(program: &Program, opts: &Options) -> Result<HostReading, HostError> {
    // The interpreter recurses on the program's nesting (bounded by the lowering's depth
    // limit and the call-depth budget); give it a stack that holds the deepest allowed.
    let program = program.clone();
    let opts = opts.clone();
    let (reading, left) = std::thread::Builder::new()
        .name("kerncast-host".into())
        .stack_size(256 << 20)
        .spawn(move || {
            // What the interpreters made is emptied when the reading ends, which frees the
            // cycles the program made among it. What it returns cannot hold any of it: a
            // reading crosses threads here, and the interpreters' values are not `Send`.
            let reading = {
                let _heap = heap::Reading::open();
                read_on_this_thread(&program, &opts)
            };
            (reading, heap::left_alive())
        })
        .map_err(|e| HostError::Parse(format!("cannot start the host reader: {e}")))?
        .join()
        .map_err(|_| HostError::Parse("the host reader stopped unexpectedly".into()))?;
    LEFT_BY_LAST_READ.with(|l| l.set(left));
    reading
}

thread_local! {
    static LEFT_BY_LAST_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many of the containers the last [`read`] on this thread made (variables' cells,
/// records, buffers, frames; Python lists, dicts, objects, scopes) were still alive when it
/// ended: zero, unless something holds one past the reading (a leak). For tests.
#[doc(hidden)]
pub fn live_containers() -> usize {
    LEFT_BY_LAST_READ.with(std::cell::Cell::get)
}

fn read_on_this_thread(program: &Program, opts: &Options) -> Result<HostReading, HostError> {
    // Python hosts (`.py` units) are read by their own interpreter, which reads the C++ of the
    // PyTorch extensions they build through this crate's C side.
    if program.units.iter().any(|u| python::is_python(&u.file)) {
        return python::read(program, opts);
    }
    let index = clang::Index::new();
    let mut diagnostics = Vec::new();
    let own_dirs: Vec<PathBuf> = program
        .units
        .iter()
        .filter_map(|u| u.file.parent().map(Path::to_path_buf))
        .collect();
    let own_roots = own_roots(program);
    let own_file = |f: &str| {
        !f.is_empty()
            && (own_dirs.iter().any(|d| Path::new(f).starts_with(d))
                || own_roots.iter().any(|d| Path::new(f).starts_with(d)))
    };
    // each unit parsed, with whether it defines `main` (and the PyTorch declarations it was
    // parsed against, kept while it is)
    let mut parsed = Vec::new();
    // the kernel programs in the units' string literals
    let mut literals = Vec::new();
    let mut units = program.units.clone();
    let mut i = 0;
    while i < units.len() {
        let unit = &units[i];
        i += 1;
        // an extension's `.cu` read on its own parses against kerncast's PyTorch declarations
        let text = std::fs::read_to_string(&unit.file).unwrap_or_default();
        let shim = python::extension::torch_shim(&text, &unit.args);
        let mut args = unit.args.clone();
        args.extend(shim.iter().flat_map(|s| s.args.iter().cloned()));
        let tu = index.parse(&unit.file, &args).map_err(HostError::Parse)?;
        for d in tu.diagnostics() {
            if d.severity >= clang::Severity::Error {
                diagnostics.push(output::diagnostic(&d));
            }
        }
        let mut alone = clang::lower::ProgramAst::default();
        alone.add_unit(&tu, &own_file);
        literals.extend(embedded_c::programs(
            &unit.file.to_string_lossy(),
            &tu.string_literals(&unit.file),
        ));
        parsed.push((tu, has_main(&alone), shim));
        // A program whose listed units have no `main` (a compilation database of its CUDA
        // files only) has it in a source beside them: read those too, with the same flags.
        if opts.find_main_beside
            && i == units.len()
            && i == program.units.len()
            && !parsed.iter().any(|p| p.1)
        {
            units.extend(siblings(program, &opts.toolchain));
        }
    }
    // Files that each define `main` are programs of their own, each with the files that do
    // not (two test drivers beside one kernel file): each is run, and their launches listed.
    let mains: Vec<usize> = (0..parsed.len()).filter(|&i| parsed[i].1).collect();
    let groups: Vec<Vec<usize>> = match mains.len() {
        0 | 1 => vec![(0..parsed.len()).collect()],
        _ => mains
            .iter()
            .map(|&m| {
                (0..parsed.len())
                    .filter(|&i| i == m || !parsed[i].1)
                    .collect()
            })
            .collect(),
    };
    let mut argv = vec!["./main".to_string()];
    argv.extend(program.args.clone().unwrap_or_default());
    let run = interp::RunOptions {
        argv,
        params: opts.params.clone(),
        device: opts.device.clone(),
        budget: opts.budget.clone(),
        occupancy: opts.occupancy.clone(),
    };
    let mut compiled = Vec::new();
    let readings: Vec<HostReading> = groups
        .iter()
        .map(|g| {
            let mut ast = clang::lower::ProgramAst::default();
            for &i in g {
                ast.add_unit(&parsed[i].0, &own_file);
            }
            let entries = entries(&ast);
            let mut outcome = interp::Interp::new(&ast, &run).run(&entries);
            compiled.append(&mut outcome.programs);
            output::build(&ast, outcome, diagnostics.clone(), program.args.is_some())
        })
        .collect();
    let mut reading = output::merge(readings);
    reading.embedded = embedded_c::sources(&literals, &compiled);
    Ok(reading)
}

fn has_main(ast: &clang::lower::ProgramAst) -> bool {
    ast.roots
        .iter()
        .any(|k| ast.functions.get(k).is_some_and(|f| &*f.name == "main"))
}

/// The C, C++ and CUDA sources in the folders of a program's units that are not units
/// themselves, each with the `-I`/`-D`/`-std` flags of the first unit in its folder.
fn siblings(program: &Program, tools: &Toolchain) -> Vec<UnitSpec> {
    const SOURCES: &[&str] = &["c", "cc", "cpp", "cxx", "cu"];
    let mut out = Vec::new();
    let mut seen: Vec<PathBuf> = program.units.iter().map(|u| u.file.clone()).collect();
    for u in &program.units {
        let Some(dir) = u.file.parent() else { continue };
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| SOURCES.contains(&e.to_string_lossy().as_ref()))
            })
            .collect();
        files.sort();
        let mut words = vec!["clang++".to_string()];
        let mut it = u.args.iter();
        while let Some(a) = it.next() {
            if a.starts_with("-I")
                || a.starts_with("-D")
                || a.starts_with("-U")
                || a.starts_with("-std=")
            {
                words.push(a.clone());
            }
            if a == "-include" || a == "-isystem" {
                if let Some(v) = it.next() {
                    words.push(a.clone());
                    words.push(v.clone());
                }
            }
        }
        for f in files {
            if seen.contains(&f) {
                continue;
            }
            seen.push(f.clone());
            out.push(UnitSpec {
                args: compdb::clang_args(&words, &f, dir, tools),
                file: f,
                program: u.program.clone(),
            });
        }
    }
    out
}

/// Folders whose files are the program's own: those of its units, and the include folders
/// (`-I`) its flags name that are not system folders.
fn own_roots(program: &Program) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for u in &program.units {
        let mut it = u.args.iter();
        while let Some(a) = it.next() {
            let dir = if a == "-I" || a == "-iquote" {
                it.next().cloned()
            } else {
                a.strip_prefix("-I").map(String::from)
            };
            if let Some(d) = dir {
                if !d.is_empty() && !d.starts_with("/usr") {
                    out.push(PathBuf::from(d));
                }
            }
        }
    }
    out
}

/// Where interpretation starts: `main` where the program has one; else each function no
/// other calls (a library of launchers), in source order.
fn entries(ast: &clang::lower::ProgramAst) -> Vec<ast::DeclKey> {
    let mains: Vec<ast::DeclKey> = ast
        .roots
        .iter()
        .copied()
        .filter(|k| ast.functions.get(k).is_some_and(|f| &*f.name == "main"))
        .collect();
    if !mains.is_empty() {
        return mains;
    }
    // and the functions an extension binds for Python, which its script calls
    let bound = interp::bound_functions(ast);
    ast.roots
        .iter()
        .copied()
        .filter(|k| !ast.called.contains(k) || bound.contains(k))
        .collect()
}
