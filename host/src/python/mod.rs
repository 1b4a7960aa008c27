//! Python hosts: scripts that compile CUDA or OpenCL at run time and launch it (CuPy, PyCUDA,
//! PyOpenCL), or that build a PyTorch C++/CUDA extension and call it with tensors.
//!
//! # The parser: ruff's
//!
//! Scripts are parsed by `ruff_python_parser`, the parser of the ruff linter and the ty type
//! checker, published on crates.io as an internal crate of ruff (pinned exactly, as it has no
//! semver promise). It was chosen over the two alternatives that resolve from crates.io here:
//! - `rustpython-parser` 0.4 is no longer maintained (RustPython itself moved to ruff's
//!   parser), stops at Python 3.11's grammar, has no error recovery, and its LALRPOP-generated
//!   parser is slow to build;
//! - `tree-sitter-python` gives a concrete syntax tree of untyped nodes told apart by kind
//!   strings, which an interpreter would have to re-check at every step.
//!
//! ruff's parser gives a typed AST (`Stmt`/`Expr` enums whose nodes carry byte ranges) of
//! current Python (3.14's grammar), is hand-written, fast, and recovers from syntax errors: a
//! script with an error is still read where it parses, and the error is listed. Its price is a
//! newer Rust (1.95) than the workspace's stated minimum and about 70 small dependencies.
//!
//! # What is read
//!
//! Each `.py` unit is run as `__main__` by an abstract interpreter over that AST
//! ([`interp`]), with `sys.argv` from the program's command line; a `setup.py` among them (or
//! beside them) runs first, so that the extension modules it builds can be imported. Modules
//! of the program's folders that a script imports run once, as Python runs them. Launches are
//! CuPy's, PyCUDA's and PyOpenCL's ([`gpu`]) and those the C++ of PyTorch extensions makes when
//! the script calls it ([`extension`]). Kernel programs compiled at run time are listed as
//! embedded sources ([`crate::output::EmbeddedSource`]), with where their text comes from.
//!
//! The modules are layers, each importing only those below it: the values (`value`, `script`,
//! and `ops`, Python's operators on values); the interpreter's state (`state`); the library
//! models ([`gpu`], then [`extension`], then `builtins`); the evaluator ([`interp`]); this
//! module's [`read`]. The models run script code back through methods of the interpreter,
//! which need no import.

mod builtins;
pub mod extension;
mod gpu;
pub mod interp;
mod ops;
mod script;
mod select;
mod state;
pub mod value;

pub use select::gpu_scripts;

use crate::compdb::UnitSpec;
use crate::output::HostReading;
use crate::program::{HostError, Options, Program};
use script::Script;
use std::path::{Path, PathBuf};

/// Whether a file is a Python host.
pub fn is_python(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "py")
}

/// Other Python files in the folders of the program's scripts, which they may import.
fn siblings(scripts: &[PathBuf]) -> Vec<PathBuf> {
    const MAX: usize = 200;
    let mut out = Vec::new();
    for s in scripts {
        let Some(dir) = s.parent() else { continue };
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| is_python(p) && !scripts.contains(p))
            .collect();
        files.sort();
        for f in files {
            if !out.contains(&f) && out.len() < MAX {
                out.push(f);
            }
        }
    }
    out
}

fn is_setup(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "setup.py")
}

/// Reads a program whose units include Python scripts: each script run, the program's other
/// (C, C++, CUDA) units read as the C reader reads them, the two readings joined.
pub fn read(program: &Program, opts: &Options) -> Result<HostReading, HostError> {
    let mut diagnostics = Vec::new();
    let units: Vec<PathBuf> = program
        .units
        .iter()
        .filter(|u| is_python(&u.file))
        .map(|u| u.file.clone())
        .collect();
    let mut scripts = Vec::new();
    for p in &units {
        if let Some(s) = Script::load(p, &p.to_string_lossy(), &mut diagnostics) {
            scripts.push(s);
        }
    }
    let hosts = scripts.len();
    for p in siblings(&units) {
        let mut quiet = Vec::new();
        if let Some(s) = Script::load(&p, &p.to_string_lossy(), &mut quiet) {
            scripts.push(s);
        }
    }
    let args = program.args.clone();
    let mut it = state::Interp::new(&scripts, opts, args.clone());
    it.diagnostics = diagnostics;
    // A setup.py first: the extensions it builds are what scripts import.
    let mut halted = None;
    for (i, script) in scripts.iter().enumerate() {
        if is_setup(&script.path) {
            it.argv = vec![
                script.path.to_string_lossy().into_owned(),
                "build_ext".into(),
            ];
            if let Err(state::Halt::Budget(w)) = it.run_module(i, "__main__") {
                halted = Some(w);
            }
        }
    }
    for (i, script) in scripts.iter().enumerate().take(hosts) {
        if is_setup(&script.path) || halted.is_some() {
            continue;
        }
        it.argv = std::iter::once(script.path.to_string_lossy().into_owned())
            .chain(args.clone().unwrap_or_default())
            .collect();
        it.argv_list = None;
        if let Err(state::Halt::Budget(w)) = it.run_module(i, "__main__") {
            halted = Some(w);
        }
    }
    let ast = extension::merged(&it.extensions);
    let outcome = crate::interp::Outcome {
        recorder: std::mem::take(&mut it.recorder),
        halted,
        assumptions: std::mem::take(&mut it.assumptions),
        used: std::mem::take(&mut it.used),
        notes: Vec::new(),
        missing_inputs: Default::default(),
        programs: Vec::new(),
        steps: it.steps,
        exited_at: None,
        undefined_calls: Default::default(),
    };
    let mut reading = crate::output::build(
        &ast,
        outcome,
        std::mem::take(&mut it.diagnostics),
        args.is_some(),
    );
    reading.embedded = std::mem::take(&mut it.embedded);
    reading.notes.extend(std::mem::take(&mut it.notes));
    let consumed = std::mem::take(&mut it.extensions.files);
    drop(it);
    // The program's C, C++ and CUDA units are read as the C reader reads them.
    let others: Vec<UnitSpec> = program
        .units
        .iter()
        .filter(|u| {
            !is_python(&u.file)
                && !consumed
                    .contains(&std::fs::canonicalize(&u.file).unwrap_or_else(|_| u.file.clone()))
        })
        .cloned()
        .collect();
    if !others.is_empty() {
        let c = crate::c_host::read(
            &Program {
                units: others,
                args: program.args.clone(),
            },
            opts,
        )?;
        reading.launches.extend(c.launches);
        reading.unreached.extend(c.unreached);
        reading.assumptions.extend(c.assumptions);
        reading.params_used.extend(c.params_used);
        reading.embedded.extend(c.embedded);
        reading.diagnostics.extend(c.diagnostics);
        for n in c.notes {
            if !reading.notes.contains(&n) {
                reading.notes.push(n);
            }
        }
        reading.steps += c.steps;
    }
    Ok(reading)
}
