//! The interpreter's values: C's scalars, what a pointer points at, records and arrays by
//! value, functions and closures, the handles of GPU APIs, and `Unknown` with its reason.
//!
//! What a value can hold is defined here too (a closure's frame, a CUDA graph's launches, a
//! tensor, a map's keys): the types refer to each other, and the interpreter's parts all
//! build on them, so they form the layer below every part.

use crate::ast::{DeclKey, Function, KernelRef, Span, Ty};
use crate::drawn::{Draw, Exact};
use crate::heap;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Value {
    Int(i128),
    Float(f64),
    Unknown(Rc<Unknown>),
    Ptr(Ptr),
    Record(Rc<RefCell<Record>>),
    Array(Rc<RefCell<Buffer>>),
    Func(Func),
    Str(Rc<str>),
    Handle(Rc<RefCell<Handle>>),
    Void,
}

/// A value the program computes from what kerncast cannot know: why, and the name the user
/// can give it a value by (`--param n=…`), once it has one.
#[derive(Debug, PartialEq)]
pub struct Unknown {
    pub why: Rc<str>,
    pub name: Option<Rc<str>>,
}

#[derive(Clone, Debug)]
pub enum Ptr {
    /// A variable.
    Cell(Rc<RefCell<Value>>),
    /// One past a variable (`&n + 1`): C takes a variable for an array of one element, so
    /// `std::copy(&n, &n + 1, out)` copies it. Nothing is read or written through it.
    PastCell(Rc<RefCell<Value>>),
    /// An element of an array or heap block.
    Elem(Rc<RefCell<Buffer>>, i64),
    /// A field of a record.
    Field(Rc<RefCell<Record>>, Arc<str>),
    Null,
    /// Memory the host does not read (a file's bytes, a tensor's device memory).
    Opaque(&'static str),
    /// Device memory the host allocated (`cudaMalloc`) and does not read.
    Device(DevicePtr),
}

pub use super::device_data::{at_launch, DevicePtr};

#[derive(Clone, Debug, Default)]
pub struct Record {
    pub ty: Arc<str>,
    pub fields: BTreeMap<Arc<str>, Value>,
}

/// An array or heap block: dense while small, else the elements written, up to a cap.
#[derive(Clone, Debug)]
pub struct Buffer {
    pub dense: Vec<Value>,
    pub sparse: HashMap<i64, Value>,
    /// Elements, where known.
    pub len: Option<i64>,
    /// What an element never written reads as.
    pub fill: Value,
    /// A run `from..end` of a large buffer that a fill loop set ([`Buffer::fill_run`],
    /// [`Buffer::draw_run`]): what its elements read as where none was written since.
    pub run: Option<Run>,
}

/// Elements `from..end` of a large buffer, as a fill loop left them.
#[derive(Clone, Debug)]
pub struct Run {
    pub from: i64,
    pub end: i64,
    pub of: RunOf,
}

#[derive(Clone, Debug)]
pub enum RunOf {
    /// Every element this value.
    Same(Value),
    /// The elements a loop drew, described ([`crate::drawn`]): each known where the
    /// description is exact, else unknown to the host; `at`, the loop (`main.cu:233`).
    Drawn { draw: Rc<Draw>, at: Rc<str> },
}

impl Run {
    fn get(&self, i: i64) -> Option<Value> {
        if !(self.from..self.end).contains(&i) {
            return None;
        }
        Some(match &self.of {
            RunOf::Same(v) => v.clone(),
            RunOf::Drawn { draw, .. } => match draw.exact(i - self.from) {
                Some(Exact::Int(x)) => Value::Int(x),
                Some(Exact::Float(x)) => Value::Float(x),
                None => Value::unknown(
                    "an element of a fill loop's random values, drawn alike, not one by one",
                ),
            },
        })
    }

    fn copy(&self) -> Run {
        let of = match &self.of {
            RunOf::Same(v) => RunOf::Same(v.copy()),
            RunOf::Drawn { draw, at } => RunOf::Drawn {
                draw: draw.clone(),
                at: at.clone(),
            },
        };
        Run { of, ..*self }
    }

    /// Whether two runs hold the same elements.
    pub fn same(&self, o: &Run) -> bool {
        (self.from, self.end) == (o.from, o.end)
            && match (&self.of, &o.of) {
                (RunOf::Same(x), RunOf::Same(y)) => x.same(y),
                (RunOf::Drawn { draw: x, .. }, RunOf::Drawn { draw: y, .. }) => x == y,
                _ => false,
            }
    }
}

/// How many elements a buffer keeps dense.
const DENSE_MAX: i64 = 1 << 12;
/// How many written elements a large buffer keeps before it forgets them all.
const SPARSE_MAX: usize = 1 << 14;

impl Buffer {
    pub fn new(len: Option<i64>, fill: Value) -> Buffer {
        let dense = match len {
            Some(n) if (0..=DENSE_MAX).contains(&n) => vec![fill.clone(); n as usize],
            _ => Vec::new(),
        };
        Buffer {
            dense,
            sparse: HashMap::new(),
            len,
            fill,
            run: None,
        }
    }

    pub fn from_values(v: Vec<Value>) -> Buffer {
        let len = Some(v.len() as i64);
        Buffer {
            dense: v,
            sparse: HashMap::new(),
            len,
            fill: Value::unknown("an element past the end of an array"),
            run: None,
        }
    }

    pub(super) fn is_dense(&self) -> bool {
        matches!(self.len, Some(n) if n <= DENSE_MAX)
            || (!self.dense.is_empty() && self.sparse.is_empty())
    }

    pub fn get(&self, i: i64) -> Value {
        if self.is_dense() {
            return usize::try_from(i)
                .ok()
                .and_then(|i| self.dense.get(i).cloned())
                .unwrap_or_else(|| Value::unknown("an element past the end of an array"));
        }
        if let Some(v) = self.sparse.get(&i) {
            return v.clone();
        }
        self.run
            .as_ref()
            .and_then(|r| r.get(i))
            .unwrap_or_else(|| self.fill.clone())
    }

    pub fn set(&mut self, i: i64, v: Value) {
        if self.is_dense() {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| self.dense.get_mut(i)) {
                *slot = v;
            }
            return;
        }
        if self.sparse.len() >= SPARSE_MAX && !self.sparse.contains_key(&i) {
            self.forget("more elements written than kerncast follows");
            return;
        }
        self.sparse.insert(i, v);
    }

    /// Elements `from .. from + n` become `v`, as a loop storing it into each would leave them;
    /// `false` where the run is past the buffer's known length, or a large buffer would have to
    /// keep more elements than it does one by one (it keeps one run, and a run over all of it
    /// as its fill).
    pub fn fill_run(&mut self, from: i64, n: i64, v: &Value) -> bool {
        let end = from + n;
        if from < 0 || n < 0 || self.len.is_some_and(|len| end > len) {
            return false;
        }
        if self.is_dense() {
            let Some(run) = self.dense.get_mut(from as usize..(from + n) as usize) else {
                return false;
            };
            run.iter_mut().for_each(|slot| *slot = v.clone());
            return true;
        }
        if from == 0 && self.len == Some(n) {
            self.sparse.clear();
            self.run = None;
            self.fill = v.clone();
            return true;
        }
        // a new run over the old one (or the first): the elements written in it are its value
        if self.covers_run(from, end) {
            self.sparse.retain(|i, _| !(from..end).contains(i));
            self.run = Some(Run {
                from,
                end,
                of: RunOf::Same(v.clone()),
            });
            return true;
        }
        if self.sparse.len() + n as usize <= SPARSE_MAX {
            for i in from..from + n {
                self.sparse.insert(i, v.clone());
            }
            return true;
        }
        false
    }

    /// Whether a run `from..end` would cover the buffer's run, or it has none.
    fn covers_run(&self, from: i64, end: i64) -> bool {
        self.run
            .as_ref()
            .is_none_or(|r| from <= r.from && r.end <= end)
    }

    /// Elements `from .. from + n` of a large buffer become those `draw` describes, as a fill
    /// loop leaves them, keeping the elements written one by one in `from .. from + kept`
    /// (those the loop's first iterations stored as written); `false` where the run is past
    /// the buffer's known length, the buffer is dense, or another run would be lost.
    pub fn draw_run(&mut self, from: i64, n: i64, kept: i64, of: RunOf) -> bool {
        let end = from + n;
        if from < 0 || n < 0 || self.len.is_some_and(|len| end > len) || self.is_dense() {
            return false;
        }
        if !self.covers_run(from, end) {
            return false;
        }
        self.sparse.retain(|i, _| !(from + kept..end).contains(i));
        self.run = Some(Run { from, end, of });
        true
    }

    /// Every element becomes unknown (the program wrote it from data kerncast does not have).
    pub fn forget(&mut self, why: &str) {
        let u = Value::unknown(why);
        for v in &mut self.dense {
            *v = u.clone();
        }
        self.sparse.clear();
        self.run = None;
        self.fill = u;
    }

    pub fn push(&mut self, v: Value) {
        // A container of unknown length stays so: which element the value becomes is
        // unknown, and so is the length after it.
        let Some(n) = self.len else {
            return;
        };
        if self.is_dense() && n < DENSE_MAX {
            self.dense.push(v);
        } else {
            self.set(n, v);
        }
        self.len = Some(n + 1);
    }

    /// The elements, where the buffer is small and known in length.
    pub fn elements(&self) -> Option<Vec<Value>> {
        let n = self.len?;
        if self.is_dense() {
            Some(self.dense.iter().take(n as usize).cloned().collect())
        } else {
            None
        }
    }
}

#[derive(Clone, Debug)]
pub enum Func {
    /// A function the program declares (a kernel carries its symbol).
    Decl {
        key: DeclKey,
        name: Arc<str>,
        kernel: Option<KernelRef>,
    },
    /// A lambda with the frame it was made in.
    Closure(Arc<Function>, Rc<Frame>),
}

/// Objects of the GPU APIs the host code passes around.
#[derive(Clone, Debug)]
pub enum Handle {
    /// An OpenCL kernel (`clCreateKernel`) with the arguments set so far, by index.
    ClKernel {
        name: String,
        args: BTreeMap<u32, Value>,
    },
    /// A kernel looked up by name (`cuModuleGetFunction`, NVRTC's lowered names).
    NamedKernel(String),
    /// A CUDA graph or its executable instance: the launches captured into it.
    Graph(Vec<Event>),
    /// Something the interpreter only needs to tell apart (a stream, an event, a file).
    Opaque(&'static str),
    /// A PyTorch tensor a Python host passes to an extension ([`super::torch`]).
    Tensor(Tensor),
    /// A `std::map`/`set` (and unordered kin): `{first, second}` entries by key
    /// ([`super::containers`]).
    Map {
        entries: Vec<(Key, Rc<RefCell<Record>>)>,
        ordered: bool,
    },
    /// A string stream's text and read position; `None` text for a file stream.
    Stream {
        text: Option<String>,
        pos: usize,
        failed: bool,
        /// An extraction reached the end of the text (`eof()`).
        eof: bool,
    },
    /// A program the host compiles at run time (NVRTC's, OpenCL's), by its index among the
    /// reading's ([`super::programs`]).
    Program(usize),
    /// A C++ `<random>` engine or distribution ([`super::cpp_random`]).
    Random(Box<super::cpp_random::Random>),
}

impl Value {
    pub fn unknown(why: &str) -> Value {
        Value::Unknown(Rc::new(Unknown {
            why: Rc::from(why),
            name: None,
        }))
    }

    /// A pointer to device memory with `bytes` from it to its allocation's end: a number of
    /// bytes (a negative one is past the end), or the unknown it is computed from.
    pub fn device(bytes: Value) -> Value {
        let bytes = match bytes {
            u @ Value::Unknown(_) => u,
            v => match v.as_int() {
                Some(n) if n >= 0 => Value::Int(n),
                Some(_) => Value::unknown("a pointer past the end of its device allocation"),
                None => Value::unknown("an allocation size kerncast cannot read"),
            },
        };
        Value::Ptr(Ptr::Device(DevicePtr {
            left: Rc::new(bytes),
            data: None,
        }))
    }

    /// What device pointers that may each be the value agree on (two sides of a condition,
    /// a launch's runs): device memory still, of their common size, or of the size `differ`
    /// (an unknown that says why). `None` unless every value is a device pointer.
    pub fn device_join(values: &[&Value], differ: &Value) -> Option<Value> {
        let ptrs: Vec<&DevicePtr> = values
            .iter()
            .map(|v| match v {
                Value::Ptr(Ptr::Device(d)) => Some(d),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let first = *ptrs.first()?;
        let same_data = |d: &DevicePtr| match (&d.data, &first.data) {
            (Some((a, i)), Some((b, j))) => Rc::ptr_eq(a, b) && i == j,
            _ => false,
        };
        Some(match ptrs.iter().all(|d| d.left.same(&first.left)) {
            true => Value::Ptr(Ptr::Device(DevicePtr {
                left: first.left.clone(),
                data: first
                    .data
                    .clone()
                    .filter(|_| ptrs.iter().all(|d| same_data(d))),
            })),
            false => Value::device(differ.clone()),
        })
    }

    pub fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Float(f) if f.is_finite() => Some(f.trunc() as i128),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(v) => Some(*v as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    /// Truth as C tests it; `None` when unknown.
    pub fn truth(&self) -> Option<bool> {
        match self {
            Value::Int(v) => Some(*v != 0),
            Value::Float(f) => Some(*f != 0.0),
            Value::Ptr(Ptr::Null) => Some(false),
            Value::Ptr(_) | Value::Str(_) | Value::Func(_) | Value::Handle(_) => Some(true),
            Value::Array(_) => Some(true),
            _ => None,
        }
    }

    /// A copy with C's value semantics: records and arrays are copied, not shared.
    pub fn copy(&self) -> Value {
        match self {
            Value::Record(r) => Value::Record(heap::shared(r.borrow().deep_copy())),
            Value::Array(b) => Value::Array(heap::shared(b.borrow().deep_copy())),
            // an engine copied draws on its own from the copied state
            Value::Handle(h) if matches!(&*h.borrow(), Handle::Random(_)) => {
                Value::Handle(heap::shared(h.borrow().clone()))
            }
            v => v.clone(),
        }
    }

    /// A short form of the reason, for another reason to refer to: the name where the value
    /// has one, else the reason's first words (reasons must not nest without bound).
    pub fn brief(&self) -> Option<String> {
        match self {
            Value::Unknown(u) => Some(match &u.name {
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

    /// The reason an unknown value carries (its name first, when it has one).
    pub fn reason(&self) -> Option<String> {
        match self {
            Value::Unknown(u) => Some(match &u.name {
                Some(n) => format!("`{n}`: {}", u.why),
                None => u.why.to_string(),
            }),
            _ => None,
        }
    }

    /// Whether two values are the same for the purpose of merging paths and comparing
    /// launches (records and arrays compare by content).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::Unknown(a), Value::Unknown(b)) => Rc::ptr_eq(a, b) || a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Record(a), Value::Record(b)) => {
                Rc::ptr_eq(a, b) || {
                    let (a, b) = (a.borrow(), b.borrow());
                    a.fields.len() == b.fields.len()
                        && a.fields
                            .iter()
                            .all(|(k, v)| b.fields.get(k).is_some_and(|w| v.same(w)))
                }
            }
            (Value::Array(a), Value::Array(b)) => Rc::ptr_eq(a, b),
            (Value::Ptr(a), Value::Ptr(b)) => match (a, b) {
                (Ptr::Cell(x), Ptr::Cell(y)) => Rc::ptr_eq(x, y),
                (Ptr::Elem(x, i), Ptr::Elem(y, j)) => Rc::ptr_eq(x, y) && i == j,
                (Ptr::Null, Ptr::Null) => true,
                (Ptr::Opaque(x), Ptr::Opaque(y)) => x == y,
                (Ptr::Device(x), Ptr::Device(y)) => x.left.same(&y.left),
                _ => false,
            },
            (Value::Handle(a), Value::Handle(b)) => Rc::ptr_eq(a, b),
            (Value::Void, Value::Void) => true,
            _ => false,
        }
    }
}

impl Record {
    fn deep_copy(&self) -> Record {
        Record {
            ty: self.ty.clone(),
            fields: self
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), v.copy()))
                .collect(),
        }
    }
}

impl Buffer {
    fn deep_copy(&self) -> Buffer {
        Buffer {
            dense: self.dense.iter().map(Value::copy).collect(),
            sparse: self.sparse.iter().map(|(k, v)| (*k, v.copy())).collect(),
            len: self.len,
            fill: self.fill.clone(),
            run: self.run.as_ref().map(Run::copy),
        }
    }
}

/// A scope of variables: a call's locals (with `this` in a method), or a closure's.
#[derive(Debug, Default)]
pub struct Frame {
    pub(super) vars: RefCell<HashMap<DeclKey, Rc<RefCell<Value>>>>,
    /// The frame a lambda was made in (its captures).
    pub(super) parent: Option<Rc<Frame>>,
    pub(super) this: Option<Value>,
    /// References bound to a field or an element (`int& r = cfg.n;`): their cell holds a
    /// pointer to it, read through.
    pub(super) refs: RefCell<std::collections::HashSet<DeclKey>>,
}

impl Frame {
    pub(super) fn lookup(&self, k: DeclKey) -> Option<Rc<RefCell<Value>>> {
        if let Some(c) = self.vars.borrow().get(&k) {
            return Some(c.clone());
        }
        self.parent.as_ref().and_then(|p| p.lookup(k))
    }

    /// Whether `k`, as this frame sees it, is a reference read through a pointer.
    pub(super) fn is_ref(&self, k: DeclKey) -> bool {
        if self.vars.borrow().contains_key(&k) {
            return self.refs.borrow().contains(&k);
        }
        self.parent.as_ref().is_some_and(|p| p.is_ref(k))
    }
}

impl heap::Sweep for Frame {
    fn sweep(&self) {
        heap::empty(&self.vars, HashMap::new());
    }
}

/// A key as maps order and compare them.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum Key {
    Int(i128),
    Float(f64),
    Str(String),
}

/// A tensor: its sizes (each a number or unknown) and its `c10::ScalarType`, where known.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub sizes: Vec<Value>,
    pub scalar_type: Option<i8>,
    /// Why the sizes are not known, where they are not (then `sizes` is empty).
    pub unknown_shape: Option<Rc<str>>,
    /// The name of a tensor the program is given from outside (a parameter of an extension's
    /// function nothing in the program calls): its sizes are assumptions named after it
    /// (`x.sizes[0]`, `x.numel`), which values can be given for.
    pub named: Option<Rc<str>>,
}

/// One launch as the program makes it.
#[derive(Clone, Debug)]
pub struct Event {
    /// The kernel's device symbol, or its name where the host names it by string (OpenCL,
    /// `cuModuleGetFunction`).
    pub kernel: String,
    pub by_name: bool,
    pub grid: [Value; 3],
    pub block: [Value; 3],
    pub shared_bytes: Value,
    pub args: Vec<(Arc<str>, Value)>,
    pub site: Span,
    pub api: &'static str,
    /// Conditions kerncast could not decide that this launch ran under.
    pub guards: Vec<Rc<str>>,
    /// The calls that led here, outermost first: (function, line of the call).
    pub stack: Vec<(Arc<str>, Span)>,
}

impl heap::Sweep for RefCell<Value> {
    fn sweep(&self) {
        heap::empty(self, Value::Void);
    }
}

impl heap::Sweep for RefCell<Record> {
    fn sweep(&self) {
        heap::empty(self, Record::default());
    }
}

impl heap::Sweep for RefCell<Buffer> {
    fn sweep(&self) {
        heap::empty(self, Buffer::new(Some(0), Value::Void));
    }
}

impl heap::Sweep for RefCell<Handle> {
    fn sweep(&self) {
        heap::empty(self, Handle::Opaque("an object of an ended reading"));
    }
}

/// `v` converted to a C type, as an assignment or a cast does: integers wrap to their width,
/// floats round to `float`, floats truncate to integers.
pub fn convert(v: Value, ty: &Ty) -> Value {
    match ty {
        Ty::Bool => match v.truth() {
            Some(b) => Value::Int(b as i128),
            None => v,
        },
        Ty::Int { bits, signed } => match v {
            Value::Int(i) => Value::Int(wrap(i, *bits, *signed)),
            Value::Float(f) if f.is_finite() => Value::Int(wrap(f.trunc() as i128, *bits, *signed)),
            Value::Float(_) => Value::unknown("a non-finite float converted to an integer"),
            Value::Ptr(Ptr::Null) => Value::Int(0),
            other => other,
        },
        Ty::Float { bits } => match v {
            Value::Int(i) => Value::Float(round_float(i as f64, *bits)),
            Value::Float(f) => Value::Float(round_float(f, *bits)),
            other => other,
        },
        Ty::Pointer(_) => match v {
            Value::Int(0) => Value::Ptr(Ptr::Null),
            Value::Array(b) => Value::Ptr(Ptr::Elem(b, 0)),
            other => other,
        },
        _ => v,
    }
}

fn round_float(f: f64, bits: u8) -> f64 {
    if bits == 32 {
        f as f32 as f64
    } else {
        f
    }
}

/// `i` wrapped to a `bits`-wide integer of the given signedness (two's complement).
pub fn wrap(i: i128, bits: u8, signed: bool) -> i128 {
    if bits >= 128 {
        return i;
    }
    let m = 1i128 << bits;
    let r = i.rem_euclid(m);
    if signed && r >= m / 2 {
        r - m
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fill over part of a large heap block (whose length is unknown) keeps one run: its
    /// elements read as the value until one is written again, elements outside it read as the
    /// block's fill, a later run over it replaces it, and one beside it is kept element by
    /// element while they fit.
    #[test]
    fn a_run_filled_in_a_large_block_reads_as_its_value() {
        let uninit = Value::unknown("uninitialised heap memory");
        let mut b = Buffer::new(None, uninit);
        let int = |b: &Buffer, i: i64| b.get(i).as_int();
        assert!(b.fill_run(10, 1 << 22, &Value::Int(1)));
        assert_eq!((int(&b, 10), int(&b, (1 << 22) + 9)), (Some(1), Some(1)));
        assert_eq!((int(&b, 9), int(&b, (1 << 22) + 10)), (None, None));
        b.set(11, Value::Int(5));
        assert_eq!((int(&b, 11), int(&b, 12)), (Some(5), Some(1)));
        // a run over the first: what was written in it is the new value
        assert!(b.fill_run(0, 1 << 23, &Value::Int(2)));
        assert_eq!((int(&b, 0), int(&b, 11)), (Some(2), Some(2)));
        // beside it, small: kept element by element; large: refused
        assert!(b.fill_run(1 << 23, 4, &Value::Int(3)));
        assert_eq!(
            (int(&b, 1 << 23), int(&b, (1 << 23) - 1)),
            (Some(3), Some(2))
        );
        assert!(!b.fill_run(1 << 24, 1 << 20, &Value::Int(4)));
        // a known length bounds the run, and a fill over all of it is the block's fill
        let mut known = Buffer::new(Some(1 << 20), Value::Int(0));
        assert!(!known.fill_run(1, 1 << 20, &Value::Int(7)));
        assert!(known.fill_run(0, 1 << 20, &Value::Int(7)));
        assert_eq!(
            (int(&known, (1 << 20) - 1), known.run.is_none()),
            (Some(7), true)
        );
    }

    #[test]
    fn integers_wrap_as_c_converts_them() {
        assert_eq!(wrap(-1, 32, false), 4294967295);
        assert_eq!(wrap(4294967296 + 5, 32, true), 5);
        assert_eq!(wrap(2147483648, 32, true), -2147483648);
        let f = convert(
            Value::Float(3.9),
            &Ty::Int {
                bits: 32,
                signed: true,
            },
        );
        assert!(f.same(&Value::Int(3)));
        let g = convert(
            Value::Float(-3.9),
            &Ty::Int {
                bits: 32,
                signed: true,
            },
        );
        assert!(g.same(&Value::Int(-3)));
    }

    #[test]
    fn large_buffers_keep_written_elements_only() {
        let mut b = Buffer::new(Some(1 << 24), Value::unknown("uninitialised"));
        b.set(5, Value::Int(7));
        assert!(b.get(5).same(&Value::Int(7)));
        assert!(b.get(6).is_unknown());
    }
}
