//! PyTorch C++/CUDA extensions a Python host builds and calls:
//!
//! - `torch.utils.cpp_extension.load_inline(name, cpp_sources, cuda_sources, functions=…)`:
//!   the strings are written to a temporary folder and parsed there by libclang (a source
//!   that is a literal of the script has its launches placed back at the script's lines);
//! - `torch.utils.cpp_extension.load(name, sources=[…])`: the files, found from the script's
//!   folder;
//! - a module a `setup.py` builds with `CUDAExtension(name, sources)` and the script imports.
//!
//! The C++ is parsed with kerncast's declarations of the extension API
//! ([`crate::torch_api`], given with `-include`, and a header of that name for
//! each `torch/…`, `ATen/…`, `c10/…` or `pybind11/…` header a source includes), with the
//! flags `torch.utils.cpp_extension` gives nvcc. A call of the module's function
//! (`ext.forward(x, w)`) runs the C++ function it binds (`m.def("forward", &lltm_forward)`,
//! or `functions=` of `load_inline`) in the C interpreter ([`crate::interp::call_named`]),
//! its tensors passed with their shapes and dtypes ([`crate::interp::torch::Tensor`]); the
//! launches it makes count where and as often as the script makes the call.

use super::state::{Args, Builder, Built, Exec, Interp, Remap};
use super::value::*;
use crate::ast::{Callee, Expr as CExpr, ExprKind, Span, Stmt as CStmt, StmtKind};
use crate::clang::lower::ProgramAst;
use crate::heap;
use crate::heap::Registry;
use crate::interp::torch::Tensor;
use crate::interp::value::{Buffer, Handle, Value};
use crate::torch_api::torch_includes;
use ruff_python_ast::Expr;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// The flags `torch.utils.cpp_extension` gives nvcc for every extension (its
/// `COMMON_NVCC_FLAGS`), as far as they change what host code parses to.
const NVCC_FLAGS: [&str; 4] = [
    "-D__CUDA_NO_HALF_OPERATORS__",
    "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-D__CUDA_NO_HALF2_OPERATORS__",
];

fn source_text(v: &Val<'_>) -> Option<String> {
    match v {
        Val::Str(s) => Some(s.to_string()),
        Val::None => Some(String::new()),
        other => {
            let items = other.elements()?;
            let parts: Option<Vec<String>> =
                items.iter().map(|x| x.as_str().map(String::from)).collect();
            parts.map(|p| p.join("\n"))
        }
    }
}

fn strings(v: &Val<'_>) -> Vec<String> {
    match v {
        Val::Str(s) => vec![s.to_string()],
        other => other
            .elements()
            .map(|e| {
                e.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The calls of `torch.utils.cpp_extension` and `setuptools`'s extension classes.
pub fn call_lib<'a>(
    it: &mut Interp<'a>,
    path: &str,
    args: &Args<'a>,
    at: &'a Expr,
) -> Exec<Option<Val<'a>>> {
    if !path.starts_with("torch.utils.cpp_extension.") && !path.starts_with("setuptools") {
        return Ok(None);
    }
    let name = path.rsplit('.').next().unwrap_or(path);
    let span = it.span(at);
    Ok(Some(match name {
        "load_inline" => load_inline(it, args, at, &span),
        "load" => {
            let ext = args
                .get(0, "name")
                .and_then(|n| n.as_str().map(String::from))
                .unwrap_or_else(|| "extension".into());
            let sources = args
                .get(1, "sources")
                .map(|s| strings(&s))
                .unwrap_or_default();
            let includes = args
                .kw("extra_include_paths")
                .map(|s| strings(&s))
                .unwrap_or_default();
            let dir = it.scripts[it.module]
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let sources: Vec<Rc<str>> = sources.iter().map(|s| Rc::from(s.as_str())).collect();
            build_files(it, &ext, &sources, &dir, &includes, &span)
        }
        "CUDAExtension" | "CppExtension" | "Extension" => {
            let ext = args
                .get(0, "name")
                .and_then(|n| n.as_str().map(String::from))
                .unwrap_or_default();
            let sources = args
                .get(1, "sources")
                .map(|s| strings(&s))
                .unwrap_or_default();
            Val::obj(
                &it.heap,
                Obj::ExtensionSpec {
                    name: Rc::from(ext),
                    sources: sources.iter().map(|s| Rc::from(s.as_str())).collect(),
                },
            )
        }
        "BuildExtension" | "include_paths" | "library_paths" => {
            Val::obj(&it.heap, Obj::Opaque(Rc::from(path)))
        }
        _ => return Ok(None),
    }))
}

/// `setup(…, ext_modules=[CUDAExtension(name, sources), …])`: the modules scripts may import.
pub fn setup<'a>(it: &mut Interp<'a>, args: &Args<'a>, _at: &'a Expr) {
    let dir = it.scripts[it.module]
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let Some(mods) = args.kw("ext_modules").and_then(|m| m.elements()) else {
        return;
    };
    for m in mods {
        if let Val::Obj(o) = &m {
            if let Obj::ExtensionSpec { name, sources } = &**o {
                it.setup_extensions
                    .insert(name.to_string(), (sources.clone(), dir.clone()));
            }
        }
    }
}

/// A folder for one extension's files, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kerncast-host-{}-{n}", std::process::id()));
        std::fs::create_dir_all(dir.join("src"))?;
        std::fs::create_dir_all(dir.join("api"))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the API declarations and a header for each PyTorch header the texts include, and
/// for the ones every extension may use without naming them.
fn write_api(dir: &Path, texts: &[&str]) -> std::io::Result<PathBuf> {
    let mut names: Vec<String> = ["torch/extension.h", "torch/types.h", "torch/torch.h"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for n in torch_includes(texts.iter().copied()) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    crate::torch_api::write_headers(&dir.join("api"), &names)
}

fn clang_words(ext: &str, api_header: &Path, includes: &[PathBuf]) -> Vec<String> {
    let mut w = vec![
        "clang++".to_string(),
        "-std=c++17".to_string(),
        format!("-DTORCH_EXTENSION_NAME={ext}"),
        "-include".to_string(),
        api_header.to_string_lossy().into_owned(),
    ];
    w.extend(NVCC_FLAGS.iter().map(|s| s.to_string()));
    for i in includes {
        w.push(format!("-I{}", i.display()));
    }
    if let Some(api_dir) = api_header.parent() {
        w.push(format!("-I{}", api_dir.display()));
    }
    w
}

/// kerncast's declarations of the PyTorch API for a C++ or CUDA unit of a program that
/// includes PyTorch's headers where its flags name no folder that has them (an extension's
/// `.cu` read on its own): the folder, kept while the unit is parsed, and the flags that use it.
pub(crate) struct TorchShim {
    _dir: TempDir,
    pub args: Vec<String>,
}

/// The [`TorchShim`] for a unit of `text` built with `args`, where it needs one.
pub(crate) fn torch_shim(text: &str, args: &[String]) -> Option<TorchShim> {
    if torch_includes([text]).is_empty() {
        return None;
    }
    let real = args.iter().any(|a| {
        a.strip_prefix("-I")
            .is_some_and(|d| Path::new(d).join("torch/extension.h").is_file())
    });
    if real {
        return None;
    }
    let dir = TempDir::new().ok()?;
    let header = write_api(&dir.0, &[text]).ok()?;
    let mut shim = vec![
        "-include".to_string(),
        header.to_string_lossy().into_owned(),
    ];
    shim.extend(NVCC_FLAGS.iter().map(|s| s.to_string()));
    if let Some(api) = header.parent() {
        shim.push(format!("-I{}", api.display()));
    }
    Some(TorchShim {
        _dir: dir,
        args: shim,
    })
}

/// Parses the units into one program of their own; the diagnostics go to the reading.
fn parse_units(
    it: &mut Interp<'_>,
    units: &[(PathBuf, Vec<String>)],
    own: &[PathBuf],
) -> ProgramAst {
    let mut ast = ProgramAst::default();
    let index = match crate::clang::Index::new() {
        Ok(index) => index,
        Err(e) => {
            it.diagnostics.push(e);
            return ast;
        }
    };
    let own_file = |f: &str| !f.is_empty() && own.iter().any(|d| Path::new(f).starts_with(d));
    for (file, args) in units {
        match index.parse(file, args) {
            Ok(tu) => {
                crate::output::error_diagnostics(&tu.diagnostics(), &mut it.diagnostics);
                ast.add_unit(&tu, &own_file);
            }
            Err(e) => it.diagnostics.push(e),
        }
    }
    ast
}

fn load_inline<'a>(it: &mut Interp<'a>, args: &Args<'a>, at: &'a Expr, span: &Span) -> Val<'a> {
    let ext = args
        .get(0, "name")
        .and_then(|n| n.as_str().map(String::from))
        .unwrap_or_else(|| "extension".into());
    let cpp = args.get(1, "cpp_sources").unwrap_or(Val::None);
    let cuda = args.get(2, "cuda_sources").unwrap_or(Val::None);
    let functions: Vec<String> = match args.get(3, "functions") {
        Some(Val::Dict(d)) => d
            .borrow()
            .iter()
            .filter_map(|(k, _)| k.as_str().map(String::from))
            .collect(),
        Some(v) => strings(&v),
        None => Vec::new(),
    };
    let includes: Vec<PathBuf> = args
        .kw("extra_include_paths")
        .map(|s| strings(&s))
        .unwrap_or_default()
        .iter()
        .map(|p| PathBuf::from(it.resolve_path(p)))
        .collect();
    let (Some(cpp_text), Some(cuda_text)) = (source_text(&cpp), source_text(&cuda)) else {
        let why = [&cpp, &cuda]
            .iter()
            .find_map(|v| v.reason())
            .unwrap_or_else(|| "sources kerncast does not know".into());
        it.notes.push(format!(
            "{}:{}: the extension `{ext}` is built from {why}",
            span.file, span.line
        ));
        return Val::unknown(&format!("the extension `{ext}`, built from {why}"));
    };
    // Record the strings as embedded sources (the caller lowers the CUDA one).
    for (v, text, lang) in [(&cuda, &cuda_text, "cuda"), (&cpp, &cpp_text, "c++")] {
        if !text.trim().is_empty() {
            super::gpu::embed(
                it,
                "torch.utils.cpp_extension.load_inline",
                lang,
                v,
                functions.clone(),
                Vec::new(),
                at,
            );
        }
    }
    let tmp = match TempDir::new() {
        Ok(t) => t,
        Err(e) => {
            return Val::unknown(&format!(
                "the extension `{ext}`, which kerncast could not write out ({e})"
            ))
        }
    };
    let api = match write_api(&tmp.0, &[&cpp_text, &cuda_text]) {
        Ok(a) => a,
        Err(e) => {
            return Val::unknown(&format!(
                "the extension `{ext}`, which kerncast could not write out ({e})"
            ))
        }
    };
    let words = clang_words(&ext, &api, &includes);
    let src = tmp.0.join("src");
    let mut units = Vec::new();
    let mut remap = Vec::new();
    for (v, text, file, what) in [
        (&cpp, &cpp_text, "main.cpp", "cpp_sources"),
        (&cuda, &cuda_text, "cuda.cu", "cuda_sources"),
    ] {
        if text.trim().is_empty() {
            continue;
        }
        let path = src.join(file);
        if let Err(e) = std::fs::write(&path, text) {
            return Val::unknown(&format!(
                "the extension `{ext}`, which kerncast could not write out ({e})"
            ));
        }
        let origin = match v {
            Val::Str(s) => it
                .origins
                .get(&(Rc::as_ptr(s) as *const u8 as usize))
                .map(|(_, o)| o.clone()),
            _ => None,
        };
        let (shown, first_line) = match origin {
            Some(Origin::Literal { file, line, .. }) => (file.to_string(), Some(line)),
            Some(Origin::File(p)) => (p.to_string(), Some(1)),
            _ => (format!("{}[load_inline {what}]", span.file), None),
        };
        remap.push(Remap {
            temp: path.to_string_lossy().into_owned(),
            shown,
            first_line,
        });
        let args = crate::compdb::clang_args(&words, &path, &src, &it.opts.toolchain);
        units.push((path, args));
    }
    let ast = parse_units(it, &units, &[src]);
    let mut bindings = bindings_in(&ast);
    for f in functions {
        bindings.entry(f.clone()).or_insert(f);
    }
    // The diagnostics name the temporary files: shown at the script's lines.
    for d in it.diagnostics.iter_mut() {
        for r in &remap {
            if let Some(rest) = d.strip_prefix(&r.temp) {
                *d = remap_diagnostic(r, rest);
            }
        }
    }
    it.extensions.built.push(Built { ast, remap });
    Val::obj(
        &it.heap,
        Obj::Extension(Rc::new(Extension {
            name: ext,
            bindings,
            built: it.extensions.built.len() - 1,
        })),
    )
}

fn remap_diagnostic(r: &Remap, rest: &str) -> String {
    // `:line:col: error: …`
    let mut parts = rest.splitn(3, ':');
    let (_, line, tail) = (parts.next(), parts.next(), parts.next());
    match (line.and_then(|l| l.parse::<u32>().ok()), r.first_line, tail) {
        (Some(l), Some(first), Some(tail)) => format!("{}:{}:{tail}", r.shown, first + l - 1),
        _ => format!("{}{rest}", r.shown),
    }
}

/// An extension built from files: `load(sources=[…])`, or a `setup.py`'s.
pub fn build_from_files<'a>(
    it: &mut Interp<'a>,
    name: &str,
    sources: &[Rc<str>],
    dir: &Path,
    at: &Span,
) -> Val<'a> {
    build_files(it, name, sources, dir, &[], at)
}

fn build_files<'a>(
    it: &mut Interp<'a>,
    ext: &str,
    sources: &[Rc<str>],
    dir: &Path,
    includes: &[String],
    span: &Span,
) -> Val<'a> {
    let mut files = Vec::new();
    for s in sources {
        let p = Path::new(&**s);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        };
        if !full.is_file() {
            it.notes.push(format!(
                "{}:{}: the extension `{ext}` names {}, which is not there",
                span.file,
                span.line,
                full.display()
            ));
            continue;
        }
        files.push(std::fs::canonicalize(&full).unwrap_or(full));
    }
    if files.is_empty() {
        return Val::unknown(&format!(
            "the extension `{ext}`, none of whose sources kerncast finds"
        ));
    }
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect();
    it.extensions.files.extend(files.iter().cloned());
    let tmp = match TempDir::new() {
        Ok(t) => t,
        Err(e) => {
            return Val::unknown(&format!(
                "the extension `{ext}`, whose API headers kerncast could not write ({e})"
            ))
        }
    };
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let api = match write_api(&tmp.0, &refs) {
        Ok(a) => a,
        Err(e) => {
            return Val::unknown(&format!(
                "the extension `{ext}`, whose API headers kerncast could not write ({e})"
            ))
        }
    };
    let mut inc: Vec<PathBuf> = includes.iter().map(|i| dir.join(i)).collect();
    inc.push(dir.to_path_buf());
    let words = clang_words(ext, &api, &inc);
    let units: Vec<(PathBuf, Vec<String>)> = files
        .iter()
        .map(|f| {
            let args = crate::compdb::clang_args(&words, f, dir, &it.opts.toolchain);
            (f.clone(), args)
        })
        .collect();
    let own: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .collect();
    let ast = parse_units(it, &units, &own);
    let bindings = bindings_in(&ast);
    it.extensions.built.push(Built {
        ast,
        remap: Vec::new(),
    });
    Val::obj(
        &it.heap,
        Obj::Extension(Rc::new(Extension {
            name: ext.to_string(),
            bindings,
            built: it.extensions.built.len() - 1,
        })),
    )
}

/// The functions a module binds for Python: `m.def("forward", &lltm_forward, …)` in its
/// `PYBIND11_MODULE` (Python name → C++ function).
fn bindings_in(ast: &ProgramAst) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut modules: Vec<&Arc<crate::ast::Function>> = ast
        .functions
        .values()
        .filter(|f| f.name.contains("kerncast_pybind11_"))
        .collect();
    modules.sort_by(|a, b| a.span.cmp(&b.span));
    for m in modules {
        visit_stmt(&m.body, &mut |e| {
            if let ExprKind::Call(c) = &e.kind {
                if let Callee::Method { name, .. } = &c.callee {
                    if name.ends_with("module_::def") {
                        if let (Some(py), Some(cpp)) = (
                            c.args.first().and_then(string_of),
                            c.args.get(1).and_then(function_of),
                        ) {
                            out.entry(py).or_insert(cpp);
                        }
                    }
                }
            }
        });
    }
    out
}

fn string_of(e: &CExpr) -> Option<String> {
    match &e.kind {
        ExprKind::Str(s) => Some(s.to_string()),
        ExprKind::Cast(x) => string_of(x),
        _ => None,
    }
}

fn function_of(e: &CExpr) -> Option<String> {
    match &e.kind {
        ExprKind::Function { name, .. } => Some(name.to_string()),
        ExprKind::Cast(x) | ExprKind::Unary(_, x) => function_of(x),
        _ => None,
    }
}

fn visit_stmt(s: &CStmt, f: &mut dyn FnMut(&CExpr)) {
    match &s.kind {
        StmtKind::Block(items) => items.iter().for_each(|i| visit_stmt(i, f)),
        StmtKind::Expr(e) => visit_expr(e, f),
        StmtKind::Decl(vs) => vs
            .iter()
            .filter_map(|v| v.init.as_ref())
            .for_each(|e| visit_expr(e, f)),
        _ => {}
    }
}

fn visit_expr(e: &CExpr, f: &mut dyn FnMut(&CExpr)) {
    f(e);
    match &e.kind {
        ExprKind::Call(c) => {
            match &c.callee {
                Callee::Method { object, .. } => visit_expr(object, f),
                Callee::Value(v, _) => visit_expr(v, f),
                _ => {}
            }
            c.args.iter().for_each(|a| visit_expr(a, f));
        }
        ExprKind::Cast(x) | ExprKind::Unary(_, x) => visit_expr(x, f),
        ExprKind::Binary(_, a, b) => {
            visit_expr(a, f);
            visit_expr(b, f);
        }
        _ => {}
    }
}

/// A Python value as the C++ of an extension receives it.
fn to_cpp(v: &Val<'_>) -> Value {
    match v {
        Val::Obj(o) => match &**o {
            Obj::Array(a) => {
                let (sizes, unknown_shape) = match &a.unknown_shape {
                    Some(w) => (Vec::new(), Some(w.clone())),
                    None => (
                        a.shape
                            .iter()
                            .map(|d| match d {
                                Ok(n) => Value::Int(*n),
                                Err(u) => Value::Unknown(u.clone()),
                            })
                            .collect(),
                        None,
                    ),
                };
                Tensor {
                    sizes,
                    scalar_type: a.dtype.and_then(|d| d.scalar_type),
                    unknown_shape,
                    named: None,
                }
                .value()
            }
            _ => super::gpu::to_c(v),
        },
        Val::List(_) | Val::Tuple(_) => {
            let items: Vec<Value> = v
                .elements()
                .unwrap_or_default()
                .iter()
                .map(to_cpp)
                .collect();
            Value::Array(heap::shared(Buffer::from_values(items)))
        }
        other => super::gpu::to_c(other),
    }
}

/// A C++ value returned to Python.
fn from_cpp<'a>(heap: &Registry<'a>, v: &Value) -> Val<'a> {
    match v {
        Value::Void => Val::None,
        Value::Int(i) => Val::Int((*i).into()),
        Value::Float(f) => Val::Float(*f),
        Value::Unknown(u) => Val::Unknown(u.clone()),
        Value::Handle(h) => match &*h.borrow() {
            Handle::Tensor(t) => {
                let (shape, unknown_shape) = match &t.unknown_shape {
                    Some(w) => (Vec::new(), Some(w.clone())),
                    None => (
                        t.sizes
                            .iter()
                            .map(|s| match s {
                                Value::Int(n) => Ok(*n),
                                Value::Unknown(u) => Err(u.clone()),
                                _ => Err(Rc::new(crate::interp::value::Unknown {
                                    why: Rc::from("a size kerncast does not know"),
                                    name: None,
                                })),
                            })
                            .collect(),
                        None,
                    ),
                };
                let dtype = t.scalar_type.and_then(|s| {
                    [
                        "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                    ]
                    .get(s as usize)
                    .and_then(|n| Dtype::torch(n))
                });
                Val::obj(
                    heap,
                    Obj::Array(Rc::new(Array {
                        lib: Lib::Torch,
                        shape,
                        dtype,
                        unknown_shape,
                        device: true,
                    })),
                )
            }
            _ => Val::unknown("an object an extension returns"),
        },
        Value::Array(b) => match b.borrow().elements() {
            Some(items) => Val::list(heap, items.iter().map(|v| from_cpp(heap, v)).collect()),
            None => Val::unknown("a list an extension returns"),
        },
        _ => Val::unknown("a value an extension returns"),
    }
}

/// `ext.name(args…)`: the C++ function it binds, run with the script's values.
pub fn call<'a>(
    it: &mut Interp<'a>,
    ext: &Rc<Extension>,
    name: &str,
    args: &Args<'a>,
    at: &'a Expr,
) -> Exec<Val<'a>> {
    let cpp = ext
        .bindings
        .get(name)
        .cloned()
        .unwrap_or_else(|| name.to_string());
    let values: Vec<Value> = args
        .pos
        .iter()
        .chain(args.kw.iter().map(|(_, v)| v))
        .map(to_cpp)
        .collect();
    let span = it.span(at);
    let mut budget = it.opts.budget.clone();
    budget.steps = budget.steps.saturating_sub(it.steps);
    let run = crate::interp::RunOptions {
        argv: vec!["./main".to_string()],
        params: it.opts.params.clone(),
        device: it.opts.device.clone(),
        budget,
        occupancy: it.opts.occupancy.clone(),
        run_dir: None,
    };
    let Some(built) = it.extensions.built.get(ext.built) else {
        return Ok(Val::unknown("an extension kerncast did not build"));
    };
    let Some(result) = crate::interp::call_named(&built.ast, &run, &cpp, values) else {
        return Ok(Val::unknown(&format!(
            "`{}.{name}`: the extension defines no function `{cpp}` kerncast can run",
            ext.name
        )));
    };
    let remap = built.remap.clone();
    it.steps += result.steps;
    it.used.extend(result.used);
    for (k, v) in result.assumptions {
        it.assumptions.entry(k).or_insert(v);
    }
    if let Some(h) = result.halted {
        it.notes.push(h);
    }
    for mut e in result.launches {
        e.site = remapped(&remap, &e.site);
        let mut stack = it.stack.clone();
        for (i, (f, s)) in e.stack.iter().enumerate() {
            stack.push((
                f.clone(),
                if i == 0 {
                    span.clone()
                } else {
                    remapped(&remap, s)
                },
            ));
        }
        e.stack = stack;
        let mut guards = it.guards.clone();
        guards.extend(e.guards.iter().cloned());
        e.guards = guards;
        let values: Vec<Value> = e
            .grid
            .iter()
            .chain(e.block.iter())
            .chain(std::iter::once(&e.shared_bytes))
            .chain(e.args.iter().map(|(_, v)| v))
            .cloned()
            .collect();
        it.record_assumptions(&values);
        it.recorder.add(e, 1);
    }
    Ok(from_cpp(&it.heap, &result.result))
}

fn remapped(remap: &[Remap], s: &Span) -> Span {
    for r in remap {
        if *s.file == *r.temp {
            return Span {
                file: Arc::from(r.shown.as_str()),
                line: r.first_line.map(|f| f + s.line - 1).unwrap_or(s.line),
                col: s.col,
            };
        }
    }
    s.clone()
}

/// Sites and kernels of the built extensions, for the reading's output, with spans placed
/// back at the script's lines.
pub fn merged(b: &Builder) -> ProgramAst {
    let mut out = ProgramAst::default();
    for built in &b.built {
        for (k, v) in &built.ast.kernels {
            let mut v = v.clone();
            v.span = remapped(&built.remap, &v.span);
            out.kernels.entry(k.clone()).or_insert(v);
        }
        for s in &built.ast.sites {
            let mut s = s.clone();
            s.span = remapped(&built.remap, &s.span);
            out.sites.push(s);
        }
    }
    out
}
