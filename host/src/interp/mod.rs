//! An abstract interpreter over the lowered host code: it runs `main` (or, in a file with no
//! `main`, each function nothing else calls) with the program's command line, computing every
//! value C would where the inputs allow, and `Unknown` with its reason where they do not
//! (data read from files, `rand()`, a library kerncast does not model). Launches are recorded
//! with the values that reach them ([`launches`]).
//!
//! Everything is bounded by a deterministic work budget ([`Budget`]): statements and
//! expressions evaluated, iterations per loop, call depth. A loop that runs past its budget
//! stops being followed: what it writes becomes unknown, and launches inside it are marked as
//! counted in part, never silently dropped. A condition kerncast cannot decide runs both
//! branches, each seeing the state from before the `if`, and what they leave different is
//! unknown after it; launches inside carry the condition.

mod builtins;
mod calls;
mod containers;
mod effects;
mod expr;
pub mod launches;
pub mod programs;
mod stmt;
pub mod torch;
pub mod value;

use crate::ast::{DeclKey, Span};
use crate::clang::lower::ProgramAst;
use crate::heap;
use launches::Recorder;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use value::Value;

/// Elements of an array of records or arrays made one by one; a larger one's elements are
/// unknown.
const OBJECTS_MAX: u64 = 4096;

/// Work limits of one program's reading; the same input always stops at the same point.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Budget {
    /// Expressions and statements evaluated, in all.
    pub steps: u64,
    /// Iterations of one loop, each time it runs, before it is no longer followed.
    pub loop_iterations: u64,
    /// Steps a loop that cannot launch runs, after which it is no longer followed (its
    /// writes become unknown): host initialisation and reference computations cost little.
    pub quiet_loop_steps: u64,
    /// Nested calls.
    pub call_depth: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 20_000_000,
            loop_iterations: 1_000_000,
            quiet_loop_steps: 50_000,
            call_depth: 48,
        }
    }
}

/// Device properties the host code may ask for (`cudaGetDeviceProperties`), where the target
/// device is known.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DeviceProps {
    pub name: Option<String>,
    pub multi_processor_count: Option<i64>,
    pub max_threads_per_block: Option<i64>,
    pub max_threads_per_multi_processor: Option<i64>,
    pub warp_size: Option<i64>,
    pub shared_mem_per_block: Option<i64>,
    pub total_global_mem: Option<i64>,
    pub major: Option<i64>,
    pub minor: Option<i64>,
}

/// The CUDA occupancy API's answers for a kernel on the target device, which depend on the
/// kernel's registers and shared memory (known to the caller, which compiled it, not to the
/// host reading). `Err` says why an answer is unknown.
pub trait OccupancyOracle: Send + Sync + std::fmt::Debug {
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`: blocks of `threads` threads with
    /// `dynamic_shared` bytes that one SM runs at once.
    fn active_blocks_per_sm(
        &self,
        kernel: &str,
        threads: u64,
        dynamic_shared: u64,
    ) -> Result<u64, String>;
    /// `cudaOccupancyMaxPotentialBlockSize`: (the grid that fills the device, the block size of
    /// the highest occupancy), blocks of at most `limit` threads (0: no limit).
    fn max_potential_block_size(
        &self,
        kernel: &str,
        dynamic_shared: u64,
        limit: u64,
    ) -> Result<(u64, u64), String>;
}

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The command line, `argv[0]` first.
    pub argv: Vec<String>,
    /// Values for named assumptions (`--param n=4096`).
    pub params: BTreeMap<String, f64>,
    pub device: DeviceProps,
    pub budget: Budget,
    pub occupancy: Option<Arc<dyn OccupancyOracle>>,
}

/// A scope of variables: a call's locals (with `this` in a method), or a closure's.
#[derive(Debug, Default)]
pub struct Frame {
    vars: RefCell<HashMap<DeclKey, Rc<RefCell<Value>>>>,
    /// The frame a lambda was made in (its captures).
    parent: Option<Rc<Frame>>,
    this: Option<Value>,
    /// References bound to a field or an element (`int& r = cfg.n;`): their cell holds a
    /// pointer to it, read through.
    refs: RefCell<std::collections::HashSet<DeclKey>>,
}

impl Frame {
    fn lookup(&self, k: DeclKey) -> Option<Rc<RefCell<Value>>> {
        if let Some(c) = self.vars.borrow().get(&k) {
            return Some(c.clone());
        }
        self.parent.as_ref().and_then(|p| p.lookup(k))
    }

    /// Whether `k`, as this frame sees it, is a reference read through a pointer.
    fn is_ref(&self, k: DeclKey) -> bool {
        if self.vars.borrow().contains_key(&k) {
            return self.refs.borrow().contains(&k);
        }
        self.parent.as_ref().is_some_and(|p| p.is_ref(k))
    }

    /// Binds a C++ reference to a place: a variable's own cell, else (a field, an element)
    /// a pointer to it that reads and writes go through; a temporary is its value.
    fn bind_ref(&self, k: DeclKey, place: expr::Place) {
        self.refs.borrow_mut().remove(&k);
        let cell = match place {
            expr::Place::Cell(c) => c,
            expr::Place::Temp(v) => heap::shared(v),
            p => {
                self.refs.borrow_mut().insert(k);
                heap::shared(p.pointer())
            }
        };
        self.vars.borrow_mut().insert(k, cell);
    }
}

impl heap::Sweep for Frame {
    fn sweep(&self) {
        heap::empty(&self.vars, HashMap::new());
    }
}

/// How far an undecided branch that leaves early (`if (bad) return 1;`) makes the code
/// after it uncertain: to the end of the loop (`break`, `continue`), of the function
/// (`return`, `goto`), or of the program (`exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Leave {
    Loop,
    Function,
    Program,
}

/// Why interpretation stopped early.
#[derive(Debug)]
pub enum Halt {
    /// The program called `exit` / `abort` / returned from `main`.
    Exit,
    /// An exception thrown, of the record type named (`std::runtime_error`), on its way to
    /// a handler; uncaught, it ends the program.
    Throw(Option<Arc<str>>),
    /// A work budget ran out: which, and where.
    Budget(String),
}

/// How a statement ends.
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
    /// A `goto` looking for its label in the enclosing blocks.
    Goto(Arc<str>),
}

type Exec<T> = Result<T, Halt>;

/// The functions a PyTorch extension's module binds for Python (`m.def("add", &add_cuda)`
/// in `PYBIND11_MODULE`, as kerncast's declarations expand it): entry points of a program
/// read without the script that calls them.
pub(crate) fn bound_functions(prog: &ProgramAst) -> Vec<DeclKey> {
    let mut out = Vec::new();
    for f in prog.functions.values() {
        let binds = f.name.starts_with("kerncast_pybind11_")
            || f.name.starts_with("kerncast_torch_library");
        if !binds {
            continue;
        }
        effects::visit_stmt(&f.body, &mut |_| {}, &mut |e| {
            if let crate::ast::ExprKind::Function {
                key, kernel: None, ..
            } = &e.kind
            {
                if !out.contains(key) {
                    out.push(*key);
                }
            }
        });
    }
    out
}

/// What the interpreter found: the launches, and what stopped it or was left unknown.
pub struct Outcome {
    pub recorder: Recorder,
    /// Where interpretation stopped on a budget, and which.
    pub halted: Option<String>,
    /// Named assumptions the launches depend on, with why each is unknown.
    pub assumptions: BTreeMap<String, String>,
    /// Steps spent.
    pub steps: u64,
    /// Where the program ended itself (`exit`, `abort`, a failed `assert`), as read.
    pub exited_at: Option<String>,
    /// The given values (`RunOptions::params`) the program read.
    pub used: std::collections::BTreeSet<String>,
    /// What the reading assumed that the launches do not show (a given tensor's layout).
    pub notes: Vec<String>,
    /// Programs the host compiles at run time.
    pub programs: Vec<programs::CompiledProgram>,
}

pub struct Interp<'p> {
    /// Where the program ended itself, with the calls that led there.
    exited_at: Option<String>,
    prog: &'p ProgramAst,
    opts: &'p RunOptions,
    globals: HashMap<DeclKey, Rc<RefCell<Value>>>,
    frames: Vec<Rc<Frame>>,
    /// The calls being run, outermost first, with where each was called.
    stack: Vec<(Arc<str>, Span)>,
    /// Whether each call being run returns a reference.
    returns_ref: Vec<bool>,
    guards: Vec<Rc<str>>,
    steps: u64,
    recorder: Recorder,
    /// Launches captured into a CUDA graph instead of run (`cudaStreamBeginCapture`).
    capture: Option<Vec<launches::Event>>,
    /// getopt's state.
    optind: i128,
    optarg: Value,
    optpos: usize,
    optind_key: Option<DeclKey>,
    optarg_key: Option<DeclKey>,
    assumptions: BTreeMap<String, String>,
    /// The given values the program read.
    used: std::collections::BTreeSet<String>,
    notes: Vec<String>,
    programs: Vec<programs::CompiledProgram>,
    /// Above zero while both sides of an undecided condition run: an `exit` there ends
    /// only that side, not the program.
    uncertain: usize,
    /// Conditions of undecided branches that may have exited the program: every launch
    /// after them runs under them.
    exit_guards: Vec<Rc<str>>,
    /// The entries of `guards` added by an undecided branch that may have returned: they
    /// hold until the function returns (the end of a loop keeps them).
    fn_guards: Vec<Rc<str>>,
    /// How far the branch being run may have left early, for the undecided condition
    /// around it.
    left: Option<Leave>,
    /// Whether a function may launch a kernel, by declaration, as far as computed.
    may_launch_cache: RefCell<HashMap<DeclKey, bool>>,
    /// The same for loop bodies, by their address in the (immutable) tree.
    body_launch_cache: HashMap<*const crate::ast::Stmt, bool>,
}

impl<'p> Interp<'p> {
    pub fn new(prog: &'p ProgramAst, opts: &'p RunOptions) -> Interp<'p> {
        Interp {
            exited_at: None,
            prog,
            opts,
            globals: HashMap::new(),
            frames: Vec::new(),
            stack: Vec::new(),
            returns_ref: Vec::new(),
            guards: Vec::new(),
            steps: 0,
            recorder: Recorder::default(),
            capture: None,
            optind: 1,
            optarg: Value::Ptr(value::Ptr::Null),
            optpos: 0,
            optind_key: None,
            optarg_key: None,
            assumptions: BTreeMap::new(),
            used: Default::default(),
            notes: Vec::new(),
            programs: Vec::new(),
            uncertain: 0,
            exit_guards: Vec::new(),
            fn_guards: Vec::new(),
            left: None,
            may_launch_cache: RefCell::new(HashMap::new()),
            body_launch_cache: HashMap::new(),
        }
    }

    /// Runs the program from its entry points: `main` where it has one, else each function
    /// no other function calls, with unknown parameters named after them.
    pub fn run(mut self, entries: &[DeclKey]) -> Outcome {
        let mut halted = None;
        // Variables of namespace scope first, in order: an initialiser sees the values the
        // ones before it were given, not what main later writes.
        let prog = self.prog;
        let mut exited = false;
        for key in &prog.global_order {
            let name = prog
                .globals
                .get(key)
                .map(|g| g.name.clone())
                .unwrap_or_default();
            match self.cell(*key, &name) {
                Ok(_) => {}
                Err(Halt::Exit | Halt::Throw(_)) => exited = true,
                Err(Halt::Budget(why)) => {
                    self.recorder.partial_since(0, &why);
                    halted = Some(why);
                }
            }
            if exited || halted.is_some() {
                break;
            }
        }
        for key in entries.iter().filter(|_| halted.is_none() && !exited) {
            let Some(f) = self.prog.functions.get(key).cloned() else {
                continue;
            };
            let is_main = &*f.name == "main";
            let args: Vec<calls::Arg> = if is_main {
                self.main_args(&f)
            } else {
                f.params
                    .iter()
                    .map(|p| {
                        let tensor =
                            p.ty.record_name()
                                .is_some_and(|r| r == "at::Tensor" || r == "torch::Tensor");
                        calls::Arg::Val(match tensor {
                            true => torch::given(&p.name),
                            false => self.assumption(
                                &p.name,
                                &format!(
                                    "a parameter of `{}`, which nothing in the program calls",
                                    f.name
                                ),
                            ),
                        })
                    })
                    .collect()
            };
            let this = if f.is_method {
                Some(Value::unknown("the object of a method nothing calls"))
            } else {
                None
            };
            match self.call_function(&f, args, this, None, &f.span.clone()) {
                Ok(_) | Err(Halt::Exit | Halt::Throw(_)) => {}
                Err(Halt::Budget(why)) => {
                    // The program may launch anything again after the point reading stopped:
                    // every count so far is a lower bound.
                    self.recorder.partial_since(0, &why);
                    halted = Some(why);
                    break;
                }
            }
        }
        Outcome {
            recorder: self.recorder,
            halted,
            assumptions: self.assumptions,
            steps: self.steps,
            exited_at: self.exited_at,
            used: self.used,
            notes: self.notes,
            programs: self.programs,
        }
    }

    /// Notes what the reading assumed, once.
    pub(super) fn note(&mut self, n: String) {
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    fn main_args(&mut self, f: &crate::ast::Function) -> Vec<calls::Arg> {
        let argv: Vec<Value> = self
            .opts
            .argv
            .iter()
            .map(|a| Value::Str(Rc::from(a.as_str())))
            .chain(std::iter::once(Value::Ptr(value::Ptr::Null)))
            .collect();
        let argc = Value::Int(self.opts.argv.len() as i128);
        let argv = Value::Ptr(value::Ptr::Elem(
            heap::shared(value::Buffer::from_values(argv)),
            0,
        ));
        let mut out = vec![calls::Arg::Val(argc), calls::Arg::Val(argv)];
        out.truncate(f.params.len());
        out
    }

    /// An unknown value named `name`, or the value the user gave that name.
    fn assumption(&mut self, name: &str, why: &str) -> Value {
        if let Some(v) = self.opts.params.get(name) {
            self.used.insert(name.to_string());
            return if v.fract() == 0.0 {
                Value::Int(*v as i128)
            } else {
                Value::Float(*v)
            };
        }
        Value::Unknown(Rc::new(value::Unknown {
            why: Rc::from(why),
            name: Some(Rc::from(name)),
        }))
    }

    fn step(&mut self, span: &Span) -> Exec<()> {
        self.steps += 1;
        if self.steps > self.opts.budget.steps {
            return Err(Halt::Budget(format!(
                "host reading stopped at {span} after {} steps (budget: --host-steps)",
                self.opts.budget.steps
            )));
        }
        Ok(())
    }

    /// Back to the guards of an enclosing statement, keeping those that hold until the
    /// function returns.
    fn restore_guards(&mut self, guards: usize, fn_guards: usize) {
        self.guards.truncate(guards);
        let kept = self.fn_guards.get(fn_guards..).unwrap_or_default().to_vec();
        self.guards.extend(kept);
    }

    /// What an undecided condition `why` whose branches may leave as far as `leave` makes
    /// of the code after it.
    pub(super) fn left_early(&mut self, leave: Option<Leave>, why: &Rc<str>) {
        // Once is enough: a loop passing the same condition again adds nothing (and its
        // launches stay one record).
        if self.guards.contains(why) || self.exit_guards.contains(why) {
            return;
        }
        match leave {
            Some(Leave::Program) => self.exit_guards.push(why.clone()),
            Some(Leave::Function) => {
                self.guards.push(why.clone());
                self.fn_guards.push(why.clone());
            }
            Some(Leave::Loop) => self.guards.push(why.clone()),
            None => {}
        }
    }

    fn frame(&self) -> Rc<Frame> {
        self.frames
            .last()
            .cloned()
            .unwrap_or_else(|| heap::frame(Frame::default()))
    }

    /// The cell of a variable: the current frame's (or a closure's), else a global, made and
    /// initialised the first time it is read.
    fn cell(&mut self, key: DeclKey, name: &str) -> Exec<Rc<RefCell<Value>>> {
        if let Some(f) = self.frames.last() {
            if let Some(c) = f.lookup(key) {
                return Ok(c);
            }
        }
        if let Some(c) = self.globals.get(&key) {
            return Ok(c.clone());
        }
        let cell = heap::shared(Value::unknown("not yet initialised"));
        self.globals.insert(key, cell.clone());
        let init = match self.prog.globals.get(&key) {
            Some(g) => match &g.init {
                Some(e) => {
                    let frames = std::mem::take(&mut self.frames);
                    let v = self.eval(e);
                    self.frames = frames;
                    let v = v?;
                    value::convert(v.copy(), &g.ty)
                }
                None => self.default_value(&g.ty, true),
            },
            None => match builtins::system_global(self, name, key) {
                Some(v) => v,
                None => Value::unknown(&format!("`{name}` is not a variable kerncast can read")),
            },
        };
        *cell.borrow_mut() = init;
        Ok(cell)
    }

    /// The value a declaration without an initialiser has: zero for globals and statics (as
    /// C gives them), unknown for locals.
    fn default_value(&mut self, ty: &crate::ast::Ty, zeroed: bool) -> Value {
        use crate::ast::Ty;
        match ty {
            // Records and arrays are objects of their own, one per element (a shared one would
            // make a write to a[0] a write to a[1]); too many to make, they read as unknown.
            Ty::Array(elem, Some(n))
                if matches!(**elem, Ty::Record { .. } | Ty::Array(..)) && *n <= OBJECTS_MAX =>
            {
                let elems = (0..*n).map(|_| self.default_value(elem, zeroed)).collect();
                Value::Array(heap::shared(value::Buffer::from_values(elems)))
            }
            Ty::Array(elem, n) => {
                let fill = match **elem {
                    Ty::Record { .. } | Ty::Array(..) => {
                        Value::unknown("an element of a large array of objects")
                    }
                    _ => self.default_value(elem, zeroed),
                };
                Value::Array(heap::shared(value::Buffer::new(n.map(|n| n as i64), fill)))
            }
            Ty::Record { name, .. } => self.default_record(name, 0, zeroed),
            _ if zeroed => value::convert(Value::Int(0), ty),
            _ => Value::unknown("an uninitialised variable"),
        }
    }

    /// A record as declared without an initialiser: a library container empty, else a new
    /// object of the type ([`Interp::new_record`]); zeroed as a global is.
    fn default_record(&mut self, name: &str, depth: usize, zeroed: bool) -> Value {
        if let Some(v) = containers::empty_of(name) {
            return v;
        }
        match self.record_with_defaults(name, depth, zeroed) {
            Ok(r) => Value::Record(r),
            Err(_) => Value::unknown("a member initialiser kerncast could not run"),
        }
    }

    /// A new object of a record type: its members that are containers empty, records built
    /// the same way, arrays sized; then the fields its default member initialisers set
    /// (evaluated in order, each seeing the object as `this`).
    fn new_record(&mut self, ty: &crate::ast::Ty) -> Exec<Rc<RefCell<value::Record>>> {
        let name = ty.record_name().unwrap_or("").to_string();
        self.record_with_defaults(&name, 0, false)
    }

    fn record_with_defaults(
        &mut self,
        name: &str,
        depth: usize,
        zeroed: bool,
    ) -> Exec<Rc<RefCell<value::Record>>> {
        let mut fields = BTreeMap::new();
        if depth < 8 {
            if let Some(layout) = self.prog.layouts.get(name).cloned() {
                for f in layout.iter() {
                    let v = match &f.ty {
                        crate::ast::Ty::Record { name, .. } => {
                            self.default_record(name, depth + 1, zeroed)
                        }
                        ty @ crate::ast::Ty::Array(..) => self.default_value(ty, zeroed),
                        ty if zeroed => value::convert(Value::Int(0), ty),
                        _ => continue,
                    };
                    fields.insert(f.name.clone(), v);
                }
            }
        }
        let record = heap::shared(value::Record {
            ty: Arc::from(name),
            fields,
        });
        let prog = self.prog;
        let Some(defaults) = prog.record_defaults.get(name).filter(|d| !d.is_empty()) else {
            return Ok(record);
        };
        let this = Value::Ptr(value::Ptr::Cell(heap::shared(Value::Record(
            record.clone(),
        ))));
        self.frames.push(heap::frame(Frame {
            this: Some(this),
            ..Frame::default()
        }));
        let mut result = Ok(());
        for (field, init) in defaults {
            match self.eval(init) {
                Ok(v) => {
                    let v = value::convert(v.copy(), &init.ty);
                    record.borrow_mut().fields.insert(field.clone(), v);
                }
                Err(h) => {
                    result = Err(h);
                    break;
                }
            }
        }
        self.frames.pop();
        result.map(|_| record)
    }

    fn declare(&mut self, key: DeclKey, v: Value) -> Rc<RefCell<Value>> {
        let cell = heap::shared(v);
        if let Some(f) = self.frames.last() {
            f.vars.borrow_mut().insert(key, cell.clone());
        } else {
            self.globals.insert(key, cell.clone());
        }
        cell
    }
}

/// What a call of one of the program's functions from a host in another language gave
/// ([`call_named`]).
pub struct ForeignCall {
    pub result: Value,
    /// The launches it made, in order; each event's stack starts with the function called.
    pub launches: Vec<launches::Event>,
    /// Named assumptions the launches depend on, with why each is unknown.
    pub assumptions: BTreeMap<String, String>,
    /// The given values it read.
    pub used: std::collections::BTreeSet<String>,
    pub steps: u64,
    /// Why it stopped early (a work budget), where it did.
    pub halted: Option<String>,
}

/// Runs the program's function `name` (its qualified name, or its last component where that
/// names one function) with `args`, as a host in another language calls it: a Python script
/// calling a PyTorch extension's binding with tensors ([`torch::Tensor`]). The launches it
/// makes are returned, not recorded. `None` when the program has no such function with a body.
pub fn call_named(
    prog: &ProgramAst,
    opts: &RunOptions,
    name: &str,
    args: Vec<Value>,
) -> Option<ForeignCall> {
    let mut candidates: Vec<&Arc<crate::ast::Function>> = prog
        .functions
        .values()
        .filter(|f| &*f.name == name)
        .collect();
    if candidates.is_empty() {
        let suffix = format!("::{name}");
        candidates = prog
            .functions
            .values()
            .filter(|f| f.name.ends_with(&suffix) && !f.is_method)
            .collect();
    }
    candidates.sort_by(|a, b| a.span.cmp(&b.span));
    let f = (*candidates.first()?).clone();
    let mut it = Interp::new(prog, opts);
    it.capture = Some(Vec::new());
    let span = f.span.clone();
    let args = args.into_iter().map(calls::Arg::Val).collect();
    let (result, halted) = match it.call_function(&f, args, None, None, &span) {
        Ok(v) => (v, None),
        Err(Halt::Exit | Halt::Throw(_)) => (Value::Void, None),
        Err(Halt::Budget(why)) => (Value::unknown(&why), Some(why)),
    };
    Some(ForeignCall {
        result,
        launches: it.capture.take().unwrap_or_default(),
        assumptions: it.assumptions,
        used: it.used,
        steps: it.steps,
        halted,
    })
}
