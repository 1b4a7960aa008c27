//! The GPU APIs of Python hosts: programs compiled at run time and their launches.
//!
//! - CuPy: `cp.RawKernel(code, name, options=…)`, `cp.RawModule(code=…, options=…,
//!   name_expressions=…)` and its `get_function(name)`; a launch is
//!   `k(grid, block, args, shared_mem=0, stream=None)`.
//! - PyCUDA: `SourceModule(source, options=…, no_extern_c=False)` and its
//!   `get_function(name)`; a launch is `f(*args, block=(…), grid=(…), shared=0)`, or, after
//!   `f.prepare(…)`, `f.prepared_call(grid, block, *args, shared_size=0)`.
//! - PyOpenCL: `cl.Program(ctx, src).build(options=…)`; a launch is
//!   `prg.name(queue, global_size, local_size, *args)`, or `cl.Kernel(prg, name)` with
//!   `set_args(…)`/`set_arg(i, v)` and `cl.enqueue_nd_range_kernel(queue, knl, global, local)`.
//!   As for a C host, the grid is the global size over the local one, and a local size of
//!   `None` (the runtime's choice) is unknown.
//!
//! Each program is recorded as a kernel source embedded in the host
//! ([`crate::output::EmbeddedSource`]): its text and where it comes from (a literal of the
//! script, a file it reads), for the caller to lower.

use super::state::{Args, Exec, Interp};
use super::value::*;
use crate::interp::launches::Event;
use crate::interp::value::{Ptr, Value};
use crate::output::{EmbeddedSource, SourceOrigin};
use num_traits::ToPrimitive;
use ruff_python_ast::Expr;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

fn last(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

fn root(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
}

/// A Python value as a launch records it.
pub fn to_c(v: &Val<'_>) -> Value {
    match v {
        Val::Int(i) => match i.to_i128() {
            Some(i) => Value::Int(i),
            None => Value::unknown("an integer beyond 128 bits"),
        },
        Val::Bool(b) => Value::Int(*b as i128),
        Val::Float(f) => Value::Float(*f),
        Val::None => Value::Ptr(Ptr::Null),
        Val::Str(s) => Value::Str(s.clone()),
        Val::Unknown(u) => Value::Unknown(u.clone()),
        Val::Obj(o) => match &**o {
            Obj::Array(a) if a.device => Value::Ptr(Ptr::Opaque("device memory")),
            Obj::Array(_) => Value::Ptr(Ptr::Opaque("host memory")),
            Obj::LocalMemory(n) => Value::unknown(&format!(
                "a __local buffer of {} bytes",
                n.as_i64()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "unknown".into())
            )),
            _ => Value::Ptr(Ptr::Opaque("device memory")),
        },
        _ => Value::unknown("a value kerncast does not pass to a kernel"),
    }
}

/// A launch dimension: an integer or a tuple of up to three.
fn dims3(v: Option<&Val<'_>>, what: &str) -> [Value; 3] {
    let one = || Value::Int(1);
    match v {
        None | Some(Val::None) => {
            let u = Value::unknown(&format!("the launch gives no {what}"));
            [u.clone(), u.clone(), u]
        }
        Some(Val::Unknown(u)) => [
            Value::Unknown(u.clone()),
            Value::Unknown(u.clone()),
            Value::Unknown(u.clone()),
        ],
        Some(v) => match v.elements() {
            Some(items)
                if matches!(v, Val::Tuple(_) | Val::List(_)) && (1..=3).contains(&items.len()) =>
            {
                let mut d = [one(), one(), one()];
                for (i, x) in items.iter().enumerate() {
                    d[i] = to_c(x);
                }
                d
            }
            _ if v.as_bigint().is_some() => [to_c(v), one(), one()],
            _ => {
                let u = Value::unknown(&format!("a {what} kerncast cannot read"));
                [u.clone(), u.clone(), u]
            }
        },
    }
}

impl Interp<'_> {
    /// Records a launch the script makes.
    pub fn record(&mut self, mut e: Event) {
        e.guards = self.guards.clone();
        e.stack = self.stack.clone();
        let values: Vec<Value> = e
            .grid
            .iter()
            .chain(e.block.iter())
            .chain(std::iter::once(&e.shared_bytes))
            .chain(e.args.iter().map(|(_, v)| v))
            .cloned()
            .collect();
        self.record_assumptions(&values);
        self.recorder.add(e, 1);
    }
}

fn origin_of(it: &Interp<'_>, v: &Val<'_>) -> SourceOrigin {
    if let Val::Str(s) = v {
        if let Some((_, o)) = it.origins.get(&(Rc::as_ptr(s) as *const u8 as usize)) {
            return match o {
                Origin::Literal { file, line, col } => SourceOrigin::Literal {
                    file: file.to_string(),
                    line: *line,
                    col: *col,
                },
                Origin::File(p) => SourceOrigin::File {
                    path: p.to_string(),
                },
                Origin::Computed => SourceOrigin::Computed,
            };
        }
    }
    SourceOrigin::Computed
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

/// Records a program compiled at run time; its index.
pub fn embed(
    it: &mut Interp<'_>,
    api: &str,
    language: &str,
    source: &Val<'_>,
    kernels: Vec<String>,
    options: Vec<String>,
    at: &Expr,
) -> usize {
    let span = it.span(at);
    let (text, unknown) = match source {
        Val::Str(s) => (Some(s.to_string()), None),
        Val::Unknown(_) => (None, source.reason()),
        _ => (
            None,
            Some("the program is not a string kerncast knows".to_string()),
        ),
    };
    it.embedded.push(EmbeddedSource {
        api: api.to_string(),
        language: language.to_string(),
        text,
        unknown,
        origin: origin_of(it, source),
        kernels,
        options,
        name_expressions: Vec::new(),
        extern_c: false,
        headers: Vec::new(),
        name: None,
        file: span.file.to_string(),
        line: span.line,
    });
    it.embedded.len() - 1
}

fn add_kernel_name(it: &mut Interp<'_>, source: usize, name: &str) {
    if let Some(e) = it.embedded.get_mut(source) {
        if !e.kernels.iter().any(|k| k == name) {
            e.kernels.push(name.to_string());
        }
    }
}

/// The compile calls of CuPy, PyCUDA and PyOpenCL.
pub fn call_lib<'a>(
    it: &mut Interp<'a>,
    path: &str,
    args: &Args<'a>,
    at: &'a Expr,
) -> Exec<Option<Val<'a>>> {
    let name = last(path);
    let v = match (root(path), name) {
        ("cupy" | "cupyx", "RawKernel") => {
            let code = args.get(0, "code").unwrap_or(Val::None);
            let kname = args.get(1, "name");
            let options = args
                .get(2, "options")
                .map(|o| strings(&o))
                .unwrap_or_default();
            let kname_s = kname.as_ref().and_then(|k| k.as_str()).map(String::from);
            let source = embed(
                it,
                "cupy.RawKernel",
                "cuda",
                &code,
                kname_s.iter().cloned().collect(),
                options,
                at,
            );
            let _ = source;
            match kname_s {
                Some(n) => Val::obj(
                    &it.heap,
                    Obj::Kernel(Rc::new(KernelHandle {
                        name: Rc::from(n),
                        api: "cupy",
                    })),
                ),
                None => Val::unknown("a RawKernel whose name kerncast does not know"),
            }
        }
        ("cupy" | "cupyx", "RawModule") => {
            let path_kw = args.kw("path");
            let code = match (args.get(0, "code"), path_kw) {
                (Some(c), _) => c,
                (None, Some(p)) => match p.as_str() {
                    Some(p) => {
                        let full = it.resolve_path(p);
                        read_file(it, &full, std::path::Path::new(&full).exists())
                    }
                    None => Val::unknown("a RawModule path kerncast does not know"),
                },
                (None, None) => Val::unknown("a RawModule with no code"),
            };
            let options = args
                .get(2, "options")
                .map(|o| strings(&o))
                .unwrap_or_default();
            let source = embed(it, "cupy.RawModule", "cuda", &code, Vec::new(), options, at);
            if let Some(ne) = args.kw("name_expressions") {
                it.embedded[source].name_expressions = strings(&ne);
            }
            Val::obj(
                &it.heap,
                Obj::Module(Rc::new(ModuleHandle {
                    source,
                    api: "cupy",
                })),
            )
        }
        ("pycuda", "SourceModule" | "DynamicSourceModule") => {
            let code = args.get(0, "source").unwrap_or(Val::None);
            let options = args
                .get(2, "options")
                .map(|o| strings(&o))
                .unwrap_or_default();
            let source = embed(
                it,
                "pycuda.compiler.SourceModule",
                "cuda",
                &code,
                Vec::new(),
                options,
                at,
            );
            // PyCUDA wraps the program in `extern "C" { … }` unless told not to.
            let no_extern_c = args
                .get(4, "no_extern_c")
                .and_then(|v| v.truth())
                .unwrap_or(false);
            it.embedded[source].extern_c = !no_extern_c;
            Val::obj(
                &it.heap,
                Obj::Module(Rc::new(ModuleHandle {
                    source,
                    api: "pycuda",
                })),
            )
        }
        ("pyopencl", "Program") => {
            let code = args.pos.get(1).cloned().unwrap_or(Val::None);
            let source = embed(
                it,
                "pyopencl.Program",
                "opencl",
                &code,
                Vec::new(),
                Vec::new(),
                at,
            );
            Val::obj(
                &it.heap,
                Obj::Module(Rc::new(ModuleHandle {
                    source,
                    api: "pyopencl",
                })),
            )
        }
        ("pyopencl", "Kernel") => {
            let prg = args.pos.first().cloned().unwrap_or(Val::None);
            let kname = args
                .get(1, "name")
                .and_then(|n| n.as_str().map(String::from));
            match (&prg, kname) {
                (Val::Obj(o), Some(n)) => match &**o {
                    Obj::Module(m) => cl_kernel_of(it, m, &n),
                    _ => Val::unknown("an OpenCL kernel of a program kerncast does not know"),
                },
                _ => Val::unknown("an OpenCL kernel kerncast does not know"),
            }
        }
        ("pyopencl", "LocalMemory") => Val::obj(
            &it.heap,
            Obj::LocalMemory(args.pos.first().cloned().unwrap_or(Val::None)),
        ),
        ("pyopencl", "enqueue_nd_range_kernel") => {
            let knl = args.get(1, "kernel").unwrap_or(Val::None);
            if let Val::Obj(o) = &knl {
                if let Obj::ClKernel(k) = &**o {
                    let (kname, set) = {
                        let k = k.borrow();
                        (k.name.clone(), k.args.clone())
                    };
                    let global = args.get(2, "global_work_size");
                    let local = args.get(3, "local_work_size");
                    let g_times_l = args
                        .kw("g_times_l")
                        .and_then(|v| v.truth())
                        .unwrap_or(false);
                    launch_cl(it, &kname, global, local, g_times_l, set, at);
                    return Ok(Some(Val::obj(
                        &it.heap,
                        Obj::Opaque(Rc::from("an OpenCL event")),
                    )));
                }
            }
            Val::unknown("an OpenCL launch of a kernel kerncast does not know")
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// `prg.name` or `cl.Kernel(prg, "name")`: an OpenCL kernel of a program.
pub fn cl_kernel_of<'a>(it: &mut Interp<'a>, m: &Rc<ModuleHandle>, name: &str) -> Val<'a> {
    add_kernel_name(it, m.source, name);
    Val::obj(
        &it.heap,
        Obj::ClKernel(RefCell::new(ClKernel {
            name: Rc::from(name),
            args: BTreeMap::new(),
        })),
    )
}

/// The methods of compiled modules and kernel handles.
pub fn call_method<'a>(
    it: &mut Interp<'a>,
    o: &Rc<Obj<'a>>,
    name: &str,
    args: &Args<'a>,
    at: &'a Expr,
) -> Exec<Option<Val<'a>>> {
    let v = match &**o {
        Obj::Module(m) => match name {
            "get_function" | "get_kernel" => match args
                .get(0, "name")
                .and_then(|n| n.as_str().map(String::from))
            {
                Some(n) => {
                    add_kernel_name(it, m.source, &n);
                    Val::obj(
                        &it.heap,
                        Obj::Kernel(Rc::new(KernelHandle {
                            name: Rc::from(n),
                            api: m.api,
                        })),
                    )
                }
                None => Val::unknown("a kernel whose name kerncast does not know"),
            },
            "build" => {
                let opts = args
                    .get(0, "options")
                    .map(|o| strings(&o))
                    .unwrap_or_default();
                if let Some(e) = it.embedded.get_mut(m.source) {
                    e.options.extend(opts);
                }
                Val::Obj(o.clone())
            }
            "compile" => Val::Obj(o.clone()),
            "get_global" | "get_texref" | "get_surfref" => {
                Val::obj(&it.heap, Obj::Opaque(Rc::from("a module's global")))
            }
            _ => return Ok(None),
        },
        Obj::Kernel(k) => match name {
            "prepare" => Val::Obj(o.clone()),
            "prepared_call" | "prepared_timed_call" | "prepared_async_call" => {
                let grid = args.pos.first().cloned();
                let block = args.pos.get(1).cloned();
                let skip = if name == "prepared_async_call" { 3 } else { 2 };
                let kargs: Vec<Val<'a>> = args.pos.iter().skip(skip).cloned().collect();
                let shared = args.kw("shared_size").unwrap_or(Val::int(0));
                launch(
                    it,
                    &k.name,
                    grid.as_ref(),
                    block.as_ref(),
                    &shared,
                    &kargs,
                    "pycuda prepared_call",
                    at,
                );
                Val::None
            }
            "set_block_shape" | "param_set_size" | "set_cache_config" | "set_shared_size" => {
                Val::None
            }
            _ => return Ok(None),
        },
        Obj::ClKernel(k) => match name {
            "set_args" => {
                let mut k = k.borrow_mut();
                k.args = args.pos.iter().cloned().enumerate().collect();
                Val::None
            }
            "set_arg" => {
                if let Some(i) = args.pos.first().and_then(|i| i.as_i64()) {
                    let v = args.pos.get(1).cloned().unwrap_or(Val::None);
                    k.borrow_mut().args.insert(i.max(0) as usize, v);
                }
                Val::None
            }
            "set_scalar_arg_dtypes" | "set_arg_dtypes" => Val::None,
            "__call__" => {
                launch_cl_call(it, o, args, at);
                Val::None
            }
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// A call of a CUDA kernel handle: CuPy's `k(grid, block, args, shared_mem=…)` or PyCUDA's
/// `f(*args, block=…, grid=…, shared=…)`.
pub fn launch_cuda_handle<'a>(
    it: &mut Interp<'a>,
    k: &Rc<KernelHandle>,
    args: &Args<'a>,
    at: &'a Expr,
) {
    if k.api == "pycuda" {
        let block = args.kw("block");
        let grid = args
            .kw("grid")
            .unwrap_or_else(|| Val::tuple(vec![Val::int(1), Val::int(1)]));
        let shared = args.kw("shared").unwrap_or(Val::int(0));
        launch(
            it,
            &k.name,
            Some(&grid),
            block.as_ref(),
            &shared,
            &args.pos,
            "pycuda",
            at,
        );
        return;
    }
    let grid = args.get(0, "grid");
    let block = args.get(1, "block");
    let kargs = args
        .get(2, "args")
        .and_then(|a| a.elements())
        .unwrap_or_default();
    let shared = args.kw("shared_mem").unwrap_or(Val::int(0));
    launch(
        it,
        &k.name,
        grid.as_ref(),
        block.as_ref(),
        &shared,
        &kargs,
        "cupy",
        at,
    );
}

#[allow(clippy::too_many_arguments)]
fn launch<'a>(
    it: &mut Interp<'a>,
    kernel: &str,
    grid: Option<&Val<'a>>,
    block: Option<&Val<'a>>,
    shared: &Val<'a>,
    args: &[Val<'a>],
    api: &'static str,
    at: &'a Expr,
) {
    let e = Event {
        kernel: kernel.to_string(),
        by_name: true,
        grid: dims3(grid, "grid"),
        block: dims3(block, "block"),
        shared_bytes: to_c(shared),
        args: args
            .iter()
            .enumerate()
            .map(|(i, v)| (Arc::from(format!("arg{i}")), to_c(v)))
            .collect(),
        site: it.span(at),
        api,
        guards: Vec::new(),
        stack: Vec::new(),
    };
    it.record(e);
}

/// `prg.name(queue, global, local, *args)` or `knl(queue, global, local, *args)`.
pub fn launch_cl_call<'a>(it: &mut Interp<'a>, o: &Rc<Obj<'a>>, args: &Args<'a>, at: &'a Expr) {
    let Obj::ClKernel(k) = &**o else {
        return;
    };
    let given: Vec<Val<'a>> = args.pos.iter().skip(3).cloned().collect();
    if !given.is_empty() {
        k.borrow_mut().args = given.into_iter().enumerate().collect();
    }
    let (name, set) = {
        let k = k.borrow();
        (k.name.clone(), k.args.clone())
    };
    let g_times_l = args
        .kw("g_times_l")
        .and_then(|v| v.truth())
        .unwrap_or(false);
    launch_cl(
        it,
        &name,
        args.pos.get(1).cloned(),
        args.pos.get(2).cloned(),
        g_times_l,
        set,
        at,
    );
}

fn launch_cl<'a>(
    it: &mut Interp<'a>,
    name: &str,
    global: Option<Val<'a>>,
    local: Option<Val<'a>>,
    g_times_l: bool,
    args: BTreeMap<usize, Val<'a>>,
    at: &'a Expr,
) {
    let sizes = |v: &Option<Val<'a>>| -> Option<Vec<Val<'a>>> {
        match v {
            None | Some(Val::None) => None,
            Some(v) if v.as_bigint().is_some() => Some(vec![v.clone()]),
            Some(v @ Val::Unknown(_)) => Some(vec![v.clone()]),
            Some(v) => v.elements(),
        }
    };
    let g =
        sizes(&global).unwrap_or_else(|| vec![Val::unknown("a global size kerncast cannot read")]);
    let l = sizes(&local);
    let mut grid = [Value::Int(1), Value::Int(1), Value::Int(1)];
    let mut block = [Value::Int(1), Value::Int(1), Value::Int(1)];
    for d in 0..g.len().min(3) {
        let lv = match &l {
            None => to_c(&it.assumption(
                crate::output::LOCAL_SIZE_NAMES[d],
                "the work-group size, which the OpenCL runtime picks (local size None)",
            )),
            Some(l) => l.get(d).map(to_c).unwrap_or(Value::Int(1)),
        };
        let gv = to_c(&g[d]);
        grid[d] = match (gv.as_int(), lv.as_int()) {
            (Some(_), Some(_)) if g_times_l => gv.clone(),
            (Some(g), Some(l)) if l > 0 => Value::Int((g + l - 1) / l),
            _ => {
                if lv.is_unknown() {
                    lv.clone()
                } else {
                    gv.clone()
                }
            }
        };
        block[d] = lv;
    }
    let e = Event {
        kernel: name.to_string(),
        by_name: true,
        grid,
        block,
        shared_bytes: Value::Int(0),
        args: args
            .iter()
            .map(|(i, v)| (Arc::from(format!("arg{i}")), to_c(v)))
            .collect(),
        site: it.span(at),
        api: "pyopencl",
        guards: Vec::new(),
        stack: Vec::new(),
    };
    it.record(e);
}

/// `open(path).read()`: the file's text, remembered as coming from that file.
pub fn read_file<'a>(it: &mut Interp<'a>, path: &str, exists: bool) -> Val<'a> {
    if !exists {
        return Val::unknown(&format!(
            "the text of {path}, which does not exist where kerncast reads"
        ));
    }
    match std::fs::read_to_string(path) {
        Ok(t) => {
            let v: Rc<str> = Rc::from(t);
            it.origins.insert(
                Rc::as_ptr(&v) as *const u8 as usize,
                (v.clone(), Origin::File(Rc::from(path))),
            );
            Val::Str(v)
        }
        Err(e) => Val::unknown(&format!(
            "the text of {path}, which kerncast cannot read ({e})"
        )),
    }
}
