//! Programs a C or C++ host compiles at run time: NVRTC's (`nvrtcCreateProgram`,
//! `nvrtcAddNameExpression`, `nvrtcCompileProgram`) and OpenCL's (`clCreateProgramWithSource`,
//! `clBuildProgram`). Each is recorded with its text where the host's value of it is known,
//! the headers it is given as strings, the options it is compiled with and the template
//! instances asked for, for the caller to lower ([`crate::EmbeddedSource`]).

use super::access::{buffer_of, deref, str_of, write_through, Arg};
use super::state::Interp;
use super::value::{Handle, Ptr, Value};
// kept with the interpreter's state, which collects them
pub use super::state::CompiledProgram;
use crate::ast::Expr;
use crate::heap;

fn arg(args: &[Arg], i: usize) -> Value {
    args.get(i).map(|a| a.value()).unwrap_or(Value::Void)
}

/// The strings of an array argument (`const char *opts[]`, `std::vector<const char *>`'s
/// `data()`), the first `n` of them; `None` where one is unknown.
fn strings(v: &Value, n: Option<i128>) -> Option<Vec<String>> {
    // `&src`: one string
    if let (Value::Ptr(Ptr::Cell(c)), Some(1) | None) = (v, n) {
        if let Some(s) = str_of(&c.borrow()) {
            return Some(vec![s]);
        }
    }
    let b = buffer_of(v).or_else(|| match v {
        Value::Ptr(Ptr::Elem(b, _)) => Some(b.clone()),
        _ => None,
    })?;
    let b = b.borrow();
    let n = match n {
        Some(n) => usize::try_from(n).ok()?,
        None => usize::try_from(b.len?).ok()?,
    };
    (0..n).map(|i| str_of(&b.get(i as i64))).collect()
}

/// The program a handle argument names.
fn program_of(v: &Value) -> Option<usize> {
    match deref(v).read() {
        Value::Handle(h) => match &*h.borrow() {
            Handle::Program(i) => Some(*i),
            _ => None,
        },
        Value::Ptr(Ptr::Cell(c)) => program_of(&c.borrow()),
        _ => match v {
            Value::Handle(h) => match &*h.borrow() {
                Handle::Program(i) => Some(*i),
                _ => None,
            },
            _ => None,
        },
    }
}

fn handle(i: usize) -> Value {
    Value::Handle(heap::shared(Handle::Program(i)))
}

/// A runtime-compilation call of the host (`f`), where it is one: what it returns.
pub(super) fn call(it: &mut Interp<'_>, f: &str, args: &[Arg], e: &Expr) -> Option<Value> {
    match f {
        "nvrtcCreateProgram" => {
            let text = str_of(&arg(args, 1)).ok_or_else(|| unknown_text(&arg(args, 1)));
            let count = arg(args, 3).as_int().unwrap_or(0);
            let headers = match (
                strings(&arg(args, 4), Some(count)),
                strings(&arg(args, 5), Some(count)),
            ) {
                (Some(texts), Some(names)) => names.into_iter().zip(texts).collect(),
                _ => Vec::new(),
            };
            let i = it.add_program(CompiledProgram {
                api: "nvrtcCreateProgram",
                text,
                name: str_of(&arg(args, 2)),
                headers,
                options: Vec::new(),
                name_expressions: Vec::new(),
                site: e.span.clone(),
            });
            write_through(&arg(args, 0), handle(i));
            Some(Value::Int(0))
        }
        "nvrtcAddNameExpression" => {
            if let (Some(i), Some(expr)) = (program_of(&arg(args, 0)), str_of(&arg(args, 1))) {
                if let Some(p) = it.program(i) {
                    p.name_expressions.push(expr);
                }
            }
            Some(Value::Int(0))
        }
        "nvrtcCompileProgram" => {
            if let Some(i) = program_of(&arg(args, 0)) {
                let n = arg(args, 1).as_int();
                let opts = strings(&arg(args, 2), n).unwrap_or_default();
                if let Some(p) = it.program(i) {
                    p.options = opts;
                    p.site = e.span.clone();
                }
            }
            Some(Value::Int(0))
        }
        "clCreateProgramWithSource" => {
            let n = arg(args, 1).as_int();
            let text = strings(&arg(args, 2), n)
                .map(|s| s.concat())
                .ok_or_else(|| unknown_text(&arg(args, 2)));
            let i = it.add_program(CompiledProgram {
                api: "clCreateProgramWithSource",
                text,
                name: None,
                headers: Vec::new(),
                options: Vec::new(),
                name_expressions: Vec::new(),
                site: e.span.clone(),
            });
            if let Some(err) = args.get(4) {
                if let Value::Ptr(p) = err.value() {
                    if !matches!(p, Ptr::Null) {
                        write_through(&Value::Ptr(p), Value::Int(0));
                    }
                }
            }
            Some(handle(i))
        }
        "clBuildProgram" => {
            if let Some(i) = program_of(&arg(args, 0)) {
                let opts = str_of(&arg(args, 3)).unwrap_or_default();
                if let Some(p) = it.program(i) {
                    p.options = opts.split_whitespace().map(String::from).collect();
                    p.site = e.span.clone();
                }
            }
            Some(Value::Int(0))
        }
        _ => None,
    }
}

/// Why a program's text is unknown.
fn unknown_text(v: &Value) -> String {
    match v.brief() {
        Some(b) => format!("its text is not known where the host compiles it ({b})"),
        None => "its text is not a string kerncast can read".into(),
    }
}

impl Interp<'_> {
    fn add_program(&mut self, p: CompiledProgram) -> usize {
        self.programs.push(p);
        self.programs.len() - 1
    }

    fn program(&mut self, i: usize) -> Option<&mut CompiledProgram> {
        self.programs.get_mut(i)
    }
}
