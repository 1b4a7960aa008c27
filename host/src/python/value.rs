//! The Python reader's values: what Python computes with (unbounded integers, floats, strings,
//! tuples, lists, dicts, ranges, functions and closures), the library objects a GPU host makes
//! (kernel handles, compiled modules, arrays and tensors with their shapes, PyTorch
//! extensions, an `argparse` parser) and `Unknown` with its reason. The scopes and classes
//! values hold are defined here too, so that the values import nothing of the interpreter.

use crate::heap::{self, Registry, Sweep};
use crate::interp::value::Unknown;
use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use ruff_python_ast as ast;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum Val<'a> {
    None,
    Bool(bool),
    Int(BigInt),
    Float(f64),
    Str(Rc<str>),
    Tuple(Rc<Vec<Val<'a>>>),
    List(Rc<RefCell<Vec<Val<'a>>>>),
    Dict(Rc<RefCell<Vec<(Val<'a>, Val<'a>)>>>),
    Range(Rc<PyRange>),
    Func(Rc<PyFunc<'a>>),
    /// A library module, class or function by its full dotted name (`cupy.RawKernel`).
    Lib(Rc<str>),
    /// A library object's method, bound to it (`prg.build`, `x.reshape`).
    Method(Box<Val<'a>>, Rc<str>),
    /// A method of a script's class, bound to its instance.
    Bound(Rc<PyFunc<'a>>, Box<Val<'a>>),
    Obj(Rc<Obj<'a>>),
    Unknown(Rc<Unknown>),
}

#[derive(Debug)]
pub struct PyRange {
    pub start: BigInt,
    pub stop: BigInt,
    pub step: BigInt,
}

impl PyRange {
    pub fn len(&self) -> BigInt {
        let zero = BigInt::zero();
        if self.step > zero {
            if self.stop <= self.start {
                return zero;
            }
            (&self.stop - &self.start + &self.step - 1) / &self.step
        } else {
            if self.stop >= self.start {
                return zero;
            }
            (&self.start - &self.stop - &self.step - 1) / (-&self.step)
        }
    }

    pub fn get(&self, i: &BigInt) -> BigInt {
        &self.start + i * &self.step
    }
}

/// A function of the script (`def`) or a lambda, with the scope it was made in and its
/// default values (evaluated once, where it is defined, as Python does).
#[derive(Debug)]
pub struct PyFunc<'a> {
    pub name: Rc<str>,
    pub params: &'a ast::Parameters,
    pub body: FuncBody<'a>,
    pub defaults: Vec<(Rc<str>, Val<'a>)>,
    pub scope: Rc<Scope<'a>>,
    pub module: usize,
}

#[derive(Debug)]
pub enum FuncBody<'a> {
    Def(&'a ast::StmtFunctionDef),
    Lambda(&'a ast::Expr),
}

/// A scope of names: a module's globals, or one call of a function (whose parent is the
/// scope the function was defined in).
#[derive(Debug, Default)]
pub struct Scope<'a> {
    pub vars: RefCell<HashMap<Rc<str>, Val<'a>>>,
    pub parent: Option<Rc<Scope<'a>>>,
    /// Names declared `global` or `nonlocal` in this function.
    pub globals: RefCell<BTreeSet<Rc<str>>>,
    pub nonlocals: RefCell<BTreeSet<Rc<str>>>,
}

impl Sweep for Scope<'_> {
    fn sweep(&self) {
        heap::empty(&self.vars, HashMap::new());
    }
}

/// A class of the script: its name and its attributes (methods, class variables).
#[derive(Debug)]
pub struct ClassDef<'a> {
    pub name: Rc<str>,
    pub attrs: RefCell<BTreeMap<Rc<str>, Val<'a>>>,
}

impl Sweep for ClassDef<'_> {
    fn sweep(&self) {
        heap::empty(&self.attrs, BTreeMap::new());
    }
}

/// A PyTorch extension module.
#[derive(Debug)]
pub struct Extension {
    pub name: String,
    /// Python name → C++ function.
    pub bindings: BTreeMap<String, String>,
    /// Index into the extensions built (`Builder::built`).
    pub built: usize,
}

/// Where a kernel program's text comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A string literal of the script, at the line and column of its first character of text.
    Literal { file: Rc<str>, line: u32, col: u32 },
    /// A file the script reads (`open(path).read()`).
    File(Rc<str>),
    /// Computed (concatenated, formatted): the script line where it was made.
    Computed,
}

/// A library object.
#[derive(Debug)]
pub enum Obj<'a> {
    /// A CUDA kernel handle: CuPy's `RawKernel` or a `RawModule`'s / PyCUDA `SourceModule`'s
    /// `get_function`.
    Kernel(Rc<KernelHandle>),
    /// A compiled CUDA module (CuPy `RawModule`, PyCUDA `SourceModule`) or OpenCL program.
    Module(Rc<ModuleHandle>),
    /// An OpenCL kernel made with `cl.Kernel(prg, name)`, with the arguments set so far.
    ClKernel(RefCell<ClKernel<'a>>),
    /// An array or tensor with its shape.
    Array(Rc<Array>),
    /// A PyTorch extension module (`load_inline`, `load`, or one a `setup.py` builds).
    Extension(Rc<Extension>),
    /// The description of an extension in a `setup.py` (`CUDAExtension(name, sources)`).
    ExtensionSpec {
        name: Rc<str>,
        sources: Vec<Rc<str>>,
    },
    /// An open file (`open(path)`), or a `pathlib.Path`.
    File { path: Rc<str>, exists: bool },
    /// `argparse.ArgumentParser` with the arguments added so far.
    ArgParser(RefCell<Vec<ArgSpec<'a>>>),
    /// A namespace of attributes (`parse_args()`'s result).
    Namespace(RefCell<BTreeMap<Rc<str>, Val<'a>>>),
    /// PyOpenCL's `LocalMemory(n)`: a `__local` buffer of `n` bytes.
    LocalMemory(Val<'a>),
    /// A dtype (`cp.float32`, `torch.half`): its name and size in bytes.
    Dtype(Dtype),
    /// A value the interpreter only tells apart (a context, a queue, a stream, device memory).
    Opaque(Rc<str>),
    /// A module of the program (another `.py` file), by its index.
    PyModule(usize),
    /// A class of the script.
    Class(Rc<ClassDef<'a>>),
    /// An instance of a script's class, with its attributes.
    Instance {
        class: Rc<ClassDef<'a>>,
        attrs: RefCell<BTreeMap<Rc<str>, Val<'a>>>,
    },
}

#[derive(Debug)]
pub struct KernelHandle {
    pub name: Rc<str>,
    /// The API that made it: `cupy`, `pycuda`.
    pub api: &'static str,
}

/// A compiled program and the embedded-source record it is.
#[derive(Debug)]
pub struct ModuleHandle {
    /// Index into the reading's embedded sources.
    pub source: usize,
    pub api: &'static str,
}

#[derive(Debug)]
pub struct ClKernel<'a> {
    pub name: Rc<str>,
    pub args: BTreeMap<usize, Val<'a>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    NumPy,
    CuPy,
    Torch,
    PyCuda,
}

/// An array's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dtype {
    pub name: &'static str,
    pub bytes: u8,
    /// c10::ScalarType's value, for a tensor's C++ side.
    pub scalar_type: Option<i8>,
}

impl Dtype {
    pub const FLOAT32: Dtype = Dtype {
        name: "float32",
        bytes: 4,
        scalar_type: Some(6),
    };
    pub const FLOAT64: Dtype = Dtype {
        name: "float64",
        bytes: 8,
        scalar_type: Some(7),
    };

    fn of(name: &'static str, bytes: u8, scalar_type: Option<i8>) -> Dtype {
        Dtype {
            name,
            bytes,
            scalar_type,
        }
    }

    /// A dtype by the names NumPy and CuPy give it (`np.float32`, `'f4'`, `np.intc`).
    pub fn numpy(n: &str) -> Option<Dtype> {
        let d = Dtype::of;
        Some(match n {
            "float32" | "single" | "f4" | "f" => d("float32", 4, Some(6)),
            "float64" | "double" | "float_" | "f8" | "d" | "float" => d("float64", 8, Some(7)),
            "float16" | "half" | "f2" | "e" => d("float16", 2, Some(5)),
            "int8" | "i1" | "byte" => d("int8", 1, Some(1)),
            "uint8" | "u1" | "ubyte" => d("uint8", 1, Some(0)),
            "int16" | "i2" | "short" => d("int16", 2, Some(2)),
            "uint16" | "u2" | "ushort" => d("uint16", 2, None),
            "int32" | "i4" | "intc" | "i" => d("int32", 4, Some(3)),
            "uint32" | "u4" | "uintc" | "I" => d("uint32", 4, None),
            "int64" | "i8" | "int_" | "intp" | "longlong" | "l" | "int" => d("int64", 8, Some(4)),
            "uint64" | "u8" | "uintp" | "ulonglong" => d("uint64", 8, None),
            "bool_" | "bool" | "?" => d("bool", 1, Some(11)),
            "complex64" | "csingle" => d("complex64", 8, Some(9)),
            "complex128" | "cdouble" | "complex_" | "complex" => d("complex128", 16, Some(10)),
            _ => return None,
        })
    }

    /// A dtype by the names PyTorch gives it (`torch.float` is 32 bits there).
    pub fn torch(n: &str) -> Option<Dtype> {
        let d = Dtype::of;
        Some(match n {
            "float32" | "float" => d("float32", 4, Some(6)),
            "float64" | "double" => d("float64", 8, Some(7)),
            "float16" | "half" => d("float16", 2, Some(5)),
            "bfloat16" => d("bfloat16", 2, Some(15)),
            "int8" => d("int8", 1, Some(1)),
            "uint8" => d("uint8", 1, Some(0)),
            "int16" | "short" => d("int16", 2, Some(2)),
            "int32" | "int" => d("int32", 4, Some(3)),
            "int64" | "long" => d("int64", 8, Some(4)),
            "bool" => d("bool", 1, Some(11)),
            "complex64" | "cfloat" => d("complex64", 8, Some(9)),
            "complex128" | "cdouble" => d("complex128", 16, Some(10)),
            _ => return None,
        })
    }
}

/// One dimension of an array: its size, or why it is unknown.
pub type Dim = Result<i128, Rc<Unknown>>;

/// An array (NumPy, CuPy, PyCUDA `gpuarray`) or a PyTorch tensor: its dimensions, each a
/// number or unknown, and its dtype.
#[derive(Clone, Debug)]
pub struct Array {
    pub lib: Lib,
    pub shape: Vec<Dim>,
    pub dtype: Option<Dtype>,
    /// Why the shape is not known, where it is not (then `shape` is empty).
    pub unknown_shape: Option<Rc<str>>,
    /// Whether it lives on the device (a CuPy array, a CUDA tensor).
    pub device: bool,
}

impl Array {
    /// The number of elements, where every dimension is known.
    pub fn numel(&self) -> Dim {
        if let Some(why) = &self.unknown_shape {
            return Err(Rc::new(Unknown {
                why: why.clone(),
                name: None,
            }));
        }
        let mut n: i128 = 1;
        for d in &self.shape {
            n = n.saturating_mul(d.clone()?);
        }
        Ok(n)
    }
}

impl<'a> Sweep for RefCell<Vec<Val<'a>>> {
    fn sweep(&self) {
        heap::empty(self, Vec::new());
    }
}

impl<'a> Sweep for RefCell<Vec<(Val<'a>, Val<'a>)>> {
    fn sweep(&self) {
        heap::empty(self, Vec::new());
    }
}

/// Objects are all tracked (made in one place); only those with attributes or arguments set
/// after they are made can close a cycle, and are emptied.
impl Sweep for Obj<'_> {
    fn sweep(&self) {
        match self {
            Obj::ClKernel(k) => {
                let args = match k.try_borrow_mut() {
                    Ok(mut k) => std::mem::take(&mut k.args),
                    Err(_) => return,
                };
                drop(args);
            }
            Obj::ArgParser(specs) => heap::empty(specs, Vec::new()),
            Obj::Namespace(attrs) | Obj::Instance { attrs, .. } => {
                heap::empty(attrs, BTreeMap::new())
            }
            _ => {}
        }
    }
}

/// One `add_argument` of an `argparse` parser.
#[derive(Clone, Debug)]
pub struct ArgSpec<'a> {
    /// The option strings (`-n`, `--size`), or the positional's name.
    pub flags: Vec<Rc<str>>,
    pub dest: Rc<str>,
    pub positional: bool,
    /// `type=int`, `type=float`, or another converter.
    pub ty: Val<'a>,
    pub default: Val<'a>,
    /// `store_true`, `store_false`, `store_const`, `count`, `append`, or `store`.
    pub action: Rc<str>,
    pub konst: Val<'a>,
    /// `nargs`: `None` (one value), a number, `?`, `*` or `+`.
    pub nargs: Option<Rc<str>>,
}

impl<'a> Val<'a> {
    pub fn unknown(why: &str) -> Val<'a> {
        Val::Unknown(Rc::new(Unknown {
            why: Rc::from(why),
            name: None,
        }))
    }

    pub fn named_unknown(name: &str, why: &str) -> Val<'a> {
        Val::Unknown(Rc::new(Unknown {
            why: Rc::from(why),
            name: Some(Rc::from(name)),
        }))
    }

    pub fn int(i: i64) -> Val<'a> {
        Val::Int(BigInt::from(i))
    }

    pub fn str(s: &str) -> Val<'a> {
        Val::Str(Rc::from(s))
    }

    pub fn tuple(v: Vec<Val<'a>>) -> Val<'a> {
        Val::Tuple(Rc::new(v))
    }

    pub fn list(heap: &Registry<'a>, v: Vec<Val<'a>>) -> Val<'a> {
        Val::List(heap.track(Rc::new(RefCell::new(v))))
    }

    pub fn dict(heap: &Registry<'a>, items: Vec<(Val<'a>, Val<'a>)>) -> Val<'a> {
        Val::Dict(heap.track(Rc::new(RefCell::new(items))))
    }

    pub fn obj(heap: &Registry<'a>, o: Obj<'a>) -> Val<'a> {
        Val::Obj(heap.track(Rc::new(o)))
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Val::Unknown(_))
    }

    pub fn as_bigint(&self) -> Option<BigInt> {
        match self {
            Val::Int(i) => Some(i.clone()),
            Val::Bool(b) => Some(BigInt::from(*b as i64)),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_bigint().and_then(|i| i.to_i64())
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Int(i) => i.to_f64(),
            Val::Bool(b) => Some(*b as i64 as f64),
            Val::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The elements of a sequence Python can iterate without side effects, where known.
    pub fn elements(&self) -> Option<Vec<Val<'a>>> {
        match self {
            Val::Tuple(t) => Some(t.as_ref().clone()),
            Val::List(l) => Some(l.borrow().clone()),
            Val::Dict(d) => Some(d.borrow().iter().map(|(k, _)| k.clone()).collect()),
            Val::Str(s) => Some(s.chars().map(|c| Val::str(&c.to_string())).collect()),
            Val::Range(r) => {
                let n = r.len().to_usize()?;
                if n > 1 << 20 {
                    return None;
                }
                Some((0..n).map(|i| Val::Int(r.get(&BigInt::from(i)))).collect())
            }
            _ => None,
        }
    }

    /// Truth as Python tests it; `None` when unknown.
    pub fn truth(&self) -> Option<bool> {
        match self {
            Val::None => Some(false),
            Val::Bool(b) => Some(*b),
            Val::Int(i) => Some(!i.is_zero()),
            Val::Float(f) => Some(*f != 0.0),
            Val::Str(s) => Some(!s.is_empty()),
            Val::Tuple(t) => Some(!t.is_empty()),
            Val::List(l) => Some(!l.borrow().is_empty()),
            Val::Dict(d) => Some(!d.borrow().is_empty()),
            Val::Range(r) => Some(!r.len().is_zero()),
            Val::Func(_) | Val::Lib(_) | Val::Method(..) | Val::Bound(..) => Some(true),
            Val::Obj(o) => match &**o {
                Obj::Array(_) => None,
                _ => Some(true),
            },
            Val::Unknown(_) => None,
        }
    }

    /// The reason an unknown value carries (its name first, when it has one).
    pub fn reason(&self) -> Option<String> {
        match self {
            Val::Unknown(u) => Some(match &u.name {
                Some(n) => format!("`{n}`: {}", u.why),
                None => u.why.to_string(),
            }),
            _ => None,
        }
    }

    /// A short form of the reason, for another reason to refer to.
    pub fn brief(&self) -> Option<String> {
        match self {
            Val::Unknown(u) => Some(match &u.name {
                Some(n) => format!("`{n}`"),
                None => {
                    let w: String = u.why.chars().take(80).collect();
                    if w.len() < u.why.len() {
                        format!("{w}…")
                    } else {
                        w
                    }
                }
            }),
            _ => None,
        }
    }

    /// Whether two values are the same, for merging the paths of an undecided branch.
    pub fn same(&self, other: &Val<'a>) -> bool {
        match (self, other) {
            (Val::None, Val::None) => true,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::Int(a), Val::Int(b)) => a == b,
            (Val::Float(a), Val::Float(b)) => a == b,
            (Val::Str(a), Val::Str(b)) => a == b,
            (Val::Tuple(a), Val::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same(y))
            }
            (Val::List(a), Val::List(b)) => Rc::ptr_eq(a, b),
            (Val::Dict(a), Val::Dict(b)) => Rc::ptr_eq(a, b),
            (Val::Range(a), Val::Range(b)) => {
                Rc::ptr_eq(a, b) || (a.start == b.start && a.stop == b.stop && a.step == b.step)
            }
            (Val::Func(a), Val::Func(b)) => Rc::ptr_eq(a, b),
            (Val::Lib(a), Val::Lib(b)) => a == b,
            (Val::Obj(a), Val::Obj(b)) => Rc::ptr_eq(a, b),
            (Val::Unknown(a), Val::Unknown(b)) => Rc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }

    /// The value as Python's `repr` writes it, for notes and string formatting.
    pub fn repr(&self) -> String {
        match self {
            Val::Str(s) => format!("'{s}'"),
            other => other.display(),
        }
    }

    /// The value as Python's `str` writes it, where kerncast knows it.
    pub fn display(&self) -> String {
        match self {
            Val::None => "None".into(),
            Val::Bool(true) => "True".into(),
            Val::Bool(false) => "False".into(),
            Val::Int(i) => i.to_string(),
            Val::Float(f) => float_repr(*f),
            Val::Str(s) => s.to_string(),
            Val::Tuple(t) => {
                let items: Vec<String> = t.iter().map(Val::repr).collect();
                if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            Val::List(l) => {
                let items: Vec<String> = l.borrow().iter().map(Val::repr).collect();
                format!("[{}]", items.join(", "))
            }
            Val::Lib(n) => format!("<{n}>"),
            Val::Obj(o) => match &**o {
                Obj::Dtype(d) => d.name.to_string(),
                _ => "<object>".into(),
            },
            _ => "<value>".into(),
        }
    }
}

/// A float as Python's `repr` writes it (shortest round-trip, `.0` on whole numbers).
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == f.trunc() && f.abs() < 1e16 {
        return format!("{f:.1}");
    }
    let s = format!("{f}");
    if s.contains('e') || s.len() < 18 {
        return s;
    }
    format!("{f:e}")
}
