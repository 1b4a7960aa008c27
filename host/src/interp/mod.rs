//! An abstract interpreter over the lowered host code: it runs `main` (or, in a file with no
//! `main`, each function nothing else calls) with the program's command line, computing every
//! value C would where the inputs allow, and `Unknown` with its reason where they do not
//! (data read from files, `rand()` after a draw kerncast did not follow, a library kerncast
//! does not model; `rand()` after `srand` is glibc's, `libc_rand`). Launches are recorded
//! with the values that reach them ([`launches`]).
//!
//! Everything is bounded by a deterministic work budget ([`Budget`]): statements and
//! expressions evaluated, iterations per loop, call depth. A loop that runs past its budget
//! stops being followed: what it writes becomes unknown, and launches inside it are marked as
//! counted in part, never silently dropped. A condition kerncast cannot decide runs both
//! branches, each seeing the state from before the `if`, and what they leave different is
//! unknown after it; launches inside carry the condition.
//!
//! The modules are layers, each importing only those below it: the values ([`value`], and
//! `access` to read and write through them) and the launches; the interpreter's state
//! (`state`); the parts that run the program, `impl Interp` blocks; this module's entry
//! points. The parts recurse into each other (a call runs a body whose statements evaluate
//! expressions that call) through methods of [`Interp`], which need no import; a part imports
//! another's items only where that one is a model below it (the library's, the effects').

mod access;
mod builtins;
mod calls;
mod containers;
mod cpp_random;
mod device_data;
mod effects;
mod expr;
mod fill_loop;
pub mod launches;
mod libc_rand;
pub mod programs;
mod state;
mod stmt;
pub mod torch;
pub mod value;

pub use state::{Budget, DeviceProps, Flow, Halt, Interp, Leave, OccupancyOracle, RunOptions};
pub use value::Frame;

use crate::ast::{DeclKey, Span};
use crate::clang::lower::ProgramAst;
use crate::heap;
use access::Arg;
use launches::Recorder;
use state::{Exec, OBJECTS_MAX};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use value::Value;

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
    /// Files it reads that are not where it runs, with the call that reads each.
    pub missing_inputs: BTreeMap<String, String>,
    /// Programs the host compiles at run time.
    pub programs: Vec<programs::CompiledProgram>,
    /// Functions of the program's own headers it called without a body in the units read
    /// (`utlCheckCommandLineOption`, defined in a `utils.cpp` the units do not include).
    pub undefined_calls: std::collections::BTreeSet<String>,
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
            missing_inputs: BTreeMap::new(),
            undefined_calls: Default::default(),
            programs: Vec::new(),
            uncertain: 0,
            loop_exits: Vec::new(),
            device_data_lost: None,
            // A program that never calls `srand` runs as seeded with 1.
            rand: RefCell::new(Some(libc_rand::LibcRand::seeded(1))),
            rand48: RefCell::new(Some(libc_rand::Rand48::default())),
            exit_guards: Vec::new(),
            fn_guards: Vec::new(),
            left: None,
            may_launch_cache: RefCell::new(HashMap::new()),
            body_launch_cache: HashMap::new(),
            quiet_cut: HashMap::new(),
            summaries: RefCell::new(HashMap::new()),
            summary_stack: RefCell::new(Vec::new()),
            provisional: RefCell::new(HashMap::new()),
            summary_low: std::cell::Cell::new(usize::MAX),
            active: Vec::new(),
            early_returns: Vec::new(),
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
            // A function run as an entry point may run after anything: the generator's state
            // when it starts is unknown.
            if !is_main {
                self.forget_rand();
            }
            let args: Vec<Arg> = if is_main {
                self.main_args(&f)
            } else {
                f.params
                    .iter()
                    .map(|p| {
                        let tensor =
                            p.ty.record_name()
                                .is_some_and(|r| r == "at::Tensor" || r == "torch::Tensor");
                        Arg::Val(match tensor {
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
            missing_inputs: self.missing_inputs,
            programs: self.programs,
            undefined_calls: self.undefined_calls,
        }
    }

    /// A file the program reads (`by`: the call that reads it), noted where it is not in the
    /// folder the program runs in: what the program reads from it is unknown, and the reading
    /// lists the file so that the user sees why.
    pub(super) fn reads_file(&mut self, path: &str, by: &str) {
        let Some(dir) = &self.opts.run_dir else {
            return;
        };
        if path.is_empty() || dir.join(path).exists() {
            return;
        }
        self.missing_inputs
            .entry(path.to_string())
            .or_insert_with(|| by.to_string());
    }

    /// Notes what the reading assumed, once.
    pub(super) fn note(&mut self, n: String) {
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    fn main_args(&mut self, f: &crate::ast::Function) -> Vec<Arg> {
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
        let mut out = vec![Arg::Val(argc), Arg::Val(argv)];
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
        let prog = self.prog;
        // Declared `extern` and defined nowhere in the code read: the library's variable (or
        // another program's file's), which the program does not see as zero.
        let elsewhere = prog.extern_globals.contains(&key) && !prog.defined_globals.contains(&key);
        let init = match self.prog.globals.get(&key).filter(|_| !elsewhere) {
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
                None if elsewhere => Value::unknown(&format!(
                    "`{name}` is declared `extern` and defined in code kerncast did not read"
                )),
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
    let args = args.into_iter().map(Arg::Val).collect();
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
