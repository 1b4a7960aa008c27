//! Library functions as the interpreter models them: the C library's argument parsing and
//! arithmetic, `getopt`, memory allocation, the CUDA runtime and driver APIs, NVRTC, OpenCL,
//! and the C++ containers and streams host code uses. A call not modelled here gives an
//! unknown result ([`Interp::unmodelled`]); the GPU APIs' calls that only report a status
//! return success, with what they write through pointers unknown.

use super::access::{
    buffer_of, deref, parse_float, parse_int, str_of, str_unknown_why, write_through, Arg, Place,
};
use super::launches::{dims, kernel_name_of, Event, LOCAL_SIZE_NAMES};
use super::libc_rand::{LibcRand, Rand48};
use super::state::{Exec, Halt, Interp, Leave, OccupancyOracle};
use super::value::{convert, Buffer, Handle, Ptr, Record, Value};
use super::{containers, cpp_random, device_data, programs, torch};
use crate::ast::Expr;
use crate::heap;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// Whether calling `name` launches a kernel.
pub(super) fn launches(name: &str) -> bool {
    matches!(
        last(name),
        "cudaLaunchKernel"
            | "cudaLaunchCooperativeKernel"
            | "cudaLaunchKernelExC"
            | "cudaLaunchKernelEx"
            | "cuLaunchKernel"
            | "cuLaunchCooperativeKernel"
            | "cudaGraphLaunch"
            | "clEnqueueNDRangeKernel"
            | "clEnqueueTask"
    )
}

fn last(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}

/// A library name without the namespaces implementations add (`std::__cxx11::stoi` → `stoi`).
fn short(name: &str) -> &str {
    let n = name.strip_prefix("std::").unwrap_or(name);
    let n = n.strip_prefix("__cxx11::").unwrap_or(n);
    let n = n.strip_prefix("__1::").unwrap_or(n);
    n.strip_prefix("chrono::").map(|_| "chrono").unwrap_or(n)
}

fn int_arg(args: &[Arg], i: usize) -> Option<i128> {
    args.get(i).and_then(|a| a.value().as_int())
}

fn str_arg(args: &[Arg], i: usize) -> Option<String> {
    args.get(i).and_then(|a| str_of(&a.value()))
}

fn new_buffer(fill: Value) -> Value {
    Value::Ptr(Ptr::Elem(heap::shared(Buffer::new(None, fill)), 0))
}

fn record(ty: &str, fields: Vec<(&str, Value)>) -> Value {
    Value::Record(heap::shared(Record {
        ty: Arc::from(ty),
        fields: fields.into_iter().map(|(k, v)| (Arc::from(k), v)).collect(),
    }))
}

/// A launch's shape as the launch APIs take it (`cudaLaunchConfig_t`'s fields): grid and block
/// dimensions and the dynamic shared memory in bytes, as the program computed them.
struct LaunchConfig {
    grid: [Value; 3],
    block: [Value; 3],
    shared: Value,
}

impl Interp<'_> {
    /// Whether a call of the random number generator here is one the program surely makes,
    /// in the order kerncast follows: not on a side of an undecided condition, and not in
    /// an initialiser of a variable of namespace scope (whose order across files C++ leaves
    /// open).
    pub(super) fn follows_random(&self) -> bool {
        self.uncertain == 0 && !self.frames.is_empty()
    }

    /// `rand()`: the generator's next number where kerncast has followed it.
    fn draw_random(&mut self) -> Value {
        if !self.follows_random() {
            self.forget_rand();
        }
        match self.rand.borrow_mut().as_mut() {
            Some(r) => Value::Int(i128::from(r.next())),
            None => Value::unknown("a random number"),
        }
    }

    /// `drand48()`, `lrand48()`, `mrand48()`: the 48-bit generator's next number where
    /// kerncast has followed it.
    fn draw_random48(&mut self, name: &str) -> Value {
        if !self.follows_random() {
            self.forget_rand();
        }
        match (self.rand48.borrow_mut().as_mut(), name) {
            (Some(r), "drand48") => Value::Float(r.real()),
            (Some(r), "lrand48") => Value::Int(i128::from(r.non_negative())),
            (Some(r), _) => Value::Int(i128::from(r.signed())),
            (None, _) => Value::unknown("a random number"),
        }
    }

    /// `srand48(seed)`: the 48-bit generator starts again from a seed kerncast knows, or
    /// becomes unknown.
    fn seed_random48(&mut self, seed: Option<i128>) {
        let seeded = seed.filter(|_| self.follows_random()).map(Rand48::seeded);
        *self.rand48.borrow_mut() = seeded;
    }

    /// `srand(seed)`: the generator starts again from a seed kerncast knows, or becomes
    /// unknown. The seed is an `unsigned int`, as C converts it.
    fn seed_random(&mut self, seed: Option<i128>) {
        let seeded = seed
            .filter(|_| self.follows_random())
            .map(|s| LibcRand::seeded(s as u32));
        *self.rand.borrow_mut() = seeded;
    }

    fn device_value(&mut self, field: &str, known: Option<i64>) -> Value {
        match known {
            Some(v) => Value::Int(v as i128),
            None => self.assumption(
                &format!("device.{field}"),
                "a property of the device the program runs on (give --device)",
            ),
        }
    }

    fn device_props(&mut self) -> Value {
        let d = self.opts.device.clone();
        let sm = self.device_value("multiProcessorCount", d.multi_processor_count);
        let mtpb = self.device_value("maxThreadsPerBlock", d.max_threads_per_block);
        let mtpsm = self.device_value(
            "maxThreadsPerMultiProcessor",
            d.max_threads_per_multi_processor,
        );
        let warp = self.device_value("warpSize", d.warp_size.or(Some(32)));
        let smem = self.device_value("sharedMemPerBlock", d.shared_mem_per_block);
        let mem = self.device_value("totalGlobalMem", d.total_global_mem);
        let major = self.device_value("major", d.major);
        let minor = self.device_value("minor", d.minor);
        let more: Vec<(&str, Value)> = [
            ("clockRate", d.clock_rate_khz),
            ("memoryClockRate", d.memory_clock_rate_khz),
            ("memoryBusWidth", d.memory_bus_width),
            ("l2CacheSize", d.l2_cache_size),
            ("regsPerBlock", d.regs_per_block),
            ("regsPerMultiprocessor", d.regs_per_multiprocessor),
            (
                "sharedMemPerMultiprocessor",
                d.shared_mem_per_multiprocessor,
            ),
            (
                "maxBlocksPerMultiProcessor",
                d.max_blocks_per_multi_processor,
            ),
        ]
        .into_iter()
        .map(|(field, v)| (field, self.device_value(field, v)))
        .collect();
        let max_grid = Value::Array(heap::shared(Buffer::from_values(vec![
            Value::Int(2147483647),
            Value::Int(65535),
            Value::Int(65535),
        ])));
        let max_dim = Value::Array(heap::shared(Buffer::from_values(vec![
            Value::Int(1024),
            Value::Int(1024),
            Value::Int(64),
        ])));
        let name = Value::Str(Rc::from(
            d.name.clone().unwrap_or_else(|| "unknown device".into()),
        ));
        let mut fields = vec![
            ("multiProcessorCount", sm),
            ("maxThreadsPerBlock", mtpb),
            ("maxThreadsPerMultiProcessor", mtpsm),
            ("warpSize", warp),
            ("sharedMemPerBlock", smem),
            ("totalGlobalMem", mem),
            ("major", major),
            ("minor", minor),
            ("maxGridSize", max_grid),
            ("maxThreadsDim", max_dim),
            ("name", name),
        ];
        fields.extend(more);
        record("cudaDeviceProp", fields)
    }

    fn exit(&mut self, name: &str, e: &Expr) -> Exec<Option<Value>> {
        // Code reached only under an undecided condition (inside its branch, or after a
        // branch that may have left) ends the program only on that path.
        let certain = self.uncertain == 0 && self.guards.is_empty() && self.exit_guards.is_empty();
        if certain {
            let via: Vec<String> = self
                .stack
                .iter()
                .skip(1)
                .map(|(f, at)| format!("{f} (line {})", at.line))
                .collect();
            let file = std::path::Path::new(&*e.span.file)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            self.exited_at = Some(format!(
                "the program ends at {file}:{} (`{name}`){}",
                e.span.line,
                if via.is_empty() {
                    String::new()
                } else {
                    format!(", via {}", via.join(" → "))
                }
            ));
        }
        if certain {
            Err(Halt::Exit)
        } else {
            // Only this path ends: the rest of the program runs under its conditions.
            self.left = self.left.max(Some(Leave::Program));
            if self.uncertain == 0 {
                let file = std::path::Path::new(&*e.span.file)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let why: Rc<str> =
                    Rc::from(format!("the program not ending at {file}:{}", e.span.line).as_str());
                self.left_early(Some(Leave::Program), &why);
            }
            Ok(Some(Value::Void))
        }
    }

    fn getopt(&mut self, optstring: &str, long: Option<&Value>) -> Value {
        let argv = self.opts.argv.clone();
        let argc = argv.len() as i128;
        loop {
            if self.optpos == 0 {
                if self.optind >= argc {
                    return Value::Int(-1);
                }
                let a = &argv[self.optind as usize];
                if a == "--" {
                    self.optind += 1;
                    return Value::Int(-1);
                }
                if let (Some(table), Some(body)) = (long, a.strip_prefix("--")) {
                    return self.long_option(table, body, &argv);
                }
                if !a.starts_with('-') || a == "-" {
                    return Value::Int(-1);
                }
                self.optpos = 1;
            }
            let a = argv[self.optind as usize].clone();
            let Some(c) = a[self.optpos..].chars().next() else {
                self.optind += 1;
                self.optpos = 0;
                continue;
            };
            self.optpos += c.len_utf8();
            let spec = optstring.find(c).filter(|_| c != ':');
            let takes_arg = spec.is_some_and(|p| optstring[p + 1..].starts_with(':'));
            if spec.is_none() {
                if self.optpos >= a.len() {
                    self.optind += 1;
                    self.optpos = 0;
                }
                return Value::Int('?' as i128);
            }
            if takes_arg {
                if self.optpos < a.len() {
                    self.optarg = Value::Str(Rc::from(&a[self.optpos..]));
                    self.optind += 1;
                } else if self.optind + 1 < argc {
                    self.optarg = Value::Str(Rc::from(argv[self.optind as usize + 1].as_str()));
                    self.optind += 2;
                } else {
                    self.optind += 1;
                    self.optpos = 0;
                    self.sync_getopt();
                    return Value::Int('?' as i128);
                }
                self.optpos = 0;
            } else if self.optpos >= a.len() {
                self.optind += 1;
                self.optpos = 0;
            }
            self.sync_getopt();
            return Value::Int(c as i128);
        }
    }

    fn long_option(&mut self, table: &Value, body: &str, argv: &[String]) -> Value {
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        self.optind += 1;
        let Some(buf) = buffer_of(table).or_else(|| match table {
            Value::Ptr(Ptr::Elem(b, _)) => Some(b.clone()),
            _ => None,
        }) else {
            return Value::Int('?' as i128);
        };
        let entries = buf.borrow().elements().unwrap_or_default();
        for e in entries {
            let Value::Record(r) = e else { continue };
            let r = r.borrow();
            let get = |f: &str| r.fields.get(f).cloned().unwrap_or(Value::Void);
            if str_of(&get("name")).as_deref() != Some(name) {
                continue;
            }
            if get("has_arg").as_int().unwrap_or(0) != 0 {
                self.optarg = match inline {
                    Some(v) => Value::Str(Rc::from(v)),
                    None if (self.optind as usize) < argv.len() => {
                        self.optind += 1;
                        Value::Str(Rc::from(argv[self.optind as usize - 1].as_str()))
                    }
                    None => Value::Ptr(Ptr::Null),
                };
            }
            self.sync_getopt();
            let val = get("val");
            return match get("flag") {
                p @ Value::Ptr(Ptr::Cell(_) | Ptr::Elem(..) | Ptr::Field(..)) => {
                    write_through(&p, val);
                    Value::Int(0)
                }
                _ => val,
            };
        }
        self.sync_getopt();
        Value::Int('?' as i128)
    }

    /// `optind` and `optarg` as the program reads them.
    fn sync_getopt(&mut self) {
        if let Some(k) = self.optind_key {
            if let Some(c) = self.globals.get(&k) {
                *c.borrow_mut() = Value::Int(self.optind);
            }
        }
        if let Some(k) = self.optarg_key {
            if let Some(c) = self.globals.get(&k) {
                *c.borrow_mut() = self.optarg.clone();
            }
        }
    }

    fn launch_by_value(
        &mut self,
        func: &Value,
        config: LaunchConfig,
        params: &Value,
        api: &'static str,
        e: &Expr,
    ) {
        let LaunchConfig {
            grid,
            block,
            shared,
        } = config;
        let Some((kernel, by_name)) = kernel_name_of(func) else {
            self.record(Event {
                kernel: String::from("?"),
                by_name: true,
                grid,
                block,
                shared_bytes: shared,
                args: Vec::new(),
                site: e.span.clone(),
                api,
                guards: Vec::new(),
                stack: Vec::new(),
            });
            return;
        };
        let names: Vec<Arc<str>> = self
            .prog
            .kernels
            .get(&kernel)
            .map(|k| k.params.clone())
            .unwrap_or_default();
        let mut args = Vec::new();
        if let Some(b) = buffer_of(params).or_else(|| match params {
            Value::Ptr(Ptr::Elem(b, _)) => Some(b.clone()),
            _ => None,
        }) {
            let n = names.len().max(b.borrow().len.unwrap_or(0).max(0) as usize);
            for i in 0..n {
                let p = b.borrow().get(i as i64);
                if matches!(p, Value::Unknown(_)) && i >= names.len() {
                    break;
                }
                let v = deref(&p).read();
                let name = names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| Arc::from(format!("arg{i}")));
                args.push((name, v));
            }
        }
        self.record(Event {
            kernel,
            by_name,
            grid,
            block,
            shared_bytes: shared,
            args,
            site: e.span.clone(),
            api,
            guards: Vec::new(),
            stack: Vec::new(),
        });
    }

    fn opencl_launch(&mut self, args: &[Arg], e: &Expr) {
        let kernel = args.get(1).map(|a| a.value()).unwrap_or(Value::Void);
        let dims_n = int_arg(args, 2).unwrap_or(1).clamp(1, 3) as i64;
        let global = args.get(4).map(|a| a.value()).unwrap_or(Value::Void);
        let local = args.get(5).map(|a| a.value()).unwrap_or(Value::Void);
        let read = |p: &Value, d: i64| -> Value {
            match p {
                Value::Ptr(Ptr::Elem(b, i)) => b.borrow().get(i + d),
                Value::Ptr(Ptr::Cell(c)) if d == 0 => c.borrow().clone(),
                Value::Ptr(Ptr::Cell(c)) => match &*c.borrow() {
                    Value::Array(b) => b.borrow().get(d),
                    _ => Value::unknown("a work size kerncast cannot read"),
                },
                other => other.clone(),
            }
        };
        let mut grid = [Value::Int(1), Value::Int(1), Value::Int(1)];
        let mut block = [Value::Int(1), Value::Int(1), Value::Int(1)];
        for d in 0..dims_n {
            let g = read(&global, d);
            let l = match &local {
                Value::Ptr(Ptr::Null) => self.assumption(
                    LOCAL_SIZE_NAMES[d as usize],
                    "the work-group size, which the OpenCL runtime picks (local size NULL)",
                ),
                p => read(p, d),
            };
            grid[d as usize] = match (g.as_int(), l.as_int()) {
                (Some(g), Some(l)) if l > 0 => Value::Int((g + l - 1) / l),
                _ => {
                    if l.is_unknown() {
                        l.clone()
                    } else {
                        g.clone()
                    }
                }
            };
            block[d as usize] = l;
        }
        let (name, cl_args) = match &kernel {
            Value::Handle(h) => match &*h.borrow() {
                Handle::ClKernel { name, args } => (name.clone(), args.clone()),
                _ => ("?".to_string(), BTreeMap::new()),
            },
            _ => ("?".to_string(), BTreeMap::new()),
        };
        let args = cl_args
            .into_iter()
            .map(|(i, v)| (Arc::from(format!("arg{i}")), v))
            .collect();
        self.record(Event {
            kernel: name,
            by_name: true,
            grid,
            block,
            shared_bytes: Value::Int(0),
            args,
            site: e.span.clone(),
            api: "clEnqueueNDRangeKernel",
            guards: Vec::new(),
            stack: Vec::new(),
        });
    }
}

fn arg(args: &[Arg], i: usize) -> Value {
    args.get(i).map(|a| a.value()).unwrap_or(Value::Void)
}

fn math1(name: &str, x: f64) -> Option<f64> {
    Some(match name {
        "sqrt" | "sqrtf" => x.sqrt(),
        "ceil" | "ceilf" => x.ceil(),
        "floor" | "floorf" => x.floor(),
        "round" | "roundf" | "lround" | "llround" => x.round(),
        "trunc" | "truncf" => x.trunc(),
        "rint" | "rintf" | "nearbyint" | "lrint" => x.round_ties_even(),
        "fabs" | "fabsf" | "abs" | "labs" | "llabs" => x.abs(),
        "log" | "logf" => x.ln(),
        "log2" | "log2f" => x.log2(),
        "log10" | "log10f" => x.log10(),
        "exp" | "expf" => x.exp(),
        "exp2" | "exp2f" => x.exp2(),
        "cbrt" | "cbrtf" => x.cbrt(),
        "sin" | "sinf" => x.sin(),
        "cos" | "cosf" => x.cos(),
        "tan" | "tanf" => x.tan(),
        "atan" | "atanf" => x.atan(),
        "tanh" | "tanhf" => x.tanh(),
        _ => return None,
    })
}

/// A library function call; `None` when it is not one kerncast models.
pub(super) fn call(it: &mut Interp<'_>, name: &str, args: &[Arg], e: &Expr) -> Exec<Option<Value>> {
    if let Some(v) = torch::call(it, name, args, e) {
        return Ok(Some(v));
    }
    if let Some(v) = programs::call(it, last(short(name)), args, e) {
        return Ok(Some(v));
    }
    let f = short(name);
    let f = last(f);
    let ret = |v: Value| Ok(Some(convert(v, &e.ty)));
    if let Some(v) = it.container_call(f, args) {
        return Ok(Some(v));
    }
    // Arithmetic of the C library and <algorithm>.
    if let Some(x) = args.first().map(|a| a.value()) {
        if args.len() == 1 {
            if let (Some(v), Some(r)) = (x.as_f64(), x.as_f64().and_then(|v| math1(f, v))) {
                let _ = v;
                return ret(Value::Float(r));
            }
            if x.is_unknown() && math1(f, 0.0).is_some() {
                return Ok(Some(x));
            }
        }
    }
    match f {
        "min" | "max" | "fmin" | "fmax" | "fminf" | "fmaxf" | "pow" | "powf" | "ldexp" | "fmod"
        | "fmodf" | "atan2" | "hypot" => {
            let (a, b) = (arg(args, 0), arg(args, 1));
            if let Some(u) = [&a, &b].into_iter().find(|v| v.is_unknown()) {
                return Ok(Some(u.clone()));
            }
            let r = match (f, &a, &b) {
                ("min", Value::Int(x), Value::Int(y)) => Value::Int(*x.min(y)),
                ("max", Value::Int(x), Value::Int(y)) => Value::Int(*x.max(y)),
                _ => {
                    let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
                        return Ok(None);
                    };
                    Value::Float(match f {
                        "min" | "fmin" | "fminf" => x.min(y),
                        "max" | "fmax" | "fmaxf" => x.max(y),
                        "pow" | "powf" => x.powf(y),
                        "ldexp" => x * 2f64.powf(y),
                        "fmod" | "fmodf" => x % y,
                        "atan2" => x.atan2(y),
                        _ => x.hypot(y),
                    })
                }
            };
            ret(r)
        }
        "clamp" => {
            let (v, lo, hi) = (arg(args, 0), arg(args, 1), arg(args, 2));
            match (v.as_f64(), lo.as_f64(), hi.as_f64()) {
                (Some(x), Some(l), Some(h)) => {
                    let r = if x < l {
                        lo
                    } else if h < x {
                        hi
                    } else {
                        v
                    };
                    ret(r)
                }
                _ => Ok(Some(Value::unknown(
                    "a clamp of values kerncast does not know",
                ))),
            }
        }
        "atoi" | "atol" | "atoll" | "stoi" | "stol" | "stoll" | "stoul" | "stoull" => {
            let base = if f.starts_with("sto") {
                int_arg(args, 2).unwrap_or(10) as u32
            } else {
                10
            };
            match str_arg(args, 0) {
                Some(s) => ret(Value::Int(parse_int(&s, base).unwrap_or(0))),
                None => Ok(Some(arg_unknown(&arg(args, 0), f))),
            }
        }
        "strtol" | "strtoll" | "strtoul" | "strtoull" | "strtoimax" | "strtoumax" => {
            match str_arg(args, 0) {
                Some(s) => ret(Value::Int(
                    parse_int(&s, int_arg(args, 2).unwrap_or(10) as u32).unwrap_or(0),
                )),
                None => Ok(Some(arg_unknown(&arg(args, 0), f))),
            }
        }
        "atof" | "strtod" | "strtof" | "stof" | "stod" | "stold" | "strtold" => {
            match str_arg(args, 0) {
                Some(s) => ret(Value::Float(parse_float(&s))),
                None => Ok(Some(arg_unknown(&arg(args, 0), f))),
            }
        }
        "strcmp" | "strcasecmp" | "strncmp" | "strncasecmp" => {
            match (str_arg(args, 0), str_arg(args, 1)) {
                (Some(a), Some(b)) => {
                    let (a, b) = if f.contains('n') && f != "strcasecmp" {
                        let n = int_arg(args, 2).unwrap_or(i128::MAX).max(0) as usize;
                        (
                            a.chars().take(n).collect::<String>(),
                            b.chars().take(n).collect(),
                        )
                    } else {
                        (a, b)
                    };
                    let (a, b) = if f.contains("case") {
                        (a.to_lowercase(), b.to_lowercase())
                    } else {
                        (a, b)
                    };
                    ret(Value::Int(a.cmp(&b) as i128))
                }
                _ => Ok(Some(Value::unknown(
                    "a comparison of strings kerncast does not know",
                ))),
            }
        }
        // a copy of the string: the file a program opens by its copy is still known
        "strdup" => Ok(str_arg(args, 0).map(|s| Value::Str(Rc::from(s)))),
        // POSIX `open`: only that it reads a file (flags other than O_WRONLY) is modelled
        "open" if args.len() >= 2 => {
            if let (Some(path), Some(flags)) = (str_arg(args, 0), int_arg(args, 1)) {
                const O_ACCMODE: i128 = 3;
                const O_WRONLY: i128 = 1;
                if flags & O_ACCMODE != O_WRONLY {
                    it.reads_file(&path, f);
                }
            }
            Ok(None)
        }
        "strlen" => match str_arg(args, 0) {
            Some(s) => ret(Value::Int(s.len() as i128)),
            None => Ok(Some(arg_unknown(&arg(args, 0), f))),
        },
        "operator==" | "operator!=" => match (str_arg(args, 0), str_arg(args, 1)) {
            (Some(a), Some(b)) => ret(Value::Int(((a == b) == (f == "operator==")) as i128)),
            _ => Ok(None),
        },
        "operator<<" => Ok(Some(arg(args, 0))),
        "operator>>" => {
            if let Some(Arg::Place(p)) = args.get(1) {
                p.write(Value::unknown("a value read from a stream"));
            }
            Ok(Some(arg(args, 0)))
        }
        "to_string" => Ok(Some(match arg(args, 0) {
            Value::Int(i) => Value::Str(Rc::from(i.to_string())),
            v => v,
        })),
        // The environment the program ran in is not kerncast's: a variable may or may not
        // be set, and a program that stops without one is read both ways.
        "getenv" | "secure_getenv" => Ok(Some(Value::unknown(&format!(
            "the environment variable {}, which kerncast is not given",
            str_arg(args, 0)
                .map(|n| format!("`{n}`"))
                .unwrap_or_default()
        )))),
        // CUDA's vector types: `make_int2(x, y)`, `make_float4(x, y, z, w)`.
        f if f.starts_with("make_") && f.ends_with(['1', '2', '3', '4']) => {
            let fields = ["x", "y", "z", "w"];
            let vals = args
                .iter()
                .zip(fields)
                .map(|(a, f)| (f, a.value()))
                .collect();
            Ok(Some(record(&f["make_".len()..], vals)))
        }
        "printf"
        | "fprintf"
        | "puts"
        | "putchar"
        | "fputs"
        | "fflush"
        | "perror"
        | "fputc"
        | "free"
        | "sleep"
        | "usleep"
        | "fclose"
        | "setvbuf"
        | "setbuf"
        | "cudaFree"
        | "cudaFreeHost"
        | "cudaDeviceSynchronize"
        | "cudaDeviceReset"
        | "cudaSetDevice"
        | "cudaGetLastError"
        | "cudaPeekAtLastError"
        | "cudaProfilerStart"
        | "cudaProfilerStop"
        | "__cudaRegisterFunction" => ret(Value::Int(0)),
        "exit" | "abort" | "_Exit" | "_exit" | "quick_exit" | "__assert_fail" | "__assert_rtn"
        | "terminate" => it.exit(f, e),
        "throw" => {
            if it.uncertain > 0 {
                // Only this side of the condition throws: what follows runs under it.
                it.left = it.left.max(Some(Leave::Program));
                return Ok(Some(Value::Void));
            }
            let ty = match &e.kind {
                crate::ast::ExprKind::Call(c) => c
                    .args
                    .first()
                    .and_then(|a| a.ty.record_name())
                    .map(Arc::from),
                _ => None,
            };
            Err(Halt::Throw(ty))
        }
        "rand" | "random" => Ok(Some(it.draw_random())),
        "srand" | "srandom" => {
            it.seed_random(int_arg(args, 0));
            Ok(Some(Value::Void))
        }
        "drand48" | "lrand48" | "mrand48" => Ok(Some(it.draw_random48(name))),
        "srand48" => {
            it.seed_random48(int_arg(args, 0));
            Ok(Some(Value::Void))
        }
        "rand_r" | "erand48" => Ok(Some(Value::unknown("a random number"))),
        "time" | "clock" | "gettimeofday" | "clock_gettime" | "omp_get_wtime" => {
            Ok(Some(Value::unknown("a time read at run time")))
        }
        "chrono" => Ok(Some(Value::unknown("a time read at run time"))),
        "malloc" | "aligned_alloc" | "_mm_malloc" | "memalign" | "valloc" | "operator new"
        | "operator new[]" => Ok(Some(new_buffer(Value::unknown(
            "uninitialised heap memory",
        )))),
        "calloc" => Ok(Some(new_buffer(Value::Int(0)))),
        "realloc" => Ok(Some(arg(args, 0))),
        "posix_memalign" | "cudaMallocHost" | "cudaHostAlloc" | "cudaMallocManaged" => {
            write_through(
                &arg(args, 0),
                new_buffer(Value::unknown("uninitialised memory")),
            );
            ret(Value::Int(0))
        }
        // Device memory keeps its size: a kernel's buffers, where the host's data does not
        // reach the count, are sized from it for the emulator.
        "cudaMalloc" | "cudaMallocAsync" | "cuMemAlloc" | "cuMemAlloc_v2" | "hipMalloc"
        | "hipMallocAsync" => {
            write_through(&arg(args, 0), device_data::allocation(arg(args, 1)));
            ret(Value::Int(0))
        }
        "cudaMallocPitch" | "hipMallocPitch" => {
            // pitch × height, with a pitch the runtime picks (at least the width, rounded up
            // to an alignment of the device's): no size to give
            let pitch = Value::unknown(&format!("the pitch {f} chooses"));
            write_through(&arg(args, 0), Value::device(pitch.clone()));
            write_through(&arg(args, 1), pitch);
            ret(Value::Int(0))
        }
        "cudaMalloc3D" | "cudaMallocArray" | "cudaMalloc3DArray" => {
            write_through(&arg(args, 0), Value::Ptr(Ptr::Opaque("device memory")));
            ret(Value::Int(0))
        }
        // OpenCL's buffer object, as `clSetKernelArg` passes it: device memory of its size.
        // The error code it writes stays unknown, as other `clCreate…` calls leave theirs.
        "clCreateBuffer" => {
            if let p @ Value::Ptr(Ptr::Cell(_)) = arg(args, 4) {
                write_through(&p, Value::unknown("written by `clCreateBuffer`"));
            }
            Ok(Some(device_data::allocation(arg(args, 2))))
        }
        "memset" => {
            memset(
                &arg(args, 0),
                int_arg(args, 1),
                int_arg(args, 2),
                pointee_bytes(e, 0),
            );
            Ok(Some(arg(args, 0)))
        }
        // <iterator>'s free functions on a C array (`std::begin(a)`, `std::size(a)`): its first
        // element, one past its last, its length; a container's are its own methods
        "begin" | "cbegin" | "end" | "cend" | "data" | "size"
            if name.contains("std::") && matches!(arg(args, 0), Value::Array(_)) =>
        {
            let Value::Array(b) = arg(args, 0) else {
                return Ok(None);
            };
            let len = b.borrow().len;
            Ok(Some(match (f, len) {
                ("begin" | "cbegin" | "data", _) => Value::Ptr(Ptr::Elem(b, 0)),
                ("end" | "cend", Some(n)) => Value::Ptr(Ptr::Elem(b, n)),
                ("size", Some(n)) => Value::Int(n as i128),
                _ => Value::unknown("the length of an array kerncast does not know"),
            }))
        }
        // <algorithm>'s copies and fills: they write their destination, never their source.
        "copy" | "copy_n" | "fill" | "fill_n"
            if name.contains("std::") || name.contains("thrust::") =>
        {
            Ok(Some(copy_or_fill(f, args)))
        }
        "memcpy" | "memmove" => {
            let (dst, src) = (arg(args, 0), arg(args, 1));
            let size = pointee_bytes(e, 0).filter(|s| Some(*s) == pointee_bytes(e, 1));
            memcpy(&dst, &src, int_arg(args, 2), size);
            Ok(Some(dst))
        }
        "strcpy" | "strncpy" | "strcat" | "sprintf" | "snprintf" => {
            if let Value::Ptr(Ptr::Elem(b, _)) = arg(args, 0) {
                b.borrow_mut().forget(&format!("written by `{f}`"));
            }
            Ok(Some(arg(args, 0)))
        }
        "fopen" | "fdopen" | "popen" | "tmpfile" => {
            if let (Some(path), Some(mode)) = (str_arg(args, 0), str_arg(args, 1)) {
                if f == "fopen" && mode.contains('r') {
                    it.reads_file(&path, f);
                }
            }
            Ok(Some(Value::Handle(heap::shared(Handle::Opaque("a file")))))
        }
        "getopt" => {
            let opts = str_arg(args, 2).unwrap_or_default();
            ret(it.getopt(&opts, None))
        }
        "getopt_long" | "getopt_long_only" => {
            let opts = str_arg(args, 2).unwrap_or_default();
            let table = arg(args, 3);
            ret(it.getopt(&opts, Some(&table)))
        }
        "sscanf" => Ok(Some(sscanf(args, e))),
        "cudaGetDeviceProperties" | "cudaGetDeviceProperties_v2" => {
            let props = it.device_props();
            write_through(&arg(args, 0), props);
            ret(Value::Int(0))
        }
        "make_pair" if args.len() == 2 => Ok(Some(record(
            "std::pair",
            vec![
                ("first", arg(args, 0).copy()),
                ("second", arg(args, 1).copy()),
            ],
        ))),
        "make_uint3" | "make_int3" | "make_dim3" | "make_uint2" | "make_int2" => {
            let fields = ["x", "y", "z"]
                .iter()
                .zip(args)
                .map(|(f, a)| (*f, a.value()))
                .collect();
            Ok(Some(record(&f["make_".len()..], fields)))
        }
        "cudaOccupancyMaxPotentialBlockSize" | "cudaOccupancyMaxPotentialBlockSizeWithFlags" => {
            let kernel = kernel_name_of(&arg(args, 2)).map(|(k, _)| k);
            let sizes = [
                size_arg(args, 3, "dynamic shared memory"),
                size_arg(args, 4, "block size limit"),
            ];
            let answer = match sizes {
                [Ok(shared), Ok(limit)] => it.occupancy(f, kernel.as_deref(), |o, k| {
                    o.max_potential_block_size(k, shared, limit)
                }),
                [Err(why), _] | [_, Err(why)] => Err(why),
            };
            let (grid, block) = match answer {
                Ok((g, b)) => (Value::Int(g as i128), Value::Int(b as i128)),
                Err(why) => (
                    it.occupancy_unknown(e, 0, &why),
                    it.occupancy_unknown(e, 1, &why),
                ),
            };
            write_through(&arg(args, 0), grid);
            write_through(&arg(args, 1), block);
            ret(Value::Int(0))
        }
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
        | "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags" => {
            let kernel = kernel_name_of(&arg(args, 1)).map(|(k, _)| k);
            let sizes = [
                size_arg(args, 2, "block size"),
                size_arg(args, 3, "dynamic shared memory"),
            ];
            let answer = match sizes {
                [Ok(threads), Ok(shared)] => it.occupancy(f, kernel.as_deref(), |o, k| {
                    o.active_blocks_per_sm(k, threads, shared)
                }),
                [Err(why), _] | [_, Err(why)] => Err(why),
            };
            let blocks = match answer {
                Ok(n) => Value::Int(n as i128),
                Err(why) => it.occupancy_unknown(e, 0, &why),
            };
            write_through(&arg(args, 0), blocks);
            ret(Value::Int(0))
        }
        "cudaGetDeviceCount" => {
            write_through(&arg(args, 0), Value::Int(1));
            ret(Value::Int(0))
        }
        "cudaGetDevice" => {
            write_through(&arg(args, 0), Value::Int(0));
            ret(Value::Int(0))
        }
        "cudaDeviceGetAttribute" => {
            let d = it.opts.device.clone();
            let v = match int_arg(args, 1) {
                Some(1) => it.device_value("maxThreadsPerBlock", d.max_threads_per_block),
                Some(8) => it.device_value("sharedMemPerBlock", d.shared_mem_per_block),
                Some(10) => Value::Int(d.warp_size.unwrap_or(32) as i128),
                Some(12) => it.device_value("regsPerBlock", d.regs_per_block),
                Some(13) => it.device_value("clockRate", d.clock_rate_khz),
                Some(16) => it.device_value("multiProcessorCount", d.multi_processor_count),
                Some(36) => it.device_value("memoryClockRate", d.memory_clock_rate_khz),
                Some(37) => it.device_value("memoryBusWidth", d.memory_bus_width),
                Some(38) => it.device_value("l2CacheSize", d.l2_cache_size),
                Some(39) => it.device_value(
                    "maxThreadsPerMultiProcessor",
                    d.max_threads_per_multi_processor,
                ),
                Some(75) => it.device_value("major", d.major),
                Some(76) => it.device_value("minor", d.minor),
                Some(81) => it.device_value(
                    "sharedMemPerMultiprocessor",
                    d.shared_mem_per_multiprocessor,
                ),
                Some(82) => it.device_value("regsPerMultiprocessor", d.regs_per_multiprocessor),
                Some(106) => it.device_value(
                    "maxBlocksPerMultiProcessor",
                    d.max_blocks_per_multi_processor,
                ),
                _ => Value::unknown("a device attribute kerncast does not model"),
            };
            write_through(&arg(args, 0), v);
            ret(Value::Int(0))
        }
        "cudaMemcpy"
        | "cudaMemcpyAsync"
        | "cudaMemcpy2D"
        | "cudaMemcpy2DAsync"
        | "cudaMemcpy3D"
        | "cudaMemcpyFromSymbol"
        | "cudaMemcpyFromSymbolAsync"
        | "cuMemcpyDtoH"
        | "cuMemcpyDtoH_v2" => {
            // Device memory a copy writes holds what the host (or another allocation) held.
            let certain = it.uncertain == 0;
            if matches!(f, "cudaMemcpy" | "cudaMemcpyAsync") {
                let elem = pointee_ty(e, 1);
                device_data::copy_in(
                    &arg(args, 0),
                    &arg(args, 1),
                    int_arg(args, 2),
                    elem.as_ref(),
                    it.prog,
                    certain,
                );
            } else {
                device_data::copy_in(&arg(args, 0), &Value::Void, None, None, it.prog, certain);
            }
            // Host memory a copy writes holds what the device computed: an array's elements,
            // or a variable or field (`cudaMemcpy(&converged, d_flag, …)`), a record's fields each.
            match arg(args, 0) {
                Value::Ptr(Ptr::Elem(b, _)) => b.borrow_mut().forget("data copied from the device"),
                p @ Value::Ptr(Ptr::Cell(_) | Ptr::Field(..)) => {
                    let place = deref(&p);
                    let v = place.read();
                    place.write(forgotten(&v, "data copied from the device"));
                }
                _ => {}
            }
            ret(Value::Int(0))
        }
        "cudaMemset" | "cudaMemsetAsync" => {
            let certain = it.uncertain == 0;
            device_data::set(&arg(args, 0), int_arg(args, 1), int_arg(args, 2), certain);
            ret(Value::Int(0))
        }
        "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" => {
            let grid = dims(Some(&arg(args, 1)));
            let block = dims(Some(&arg(args, 2)));
            let shared = args.get(4).map(|a| a.value()).unwrap_or(Value::Int(0));
            let api = if f == "cudaLaunchKernel" {
                "cudaLaunchKernel"
            } else {
                "cudaLaunchCooperativeKernel"
            };
            it.launch_by_value(
                &arg(args, 0),
                LaunchConfig {
                    grid,
                    block,
                    shared,
                },
                &arg(args, 3),
                api,
                e,
            );
            ret(Value::Int(0))
        }
        "cudaLaunchKernelEx" | "cudaLaunchKernelExC" => {
            let config = deref(&arg(args, 0)).read();
            let field = |n: &str| match &config {
                Value::Record(r) => r.borrow().fields.get(n).cloned(),
                _ => None,
            };
            let grid = dims(field("gridDim").as_ref());
            let block = dims(field("blockDim").as_ref());
            let shared = field("dynamicSmemBytes").unwrap_or(Value::Int(0));
            if f == "cudaLaunchKernelExC" {
                it.launch_by_value(
                    &arg(args, 1),
                    LaunchConfig {
                        grid,
                        block,
                        shared,
                    },
                    &arg(args, 2),
                    "cudaLaunchKernelEx",
                    e,
                );
            } else {
                // The C++ form takes the kernel's arguments themselves.
                let params: Vec<Value> = args[2..]
                    .iter()
                    .map(|a| Value::Ptr(Ptr::Cell(heap::shared(a.value()))))
                    .collect();
                let array = Value::Array(heap::shared(Buffer::from_values(params)));
                it.launch_by_value(
                    &arg(args, 1),
                    LaunchConfig {
                        grid,
                        block,
                        shared,
                    },
                    &array,
                    "cudaLaunchKernelEx",
                    e,
                );
            }
            ret(Value::Int(0))
        }
        "cuLaunchKernel" | "cuLaunchCooperativeKernel" => {
            let g = [arg(args, 1), arg(args, 2), arg(args, 3)];
            let b = [arg(args, 4), arg(args, 5), arg(args, 6)];
            let shared = arg(args, 7);
            it.launch_by_value(
                &arg(args, 0),
                LaunchConfig {
                    grid: g,
                    block: b,
                    shared,
                },
                &arg(args, 9),
                "cuLaunchKernel",
                e,
            );
            ret(Value::Int(0))
        }
        "cuModuleGetFunction" => {
            let name = str_arg(args, 2).unwrap_or_else(|| "?".into());
            write_through(
                &arg(args, 0),
                Value::Handle(heap::shared(Handle::NamedKernel(name))),
            );
            ret(Value::Int(0))
        }
        "nvrtcGetLoweredName" => {
            let name = str_arg(args, 1).unwrap_or_else(|| "?".into());
            write_through(&arg(args, 2), Value::Str(Rc::from(name)));
            ret(Value::Int(0))
        }
        "cudaStreamBeginCapture" => {
            it.capture = Some(Vec::new());
            ret(Value::Int(0))
        }
        "cudaStreamEndCapture" => {
            let events = it.capture.take().unwrap_or_default();
            write_through(
                &arg(args, 1),
                Value::Handle(heap::shared(Handle::Graph(events))),
            );
            ret(Value::Int(0))
        }
        "cudaGraphCreate" => {
            write_through(
                &arg(args, 0),
                Value::Handle(heap::shared(Handle::Graph(Vec::new()))),
            );
            ret(Value::Int(0))
        }
        "cudaGraphInstantiate" | "cudaGraphInstantiateWithFlags" => {
            let g = arg(args, 1);
            write_through(&arg(args, 0), g);
            ret(Value::Int(0))
        }
        "cudaGraphAddKernelNode" => {
            let graph = arg(args, 1);
            let params = deref(&arg(args, 4)).read();
            if let (Value::Handle(h), Value::Record(r)) = (&graph, &params) {
                let field = |n: &str| r.borrow().fields.get(n).cloned().unwrap_or(Value::Void);
                // Record the node's launch into the graph, not as run.
                let saved = it.capture.replace(Vec::new());
                it.launch_by_value(
                    &field("func"),
                    LaunchConfig {
                        grid: dims(Some(&field("gridDim"))),
                        block: dims(Some(&field("blockDim"))),
                        shared: field("sharedMemBytes"),
                    },
                    &field("kernelParams"),
                    "cudaGraphAddKernelNode",
                    e,
                );
                let mut evs = std::mem::replace(&mut it.capture, saved).unwrap_or_default();
                if let Handle::Graph(g) = &mut *h.borrow_mut() {
                    g.append(&mut evs);
                }
            }
            write_through(
                &arg(args, 0),
                Value::Handle(heap::shared(Handle::Opaque("a graph node"))),
            );
            ret(Value::Int(0))
        }
        "cudaGraphLaunch" => {
            if let Value::Handle(h) = arg(args, 0) {
                let events = match &*h.borrow() {
                    Handle::Graph(g) => g.clone(),
                    _ => Vec::new(),
                };
                for mut ev in events {
                    ev.api = "cudaGraphLaunch";
                    let site = ev.site.clone();
                    ev.site = site;
                    it.record(ev);
                }
            }
            ret(Value::Int(0))
        }
        "clCreateKernel" => {
            let name = str_arg(args, 1).unwrap_or_else(|| "?".into());
            if let Some(err) = args.get(2) {
                if let Value::Ptr(p) = err.value() {
                    if !matches!(p, Ptr::Null) {
                        write_through(&Value::Ptr(p), Value::Int(0));
                    }
                }
            }
            Ok(Some(Value::Handle(heap::shared(Handle::ClKernel {
                name,
                args: BTreeMap::new(),
            }))))
        }
        "clSetKernelArg" => {
            if let Value::Handle(h) = arg(args, 0) {
                let index = int_arg(args, 1).unwrap_or(-1);
                let v = match arg(args, 3) {
                    Value::Ptr(Ptr::Null) => Value::unknown(&format!(
                        "a __local buffer of {} bytes",
                        arg(args, 2)
                            .as_int()
                            .map(|n| n.to_string())
                            .unwrap_or_else(|| "unknown".into())
                    )),
                    p => deref(&p).read().copy(),
                };
                if let (Handle::ClKernel { args, .. }, Ok(i)) =
                    (&mut *h.borrow_mut(), u32::try_from(index))
                {
                    args.insert(i, v);
                }
            }
            ret(Value::Int(0))
        }
        "clEnqueueNDRangeKernel" => {
            it.opencl_launch(args, e);
            ret(Value::Int(0))
        }
        "clGetDeviceInfo" => {
            let d = it.opts.device.clone();
            let v = match int_arg(args, 1) {
                Some(0x1002) => it.device_value("multiProcessorCount", d.multi_processor_count),
                Some(0x1004) => it.device_value("maxThreadsPerBlock", d.max_threads_per_block),
                _ => Value::unknown("a device property kerncast does not model"),
            };
            write_through(&arg(args, 3), v);
            ret(Value::Int(0))
        }
        _ => {
            // The GPU libraries' other calls: a status of success, writes unknown.
            let api = [
                "cuda", "cu", "cl", "nvrtc", "cublas", "cusparse", "cufft", "curand", "nvtx",
                "cutlass",
            ]
            .iter()
            .any(|p| {
                f.starts_with(p) && f[p.len()..].starts_with(|c: char| c.is_ascii_uppercase())
            });
            if api {
                let why = format!("written by `{f}`");
                for a in args {
                    if let Value::Ptr(Ptr::Cell(c)) = a.value() {
                        let keep = matches!(&*c.borrow(), Value::Record(_));
                        if !keep {
                            *c.borrow_mut() = Value::unknown(&why);
                        }
                    }
                }
                if f.starts_with("clCreate") {
                    return Ok(Some(Value::Handle(heap::shared(Handle::Opaque(
                        "an OpenCL object",
                    )))));
                }
                return ret(Value::Int(0));
            }
            Ok(None)
        }
    }
}

/// The size in bytes of what the `i`-th argument of a call points at, from its type before
/// any conversion to `void*`.
fn pointee_bytes(e: &Expr, i: usize) -> Option<i128> {
    ty_bytes(&pointee_ty(e, i)?)
}

/// The element type argument `i` of call `e` points to, seen through casts to `void*`.
fn pointee_ty(e: &Expr, i: usize) -> Option<crate::ast::Ty> {
    use crate::ast::{ExprKind, Ty};
    let ExprKind::Call(c) = &e.kind else {
        return None;
    };
    let mut a = c.args.get(i)?;
    loop {
        if let Ty::Pointer(t) = &a.ty {
            if **t != Ty::Void {
                return Some((**t).clone());
            }
        }
        match &a.kind {
            ExprKind::Cast(x) => a = x,
            _ => return None,
        }
    }
}

pub(super) fn ty_bytes(t: &crate::ast::Ty) -> Option<i128> {
    t.bytes().map(i128::from)
}

/// A value with every number it holds zero, as `memset(p, 0, sizeof *p)` leaves it.
fn zeroed(v: &Value) -> Value {
    match v {
        Value::Record(r) => {
            let r = r.borrow();
            let fields = r
                .fields
                .iter()
                .map(|(k, x)| (k.clone(), zeroed(x)))
                .collect();
            Value::Record(heap::shared(Record {
                ty: r.ty.clone(),
                fields,
            }))
        }
        Value::Array(b) => {
            let mut b = b.borrow().clone();
            // elements that are records or arrays (`Term terms[2][2]`) stay so, zeroed
            let dense: Vec<Value> = b.dense.iter().map(zeroed).collect();
            b.forget("memset");
            b.fill = Value::Int(0);
            b.dense = dense;
            Value::Array(heap::shared(b))
        }
        _ => Value::Int(0),
    }
}

/// `memset(p, byte, bytes)`: zero bytes over whole elements (or the whole object) are zeros;
/// any other pattern, or a length kerncast cannot match to elements, leaves them unknown.
fn memset(p: &Value, byte: Option<i128>, bytes: Option<i128>, size: Option<i128>) {
    let why = "memory set byte by byte (memset)";
    match p {
        Value::Ptr(Ptr::Elem(b, at)) => {
            let mut b = b.borrow_mut();
            let count = match (byte, bytes, size) {
                (Some(0), Some(n), Some(s)) if s > 0 && n % s == 0 => Some(n / s),
                _ => None,
            };
            let whole = count.is_some_and(|c| *at == 0 && b.len.is_some_and(|l| c as i64 >= l));
            match count {
                Some(_) if whole => {
                    b.forget(why);
                    b.fill = Value::Int(0);
                    for x in &mut b.dense {
                        *x = Value::Int(0);
                    }
                }
                Some(c) if c <= 1 << 12 => {
                    for i in 0..c as i64 {
                        b.set(at + i, Value::Int(0));
                    }
                }
                _ => b.forget(why),
            }
        }
        Value::Ptr(Ptr::Cell(_) | Ptr::Field(..)) => {
            let place = deref(p);
            let v = match (byte, bytes, size) {
                (Some(0), Some(n), Some(s)) if n == s => zeroed(&place.read()),
                _ => Value::unknown(why),
            };
            place.write(v);
        }
        _ => {}
    }
}

/// `memcpy(dst, src, bytes)` between objects of the same type: the whole object, or whole
/// elements of arrays; anything else leaves the destination unknown.
/// `std::copy(first, last, out)`, `std::copy_n(first, n, out)`, `std::fill(first, last, v)`,
/// `std::fill_n(out, n, v)` on arrays kerncast follows: elementwise; elsewhere what the
/// destination holds becomes unknown (not the source). The value: the end of what was written.
fn copy_or_fill(f: &str, args: &[Arg]) -> Value {
    let why = format!("written by `std::{f}` where kerncast does not follow it");
    // The source, as a buffer, its start and its length; the destination; the fill value.
    let (src, dst, fill) = match f {
        "copy" => match (arg(args, 0), arg(args, 1)) {
            (Value::Ptr(Ptr::Elem(a, i)), Value::Ptr(Ptr::Elem(b, j))) if Rc::ptr_eq(&a, &b) => {
                (Some((a, i, j - i)), arg(args, 2), None)
            }
            // a variable, as the array of one element C takes it for (`&n`, `&n + 1`)
            (Value::Ptr(Ptr::Cell(a)), Value::Ptr(Ptr::PastCell(b))) if Rc::ptr_eq(&a, &b) => {
                let one = heap::shared(Buffer::from_values(vec![a.borrow().copy()]));
                (Some((one, 0, 1)), arg(args, 2), None)
            }
            _ => (None, arg(args, 2), None),
        },
        "copy_n" => match (arg(args, 0), int_arg(args, 1)) {
            (Value::Ptr(Ptr::Elem(a, i)), Some(n)) => (Some((a, i, n as i64)), arg(args, 2), None),
            _ => (None, arg(args, 2), None),
        },
        "fill" => match (arg(args, 0), arg(args, 1)) {
            (Value::Ptr(Ptr::Elem(a, i)), Value::Ptr(Ptr::Elem(b, j))) if Rc::ptr_eq(&a, &b) => (
                Some((a.clone(), i, j - i)),
                Value::Ptr(Ptr::Elem(a, i)),
                Some(arg(args, 2)),
            ),
            _ => (None, arg(args, 0), None),
        },
        _ => match int_arg(args, 1) {
            Some(n) => {
                let d = arg(args, 0);
                let len = match &d {
                    Value::Ptr(Ptr::Elem(a, i)) => Some((a.clone(), *i, n as i64)),
                    _ => None,
                };
                (len, d, Some(arg(args, 2)))
            }
            None => (None, arg(args, 0), None),
        },
    };
    match (src, &dst) {
        (Some((a, i, n)), Value::Ptr(Ptr::Elem(d, j))) if (0..=1 << 16).contains(&n) => {
            let vals: Vec<Value> = match &fill {
                Some(v) => vec![v.copy(); n as usize],
                None => (0..n).map(|k| a.borrow().get(i + k).copy()).collect(),
            };
            {
                let mut out = d.borrow_mut();
                for (k, v) in vals.into_iter().enumerate() {
                    out.set(j + k as i64, v);
                }
            }
            Value::Ptr(Ptr::Elem(d.clone(), j + n))
        }
        (_, Value::Ptr(Ptr::Elem(d, _))) => {
            d.borrow_mut().forget(&why);
            Value::unknown(&why)
        }
        (_, Value::Ptr(Ptr::Cell(_) | Ptr::Field(..))) => {
            deref(&dst).write(Value::unknown(&why));
            Value::unknown(&why)
        }
        _ => Value::unknown(&why),
    }
}

fn memcpy(dst: &Value, src: &Value, bytes: Option<i128>, size: Option<i128>) {
    let why = "memory copied byte by byte (memcpy)";
    let count = match (bytes, size) {
        (Some(n), Some(s)) if s > 0 && n % s == 0 => Some(n / s),
        _ => None,
    };
    match (dst, src) {
        (Value::Ptr(Ptr::Elem(d, i)), Value::Ptr(Ptr::Elem(s, j))) => match count {
            Some(c) if c <= 1 << 12 => {
                let vals: Vec<Value> = (0..c as i64)
                    .map(|k| s.borrow().get(j + k).copy())
                    .collect();
                let mut d = d.borrow_mut();
                for (k, v) in vals.into_iter().enumerate() {
                    d.set(i + k as i64, v);
                }
            }
            _ => d.borrow_mut().forget(why),
        },
        (Value::Ptr(Ptr::Elem(d, _)), _) => d.borrow_mut().forget(why),
        (Value::Ptr(Ptr::Cell(_) | Ptr::Field(..)), _) => {
            let v = match count {
                Some(1) => deref(src).read().copy(),
                _ => Value::unknown(why),
            };
            deref(dst).write(v);
        }
        _ => {}
    }
}

/// A value overwritten with data kerncast does not know: a record keeps its fields' names,
/// each unknown.
fn forgotten(v: &Value, why: &str) -> Value {
    match v {
        Value::Record(r) => {
            let r = r.borrow();
            let fields = r
                .fields
                .iter()
                .map(|(k, f)| (k.clone(), forgotten(f, why)))
                .collect();
            Value::Record(heap::shared(Record {
                ty: r.ty.clone(),
                fields,
            }))
        }
        _ => Value::unknown(why),
    }
}

/// An occupancy-API size argument `i` (absent: 0, as the API's defaults), or why it is unknown.
fn size_arg(args: &[Arg], i: usize, what: &str) -> Result<u64, String> {
    match args.get(i).map(|a| a.value()) {
        None => Ok(0),
        Some(Value::Int(v)) => {
            u64::try_from(v).map_err(|_| format!("its {what} is negative ({v})"))
        }
        Some(v) => Err(format!(
            "its {what} is unknown{}",
            v.brief().map(|b| format!(" ({b})")).unwrap_or_default()
        )),
    }
}

/// The variable whose address a call's argument `i` is (`blockSize` of `&blockSize`).
fn addressed_variable(e: &Expr, i: usize) -> Option<String> {
    use crate::ast::{ExprKind, UnOp};
    let ExprKind::Call(c) = &e.kind else {
        return None;
    };
    let mut a = c.args.get(i)?;
    loop {
        match &a.kind {
            ExprKind::Cast(inner) => a = inner,
            ExprKind::Unary(UnOp::AddrOf, inner) => {
                return match &inner.kind {
                    ExprKind::Var(_, name) => Some(name.to_string()),
                    _ => None,
                }
            }
            _ => return None,
        }
    }
}

impl Interp<'_> {
    /// The occupancy API's answer `ask` for `kernel` (the function argument of the call `f`).
    fn occupancy<T>(
        &self,
        f: &str,
        kernel: Option<&str>,
        ask: impl Fn(&dyn OccupancyOracle, &str) -> Result<T, String>,
    ) -> Result<T, String> {
        let kernel = kernel.ok_or_else(|| {
            format!("`{f}` is asked about a function kerncast does not resolve to a kernel")
        })?;
        let oracle = self.opts.occupancy.as_deref().ok_or_else(|| {
            format!("`{f}`'s answer depends on the kernel's registers and shared memory, which the host reading alone does not know")
        })?;
        ask(oracle, kernel).map_err(|why| format!("`{f}` for `{kernel}`: {why}"))
    }

    /// What the occupancy call `e` writes through its argument `i` where its answer is
    /// unknown: an assumption named after the variable (`blockSize`), which can be given.
    fn occupancy_unknown(&mut self, e: &Expr, i: usize, why: &str) -> Value {
        match addressed_variable(e, i) {
            Some(name) => self.assumption(&name, why),
            None => Value::unknown(why),
        }
    }
}

fn arg_unknown(v: &Value, f: &str) -> Value {
    match v {
        Value::Unknown(_) => v.clone(),
        _ => Value::unknown(&match str_unknown_why(v) {
            Some(why) => format!("`{f}` of a string kerncast does not know ({why})"),
            None => format!("`{f}` of a string kerncast does not know"),
        }),
    }
}

/// `sscanf` of a known string: integer, floating-point, string and character conversions,
/// each reading what C's would and stored as the target's type. A conversion kerncast does
/// not model leaves the targets from it on unknown.
fn sscanf(args: &[Arg], e: &Expr) -> Value {
    let (Some(input), Some(format)) = (str_arg(args, 0), str_arg(args, 1)) else {
        for a in &args[2.min(args.len())..] {
            write_through(
                &a.value(),
                Value::unknown("read by sscanf from a string kerncast does not know"),
            );
        }
        return Value::unknown("sscanf of a string kerncast does not know");
    };
    let target_ty = |i: usize| match &e.kind {
        crate::ast::ExprKind::Call(c) => match c.args.get(i).map(|a| &a.ty) {
            Some(crate::ast::Ty::Pointer(t)) => Some((**t).clone()),
            _ => None,
        },
        _ => None,
    };
    let mut rest = input.as_str();
    let mut n = 0;
    let mut out = 2;
    let mut fmt = format.chars().peekable();
    while let Some(c) = fmt.next() {
        if c != '%' || fmt.peek() == Some(&'%') {
            if c == '%' {
                fmt.next();
            }
            if c.is_whitespace() {
                rest = rest.trim_start();
            } else if let Some(r) = rest.strip_prefix(c) {
                rest = r;
            } else {
                break;
            }
            continue;
        }
        let mut conv = String::new();
        while let Some(&x) = fmt.peek() {
            fmt.next();
            conv.push(x);
            if x.is_ascii_alphabetic() && !matches!(x, 'l' | 'h' | 'z' | 'j' | 't' | 'L') {
                break;
            }
        }
        // Only length modifiers may come before the conversion (no width, no `*`).
        let plain = conv
            .chars()
            .rev()
            .skip(1)
            .all(|m| matches!(m, 'l' | 'h' | 'z' | 'j' | 't' | 'L'));
        let Some(kind) = conv
            .chars()
            .last()
            .filter(|k| plain && "diuxXofeEgGaAsc".contains(*k))
        else {
            // `%*d`, `%[…]`, `%n`, a width: not modelled.
            for a in &args[out.min(args.len())..] {
                write_through(
                    &a.value(),
                    Value::unknown("read by a sscanf conversion kerncast does not model"),
                );
            }
            return Value::unknown("sscanf with a conversion kerncast does not model");
        };
        if kind != 'c' {
            rest = rest.trim_start();
        }
        let Some(target) = args.get(out) else { break };
        let (tok, v) = scan(rest, kind);
        let Some(v) = v else { break };
        let v = match target_ty(out) {
            Some(t) => convert(v, &t),
            None => v,
        };
        out += 1;
        write_through(&target.value(), v);
        rest = &rest[tok..];
        n += 1;
    }
    Value::Int(n)
}

/// What one `sscanf` conversion reads at the start of `s`: how many bytes, and the value
/// (`None` when the input does not match).
fn scan(s: &str, kind: char) -> (usize, Option<Value>) {
    let b = s.as_bytes();
    let digits = |from: usize, ok: &dyn Fn(u8) -> bool| {
        let mut i = from;
        while i < b.len() && ok(b[i]) {
            i += 1;
        }
        i
    };
    let sign = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int_of = |end: usize, radix: u32, skip: usize| -> (usize, Option<Value>) {
        let body = &s[sign + skip..end];
        if body.is_empty() && skip == 0 {
            return (0, None);
        }
        let v = i128::from_str_radix(if body.is_empty() { "0" } else { body }, radix).ok();
        let v = v.map(|v| if s.starts_with('-') { -v } else { v });
        (end, v.map(Value::Int))
    };
    match kind {
        'c' => match s.chars().next() {
            Some(ch) => (ch.len_utf8(), Some(Value::Int(ch as i128))),
            None => (0, None),
        },
        's' => {
            let end = s.find(char::is_whitespace).unwrap_or(s.len());
            (end, (end > 0).then(|| Value::Str(Rc::from(&s[..end]))))
        }
        'd' | 'u' => int_of(digits(sign, &|c| c.is_ascii_digit()), 10, 0),
        'o' => int_of(digits(sign, &|c| (b'0'..=b'7').contains(&c)), 8, 0),
        'x' | 'X' => {
            let p = if s[sign..].starts_with("0x") || s[sign..].starts_with("0X") {
                2
            } else {
                0
            };
            int_of(digits(sign + p, &|c| c.is_ascii_hexdigit()), 16, p)
        }
        'i' => {
            let t = &s[sign..];
            if t.starts_with("0x") || t.starts_with("0X") {
                int_of(digits(sign + 2, &|c| c.is_ascii_hexdigit()), 16, 2)
            } else if t.starts_with('0') {
                int_of(digits(sign, &|c| (b'0'..=b'7').contains(&c)), 8, 0)
            } else {
                int_of(digits(sign, &|c| c.is_ascii_digit()), 10, 0)
            }
        }
        _ => {
            // A decimal floating-point number: digits, a point, digits, an exponent.
            let mut end = digits(sign, &|c| c.is_ascii_digit());
            let whole = end > sign;
            let mut frac = false;
            if b.get(end) == Some(&b'.') {
                let after = digits(end + 1, &|c| c.is_ascii_digit());
                frac = after > end + 1;
                end = after;
            }
            if !whole && !frac {
                return (0, None);
            }
            if matches!(b.get(end), Some(b'e' | b'E')) {
                let es = end + 1 + usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
                let ee = digits(es, &|c| c.is_ascii_digit());
                if ee > es {
                    end = ee;
                }
            }
            (end, s[..end].parse::<f64>().ok().map(Value::Float))
        }
    }
}

/// A method of a library class; `None` when not modelled.
pub(super) fn method(
    it: &mut Interp<'_>,
    name: &str,
    obj: &Place,
    args: &[Arg],
    params: &[crate::ast::Param],
    e: &Expr,
) -> Exec<Option<Value>> {
    if let Some(v) = torch::method(it, name, obj, &obj.read(), args, e) {
        return Ok(Some(v));
    }
    if let Some(v) = it.container_method(name, obj, args, params, e)? {
        return Ok(Some(v));
    }
    let m = last(name);
    let ret = |v: Value| Ok(Some(convert(v, &e.ty)));
    // A copy or move assignment without a body of the program's (an implicit one, or a
    // library type's from a value of its kind): the object becomes a copy of the value.
    if m == "operator=" {
        let v = arg(args, 0);
        if matches!(v, Value::Record(_) | Value::Array(_) | Value::Str(_)) {
            obj.write(v.copy());
            return Ok(Some(obj.read()));
        }
    }
    let object = obj.read();
    // An engine kerncast lost track of is known again once seeded with a value it knows.
    if m == "seed" && object.is_unknown() && it.follows_random() {
        let class = name.rsplit_once("::").map_or(name, |(c, _)| c);
        let values: Vec<Value> = args.iter().map(|a| a.value()).collect();
        let engine = method_object(e)
            .and_then(|o| o.ty.record_name())
            .and_then(|ty| cpp_random::construct(last(class), ty, &values));
        if let Some(v @ Value::Handle(_)) = engine {
            obj.write(v);
            return Ok(Some(Value::Void));
        }
    }
    if let Value::Handle(h) = &object {
        if matches!(&*h.borrow(), Handle::Random(_)) {
            return Ok(Some(convert(it.random_method(m, h, args), &e.ty)));
        }
    }
    if let Some(b) = buffer_of(&object) {
        let len = b.borrow().len;
        return match m {
            "size" | "length" => match len {
                Some(n) => ret(Value::Int(n as i128)),
                None => Ok(Some(Value::unknown(
                    "the size of a container kerncast does not follow",
                ))),
            },
            "empty" => match len {
                Some(n) => ret(Value::Int((n == 0) as i128)),
                None => Ok(None),
            },
            "push_back" | "emplace_back" => {
                // The value first: it may be an element of the same container.
                let v = arg(args, 0).copy();
                b.borrow_mut().push(v);
                Ok(Some(Value::Void))
            }
            "pop_back" => {
                let mut buf = b.borrow_mut();
                if let Some(n) = buf.len.filter(|n| *n > 0) {
                    buf.len = Some(n - 1);
                    if (n as usize) <= buf.dense.len() {
                        buf.dense.truncate(n as usize - 1);
                    }
                }
                Ok(Some(Value::Void))
            }
            "resize" | "assign" => {
                let fill = if args.len() > 1 {
                    arg(args, 1)
                } else {
                    Value::Int(0)
                };
                match int_arg(args, 0) {
                    Some(n) => {
                        let mut buf = b.borrow_mut();
                        let old = buf.elements().unwrap_or_default();
                        *buf = Buffer::new(Some(n as i64), fill);
                        if m == "resize" {
                            for (i, v) in old.into_iter().enumerate().take(n as usize) {
                                buf.set(i as i64, v);
                            }
                        }
                    }
                    None => b.borrow_mut().len = None,
                }
                Ok(Some(Value::Void))
            }
            "clear" => {
                *b.borrow_mut() = Buffer::new(Some(0), Value::Int(0));
                Ok(Some(Value::Void))
            }
            "reserve" | "shrink_to_fit" => Ok(Some(Value::Void)),
            "insert" | "emplace" => {
                let at = match arg(args, 0) {
                    Value::Ptr(Ptr::Elem(_, i)) => Some(i),
                    _ => None,
                };
                let items: Option<Vec<Value>> = match (arg(args, 1), arg(args, 2)) {
                    (Value::Ptr(Ptr::Elem(src, i)), Value::Ptr(Ptr::Elem(src2, j)))
                        if Rc::ptr_eq(&src, &src2) =>
                    {
                        let src = src.borrow();
                        Some((i..j).map(|k| src.get(k)).collect())
                    }
                    (Value::Int(n), v) if args.len() == 3 => Some(vec![v; n.max(0) as usize]),
                    (v, Value::Void) => Some(vec![v]),
                    _ => None,
                };
                let mut buf = b.borrow_mut();
                match (at, items, buf.elements()) {
                    (Some(at), Some(items), Some(mut cur)) if (at as usize) <= cur.len() => {
                        let tail = cur.split_off(at as usize);
                        cur.extend(items);
                        cur.extend(tail);
                        *buf = Buffer::from_values(cur);
                    }
                    _ => {
                        buf.len = None;
                        buf.forget("elements inserted where kerncast does not follow");
                    }
                }
                Ok(Some(Value::Void))
            }
            "data" | "begin" | "cbegin" => Ok(Some(Value::Ptr(Ptr::Elem(b, 0)))),
            "end" | "cend" => Ok(Some(match len {
                Some(n) => Value::Ptr(Ptr::Elem(b, n)),
                None => Value::unknown("the end of a container kerncast does not follow"),
            })),
            "front" => ret(b.borrow().get(0)),
            "back" => ret(match len {
                Some(n) => b.borrow().get(n - 1),
                None => Value::unknown("the last element of a container kerncast does not follow"),
            }),
            "operator[]" | "at" => ret(match int_arg(args, 0) {
                Some(i) => b.borrow().get(i as i64),
                None => Value::unknown("an element kerncast cannot index"),
            }),
            _ => Ok(None),
        };
    }
    if let Value::Str(s) = &object {
        return match m {
            "c_str" | "data" | "basic_string" | "operator basic_string_view" => {
                Ok(Some(object.clone()))
            }
            "size" | "length" => ret(Value::Int(s.len() as i128)),
            "empty" => ret(Value::Int(s.is_empty() as i128)),
            // A character read (a write goes through `Interp::call_place`): the byte, and the
            // NUL at `size()`.
            "operator[]" | "at" => ret(match int_arg(args, 0) {
                Some(i) if (0..s.len() as i128).contains(&i) => {
                    Value::Int(s.as_bytes()[i as usize] as i8 as i128)
                }
                Some(i) if i == s.len() as i128 && m == "operator[]" => Value::Int(0),
                _ => Value::unknown("a character past the end of a string"),
            }),
            "compare" => match str_arg(args, 0) {
                Some(t) => ret(Value::Int(s.as_ref().cmp(t.as_str()) as i128)),
                None => Ok(None),
            },
            "operator==" | "operator!=" => match str_arg(args, 0) {
                Some(t) => ret(Value::Int(((**s == *t) == (m == "operator==")) as i128)),
                None => Ok(None),
            },
            _ => Ok(None),
        };
    }
    if name.contains("basic_ostream") || name.contains("basic_ios") || m == "operator<<" {
        return Ok(Some(object));
    }
    if name.contains("basic_istream") || m == "operator>>" {
        if let Some(Arg::Place(p)) = args.first() {
            p.write(Value::unknown("a value read from a stream"));
        }
        return Ok(Some(object));
    }
    if name.contains("chrono") || name.contains("duration") || name.contains("time_point") {
        return Ok(Some(Value::unknown("a time read at run time")));
    }
    if name.contains("distribution") || name.contains("engine") || name.contains("random_device") {
        return Ok(Some(Value::unknown("a random number")));
    }
    if m.starts_with("operator ") {
        // A conversion operator of a library type: the value as it is.
        return Ok(Some(object));
    }
    let _ = it;
    Ok(None)
}

/// The object a method call runs on.
fn method_object(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        crate::ast::ExprKind::Call(c) => match &c.callee {
            crate::ast::Callee::Method { object, .. } => Some(object),
            _ => None,
        },
        _ => None,
    }
}

/// A library type's constructor; `None` when not modelled.
pub(super) fn construct(
    it: &mut Interp<'_>,
    name: &str,
    args: &[Arg],
    e: &Expr,
) -> Exec<Option<Value>> {
    if let Some(v) = torch::construct(name, args) {
        return Ok(Some(v));
    }
    let class = name.rsplit_once("::").map(|(c, _)| c).unwrap_or(name);
    let class_last = last(class);
    // every library construction comes here (a `dim3` in a loop): read the arguments only for
    // a class of `<random>`
    let random_class = class_last.ends_with("_engine") || class_last.ends_with("_distribution");
    if let (true, Some(ty)) = (random_class, e.ty.record_name()) {
        let values: Vec<Value> = args.iter().map(|a| a.value()).collect();
        if let Some(v) = cpp_random::construct(class_last, ty, &values) {
            return Ok(Some(v));
        }
    }
    match class_last {
        "dim3" | "uint3" => {
            if let [a] = args {
                if let Value::Record(_) = a.value() {
                    return Ok(Some(a.value().copy()));
                }
                // dim3(uint3) of a vector kerncast does not know: none of x, y, z is 1.
                let from_record = match &e.kind {
                    crate::ast::ExprKind::Call(c) => {
                        c.args.first().is_some_and(|x| x.ty.record_name().is_some())
                    }
                    _ => false,
                };
                if from_record {
                    let v = a.value();
                    return Ok(Some(record(
                        "dim3",
                        vec![("x", v.clone()), ("y", v.clone()), ("z", v)],
                    )));
                }
            }
            let get = |i: usize| match args.get(i) {
                Some(a) => convert(
                    a.value(),
                    &crate::ast::Ty::Int {
                        bits: 32,
                        signed: false,
                    },
                ),
                None => Value::Int(1),
            };
            Ok(Some(record(
                "dim3",
                vec![("x", get(0)), ("y", get(1)), ("z", get(2))],
            )))
        }
        "vector" | "valarray" | "deque" => {
            let vals: Vec<Value> = args.iter().map(|a| a.value()).collect();
            let buf = match vals.as_slice() {
                [] => Buffer::new(Some(0), Value::Int(0)),
                // A copy, or an initializer list (with the allocator's default argument).
                [Value::Array(b)] | [Value::Array(b), Value::Record(_)] => b.borrow().clone(),
                [Value::Ptr(Ptr::Elem(b1, i)), Value::Ptr(Ptr::Elem(b2, j)), ..]
                    if Rc::ptr_eq(b1, b2) =>
                {
                    let src = b1.borrow();
                    let mut out = Buffer::new(Some(j - i), Value::Int(0));
                    for k in *i..*j {
                        out.set(k - i, src.get(k));
                    }
                    out
                }
                [Value::Int(n)] | [Value::Int(n), Value::Record(_)] => {
                    Buffer::new(Some(*n as i64), Value::Int(0))
                }
                [Value::Int(n), fill, ..] => Buffer::new(Some(*n as i64), fill.copy()),
                [Value::Unknown(u), ..] => {
                    let mut b = Buffer::new(None, Value::Int(0));
                    b.fill = Value::Int(0);
                    let _ = u;
                    b
                }
                _ => Buffer::new(
                    None,
                    Value::unknown("a container's elements kerncast does not follow"),
                ),
            };
            Ok(Some(Value::Array(heap::shared(buf))))
        }
        "basic_string" | "basic_string_view" => Ok(Some(match args.first().map(|a| a.value()) {
            Some(v @ Value::Str(_)) => v,
            None => Value::Str(Rc::from("")),
            Some(v) => match str_of(&v) {
                Some(s) => Value::Str(Rc::from(s)),
                None => Value::unknown("a string kerncast does not know"),
            },
        })),
        "initializer_list" => Ok(args.first().map(|a| a.value())),
        // A vector's iterator made from another (an `iterator` passed where a
        // `const_iterator` is taken: `v.insert(v.end(), …)`): the same position.
        c if c.starts_with("__normal_iterator") => Ok(match args {
            [a] if matches!(a.value(), Value::Ptr(_)) => Some(a.value()),
            _ => None,
        }),
        "basic_stringstream" | "basic_istringstream" | "basic_ostringstream" => {
            Ok(Some(containers::string_stream(args)))
        }
        "basic_ifstream" | "basic_fstream" | "basic_ofstream" => {
            if let Some(path) = str_arg(args, 0).filter(|_| class_last != "basic_ofstream") {
                it.reads_file(&path, &format!("std::{}", &class_last["basic_".len()..]));
            }
            Ok(Some(containers::file_stream()))
        }
        "map" | "set" | "unordered_map" | "unordered_set" | "multimap" | "multiset" => {
            let empty = containers::empty_of(e.ty.record_name().unwrap_or(""));
            match (empty, args.first().map(|a| a.value())) {
                // From an initializer list of pairs: insert each.
                (Some(Value::Handle(h)), Some(Value::Array(b))) => {
                    let items = b.borrow().elements().unwrap_or_default();
                    let m = Value::Handle(h);
                    let place = Place::Temp(m.clone());
                    for item in items {
                        it.container_method("insert", &place, &[Arg::Val(item)], &[], e)?;
                    }
                    Ok(Some(m))
                }
                (Some(m), None) => Ok(Some(m)),
                (Some(m), Some(Value::Handle(other))) => {
                    let _ = m;
                    Ok(Some(Value::Handle(heap::shared(other.borrow().clone()))))
                }
                (m, _) => Ok(m),
            }
        }
        "pair" if args.len() == 2 => Ok(Some(record(
            "std::pair",
            vec![
                ("first", arg(args, 0).copy()),
                ("second", arg(args, 1).copy()),
            ],
        ))),
        _ => {
            let _ = (it, e);
            Ok(None)
        }
    }
}

/// The library's global variables the host code reads.
pub(super) fn system_global(
    it: &mut Interp<'_>,
    name: &str,
    key: crate::ast::DeclKey,
) -> Option<Value> {
    match name {
        "optind" => {
            it.optind_key = Some(key);
            Some(Value::Int(it.optind))
        }
        "optarg" => {
            it.optarg_key = Some(key);
            Some(it.optarg.clone())
        }
        "opterr" | "optopt" | "errno" => Some(Value::Int(0)),
        "stdin" | "stdout" | "stderr" | "cout" | "cerr" | "clog" | "cin" => Some(Value::Handle(
            heap::shared(Handle::Opaque("a standard stream")),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: Option<Value>) -> Option<i128> {
        v.and_then(|v| v.as_int())
    }

    #[test]
    fn sscanf_conversions_read_what_c_reads() {
        let (n, v) = scan("640x480", 'd');
        assert_eq!((n, int(v)), (3, Some(640)));
        let (n, v) = scan("0x1Fz", 'x');
        assert_eq!((n, int(v)), (4, Some(31)));
        let (n, v) = scan("010 ", 'i');
        assert_eq!((n, int(v)), (3, Some(8)));
        let (n, v) = scan("-12abc", 'd');
        assert_eq!((n, int(v)), (3, Some(-12)));
        let (n, v) = scan("3.5e2x", 'f');
        assert_eq!((n, v.and_then(|v| v.as_f64())), (5, Some(350.0)));
        let (n, v) = scan("1e", 'f');
        assert_eq!((n, v.and_then(|v| v.as_f64())), (1, Some(1.0)));
        assert!(scan("x12", 'd').1.is_none());
    }
}
