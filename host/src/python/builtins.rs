//! Python's built-in functions and the libraries a GPU host script uses, as the interpreter
//! models them: `math`, `sys.argv`, `argparse`, `os.path` and `pathlib`, files read with
//! `open(path).read()`, NumPy, CuPy, PyCUDA's `gpuarray` and PyTorch arrays and tensors (their
//! shapes and dtypes), and the methods of strings, lists and dicts. The GPU APIs' compile and
//! launch calls are in [`super::gpu`], PyTorch extensions in [`super::extension`]. A call not
//! modelled gives an unknown result that names it.

use super::ops::{binop, compare, equal, index};
use super::state::{Args, Exec, Interp};
use super::value::*;
use crate::heap::Registry;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use ruff_python_ast::Expr;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The built-in names of Python a script reads.
const BUILTINS: &[&str] = &[
    "len",
    "range",
    "int",
    "float",
    "str",
    "bool",
    "abs",
    "min",
    "max",
    "sum",
    "round",
    "print",
    "enumerate",
    "zip",
    "list",
    "tuple",
    "dict",
    "set",
    "sorted",
    "reversed",
    "divmod",
    "pow",
    "any",
    "all",
    "open",
    "exit",
    "quit",
    "isinstance",
    "hasattr",
    "getattr",
    "iter",
    "next",
    "type",
    "map",
    "filter",
    "repr",
    "format",
    "input",
    "id",
    "hash",
    "super",
    "object",
    "Exception",
    "ValueError",
    "RuntimeError",
    "TypeError",
    "SystemExit",
    "KeyError",
    "IndexError",
    "NotImplementedError",
    "AssertionError",
    "callable",
    "chr",
    "ord",
    "hex",
    "bin",
    "oct",
    "frozenset",
    "bytes",
    "vars",
    "globals",
    "locals",
    "staticmethod",
    "classmethod",
    "property",
];

pub fn builtin<'a>(_it: &mut Interp<'a>, name: &str) -> Option<Val<'a>> {
    BUILTINS.contains(&name).then(|| Val::Lib(Rc::from(name)))
}

/// The full name a module is known by.
pub fn canonical_module(name: &str) -> String {
    name.to_string()
}

fn root(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
}

fn last(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The library an array maker's path belongs to.
fn array_lib(path: &str) -> Option<Lib> {
    match root(path) {
        "numpy" => Some(Lib::NumPy),
        "cupy" | "cupyx" => Some(Lib::CuPy),
        "torch" => Some(Lib::Torch),
        "pycuda" | "pyopencl" => Some(Lib::PyCuda),
        _ => None,
    }
}

/// A `with` statement's `as` value.
pub fn enter<'a>(_it: &mut Interp<'a>, v: Val<'a>) -> Val<'a> {
    v
}

/// The elements a `for` walks, where kerncast knows them.
pub fn iterate<'a>(it: &mut Interp<'a>, v: &Val<'a>) -> Option<Vec<Val<'a>>> {
    match v {
        Val::Obj(o) => match &**o {
            Obj::Array(a) if a.unknown_shape.is_none() => {
                // Rows of an array: arrays of the remaining dimensions.
                let n = a.shape.first()?.clone().ok()?;
                if !(0..=1 << 16).contains(&n) {
                    return None;
                }
                let row = Array {
                    shape: a.shape[1..].to_vec(),
                    ..(**a).clone()
                };
                Some(
                    (0..n)
                        .map(|_| Val::obj(&it.heap, Obj::Array(Rc::new(row.clone()))))
                        .collect(),
                )
            }
            _ => None,
        },
        _ => {
            let _ = it;
            v.elements()
        }
    }
}

pub fn setattr<'a>(_it: &mut Interp<'a>, obj: &Val<'a>, name: &str, v: Val<'a>) {
    if let Val::Obj(o) = obj {
        match &**o {
            Obj::Instance { attrs, .. } => {
                attrs.borrow_mut().insert(Rc::from(name), v);
            }
            Obj::Namespace(attrs) => {
                attrs.borrow_mut().insert(Rc::from(name), v);
            }
            Obj::Class(c) => {
                c.attrs.borrow_mut().insert(Rc::from(name), v);
            }
            _ => {}
        }
    }
}

pub fn slice<'a>(
    heap: &Registry<'a>,
    v: &Val<'a>,
    lo: Option<Val<'a>>,
    hi: Option<Val<'a>>,
    st: Option<Val<'a>>,
) -> Val<'a> {
    if v.is_unknown() {
        return v.clone();
    }
    let Some(items) = v.elements() else {
        if let Val::Obj(o) = v {
            if let Obj::Array(a) = &**o {
                // `x[a:b]` of an array: its first dimension sliced.
                return slice_array(heap, a, lo, hi, st);
            }
        }
        return Val::unknown("a slice of a value kerncast does not know");
    };
    let n = items.len() as i64;
    let get = |x: &Option<Val<'a>>| -> Result<Option<i64>, ()> {
        match x {
            None | Some(Val::None) => Ok(None),
            Some(v) => v.as_i64().map(Some).ok_or(()),
        }
    };
    let (Ok(lo), Ok(hi), Ok(st)) = (get(&lo), get(&hi), get(&st)) else {
        return Val::unknown("a slice with bounds kerncast does not know");
    };
    let st = st.unwrap_or(1);
    if st == 0 {
        return Val::unknown("a slice step of zero");
    }
    let norm = |x: i64, def: i64| -> i64 {
        let x = if x < 0 { x + n } else { x };
        if st > 0 {
            x.clamp(0, n)
        } else {
            x.clamp(-1, n - 1)
        }
        .max(if st > 0 { 0 } else { def.min(-1) })
    };
    let (start, stop) = if st > 0 {
        (
            lo.map(|x| norm(x, 0)).unwrap_or(0),
            hi.map(|x| norm(x, n)).unwrap_or(n),
        )
    } else {
        (
            lo.map(|x| norm(x, n - 1)).unwrap_or(n - 1),
            hi.map(|x| norm(x, -1)).unwrap_or(-1),
        )
    };
    let mut out = Vec::new();
    let mut i = start;
    while (st > 0 && i < stop) || (st < 0 && i > stop) {
        if let Some(x) = items.get(i as usize) {
            out.push(x.clone());
        }
        i += st;
    }
    match v {
        Val::Str(_) => Val::Str(Rc::from(
            out.iter().map(|c| c.display()).collect::<String>(),
        )),
        Val::Tuple(_) => Val::tuple(out),
        _ => Val::list(heap, out),
    }
}

fn slice_array<'a>(
    heap: &Registry<'a>,
    a: &Array,
    lo: Option<Val<'a>>,
    hi: Option<Val<'a>>,
    st: Option<Val<'a>>,
) -> Val<'a> {
    let mut out = a.clone();
    let Some(first) = a.shape.first().cloned() else {
        return Val::unknown("a slice of a zero-dimensional array");
    };
    let dim = match first {
        Ok(n) => {
            let seq = Val::Range(Rc::new(PyRange {
                start: BigInt::zero(),
                stop: BigInt::from(n),
                step: BigInt::from(1),
            }));
            match slice(
                heap,
                &Val::list(heap, seq.elements().unwrap_or_default()),
                lo,
                hi,
                st,
            ) {
                Val::List(l) => Ok(l.borrow().len() as i128),
                u => Err(unknown_of(&u)),
            }
        }
        e => e,
    };
    out.shape[0] = dim;
    Val::obj(heap, Obj::Array(Rc::new(out)))
}

fn unknown_of(v: &Val<'_>) -> Rc<crate::interp::value::Unknown> {
    match v {
        Val::Unknown(u) => u.clone(),
        _ => Rc::new(crate::interp::value::Unknown {
            why: Rc::from("a value kerncast does not know"),
            name: None,
        }),
    }
}

pub fn subscript<'a>(it: &mut Interp<'a>, v: &Val<'a>, k: &Val<'a>) -> Val<'a> {
    if v.is_unknown() {
        return v.clone();
    }
    match v {
        Val::List(l) => {
            if let Some(argv) = &it.argv_list {
                if Rc::ptr_eq(argv, l) {
                    return argv_item(it, k);
                }
            }
            let l = l.borrow();
            match k.as_i64() {
                Some(i) => index(i, l.len()).map(|i| l[i].clone()).unwrap_or_else(|| {
                    Val::unknown("an index past the end of a list (Python raises IndexError)")
                }),
                None => first_or(k, "an index kerncast does not know"),
            }
        }
        Val::Tuple(t) => match k.as_i64() {
            Some(i) => index(i, t.len()).map(|i| t[i].clone()).unwrap_or_else(|| {
                Val::unknown("an index past the end of a tuple (Python raises IndexError)")
            }),
            None => first_or(k, "an index kerncast does not know"),
        },
        Val::Str(s) => match k.as_i64() {
            Some(i) => {
                let chars: Vec<char> = s.chars().collect();
                index(i, chars.len())
                    .map(|i| Val::str(&chars[i].to_string()))
                    .unwrap_or_else(|| Val::unknown("an index past the end of a string"))
            }
            None => first_or(k, "an index kerncast does not know"),
        },
        Val::Range(r) => match k.as_bigint() {
            Some(i) => {
                let n = r.len();
                let j = if i.is_negative() { &i + &n } else { i };
                if j.is_negative() || j >= n {
                    Val::unknown("an index past the end of a range")
                } else {
                    Val::Int(r.get(&j))
                }
            }
            None => first_or(k, "an index kerncast does not know"),
        },
        Val::Dict(d) => {
            if k.is_unknown() {
                return k.clone();
            }
            let d = d.borrow();
            d.iter()
                .find(|(key, _)| equal(key, k) == Some(true))
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| {
                    Val::unknown(&format!("the key {} is not in the dict", k.repr()))
                })
        }
        Val::Obj(o) => match &**o {
            Obj::Array(a) => {
                // `x[i]`: one element of the first dimension; `x[i, j]`: of the first two.
                let drop = match k {
                    Val::Tuple(t) => t.len(),
                    _ => 1,
                };
                let mut out = (**a).clone();
                if drop > out.shape.len() {
                    return Val::unknown("an element of an array");
                }
                out.shape.drain(..drop);
                if out.shape.is_empty() {
                    Val::unknown("an element of an array, which the host does not read")
                } else {
                    Val::obj(&it.heap, Obj::Array(Rc::new(out)))
                }
            }
            Obj::Opaque(name) if &**name == "os.environ" => match k.as_str() {
                Some(var) => it.assumption(
                    var,
                    "an environment variable, which the program reads at run time",
                ),
                None => Val::unknown("an environment variable"),
            },
            _ => Val::unknown("an item of an object kerncast does not model"),
        },
        Val::Lib(_) => Val::unknown("a subscripted library name (a type annotation)"),
        _ => Val::unknown("an item of a value kerncast does not model"),
    }
}

fn first_or<'a>(k: &Val<'a>, why: &str) -> Val<'a> {
    if k.is_unknown() {
        k.clone()
    } else {
        Val::unknown(why)
    }
}

/// `sys.argv[i]`: the argument, or, past the command line given, a name the user can set.
fn argv_item<'a>(it: &mut Interp<'a>, k: &Val<'a>) -> Val<'a> {
    let Some(i) = k.as_i64() else {
        return first_or(
            k,
            "an argument of the command line at an index kerncast does not know",
        );
    };
    match index(i, it.argv.len()) {
        Some(j) => Val::str(&it.argv[j]),
        None => {
            let why = if it.args_given {
                format!("the command line given has no argument {i} (Python raises IndexError)")
            } else {
                format!("the program is read as run without arguments, and sys.argv[{i}] is read (give it with --args)")
            };
            it.assumption(&format!("argv[{i}]"), &why)
        }
    }
}

pub fn getattr<'a>(it: &mut Interp<'a>, v: &Val<'a>, name: &str) -> Val<'a> {
    match v {
        Val::Unknown(_) => v.clone(),
        Val::Lib(path) => lib_attr(it, path, name),
        Val::Obj(o) => match &**o {
            Obj::Array(a) => array_attr(&it.heap, v, a, name),
            Obj::Namespace(attrs) => attrs.borrow().get(name).cloned().unwrap_or_else(|| {
                Val::unknown(&format!("`{name}` is not an attribute of the namespace"))
            }),
            Obj::Module(m) if m.api == "pyopencl" && !PROGRAM_METHODS.contains(&name) => {
                super::gpu::cl_kernel_of(it, m, name)
            }
            Obj::File { path, .. } => match name {
                "parent" => file(&it.heap, parent_of(path)),
                "name" => Val::str(path.rsplit('/').next().unwrap_or(path)),
                "stem" => {
                    let n = path.rsplit('/').next().unwrap_or(path);
                    Val::str(n.split('.').next().unwrap_or(n))
                }
                _ => Val::Method(Box::new(v.clone()), Rc::from(name)),
            },
            Obj::Dtype(d) => match name {
                "itemsize" => Val::int(d.bytes as i64),
                "name" => Val::str(d.name),
                _ => Val::Method(Box::new(v.clone()), Rc::from(name)),
            },
            _ => Val::Method(Box::new(v.clone()), Rc::from(name)),
        },
        Val::Float(f) if name == "real" => Val::Float(*f),
        _ => Val::Method(Box::new(v.clone()), Rc::from(name)),
    }
}

const PROGRAM_METHODS: &[&str] = &[
    "build",
    "get_info",
    "get_build_info",
    "all_kernels",
    "compile",
    "link",
    "kernel_names",
    "int_ptr",
];

fn file<'a>(heap: &Registry<'a>, path: String) -> Val<'a> {
    let exists = std::path::Path::new(&path).exists();
    Val::obj(
        heap,
        Obj::File {
            path: Rc::from(path),
            exists,
        },
    )
}

fn parent_of(path: &str) -> String {
    match std::path::Path::new(path).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_string_lossy().into_owned(),
        _ => ".".into(),
    }
}

fn lib_attr<'a>(it: &mut Interp<'a>, path: &str, name: &str) -> Val<'a> {
    let full = format!("{path}.{name}");
    match (path, name) {
        ("math", "pi") => return Val::Float(std::f64::consts::PI),
        ("math", "e") => return Val::Float(std::f64::consts::E),
        ("math", "inf") | ("numpy", "inf") => return Val::Float(f64::INFINITY),
        ("sys", "argv") => {
            if let Some(l) = &it.argv_list {
                return Val::List(l.clone());
            }
            let argv = it.argv.iter().map(|a| Val::str(a)).collect();
            let l = it.heap.track(Rc::new(RefCell::new(argv)));
            it.argv_list = Some(l.clone());
            return Val::List(l);
        }
        ("sys", "maxsize") => return Val::int(i64::MAX),
        ("os", "environ") => return Val::obj(&it.heap, Obj::Opaque(Rc::from("os.environ"))),
        ("os", "sep") => return Val::str("/"),
        _ => {}
    }
    if root(path) == "torch" && path == "torch" {
        if let Some(d) = Dtype::torch(name) {
            return Val::obj(&it.heap, Obj::Dtype(d));
        }
    }
    Val::Lib(Rc::from(full))
}

fn dims_tuple<'a>(a: &Array) -> Val<'a> {
    if let Some(why) = &a.unknown_shape {
        return Val::unknown(why);
    }
    Val::tuple(a.shape.iter().map(dim_val).collect())
}

pub fn dim_val<'a>(d: &Dim) -> Val<'a> {
    match d {
        Ok(n) => Val::Int(BigInt::from(*n)),
        Err(u) => Val::Unknown(u.clone()),
    }
}

fn dim_of(v: &Val<'_>) -> Dim {
    match v {
        Val::Unknown(u) => Err(u.clone()),
        other => other
            .as_bigint()
            .and_then(|i| i.to_i128())
            .ok_or_else(|| unknown_of(&Val::unknown("a size kerncast does not know"))),
    }
}

fn numel_val<'a>(a: &Array) -> Val<'a> {
    dim_val(&a.numel())
}

fn array_attr<'a>(heap: &Registry<'a>, v: &Val<'a>, a: &Array, name: &str) -> Val<'a> {
    match name {
        "shape" => dims_tuple(a),
        "size" if a.lib != Lib::Torch => numel_val(a),
        "ndim" => Val::int(a.shape.len() as i64),
        "dtype" => match a.dtype {
            Some(d) => Val::obj(heap, Obj::Dtype(d)),
            None => Val::unknown("the dtype of an array kerncast does not know"),
        },
        "itemsize" => match a.dtype {
            Some(d) => Val::int(d.bytes as i64),
            None => Val::unknown("the dtype of an array kerncast does not know"),
        },
        "nbytes" => match (a.numel(), a.dtype) {
            (Ok(n), Some(d)) => Val::Int(BigInt::from(n) * d.bytes),
            (Err(u), _) => Val::Unknown(u),
            _ => Val::unknown("the dtype of an array kerncast does not know"),
        },
        "T" | "mT" => {
            let mut out = a.clone();
            out.shape.reverse();
            Val::obj(heap, Obj::Array(Rc::new(out)))
        }
        "data" | "gpudata" | "ptr" | "device" | "is_cuda" => {
            Val::obj(heap, Obj::Opaque(Rc::from("device memory")))
        }
        _ => Val::Method(Box::new(v.clone()), Rc::from(name)),
    }
}

pub fn new_array<'a>(
    heap: &Registry<'a>,
    lib: Lib,
    shape: Result<Vec<Dim>, Rc<str>>,
    dtype: Option<Dtype>,
    device: bool,
) -> Val<'a> {
    let (shape, unknown_shape) = match shape {
        Ok(s) => (s, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    Val::obj(
        heap,
        Obj::Array(Rc::new(Array {
            lib,
            shape,
            dtype,
            unknown_shape,
            device,
        })),
    )
}

/// A shape argument: an integer, or a tuple or list of them.
fn shape_of(v: &Val<'_>) -> Result<Vec<Dim>, Rc<str>> {
    match v {
        Val::Tuple(_) | Val::List(_) => Ok(v
            .elements()
            .unwrap_or_default()
            .iter()
            .map(dim_of)
            .collect()),
        Val::Unknown(u) => Ok(vec![Err(u.clone())]),
        Val::Obj(o) => match &**o {
            Obj::Array(_) => Err(Rc::from("a shape given as an array")),
            _ => Err(Rc::from("a shape kerncast does not read")),
        },
        other if other.as_bigint().is_some() => Ok(vec![dim_of(other)]),
        _ => Err(Rc::from("a shape kerncast does not read")),
    }
}

/// Sizes given one per argument (`torch.randn(4096, 4096)`) or as one shape.
fn sizes_of(args: &[Val<'_>]) -> Result<Vec<Dim>, Rc<str>> {
    match args {
        [one @ (Val::Tuple(_) | Val::List(_))] => shape_of(one),
        many => Ok(many.iter().map(dim_of).collect()),
    }
}

/// The dtype a `dtype=` argument names.
pub fn dtype_of(v: &Val<'_>, torch: bool) -> Option<Dtype> {
    match v {
        Val::Obj(o) => match &**o {
            Obj::Dtype(d) => Some(*d),
            _ => None,
        },
        Val::Lib(p) => {
            let n = last(p);
            match (root(p), n) {
                ("torch", _) => Dtype::torch(n),
                (_, "float") if !p.contains('.') => Dtype::numpy("float64"),
                (_, "int") if !p.contains('.') => Dtype::numpy("int64"),
                (_, "bool") if !p.contains('.') => Dtype::numpy("bool"),
                _ => Dtype::numpy(n),
            }
        }
        Val::Str(s) => {
            if torch {
                Dtype::torch(s)
            } else {
                Dtype::numpy(s)
            }
        }
        _ => None,
    }
}

fn default_dtype(lib: Lib) -> Dtype {
    match lib {
        Lib::Torch => Dtype::FLOAT32,
        _ => Dtype::FLOAT64,
    }
}

fn array_of<'a>(v: &Val<'a>) -> Option<Rc<Array>> {
    match v {
        Val::Obj(o) => match &**o {
            Obj::Array(a) => Some(a.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The shape of a nested list of numbers (`np.array([[1, 2], [3, 4]])`).
fn nested_shape(v: &Val<'_>) -> Result<Vec<Dim>, Rc<str>> {
    if let Some(a) = array_of(v) {
        return match &a.unknown_shape {
            Some(w) => Err(w.clone()),
            None => Ok(a.shape.clone()),
        };
    }
    match v {
        Val::List(_) | Val::Tuple(_) => {
            let items = v.elements().unwrap_or_default();
            let mut out = vec![Ok(items.len() as i128)];
            if let Some(first) = items.first() {
                if matches!(first, Val::List(_) | Val::Tuple(_)) || array_of(first).is_some() {
                    out.extend(nested_shape(first)?);
                }
            }
            Ok(out)
        }
        Val::Unknown(u) => Err(u.why.clone()),
        _ => Ok(Vec::new()),
    }
}

/// The C-interpreter value of an unknown.
fn unknown_c(why: &str) -> Rc<crate::interp::value::Unknown> {
    Rc::new(crate::interp::value::Unknown {
        why: Rc::from(why),
        name: None,
    })
}

/// A reshape's sizes with one `-1` inferred from the element count, as NumPy and PyTorch do.
fn reshaped(a: &Array, sizes: Vec<Dim>) -> Result<Vec<Dim>, Rc<str>> {
    let minus = sizes.iter().filter(|d| matches!(d, Ok(-1))).count();
    if minus == 0 {
        return Ok(sizes);
    }
    if minus > 1 {
        return Err(Rc::from("a reshape with more than one -1"));
    }
    let total = a.numel();
    let known: Result<i128, _> = sizes
        .iter()
        .filter(|d| !matches!(d, Ok(-1)))
        .try_fold(1i128, |acc, d| d.clone().map(|x| acc * x));
    let inferred = match (total, known) {
        (Ok(t), Ok(k)) if k > 0 && t % k == 0 => Ok(t / k),
        (Ok(_), Ok(_)) => Err(unknown_c(
            "a reshape whose sizes do not divide the element count (Python raises an error)",
        )),
        (Err(u), _) | (_, Err(u)) => Err(u),
    };
    Ok(sizes
        .into_iter()
        .map(|d| {
            if matches!(d, Ok(-1)) {
                inferred.clone()
            } else {
                d
            }
        })
        .collect())
}

fn with_shape<'a>(heap: &Registry<'a>, a: &Array, shape: Result<Vec<Dim>, Rc<str>>) -> Val<'a> {
    new_array(heap, a.lib, shape, a.dtype, a.device)
}

fn with_dtype<'a>(heap: &Registry<'a>, a: &Array, dtype: Option<Dtype>) -> Val<'a> {
    let mut out = a.clone();
    out.dtype = dtype;
    Val::obj(heap, Obj::Array(Rc::new(out)))
}

// ---- calls ----

pub fn call<'a>(it: &mut Interp<'a>, f: Val<'a>, args: Args<'a>, at: &'a Expr) -> Exec<Val<'a>> {
    match f {
        Val::Lib(path) => call_lib(it, &path, args, at),
        Val::Method(obj, name) => call_method(it, *obj, &name, args, at),
        Val::Obj(o) => match &*o {
            Obj::Kernel(k) => {
                let k = k.clone();
                super::gpu::launch_cuda_handle(it, &k, &args, at);
                Ok(Val::None)
            }
            Obj::ClKernel(_) => {
                super::gpu::launch_cl_call(it, &o, &args, at);
                Ok(Val::None)
            }
            Obj::Dtype(d) => Ok(scalar_of(
                &args.pos.first().cloned().unwrap_or(Val::int(0)),
                d,
            )),
            _ => Ok(Val::unknown("a call of an object kerncast does not model")),
        },
        other => Ok(Val::unknown(&format!(
            "a call of a value that is not callable ({})",
            other.display()
        ))),
    }
}

/// `np.int32(x)`, `cp.float32(x)`: the value as that type holds it.
fn scalar_of<'a>(v: &Val<'a>, d: &Dtype) -> Val<'a> {
    if v.is_unknown() {
        return v.clone();
    }
    if d.name.starts_with("float") || d.name == "bfloat16" {
        return match v.as_f64() {
            Some(f) if d.name == "float32" => Val::Float(f as f32 as f64),
            Some(f) => Val::Float(f),
            None => Val::unknown("a number kerncast cannot convert"),
        };
    }
    let i = match v {
        Val::Float(f) if f.is_finite() => BigInt::from(f.trunc() as i128),
        other => match other.as_bigint() {
            Some(i) => i,
            None => return Val::unknown("a number kerncast cannot convert"),
        },
    };
    // NumPy's fixed-width integers wrap.
    let bits = d.bytes as u32 * 8;
    let signed = d.name.starts_with("int");
    let m = BigInt::from(1) << bits;
    let mut r = ((i % &m) + &m) % &m;
    if signed && r >= (&m >> 1usize) {
        r -= &m;
    }
    Val::Int(r)
}

fn to_int<'a>(v: &Val<'a>, base: Option<u32>) -> Val<'a> {
    match v {
        Val::Int(_) | Val::Bool(_) => Val::Int(v.as_bigint().unwrap_or_default()),
        Val::Float(f) if f.is_finite() => Val::Int(BigInt::from(f.trunc() as i128)),
        Val::Str(s) => {
            let t: String = s.trim().chars().filter(|c| *c != '_').collect();
            let (neg, t) = match t.strip_prefix('-') {
                Some(r) => (true, r.to_string()),
                None => (false, t.trim_start_matches('+').to_string()),
            };
            let (radix, digits) = match base {
                Some(0) | None if t.starts_with("0x") || t.starts_with("0X") => (16, &t[2..]),
                Some(b) if b != 0 => (b, t.as_str()),
                _ => (10, t.as_str()),
            };
            match BigInt::parse_bytes(digits.as_bytes(), radix) {
                Some(i) => Val::Int(if neg { -i } else { i }),
                None => Val::unknown(&format!("int('{s}'), which Python rejects (ValueError)")),
            }
        }
        Val::Unknown(_) => v.clone(),
        _ => Val::unknown("an int() of a value kerncast does not know"),
    }
}

fn to_float<'a>(v: &Val<'a>) -> Val<'a> {
    match v {
        Val::Str(s) => match s.trim().parse::<f64>() {
            Ok(f) => Val::Float(f),
            Err(_) => Val::unknown(&format!("float('{s}'), which Python rejects (ValueError)")),
        },
        Val::Unknown(_) => v.clone(),
        other => other
            .as_f64()
            .map(Val::Float)
            .unwrap_or_else(|| Val::unknown("a float() of a value kerncast does not know")),
    }
}

fn unknown_in<'a>(vals: &[Val<'a>]) -> Option<Val<'a>> {
    vals.iter().find(|v| v.is_unknown()).cloned()
}

fn round_half_even(f: f64) -> f64 {
    let r = f.round();
    if (f - f.trunc()).abs() == 0.5 {
        2.0 * (f / 2.0).round()
    } else {
        r
    }
}

fn call_lib<'a>(it: &mut Interp<'a>, path: &str, args: Args<'a>, at: &'a Expr) -> Exec<Val<'a>> {
    let a0 = args.pos.first().cloned().unwrap_or(Val::None);
    let name = last(path);
    // Python's built-ins.
    if !path.contains('.') {
        return builtin_call(it, path, args, at);
    }
    match root(path) {
        "math" => return Ok(math(&it.heap, name, &args.pos)),
        "sys" if name == "exit" => {
            it.exit(format!(
                "the script calls sys.exit at line {}",
                it.span(at).line
            ))?;
            return Ok(Val::None);
        }
        "os" => return Ok(os_call(it, path, &args)),
        "pathlib" if name == "Path" || name == "PurePath" => {
            let parts: Vec<String> = args.pos.iter().filter_map(|v| path_str(v)).collect();
            if parts.len() != args.pos.len() {
                return Ok(Val::unknown("a path kerncast does not know"));
            }
            return Ok(file(&it.heap, join_paths(&parts)));
        }
        "time" | "timeit" => return Ok(Val::unknown("a time read at run time")),
        "random" => return Ok(Val::unknown("a random number")),
        "argparse" if name == "ArgumentParser" => {
            return Ok(Val::obj(&it.heap, Obj::ArgParser(RefCell::new(Vec::new()))))
        }
        "setuptools" | "distutils" if name == "setup" => {
            super::extension::setup(it, &args, at);
            return Ok(Val::None);
        }
        _ => {}
    }
    if let Some(v) = super::gpu::call_lib(it, path, &args, at)? {
        return Ok(v);
    }
    if let Some(v) = super::extension::call_lib(it, path, &args, at)? {
        return Ok(v);
    }
    if path.ends_with("profiler.benchmark") || path == "cupyx.time.repeat" {
        return benchmark(it, &args, at);
    }
    if let Some(lib) = array_lib(path) {
        if let Some(v) = array_maker(it, lib, path, &args) {
            return Ok(v);
        }
        // A dtype called as a scalar conversion (`np.int32(n)`).
        let d = if lib == Lib::Torch {
            Dtype::torch(name)
        } else {
            Dtype::numpy(name)
        };
        if let (Some(d), false) = (d, lib == Lib::Torch) {
            return Ok(scalar_of(&a0, &d));
        }
    }
    // Functions that only act (synchronise, print, seed): no value.
    if matches!(
        name,
        "synchronize"
            | "deviceSynchronize"
            | "manual_seed"
            | "seed"
            | "set_device"
            | "memcpy_htod"
            | "memcpy_dtoh"
            | "enqueue_copy"
            | "empty_cache"
            | "finish"
            | "wait"
    ) {
        return Ok(Val::None);
    }
    // Objects the host only passes along (contexts, queues, streams, devices, buffers).
    if matches!(
        name,
        "create_some_context"
            | "Context"
            | "CommandQueue"
            | "Buffer"
            | "Stream"
            | "Event"
            | "Device"
            | "device"
            | "mem_alloc"
            | "mem_alloc_like"
            | "make_default_context"
            | "get_platforms"
            | "In"
            | "Out"
            | "InOut"
            | "pagelocked_empty"
            | "Memory"
            | "to_device_buffer"
    ) {
        if matches!(name, "In" | "Out" | "InOut") {
            return Ok(a0);
        }
        return Ok(Val::obj(&it.heap, Obj::Opaque(Rc::from(path))));
    }
    Ok(Val::unknown(&format!(
        "it comes from `{path}`, which kerncast does not model"
    )))
}

/// `cupyx.profiler.benchmark(func, args=(), kwargs={}, n_repeat=10000, *, name=None,
/// n_warmup=10, max_duration=inf)`: `func(*args)` `n_warmup` times, then `n_repeat` times
/// (CuPy's reference for `cupyx.profiler.benchmark`); `max_duration` may stop the repeats
/// after a time only a run knows.
fn benchmark<'a>(it: &mut Interp<'a>, args: &Args<'a>, at: &'a Expr) -> Exec<Val<'a>> {
    let Some(func) = args.get(0, "func") else {
        return Ok(Val::unknown("a benchmark of no function"));
    };
    let fargs = args
        .get(1, "args")
        .and_then(|a| a.elements())
        .unwrap_or_default();
    let n_repeat = args.get(3, "n_repeat").unwrap_or(Val::int(10000));
    let n_warmup = args.kw("n_warmup").unwrap_or(Val::int(10));
    let total = match (n_repeat.as_i64(), n_warmup.as_i64()) {
        (Some(r), Some(w)) if r >= 0 && w >= 0 => Some((r + w) as u64),
        _ => None,
    };
    let limited = args
        .kw("max_duration")
        .is_some_and(|d| d.as_f64().is_none_or(|f| f.is_finite()));
    let mark = it.recorder.log.len();
    let r = it.call(
        func,
        Args {
            pos: fargs,
            kw: Vec::new(),
        },
        at,
    )?;
    let line = it.span(at).line;
    match total {
        Some(n) if n >= 1 && !limited => it.recorder.repeat_since(mark, n - 1),
        Some(n) if n >= 1 => it.recorder.partial_since(
            mark,
            &format!("the benchmark at line {line} stops its repeats after `max_duration`, a time only a run knows"),
        ),
        _ => it.recorder.partial_since(mark, &format!("the benchmark at line {line} repeats a number of times kerncast does not know")),
    }
    let _ = r;
    Ok(Val::unknown("the timings of a benchmark"))
}

fn path_str(v: &Val<'_>) -> Option<String> {
    match v {
        Val::Str(s) => Some(s.to_string()),
        Val::Obj(o) => match &**o {
            Obj::File { path, .. } => Some(path.to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn join_paths(parts: &[String]) -> String {
    let mut p = std::path::PathBuf::new();
    for x in parts {
        p.push(x);
    }
    p.to_string_lossy().into_owned()
}

fn os_call<'a>(it: &mut Interp<'a>, path: &str, args: &Args<'a>) -> Val<'a> {
    let strs: Option<Vec<String>> = args.pos.iter().map(path_str).collect();
    let name = last(path);
    match (name, strs) {
        ("join", Some(p)) => Val::str(&join_paths(&p)),
        ("dirname", Some(p)) if p.len() == 1 => {
            Val::str(&match std::path::Path::new(&p[0]).parent() {
                Some(d) => d.to_string_lossy().into_owned(),
                None => String::new(),
            })
        }
        ("basename", Some(p)) if p.len() == 1 => Val::str(p[0].rsplit('/').next().unwrap_or(&p[0])),
        ("abspath" | "realpath" | "normpath" | "expanduser", Some(p)) if p.len() == 1 => {
            Val::str(&p[0])
        }
        ("exists" | "isfile", Some(p)) if p.len() == 1 => {
            Val::Bool(std::path::Path::new(&p[0]).exists())
        }
        ("getenv", _) | ("get", _) if path.contains("environ") || name == "getenv" => {
            match args.pos.first().and_then(|v| v.as_str()) {
                Some(var) => {
                    let var = var.to_string();
                    it.assumption(
                        &var,
                        "an environment variable, which the program reads at run time",
                    )
                }
                None => Val::unknown("an environment variable"),
            }
        }
        _ => Val::unknown(&format!(
            "it comes from `{path}`, which kerncast does not model"
        )),
    }
}

fn math<'a>(heap: &Registry<'a>, name: &str, args: &[Val<'a>]) -> Val<'a> {
    if let Some(u) = unknown_in(args) {
        return u;
    }
    let a = args.first().cloned().unwrap_or(Val::None);
    let b = args.get(1).cloned().unwrap_or(Val::None);
    let int_result = |f: f64| -> Val<'a> {
        if f.is_finite() {
            Val::Int(BigInt::from(f as i128))
        } else {
            Val::unknown("a non-finite float converted to an integer")
        }
    };
    match name {
        "ceil" => match a.as_bigint() {
            Some(i) => Val::Int(i),
            None => a
                .as_f64()
                .map(|f| int_result(f.ceil()))
                .unwrap_or_else(|| Val::unknown("math.ceil of a value kerncast does not know")),
        },
        "floor" => match a.as_bigint() {
            Some(i) => Val::Int(i),
            None => a
                .as_f64()
                .map(|f| int_result(f.floor()))
                .unwrap_or_else(|| Val::unknown("math.floor of a value kerncast does not know")),
        },
        "trunc" => match a.as_bigint() {
            Some(i) => Val::Int(i),
            None => a
                .as_f64()
                .map(|f| int_result(f.trunc()))
                .unwrap_or_else(|| Val::unknown("math.trunc")),
        },
        "isqrt" => match a.as_bigint() {
            Some(i) if !i.is_negative() => Val::Int(i.sqrt()),
            _ => Val::unknown("math.isqrt of a value kerncast does not know"),
        },
        "gcd" => match (a.as_bigint(), b.as_bigint()) {
            (Some(x), Some(y)) => Val::Int(num_integer::Integer::gcd(&x, &y)),
            _ => Val::unknown("math.gcd"),
        },
        "prod" => match a.elements() {
            Some(items) => items.iter().fold(Val::int(1), |acc, x| {
                binop(heap, ruff_python_ast::Operator::Mult, &acc, x)
            }),
            None => Val::unknown("math.prod of a value kerncast does not know"),
        },
        "pow" => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Val::Float(x.powf(y)),
            _ => Val::unknown("math.pow"),
        },
        "log" if args.len() == 2 => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Val::Float(x.ln() / y.ln()),
            _ => Val::unknown("math.log"),
        },
        _ => {
            let Some(x) = a.as_f64() else {
                return Val::unknown(&format!("math.{name} of a value kerncast does not know"));
            };
            Val::Float(match name {
                "sqrt" => x.sqrt(),
                "log" => x.ln(),
                "log2" => x.log2(),
                "log10" => x.log10(),
                "exp" => x.exp(),
                "fabs" => x.abs(),
                "sin" => x.sin(),
                "cos" => x.cos(),
                "tan" => x.tan(),
                "tanh" => x.tanh(),
                _ => return Val::unknown(&format!("math.{name}, which kerncast does not model")),
            })
        }
    }
}

fn builtin_call<'a>(
    it: &mut Interp<'a>,
    name: &str,
    args: Args<'a>,
    at: &'a Expr,
) -> Exec<Val<'a>> {
    let pos = &args.pos;
    let a0 = pos.first().cloned().unwrap_or(Val::None);
    Ok(match name {
        "print" | "input" if name == "print" => Val::None,
        "input" => Val::unknown("a line read from standard input"),
        "len" => match &a0 {
            Val::Unknown(_) => a0,
            Val::Str(s) => Val::int(s.chars().count() as i64),
            Val::Range(r) => Val::Int(r.len()),
            Val::Obj(o) => match &**o {
                Obj::Array(a) => match a.shape.first() {
                    Some(d) => dim_val(d),
                    None => Val::unknown(
                        a.unknown_shape
                            .as_deref()
                            .unwrap_or("len() of a zero-dimensional array"),
                    ),
                },
                _ => Val::unknown("len() of an object kerncast does not model"),
            },
            other => match other.elements() {
                Some(e) => Val::int(e.len() as i64),
                None => Val::unknown("len() of a value kerncast does not know"),
            },
        },
        "range" => {
            let ints: Option<Vec<BigInt>> = pos.iter().map(|v| v.as_bigint()).collect();
            match (ints, unknown_in(pos)) {
                (_, Some(u)) => u,
                (Some(v), None) => {
                    let (start, stop, step) = match v.as_slice() {
                        [stop] => (BigInt::zero(), stop.clone(), BigInt::from(1)),
                        [a, b] => (a.clone(), b.clone(), BigInt::from(1)),
                        [a, b, c] if !c.is_zero() => (a.clone(), b.clone(), c.clone()),
                        _ => return Ok(Val::unknown("a range() Python rejects")),
                    };
                    Val::Range(Rc::new(PyRange { start, stop, step }))
                }
                (None, None) => Val::unknown("a range() of values that are not integers"),
            }
        }
        "int" => {
            let base = pos.get(1).and_then(|b| b.as_i64()).map(|b| b as u32);
            if pos.is_empty() {
                Val::int(0)
            } else {
                to_int(&a0, base)
            }
        }
        "float" => {
            if pos.is_empty() {
                Val::Float(0.0)
            } else {
                to_float(&a0)
            }
        }
        "bool" => match a0.truth() {
            Some(t) => Val::Bool(t),
            None => a0,
        },
        "str" | "repr" => match &a0 {
            Val::Unknown(_) => a0,
            Val::Obj(_) | Val::Func(_) | Val::Method(..) => Val::unknown("the text of an object"),
            v => Val::str(&if name == "str" { v.display() } else { v.repr() }),
        },
        "abs" => match &a0 {
            Val::Float(f) => Val::Float(f.abs()),
            v => v.as_bigint().map(|i| Val::Int(i.abs())).unwrap_or(a0),
        },
        "min" | "max" => {
            let items = if pos.len() == 1 {
                a0.elements().unwrap_or_default()
            } else {
                pos.clone()
            };
            if let Some(u) = unknown_in(&items) {
                return Ok(u);
            }
            let mut best: Option<Val<'a>> = None;
            for x in items {
                best = Some(match best {
                    None => x,
                    Some(b) => {
                        let op = if name == "min" {
                            ruff_python_ast::CmpOp::Lt
                        } else {
                            ruff_python_ast::CmpOp::Gt
                        };
                        match it.compare(op, &x, &b).truth() {
                            Some(true) => x,
                            Some(false) => b,
                            None => return Ok(Val::unknown("a min/max kerncast cannot decide")),
                        }
                    }
                });
            }
            best.or_else(|| args.kw("default"))
                .unwrap_or_else(|| Val::unknown("min/max of nothing"))
        }
        "sum" => match a0.elements() {
            Some(items) => {
                let start = pos.get(1).cloned().unwrap_or(Val::int(0));
                items.iter().fold(start, |acc, x| {
                    binop(&it.heap, ruff_python_ast::Operator::Add, &acc, x)
                })
            }
            None => first_or(&a0, "sum() of a value kerncast does not know"),
        },
        "round" => {
            let nd = pos.get(1).and_then(|v| v.as_i64());
            match (&a0, nd) {
                (Val::Float(f), None) => Val::Int(BigInt::from(round_half_even(*f) as i128)),
                (Val::Float(f), Some(n)) => {
                    let m = 10f64.powi(n as i32);
                    Val::Float(round_half_even(f * m) / m)
                }
                (v, _) if v.as_bigint().is_some() => Val::Int(v.as_bigint().unwrap_or_default()),
                _ => first_or(&a0, "round() of a value kerncast does not know"),
            }
        }
        "divmod" => {
            let b = pos.get(1).cloned().unwrap_or(Val::None);
            Val::tuple(vec![
                binop(&it.heap, ruff_python_ast::Operator::FloorDiv, &a0, &b),
                binop(&it.heap, ruff_python_ast::Operator::Mod, &a0, &b),
            ])
        }
        "pow" => {
            let b = pos.get(1).cloned().unwrap_or(Val::None);
            let p = binop(&it.heap, ruff_python_ast::Operator::Pow, &a0, &b);
            match pos.get(2) {
                Some(m) => binop(&it.heap, ruff_python_ast::Operator::Mod, &p, m),
                None => p,
            }
        }
        "enumerate" => match a0.elements().or_else(|| iterate(it, &a0)) {
            Some(items) => {
                let start = pos
                    .get(1)
                    .cloned()
                    .or_else(|| args.kw("start"))
                    .and_then(|s| s.as_i64())
                    .unwrap_or(0);
                Val::list(
                    &it.heap,
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, x)| Val::tuple(vec![Val::int(start + i as i64), x]))
                        .collect(),
                )
            }
            None => first_or(&a0, "enumerate() of a sequence kerncast does not know"),
        },
        "zip" => {
            let seqs: Option<Vec<Vec<Val<'a>>>> = pos.iter().map(|v| iterate(it, v)).collect();
            match seqs {
                Some(seqs) => {
                    let n = seqs.iter().map(|s| s.len()).min().unwrap_or(0);
                    Val::list(
                        &it.heap,
                        (0..n)
                            .map(|i| Val::tuple(seqs.iter().map(|s| s[i].clone()).collect()))
                            .collect(),
                    )
                }
                None => Val::unknown("zip() of a sequence kerncast does not know"),
            }
        }
        "list" | "tuple" | "set" | "frozenset" | "sorted" | "reversed" => {
            if pos.is_empty() {
                return Ok(if name == "tuple" {
                    Val::tuple(Vec::new())
                } else {
                    Val::list(&it.heap, Vec::new())
                });
            }
            match iterate(it, &a0) {
                Some(mut items) => {
                    if name == "sorted" {
                        let mut failed = false;
                        items.sort_by(|x, y| {
                            compare(ruff_python_ast::CmpOp::Lt, x, y)
                                .truth()
                                .map(|lt| {
                                    if lt {
                                        std::cmp::Ordering::Less
                                    } else if equal(x, y) == Some(true) {
                                        std::cmp::Ordering::Equal
                                    } else {
                                        std::cmp::Ordering::Greater
                                    }
                                })
                                .unwrap_or_else(|| {
                                    failed = true;
                                    std::cmp::Ordering::Equal
                                })
                        });
                        if failed {
                            return Ok(Val::unknown("sorted() of values kerncast cannot order"));
                        }
                        if args.kw("reverse").and_then(|r| r.truth()) == Some(true) {
                            items.reverse();
                        }
                    }
                    if name == "reversed" {
                        items.reverse();
                    }
                    if name == "tuple" {
                        Val::tuple(items)
                    } else {
                        Val::list(&it.heap, items)
                    }
                }
                None => first_or(
                    &a0,
                    &format!("{name}() of a sequence kerncast does not know"),
                ),
            }
        }
        "dict" => {
            let mut items: Vec<(Val<'a>, Val<'a>)> = match &a0 {
                Val::Dict(d) => d.borrow().clone(),
                _ => Vec::new(),
            };
            items.extend(
                args.kw
                    .iter()
                    .map(|(k, v)| (Val::Str(k.clone()), v.clone())),
            );
            Val::dict(&it.heap, items)
        }
        "any" | "all" => match a0.elements() {
            Some(items) => {
                let truths: Vec<Option<bool>> = items.iter().map(|x| x.truth()).collect();
                let want = name == "any";
                if truths.contains(&Some(want)) {
                    Val::Bool(want)
                } else if truths.iter().all(|t| t.is_some()) {
                    Val::Bool(!want)
                } else {
                    Val::unknown(&format!("{name}() of values kerncast does not know"))
                }
            }
            None => Val::unknown(&format!("{name}() of a sequence kerncast does not know")),
        },
        "open" => match path_str(&a0) {
            Some(p) => {
                let full = it.resolve_path(&p);
                file(&it.heap, full)
            }
            None => Val::unknown("a file whose name kerncast does not know"),
        },
        "exit" | "quit" => {
            it.exit(format!(
                "the script calls exit at line {}",
                it.span(at).line
            ))?;
            Val::None
        }
        "map" => {
            let f = a0.clone();
            match pos.get(1).and_then(|s| iterate(it, s)) {
                Some(items) => {
                    let mut out = Vec::new();
                    for x in items {
                        out.push(it.call(
                            f.clone(),
                            Args {
                                pos: vec![x],
                                kw: Vec::new(),
                            },
                            at,
                        )?);
                    }
                    Val::list(&it.heap, out)
                }
                None => Val::unknown("map() over a sequence kerncast does not know"),
            }
        }
        "getattr" => match pos.get(1).and_then(|n| n.as_str()) {
            Some(n) => {
                let n = n.to_string();
                it.getattr(&a0, &n, at)?
            }
            None => Val::unknown("getattr() of a name kerncast does not know"),
        },
        "chr" => a0
            .as_i64()
            .and_then(|c| char::from_u32(c as u32))
            .map(|c| Val::str(&c.to_string()))
            .unwrap_or_else(|| Val::unknown("chr()")),
        "ord" => a0
            .as_str()
            .and_then(|s| s.chars().next())
            .map(|c| Val::int(c as i64))
            .unwrap_or_else(|| Val::unknown("ord()")),
        "isinstance" => {
            let ty = pos.get(1).cloned().unwrap_or(Val::None);
            let name_of = |t: &Val<'_>| match t {
                Val::Lib(n) => Some(n.to_string()),
                _ => None,
            };
            let names: Vec<String> = match &ty {
                Val::Tuple(t) => t.iter().filter_map(name_of).collect(),
                t => name_of(t).into_iter().collect(),
            };
            let kind = match &a0 {
                Val::Int(_) => Some("int"),
                Val::Bool(_) => Some("bool"),
                Val::Float(_) => Some("float"),
                Val::Str(_) => Some("str"),
                Val::List(_) => Some("list"),
                Val::Tuple(_) => Some("tuple"),
                Val::Dict(_) => Some("dict"),
                _ => None,
            };
            match kind {
                Some(k) if !names.is_empty() => {
                    Val::Bool(names.iter().any(|n| n == k || (n == "int" && k == "bool")))
                }
                _ => Val::unknown("an isinstance() kerncast cannot decide"),
            }
        }
        "hasattr" | "callable" | "type" | "id" | "hash" | "vars" | "globals" | "locals"
        | "iter" | "next" | "filter" | "super" | "object" | "format" | "hex" | "bin" | "oct"
        | "bytes" => Val::unknown(&format!("{name}(), which kerncast does not model")),
        // Exceptions: made, to be raised.
        _ => Val::obj(&it.heap, Obj::Opaque(Rc::from(name))),
    })
}

/// Array and tensor makers of NumPy, CuPy, PyCUDA's `gpuarray`, PyOpenCL's `array` and
/// PyTorch: the array with its shape and dtype.
fn array_maker<'a>(it: &mut Interp<'a>, lib: Lib, path: &str, args: &Args<'a>) -> Option<Val<'a>> {
    let name = last(path);
    let torch = lib == Lib::Torch;
    let device = match lib {
        Lib::NumPy => false,
        Lib::CuPy | Lib::PyCuda => true,
        Lib::Torch => args.kw("device").is_some_and(|d| match &d {
            Val::Str(s) => s.starts_with("cuda"),
            _ => true,
        }),
    };
    let dtype_kw = args.kw("dtype").and_then(|d| dtype_of(&d, torch));
    // PyOpenCL's array makers take the queue first.
    let pos: Vec<Val<'a>> = if root(path) == "pyopencl" {
        args.pos.iter().skip(1).cloned().collect()
    } else {
        args.pos.clone()
    };
    let pos = &pos;
    let first = pos.first().cloned();
    let shape_kw = args.kw("shape").or_else(|| args.kw("size"));
    let out = |shape: Result<Vec<Dim>, Rc<str>>, dtype: Option<Dtype>| {
        new_array(
            &it.heap,
            lib,
            shape,
            dtype.or(Some(default_dtype(lib))),
            device,
        )
    };
    Some(match name {
        "zeros" | "ones" | "empty" | "rand" | "randn" | "full" if torch => {
            let sizes: Vec<Val<'a>> = match shape_kw {
                Some(s) => vec![s],
                None if name == "full" => pos.first().cloned().into_iter().collect(),
                None => pos.clone(),
            };
            out(sizes_of(&sizes), dtype_kw)
        }
        "zeros" | "ones" | "empty" | "full" => {
            let shape = shape_kw.or(first)?;
            let dtype = dtype_kw.or_else(|| {
                if name == "full" {
                    None
                } else {
                    pos.get(1).and_then(|d| dtype_of(d, false))
                }
            });
            out(shape_of(&shape), dtype)
        }
        "randint" if torch => {
            let size = shape_kw.or_else(|| pos.last().cloned())?;
            out(shape_of(&size), dtype_kw.or(Dtype::torch("int64")))
        }
        "rand" | "randn" | "random_sample" | "random" | "uniform" | "normal" | "randint"
        | "standard_normal" => {
            if !path.contains("random") {
                return None;
            }
            let shape = match name {
                "rand" | "randn" => return Some(out(sizes_of(pos), dtype_kw)),
                "uniform" | "normal" => shape_kw.or_else(|| pos.get(2).cloned()),
                "randint" => shape_kw.or_else(|| pos.get(2).cloned()),
                _ => shape_kw.or(first),
            };
            match shape {
                Some(s) => out(
                    shape_of(&s),
                    dtype_kw.or(if name == "randint" {
                        Dtype::numpy("int64")
                    } else {
                        None
                    }),
                ),
                None => return Some(Val::unknown("a random number")),
            }
        }
        "arange" => {
            let nums: Vec<Val<'a>> = pos.clone();
            let (start, stop, step) = match nums.as_slice() {
                [s] => (Val::int(0), s.clone(), Val::int(1)),
                [a, b] => (a.clone(), b.clone(), Val::int(1)),
                [a, b, c, ..] => (a.clone(), b.clone(), c.clone()),
                _ => return None,
            };
            let ints = [&start, &stop, &step]
                .iter()
                .all(|v| v.as_bigint().is_some());
            let n = if ints {
                let r = PyRange {
                    start: start.as_bigint().unwrap_or_default(),
                    stop: stop.as_bigint().unwrap_or_default(),
                    step: step.as_bigint().unwrap_or_default(),
                };
                if r.step.is_zero() {
                    return Some(Val::unknown("an arange with a zero step"));
                }
                dim_of(&Val::Int(r.len()))
            } else {
                match (start.as_f64(), stop.as_f64(), step.as_f64()) {
                    (Some(a), Some(b), Some(c)) if c != 0.0 => {
                        Ok(((b - a) / c).ceil().max(0.0) as i128)
                    }
                    _ => dim_of(
                        &unknown_in(&[start, stop, step])
                            .unwrap_or(Val::unknown("an arange kerncast cannot count")),
                    ),
                }
            };
            let dtype = dtype_kw.or(if ints {
                if torch {
                    Dtype::torch("int64")
                } else {
                    Dtype::numpy("int64")
                }
            } else {
                None
            });
            out(Ok(vec![n]), dtype)
        }
        "linspace" | "logspace" => {
            let num = args.get(2, "num").unwrap_or(Val::int(50));
            out(Ok(vec![dim_of(&num)]), dtype_kw)
        }
        "zeros_like" | "ones_like" | "empty_like" | "full_like" | "rand_like" | "randn_like"
        | "empty_like_cuda" => {
            let a = array_of(&first?)?;
            let mut v = (*a).clone();
            if let Some(d) = dtype_kw {
                v.dtype = Some(d);
            }
            if torch {
                if let Some(dv) = args.kw("device") {
                    v.device = matches!(&dv, Val::Str(s) if s.starts_with("cuda"));
                }
            }
            if lib != Lib::NumPy && !torch {
                v.device = true;
                v.lib = lib;
            }
            Val::obj(&it.heap, Obj::Array(Rc::new(v)))
        }
        "array" | "asarray" | "ascontiguousarray" | "tensor" | "as_tensor" | "from_numpy"
        | "to_gpu" | "to_device" | "asnumpy" | "to_gpu_async" => {
            let src = first?;
            let shape = nested_shape(&src);
            let dtype = dtype_kw
                .or_else(|| array_of(&src).and_then(|a| a.dtype))
                .or_else(|| match &src {
                    Val::List(_) | Val::Tuple(_) => {
                        let items = src.elements().unwrap_or_default();
                        if items.iter().any(|x| matches!(x, Val::Float(_))) {
                            Some(if torch {
                                Dtype::FLOAT32
                            } else {
                                Dtype::FLOAT64
                            })
                        } else {
                            Dtype::numpy("int64")
                        }
                    }
                    _ => None,
                });
            let dev = match name {
                "asnumpy" => false,
                "to_gpu" | "to_device" | "to_gpu_async" => true,
                _ => device,
            };
            new_array(
                &it.heap,
                if name == "asnumpy" { Lib::NumPy } else { lib },
                shape,
                dtype,
                dev,
            )
        }
        _ => {
            let _ = it;
            return None;
        }
    })
}

fn call_method<'a>(
    it: &mut Interp<'a>,
    obj: Val<'a>,
    name: &str,
    args: Args<'a>,
    at: &'a Expr,
) -> Exec<Val<'a>> {
    let a0 = args.pos.first().cloned().unwrap_or(Val::None);
    match &obj {
        Val::Unknown(_) => return Ok(obj),
        Val::Str(s) => return Ok(str_method(it, s, name, &args, &obj)),
        Val::List(l) => {
            let v = match name {
                "append" => {
                    l.borrow_mut().push(a0);
                    Val::None
                }
                "extend" => {
                    match iterate(it, &a0) {
                        Some(items) => l.borrow_mut().extend(items),
                        None => l
                            .borrow_mut()
                            .push(Val::unknown("elements kerncast does not know")),
                    }
                    Val::None
                }
                "insert" => {
                    let i = a0.as_i64().unwrap_or(0);
                    let v = args.pos.get(1).cloned().unwrap_or(Val::None);
                    let mut l = l.borrow_mut();
                    let n = l.len() as i64;
                    let at = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
                    l.insert(at, v);
                    Val::None
                }
                "pop" => {
                    let mut l = l.borrow_mut();
                    let i = args.pos.first().and_then(|v| v.as_i64()).unwrap_or(-1);
                    match index(i, l.len()) {
                        Some(j) => l.remove(j),
                        None => Val::unknown("pop() of an empty list"),
                    }
                }
                "copy" => Val::list(&it.heap, l.borrow().clone()),
                "index" => match l.borrow().iter().position(|x| equal(x, &a0) == Some(true)) {
                    Some(i) => Val::int(i as i64),
                    None => Val::unknown("index() of a value not in the list"),
                },
                "count" => Val::int(
                    l.borrow()
                        .iter()
                        .filter(|x| equal(x, &a0) == Some(true))
                        .count() as i64,
                ),
                "clear" => {
                    l.borrow_mut().clear();
                    Val::None
                }
                "reverse" => {
                    l.borrow_mut().reverse();
                    Val::None
                }
                "sort" => {
                    let sorted = builtin_call(
                        it,
                        "sorted",
                        Args {
                            pos: vec![obj.clone()],
                            kw: args.kw.clone(),
                        },
                        at,
                    )?;
                    if let Some(items) = sorted.elements() {
                        *l.borrow_mut() = items;
                    }
                    Val::None
                }
                _ => Val::unknown(&format!(
                    "the list method `{name}`, which kerncast does not model"
                )),
            };
            return Ok(v);
        }
        Val::Dict(d) => {
            let v = match name {
                "get" => {
                    let found = d
                        .borrow()
                        .iter()
                        .find(|(k, _)| equal(k, &a0) == Some(true))
                        .map(|(_, v)| v.clone());
                    found.unwrap_or_else(|| args.pos.get(1).cloned().unwrap_or(Val::None))
                }
                "keys" => Val::list(
                    &it.heap,
                    d.borrow().iter().map(|(k, _)| k.clone()).collect(),
                ),
                "values" => Val::list(
                    &it.heap,
                    d.borrow().iter().map(|(_, v)| v.clone()).collect(),
                ),
                "items" => Val::list(
                    &it.heap,
                    d.borrow()
                        .iter()
                        .map(|(k, v)| Val::tuple(vec![k.clone(), v.clone()]))
                        .collect(),
                ),
                "update" => {
                    let mut new: Vec<(Val<'a>, Val<'a>)> = match &a0 {
                        Val::Dict(o) => o.borrow().clone(),
                        _ => Vec::new(),
                    };
                    new.extend(
                        args.kw
                            .iter()
                            .map(|(k, v)| (Val::Str(k.clone()), v.clone())),
                    );
                    let mut d = d.borrow_mut();
                    for (k, v) in new {
                        match d.iter_mut().find(|(x, _)| equal(x, &k) == Some(true)) {
                            Some(slot) => slot.1 = v,
                            None => d.push((k, v)),
                        }
                    }
                    Val::None
                }
                "setdefault" => {
                    let found = d
                        .borrow()
                        .iter()
                        .find(|(k, _)| equal(k, &a0) == Some(true))
                        .map(|(_, v)| v.clone());
                    match found {
                        Some(v) => v,
                        None => {
                            let v = args.pos.get(1).cloned().unwrap_or(Val::None);
                            d.borrow_mut().push((a0, v.clone()));
                            v
                        }
                    }
                }
                "copy" => Val::dict(&it.heap, d.borrow().clone()),
                _ => Val::unknown(&format!(
                    "the dict method `{name}`, which kerncast does not model"
                )),
            };
            return Ok(v);
        }
        Val::Lib(p) if &**p == "os.environ" => return Ok(os_call(it, "os.environ.get", &args)),
        Val::Obj(o) => {
            match &**o {
                Obj::Array(a) => return Ok(array_method(it, &obj, a, name, &args)),
                Obj::ArgParser(p) => return Ok(argparse_method(it, &obj, p, name, &args)),
                Obj::File { path, exists } => {
                    return Ok(match name {
                        "read" | "read_text" => super::gpu::read_file(it, path, *exists),
                        "exists" | "is_file" => Val::Bool(*exists),
                        "resolve" | "absolute" | "expanduser" => obj.clone(),
                        "joinpath" => match path_str(&a0) {
                            Some(p) => file(&it.heap, join_paths(&[path.to_string(), p])),
                            None => Val::unknown("a path kerncast does not know"),
                        },
                        "close" | "__exit__" | "write" => Val::None,
                        _ => Val::unknown(&format!("the file method `{name}`")),
                    })
                }
                Obj::Opaque(n) if &**n == "os.environ" => {
                    return Ok(os_call(it, "os.environ.get", &args))
                }
                Obj::Dtype(d) if name == "type" => return Ok(scalar_of(&a0, d)),
                _ => {}
            }
            if let Some(v) = super::gpu::call_method(it, o, name, &args, at)? {
                return Ok(v);
            }
            if let Obj::Extension(ext) = &**o {
                let ext = ext.clone();
                return super::extension::call(it, &ext, name, &args, at);
            }
        }
        _ => {}
    }
    Ok(Val::unknown(&format!(
        "the method `{name}`, which kerncast does not model"
    )))
}

fn str_method<'a>(
    it: &mut Interp<'a>,
    s: &Rc<str>,
    name: &str,
    args: &Args<'a>,
    obj: &Val<'a>,
) -> Val<'a> {
    let a0 = args.pos.first().cloned().unwrap_or(Val::None);
    let keep_origin = |it: &mut Interp<'a>, text: String| -> Val<'a> {
        let v: Rc<str> = Rc::from(text);
        if let Some((_, origin)) = it
            .origins
            .get(&(Rc::as_ptr(s) as *const u8 as usize))
            .cloned()
        {
            // A template filled in keeps its lines where the substitutions do not add any.
            let same_lines = v.lines().count() == s.lines().count();
            let origin = if same_lines { origin } else { Origin::Computed };
            it.origins
                .insert(Rc::as_ptr(&v) as *const u8 as usize, (v.clone(), origin));
        }
        Val::Str(v)
    };
    match name {
        "format" => match brace_format(s, args) {
            Some(t) => keep_origin(it, t),
            None => Val::unknown("a string formatted with `format` that kerncast cannot fill in"),
        },
        "replace" => match (a0.as_str(), args.pos.get(1).and_then(|v| v.as_str())) {
            (Some(a), Some(b)) => {
                let t = s.replace(a, b);
                keep_origin(it, t)
            }
            _ => Val::unknown("a replace() with text kerncast does not know"),
        },
        "strip" | "lstrip" | "rstrip" => {
            let t = match name {
                "strip" => s.trim(),
                "lstrip" => s.trim_start(),
                _ => s.trim_end(),
            };
            Val::str(t)
        }
        "upper" => Val::str(&s.to_uppercase()),
        "lower" => Val::str(&s.to_lowercase()),
        "startswith" => a0
            .as_str()
            .map(|p| Val::Bool(s.starts_with(p)))
            .unwrap_or_else(|| Val::unknown("startswith()")),
        "endswith" => a0
            .as_str()
            .map(|p| Val::Bool(s.ends_with(p)))
            .unwrap_or_else(|| Val::unknown("endswith()")),
        "split" => {
            let parts: Vec<Val<'a>> = match a0.as_str() {
                Some(sep) if !sep.is_empty() => s.split(sep).map(Val::str).collect(),
                _ => s.split_whitespace().map(Val::str).collect(),
            };
            Val::list(&it.heap, parts)
        }
        "join" => match iterate(it, &a0) {
            Some(items) => {
                let strs: Option<Vec<String>> =
                    items.iter().map(|x| x.as_str().map(String::from)).collect();
                match strs {
                    Some(v) => Val::str(&v.join(s)),
                    None => Val::unknown("a join of values kerncast does not know"),
                }
            }
            None => Val::unknown("a join of a sequence kerncast does not know"),
        },
        "encode" | "decode" => obj.clone(),
        "isdigit" | "isnumeric" => {
            Val::Bool(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
        }
        "count" => a0
            .as_str()
            .map(|p| Val::int(s.matches(p).count() as i64))
            .unwrap_or_else(|| Val::unknown("count()")),
        _ => Val::unknown(&format!(
            "the string method `{name}`, which kerncast does not model"
        )),
    }
}

/// `str.format`: `{}`, `{0}`, `{name}`, with conversions and format specs of integers left as
/// the value's text; `None` where kerncast cannot fill it in.
fn brace_format(s: &str, args: &Args<'_>) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    let mut auto = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                    field.push(d);
                }
                let (name, spec) = match field.split_once(':') {
                    Some((n, s)) => (n.to_string(), Some(s.to_string())),
                    None => (field.clone(), None),
                };
                let name = name.split('!').next().unwrap_or("").to_string();
                let v = if name.is_empty() {
                    auto += 1;
                    args.pos.get(auto - 1).cloned()?
                } else if let Ok(i) = name.parse::<usize>() {
                    args.pos.get(i).cloned()?
                } else {
                    args.kw(&name)?
                };
                if v.is_unknown() || matches!(v, Val::Obj(_) | Val::Func(_)) {
                    return None;
                }
                match spec.as_deref() {
                    None | Some("") | Some("d") | Some("s") => out.push_str(&v.display()),
                    Some(_) => return None,
                }
            }
            c => out.push(c),
        }
    }
    Some(out)
}

fn array_method<'a>(
    it: &mut Interp<'a>,
    obj: &Val<'a>,
    a: &Rc<Array>,
    name: &str,
    args: &Args<'a>,
) -> Val<'a> {
    let torch = a.lib == Lib::Torch;
    let a0 = args.pos.first().cloned();
    match name {
        "reshape" | "view"
            if !(name == "view" && a0.as_ref().is_some_and(|d| dtype_of(d, torch).is_some())) =>
        {
            let sizes = match args.kw("shape") {
                Some(s) => shape_of(&s),
                None => sizes_of(&args.pos),
            };
            let sizes = sizes.and_then(|s| reshaped(a, s));
            with_shape(&it.heap, a, sizes)
        }
        "view_as" | "reshape_as" | "expand_as" | "type_as" => {
            match a0.as_ref().and_then(array_of) {
                Some(o) => with_shape(&it.heap, a, Ok(o.shape.clone())),
                None => Val::unknown("an array shaped as one kerncast does not know"),
            }
        }
        "ravel" | "flatten" => with_shape(
            &it.heap,
            a,
            a.numel().map(|n| vec![Ok(n)]).map_err(|u| u.why.clone()),
        ),
        "t" | "transpose" | "swapaxes" | "permute" => {
            let mut out = (**a).clone();
            let n = out.shape.len();
            match (name, args.pos.as_slice()) {
                ("t", _) | ("transpose", []) if n <= 2 => out.shape.reverse(),
                ("transpose", []) => out.shape.reverse(),
                ("transpose" | "swapaxes", [x, y]) => match (
                    x.as_i64().and_then(|x| index(x, n)),
                    y.as_i64().and_then(|y| index(y, n)),
                ) {
                    (Some(x), Some(y)) => out.shape.swap(x, y),
                    _ => return Val::unknown("a transpose of dimensions kerncast does not know"),
                },
                ("permute" | "transpose", dims) => {
                    let order: Vec<Val<'a>> = match dims {
                        [one @ (Val::Tuple(_) | Val::List(_))] => {
                            one.elements().unwrap_or_default()
                        }
                        many => many.to_vec(),
                    };
                    let idx: Option<Vec<usize>> = order
                        .iter()
                        .map(|d| d.as_i64().and_then(|d| index(d, n)))
                        .collect();
                    match idx {
                        Some(idx) if idx.len() == n => {
                            out.shape = idx.iter().map(|i| a.shape[*i].clone()).collect()
                        }
                        _ => return Val::unknown("a permutation kerncast does not know"),
                    }
                }
                _ => return Val::unknown("a transpose kerncast does not read"),
            }
            Val::obj(&it.heap, Obj::Array(Rc::new(out)))
        }
        "unsqueeze" => match a0.as_ref().and_then(|d| d.as_i64()) {
            Some(d) => {
                let mut out = (**a).clone();
                let n = out.shape.len() as i64 + 1;
                let d = if d < 0 { d + n } else { d };
                if !(0..n).contains(&d) {
                    return Val::unknown("an unsqueeze out of range");
                }
                out.shape.insert(d as usize, Ok(1));
                Val::obj(&it.heap, Obj::Array(Rc::new(out)))
            }
            None => Val::unknown("an unsqueeze of a dimension kerncast does not know"),
        },
        "squeeze" => {
            let mut out = (**a).clone();
            match a0.as_ref().and_then(|d| d.as_i64()) {
                Some(d) => {
                    if let Some(i) = index(d, out.shape.len()) {
                        if matches!(out.shape[i], Ok(1)) {
                            let _ = out.shape.remove(i);
                        }
                    }
                }
                None if a0.is_none() => {
                    if out.shape.iter().any(|d| d.is_err()) {
                        return Val::unknown("a squeeze of a shape kerncast does not know");
                    }
                    out.shape.retain(|d| !matches!(d, Ok(1)));
                }
                None => return Val::unknown("a squeeze of a dimension kerncast does not know"),
            }
            Val::obj(&it.heap, Obj::Array(Rc::new(out)))
        }
        "size" if torch => match a0 {
            None => dims_tuple(a),
            Some(d) => match d.as_i64() {
                Some(i) => match index(i, a.shape.len()) {
                    Some(j) => dim_val(&a.shape[j]),
                    None => Val::unknown(
                        a.unknown_shape
                            .as_deref()
                            .unwrap_or("a size(dim) past the tensor's dimensions"),
                    ),
                },
                None => first_or(&d, "a size of a dimension kerncast does not know"),
            },
        },
        "numel" | "nelement" => numel_val(a),
        "dim" | "ndimension" => match &a.unknown_shape {
            Some(w) => Val::unknown(w),
            None => Val::int(a.shape.len() as i64),
        },
        "element_size" => a
            .dtype
            .map(|d| Val::int(d.bytes as i64))
            .unwrap_or_else(|| Val::unknown("an element size")),
        "astype" | "to" | "type" | "view" => {
            let d = a0
                .as_ref()
                .and_then(|d| dtype_of(d, torch))
                .or_else(|| args.kw("dtype").and_then(|d| dtype_of(&d, torch)));
            let mut out = (**a).clone();
            if let Some(d) = d {
                out.dtype = Some(d);
            }
            if name == "to" {
                let dev = args
                    .pos
                    .iter()
                    .chain(args.kw("device").iter())
                    .any(|v| matches!(v, Val::Str(s) if s.starts_with("cuda")));
                out.device |= dev;
            }
            Val::obj(&it.heap, Obj::Array(Rc::new(out)))
        }
        "half" => with_dtype(&it.heap, a, Dtype::torch("half")),
        "float" => with_dtype(&it.heap, a, Dtype::torch("float")),
        "double" => with_dtype(&it.heap, a, Dtype::torch("double")),
        "int" => with_dtype(&it.heap, a, Dtype::torch("int")),
        "long" => with_dtype(&it.heap, a, Dtype::torch("long")),
        "bfloat16" => with_dtype(&it.heap, a, Dtype::torch("bfloat16")),
        "bool" => with_dtype(&it.heap, a, Dtype::torch("bool")),
        "cuda" | "get" | "cpu" | "numpy" | "contiguous" | "clone" | "detach" | "copy"
        | "requires_grad_" | "fill_" | "zero_" | "normal_" | "uniform_" | "random_"
        | "pin_memory" | "set" | "abs" | "exp" | "relu" | "sigmoid" | "tanh" | "neg" | "sqrt"
        | "add" | "sub" | "mul" | "div" | "add_" | "sub_" | "mul_" | "div_" | "copy_"
        | "__add__" | "__mul__" => {
            let mut out = (**a).clone();
            match name {
                "cuda" => out.device = true,
                "get" | "cpu" | "numpy" => {
                    out.device = false;
                    if name != "cpu" {
                        out.lib = Lib::NumPy;
                    }
                }
                _ => {}
            }
            if out.device == a.device && out.lib == a.lib && name.ends_with('_') {
                return obj.clone();
            }
            Val::obj(&it.heap, Obj::Array(Rc::new(out)))
        }
        "item" | "tolist" => Val::unknown("an array's values, which the host does not read"),
        "sum" | "mean" | "max" | "min" | "norm" | "std" | "var"
            if a0.is_none() && args.kw.is_empty() =>
        {
            Val::unknown("a reduction of an array's values, which the host does not read")
        }
        "data_ptr" => Val::obj(&it.heap, Obj::Opaque(Rc::from("device memory"))),
        _ => {
            let _ = it;
            Val::unknown(&format!(
                "the array method `{name}`, which kerncast does not model"
            ))
        }
    }
}

fn argparse_method<'a>(
    it: &mut Interp<'a>,
    obj: &Val<'a>,
    p: &RefCell<Vec<ArgSpec<'a>>>,
    name: &str,
    args: &Args<'a>,
) -> Val<'a> {
    match name {
        "add_argument" => {
            let flags: Vec<Rc<str>> = args
                .pos
                .iter()
                .filter_map(|v| v.as_str().map(Rc::from))
                .collect();
            let positional = flags.first().is_some_and(|f| !f.starts_with('-'));
            let dest: Rc<str> = match args.kw("dest").and_then(|d| d.as_str().map(Rc::from)) {
                Some(d) => d,
                None => {
                    let long = flags.iter().find(|f| f.starts_with("--")).or(flags.first());
                    Rc::from(
                        long.map(|f| f.trim_start_matches('-').replace('-', "_"))
                            .unwrap_or_default(),
                    )
                }
            };
            let action: Rc<str> = args
                .kw("action")
                .and_then(|a| a.as_str().map(Rc::from))
                .unwrap_or(Rc::from("store"));
            let default = args.kw("default").unwrap_or(match &*action {
                "store_true" => Val::Bool(false),
                "store_false" => Val::Bool(true),
                "count" => Val::None,
                _ => Val::None,
            });
            let nargs = args.kw("nargs").map(|n| Rc::from(n.display()));
            p.borrow_mut().push(ArgSpec {
                flags,
                dest,
                positional,
                ty: args.kw("type").unwrap_or(Val::None),
                default,
                action,
                konst: args.kw("const").unwrap_or(Val::None),
                nargs,
            });
            Val::None
        }
        "add_argument_group" | "add_mutually_exclusive_group" => obj.clone(),
        "set_defaults" => {
            for (k, v) in &args.kw {
                for spec in p.borrow_mut().iter_mut() {
                    if spec.dest == *k {
                        spec.default = v.clone();
                    }
                }
            }
            Val::None
        }
        "parse_args" | "parse_known_args" => {
            let words: Option<Vec<String>> = match args.pos.first() {
                Some(Val::None) | None => None,
                Some(v) => v
                    .elements()
                    .map(|e| e.iter().map(|x| x.display()).collect()),
            };
            let words = words.unwrap_or_else(|| it.argv.iter().skip(1).cloned().collect());
            let specs = p.borrow().clone();
            let ns = parse_args(it, &specs, &words);
            if name == "parse_known_args" {
                Val::tuple(vec![ns, Val::list(&it.heap, Vec::new())])
            } else {
                ns
            }
        }
        "print_help" | "print_usage" | "error" => Val::None,
        _ => Val::unknown(&format!("the argparse method `{name}`")),
    }
}

/// The values `argparse` gives a command line, as its default actions give them.
fn parse_args<'a>(it: &mut Interp<'a>, specs: &[ArgSpec<'a>], words: &[String]) -> Val<'a> {
    let mut values: BTreeMap<Rc<str>, Val<'a>> = BTreeMap::new();
    for s in specs {
        let d = match &s.default {
            Val::Str(text) if !s.ty.same(&Val::None) && s.action.as_ref() == "store" => {
                convert_arg(it, &s.ty, text)
            }
            d => d.clone(),
        };
        values.insert(s.dest.clone(), d);
    }
    let mut positionals = specs.iter().filter(|s| s.positional);
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f.to_string(), Some(v.to_string())),
            _ => (w.clone(), None),
        };
        if flag.starts_with('-') && flag.len() > 1 && flag.parse::<f64>().is_err() {
            let Some(spec) = specs.iter().find(|s| s.flags.iter().any(|f| **f == *flag)) else {
                continue;
            };
            let v = match spec.action.as_ref() {
                "store_true" => Val::Bool(true),
                "store_false" => Val::Bool(false),
                "store_const" => spec.konst.clone(),
                "count" => {
                    let cur = values.get(&spec.dest).and_then(|v| v.as_i64()).unwrap_or(0);
                    Val::int(cur + 1)
                }
                _ => {
                    let many = matches!(spec.nargs.as_deref(), Some("*") | Some("+"));
                    if many {
                        let mut items = Vec::new();
                        while i < words.len() && !words[i].starts_with('-') {
                            items.push(convert_arg(it, &spec.ty, &words[i]));
                            i += 1;
                        }
                        Val::list(&it.heap, items)
                    } else {
                        let text = match inline {
                            Some(t) => t,
                            None => {
                                i += 1;
                                match words.get(i - 1) {
                                    Some(t) => t.clone(),
                                    None => continue,
                                }
                            }
                        };
                        convert_arg(it, &spec.ty, &text)
                    }
                }
            };
            let v = if spec.action.as_ref() == "append" {
                let mut cur = values
                    .get(&spec.dest)
                    .and_then(|v| v.elements())
                    .unwrap_or_default();
                cur.push(v);
                Val::list(&it.heap, cur)
            } else {
                v
            };
            values.insert(spec.dest.clone(), v);
        } else if let Some(spec) = positionals.next() {
            let v = convert_arg(it, &spec.ty, w);
            values.insert(spec.dest.clone(), v);
        }
    }
    // A required positional the command line lacks: argparse would stop the program.
    let given_pos = words.iter().filter(|w| !w.starts_with('-')).count();
    for (k, spec) in specs.iter().filter(|s| s.positional).enumerate() {
        if k >= given_pos && !matches!(spec.nargs.as_deref(), Some("?") | Some("*")) {
            let why = if it.args_given {
                "a positional argument the command line given lacks (argparse stops the program)"
                    .to_string()
            } else {
                "the program is read as run without arguments, and this positional argument is required (give it with --args)".to_string()
            };
            let v = it.assumption(&spec.dest, &why);
            values.insert(spec.dest.clone(), v);
        }
    }
    Val::obj(&it.heap, Obj::Namespace(RefCell::new(values)))
}

fn convert_arg<'a>(it: &mut Interp<'a>, ty: &Val<'a>, text: &str) -> Val<'a> {
    match ty {
        Val::Lib(n) if &**n == "int" => to_int(&Val::str(text), None),
        Val::Lib(n) if &**n == "float" => to_float(&Val::str(text)),
        Val::None => Val::str(text),
        Val::Lib(n) if &**n == "str" => Val::str(text),
        f @ (Val::Func(_) | Val::Lib(_)) => {
            let _ = (it, f);
            Val::unknown("an argument converted by a function kerncast does not follow")
        }
        _ => Val::str(text),
    }
}

/// Paths relative to the script's folder, where a script reads its kernels from.
impl Interp<'_> {
    pub fn resolve_path(&self, p: &str) -> String {
        let path = std::path::Path::new(p);
        if path.is_absolute() {
            return p.to_string();
        }
        match self.scripts[self.module].path.parent() {
            Some(d) => d.join(path).to_string_lossy().into_owned(),
            None => p.to_string(),
        }
    }
}
