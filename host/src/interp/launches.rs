//! Launches as the interpreter meets them, added up: one record per distinct launch (site,
//! kernel, grid, block, shared memory, arguments, the conditions it ran under) with how many
//! times it ran, and each kernel's first launches in the order the program makes them.

use super::value::{Func, Handle, Ptr, Value};
// defined with the values: a CUDA graph's handle holds the launches captured into it
pub use super::value::Event;
use std::collections::HashMap;
use std::rc::Rc;

/// The names of an OpenCL launch's work-group size, by dimension, where the host leaves it to
/// the runtime (`clEnqueueNDRangeKernel(…, NULL, …)`, PyOpenCL's `None`): a value given for
/// them (the kernel's `reqd_work_group_size`, or `--param local_size=64`) sizes the launch.
pub const LOCAL_SIZE_NAMES: [&str; 3] = ["local_size", "local_size.y", "local_size.z"];

/// A distinct launch and how often it ran.
#[derive(Clone, Debug)]
pub struct Record {
    pub event: Event,
    pub count: u64,
    /// Why the count is a lower bound, where it is (a loop not followed to its end).
    pub partial: Option<Rc<str>>,
}

/// How many launches of one kernel are kept in program order.
const TRACE_PER_KERNEL: usize = 16;

#[derive(Default)]
pub struct Recorder {
    pub records: Vec<Record>,
    index: HashMap<String, usize>,
    /// Record ids in the order launches happen (all of them, for a loop to repeat its last
    /// iteration's).
    pub log: Vec<usize>,
    /// Per kernel, the record ids of its first launches in order.
    pub trace: HashMap<String, Vec<usize>>,
    /// Argument lists recorded per launch shape.
    variants: HashMap<String, usize>,
    /// The first argument list of each launch shape: past [`MAX_VARIANTS`], only the arguments
    /// that differ from it read as unknown.
    first_args: HashMap<String, String>,
}

/// The launch's shape: where, which kernel, grid, block, shared memory, conditions.
fn shape_of(e: &Event) -> String {
    use std::fmt::Write;
    let mut k = format!("{}|{}|{}|", e.site, e.kernel, e.api);
    for v in e
        .grid
        .iter()
        .chain(e.block.iter())
        .chain(std::iter::once(&e.shared_bytes))
    {
        let _ = write!(k, "{},", describe(v));
    }
    for g in &e.guards {
        let _ = write!(k, "?{g}");
    }
    k
}

fn args_of(e: &Event) -> String {
    use std::fmt::Write;
    let mut k = String::new();
    for (n, v) in &e.args {
        let _ = write!(k, "{n}={};", describe(v));
    }
    k
}

/// Distinct argument lists one launch shape keeps before further ones share a record whose
/// varying arguments read as unknown (a loop passing its counter would make one each).
const MAX_VARIANTS: usize = 64;

/// A value as launch records compare and show it.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Unknown(u) => format!("?{}", u.name.as_deref().unwrap_or(&u.why)),
        Value::Str(s) => format!("{s:?}"),
        Value::Ptr(_) => "ptr".into(),
        Value::Record(r) => {
            let r = r.borrow();
            let fields: Vec<String> = r
                .fields
                .iter()
                .map(|(k, v)| format!("{k}:{}", describe(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(_) => "array".into(),
        Value::Func(_) => "function".into(),
        Value::Handle(_) => "handle".into(),
        Value::Void => "void".into(),
    }
}

/// One launch record stands for runs whose device pointers may point at allocations of
/// different sizes (`describe` shows each as `ptr`): it keeps, for each, the largest size known
/// of any run. The runs agree in every other argument, so none reads more than that, and a
/// buffer that size holds what any of them reads (the emulator sizes its buffers by it).
fn widen_buffers(kept: &mut [(std::sync::Arc<str>, Value)], new: &[(std::sync::Arc<str>, Value)]) {
    for ((_, k), (_, n)) in kept.iter_mut().zip(new) {
        widen(k, n);
    }
}

fn widen(kept: &mut Value, new: &Value) {
    match (&*kept, new) {
        (Value::Ptr(Ptr::Device(a)), Value::Ptr(Ptr::Device(b))) => {
            let larger = match (&*a.left, &*b.left) {
                (Value::Int(x), Value::Int(y)) => x < y,
                (Value::Int(_), _) => false,
                (_, Value::Int(_)) => true,
                _ => false,
            };
            if larger {
                *kept = new.clone();
            }
        }
        (Value::Record(a), Value::Record(b)) if !std::rc::Rc::ptr_eq(a, b) => {
            // a copy: the record may be the program's own
            let copy = kept.copy();
            if let Value::Record(c) = &copy {
                let b = b.borrow();
                for (f, v) in c.borrow_mut().fields.iter_mut() {
                    if let Some(w) = b.fields.get(f) {
                        widen(v, w);
                    }
                }
            }
            *kept = copy;
        }
        _ => {}
    }
}

/// A launch dimension (`dim3`, or an integer converted to one) as x, y, z.
pub(super) fn dims(v: Option<&Value>) -> [Value; 3] {
    match v {
        Some(Value::Record(r)) => {
            let r = r.borrow();
            let get = |f: &str| {
                r.fields
                    .get(f)
                    .cloned()
                    .unwrap_or_else(|| Value::unknown(&format!("the `{f}` of a dim3 never set")))
            };
            [get("x"), get("y"), get("z")]
        }
        Some(Value::Int(i)) => [Value::Int(*i), Value::Int(1), Value::Int(1)],
        Some(Value::Ptr(Ptr::Elem(b, i))) => {
            let b = b.borrow();
            [b.get(*i), b.get(*i + 1), b.get(*i + 2)]
        }
        Some(u @ Value::Unknown(_)) => [u.clone(), u.clone(), u.clone()],
        _ => {
            let u = Value::unknown("a launch dimension kerncast cannot read");
            [u.clone(), u.clone(), u]
        }
    }
}

/// A handle's kernel name, for launches by name.
pub(super) fn kernel_name_of(v: &Value) -> Option<(String, bool)> {
    match v {
        Value::Func(Func::Decl {
            kernel: Some(k), ..
        }) => Some((k.mangled.clone(), false)),
        Value::Handle(h) => match &*h.borrow() {
            Handle::NamedKernel(n) => Some((n.clone(), true)),
            Handle::ClKernel { name, .. } => Some((name.clone(), true)),
            _ => None,
        },
        Value::Ptr(Ptr::Cell(c)) => kernel_name_of(&c.borrow()),
        _ => None,
    }
}

impl Recorder {
    pub fn add(&mut self, mut e: Event, times: u64) {
        let shape = shape_of(&e);
        let mut key = format!("{shape}{}", args_of(&e));
        if !self.index.contains_key(&key) {
            let n = self.variants.entry(shape.clone()).or_default();
            if *n >= MAX_VARIANTS {
                let varies = Value::unknown(&format!(
                    "it takes more than {MAX_VARIANTS} values across this launch's runs"
                ));
                let first = format!(
                    ";{}",
                    self.first_args.get(&shape).cloned().unwrap_or_default()
                );
                for (name, v) in &mut e.args {
                    let same = first.contains(&format!(";{name}={};", describe(v)));
                    if matches!(v, Value::Int(_) | Value::Float(_)) && !same {
                        *v = varies.clone();
                    }
                }
                key = format!("{shape}{}", args_of(&e));
            } else {
                *n += 1;
                self.first_args
                    .entry(shape.clone())
                    .or_insert_with(|| args_of(&e));
            }
        }
        let kernel = e.kernel.clone();
        let id = match self.index.get(&key) {
            Some(&id) => {
                self.records[id].count = self.records[id].count.saturating_add(times);
                widen_buffers(&mut self.records[id].event.args, &e.args);
                id
            }
            None => {
                self.records.push(Record {
                    event: e,
                    count: times,
                    partial: None,
                });
                self.index.insert(key, self.records.len() - 1);
                self.records.len() - 1
            }
        };
        self.log.push(id);
        let t = self.trace.entry(kernel).or_default();
        if t.len() < TRACE_PER_KERNEL {
            t.push(id);
        }
    }

    /// The launches logged since `mark`, `times` more times each (a loop's remaining
    /// iterations that would repeat its last one exactly).
    pub fn repeat_since(&mut self, mark: usize, times: u64) {
        let ids: Vec<usize> = self.log[mark..].to_vec();
        for id in ids {
            self.records[id].count = self.records[id].count.saturating_add(times);
        }
    }

    /// The shapes of the given records, to compare a loop's iterations.
    pub fn shapes(&self, ids: &[usize]) -> Vec<String> {
        ids.iter()
            .map(|id| shape_of(&self.records[*id].event))
            .collect()
    }

    /// A loop's `times` remaining iterations, counted as its last one (`last`) launched; an
    /// argument that differs from the iteration before (`before`) is `varies` for them.
    pub fn repeat_last(&mut self, before: &[usize], last: &[usize], times: u64, varies: &str) {
        let unknown = Value::unknown(varies);
        for (i, id) in last.iter().enumerate() {
            let mut e = self.records[*id].event.clone();
            if let Some(prev) = before.get(i) {
                let old = &self.records[*prev].event.args;
                for (k, (_, v)) in e.args.iter_mut().enumerate() {
                    let changed = old.get(k).is_none_or(|(_, w)| !w.same(v));
                    if changed {
                        // device memory of a size that changes is still device memory
                        let was = old.get(k).map(|(_, w)| w);
                        *v = was
                            .and_then(|w| Value::device_join(&[w, v], &unknown))
                            .unwrap_or_else(|| unknown.clone());
                    }
                }
            }
            self.add(e, times);
        }
    }

    /// The launches logged since `mark` ran more often than counted: `why`.
    pub fn partial_since(&mut self, mark: usize, why: &str) {
        let why: Rc<str> = Rc::from(why);
        let ids: Vec<usize> = self.log[mark..].to_vec();
        for id in ids {
            if self.records[id].partial.is_none() {
                self.records[id].partial = Some(why.clone());
            }
        }
    }

    /// The record ids logged since `mark`, as a comparable list.
    pub fn since(&self, mark: usize) -> &[usize] {
        &self.log[mark..]
    }
}
