//! Reading C, C++ and CUDA hosts: every unit parsed with its flags, `main` (or the
//! launchers nothing calls) interpreted, the launches of each program among the units listed.

use crate::compdb::{self, Toolchain, UnitSpec};
use crate::output::HostReading;
use crate::program::{HostError, Options, Program};
use crate::python::extension::torch_shim;
use crate::{ast, clang, embedded_c, interp, output};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Reads a program of C, C++ and CUDA units.
pub(crate) fn read(program: &Program, opts: &Options) -> Result<HostReading, HostError> {
    let index = clang::Index::new().map_err(HostError::Parse)?;
    let preludes = opts
        .prelude_cache
        .clone()
        .map(clang::prelude::PreludeCache::new);
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
    // every file the units read, for the caller to tell whether a reading still holds
    let mut read_files = BTreeSet::new();
    // the kernels each unit defines, for a caller that lowers only the units it needs
    let mut kernels_defined = BTreeMap::new();
    let mut i = 0;
    // whether the sources beside the units were searched for the definitions of functions the
    // program calls and the units do not define
    let mut linked_beside = false;
    loop {
        while i < units.len() {
            let unit = &units[i];
            i += 1;
            // an extension's `.cu` read on its own parses against kerncast's PyTorch declarations
            let text = std::fs::read_to_string(&unit.file).unwrap_or_default();
            let shim = torch_shim(&text, &unit.args);
            let mut args = unit.args.clone();
            args.extend(shim.iter().flat_map(|s| s.args.iter().cloned()));
            let clang::prelude::Parsed {
                unit: tu,
                inputs,
                precompiled_kernels,
            } = clang::prelude::parse(&index, &unit.file, &args, preludes.as_ref())
                .map_err(HostError::Parse)?;
            read_files.extend(inputs.into_iter().map(PathBuf::from));
            // the kernels of a header loaded precompiled are not among the unit's own cursors:
            // they come from the precompiled file's list, and where it has none, not known
            if let Some(mut kernels) = precompiled_kernels {
                kernels.extend(tu.kernel_definitions());
                kernels_defined.insert(unit.file.clone(), kernels);
            }
            output::error_diagnostics(&tu.diagnostics(), &mut diagnostics);
            let mut alone = clang::lower::ProgramAst::default();
            alone.add_unit(&tu, &own_file);
            literals.extend(embedded_c::programs(
                &unit.file.to_string_lossy(),
                &tu.string_literals(&unit.file),
            ));
            parsed.push((tu, has_main(&alone), shim));
            // A program whose listed units have no `main` (a compilation database of its CUDA
            // files only) has it in a source beside them: read those too, with the same flags.
            // Only where one of them defines `main`: a folder of kernel files has none, and
            // reading each whole would cost a full parse apiece for nothing.
            if opts.find_main_beside
                && i == units.len()
                && i == program.units.len()
                && !parsed.iter().any(|p| p.1)
            {
                let beside = siblings(program, &opts.toolchain);
                if beside
                    .iter()
                    .any(|u| definitions(&index, u).contains("main"))
                {
                    units.extend(beside);
                }
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
            run_dir: opts.run_dir.clone(),
        };
        let mut compiled = Vec::new();
        let mut undefined = BTreeSet::new();
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
                undefined.append(&mut outcome.undefined_calls);
                output::build(&ast, outcome, diagnostics.clone(), program.args.is_some())
            })
            .collect();
        // The program's own functions it calls without a body in the units (a `utils.cpp` its
        // build compiles and links, which the compilation database or the command line left
        // out) are looked for beside the units, as the link would find them; the sources that
        // define one (and no `main`) are read, and the program read again, once.
        if opts.find_main_beside && !linked_beside && !undefined.is_empty() {
            linked_beside = true;
            let defining: Vec<UnitSpec> = siblings(program, &opts.toolchain)
                .into_iter()
                .filter(|u| !units.iter().any(|x| x.file == u.file))
                .filter(|u| {
                    let defined = definitions(&index, u);
                    !defined.contains("main")
                        && undefined
                            .iter()
                            .any(|f| defined.contains(f.rsplit("::").next().unwrap_or(f)))
                })
                .collect();
            if !defining.is_empty() {
                units.extend(defining);
                continue;
            }
        }
        let mut reading = output::merge(readings);
        reading.embedded = embedded_c::sources(&literals, &compiled);
        reading.inputs = Some(read_files);
        reading.kernels_defined = Some(kernels_defined);
        return Ok(reading);
    }
}

/// The free functions a source defines (`main` among them), by name, from a parse of the
/// file alone (its `#include`s not followed): cheap beside a whole parse, and a definition
/// needs no header to be seen as one.
fn definitions(index: &clang::Index, u: &UnitSpec) -> BTreeSet<String> {
    use clang_sys::{
        CXCursor_CompoundStmt, CXCursor_FunctionDecl, CXCursor_LinkageSpec, CXCursor_Namespace,
    };
    let mut out = BTreeSet::new();
    let Ok(text) = std::fs::read_to_string(&u.file) else {
        return out;
    };
    let Ok(tu) = index.parse_single_file(&u.file, &u.args, &text) else {
        return out;
    };
    let mut top = tu.cursor().children();
    while let Some(c) = top.pop() {
        let kind = c.kind();
        if kind == CXCursor_LinkageSpec || kind == CXCursor_Namespace {
            // `extern "C" { int main() … }`, `namespace util { int f() … }`
            top.extend(c.children());
        } else if kind == CXCursor_FunctionDecl
            && c.children()
                .iter()
                .any(|b| b.kind() == CXCursor_CompoundStmt)
        {
            out.insert(c.spelling());
        }
    }
    out
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
