//! Python hosts that compile CUDA or OpenCL at run time, as CuPy, PyCUDA and PyOpenCL do:
//!
//! ```text
//! add = cp.RawKernel(r'''
//! extern "C" __global__ void my_add(const float *x, float *y, int n) { … }
//! ''', 'my_add')
//! n = 1 << 20
//! add(((n + 255) // 256,), (256,), (x, y, cp.int32(n)))
//! ```
//!
//! The program is a Python string that defines a `__global__` or `__kernel` kernel; it is
//! lowered as any embedded program is ([`crate::embedded`]), its lines placed at the `.py`
//! file's. The launches are read by giving the C launch reader a C-shaped copy of the file,
//! line for line: each integer assignment (`n = 1 << 20`, `w, h = 1920, 1080`) becomes a
//! declaration, each call of a CUDA kernel handle (`cp.RawKernel(…, 'name')`,
//! `module.get_function('name')`) a `name<<<grid, block>>>(args)`, each PyOpenCL launch the
//! OpenCL C++ bindings' calls ([`pyopencl`]), each `def` a function and each `if`, `elif` and
//! `else` a C branch ([`branches`]) whose body ends where its indentation does, and every other
//! line is left empty. So a launch's sizes are worked out as a C host's are, and what cannot be
//! read (a size computed by a call) stays unknown and is reported as such. A PyTorch
//! extension's calls (`ext.relu(x)` of a `load_inline` or `load` module) are the C++ calls
//! they bind, and its tensors are also `torch::` tensors of their sizes ([`extensions`]).

mod arrays;
mod benchmark;
mod branches;
mod calls;
mod dtypes;
mod extensions;
mod loops;
mod pyopencl;
mod templates;

pub use extensions::{bindings_in, imports_extension, loads_extension, setup_extensions};

use crate::embedded::{program_of_value, EmbeddedProgram};
use crate::launch_sites::c_text::{arg_texts, call_args, matching_close, one_line};
use regex::Regex;
use std::sync::LazyLock;

/// Whether `path` is a Python host.
pub fn is_python(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "py")
}

/// Whether a Python file carries or loads a CUDA or OpenCL program, or builds a PyTorch
/// extension (`setup.py`'s `CUDAExtension`): a host kerncast reads.
pub fn mentions_kernels(text: &str) -> bool {
    [
        "__global__",
        "__kernel",
        "RawKernel",
        "RawModule",
        "SourceModule",
        "get_function",
        "pyopencl",
    ]
    .iter()
    .any(|w| text.contains(w))
        || extensions::loads_extension(text)
        || !extensions::setup_extensions(text).is_empty()
}

/// A string literal of a Python file: the whole literal and its body, by byte offset.
struct PyStr {
    start: usize,
    body: std::ops::Range<usize>,
    /// The byte after its closing quotes.
    end: usize,
    raw: bool,
    /// An f-string or a bytes literal: its value is not the text written.
    formatted: bool,
}

/// The string literals and the comments of a Python file, in order.
struct Lexed {
    strings: Vec<PyStr>,
    comments: Vec<std::ops::Range<usize>>,
}

/// Where `host`'s string literals and comments lie.
fn lex(host: &str) -> Lexed {
    let b = host.as_bytes();
    let mut out = Vec::new();
    let mut comments = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                let start = i;
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                comments.push(start..i);
            }
            b'\'' | b'"' => {
                // the prefix letters just before the quote, when they are not a name's end
                let mut p = i;
                while p > 0 && p + 2 >= i && b"rRbBuUfF".contains(&b[p - 1]) {
                    p -= 1;
                }
                if p > 0 && (b[p - 1].is_ascii_alphanumeric() || b[p - 1] == b'_') {
                    p = i;
                }
                let prefix = host[p..i].to_ascii_lowercase();
                let q = b[i];
                let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
                let open = if triple { 3 } else { 1 };
                let mut j = i + open;
                let end = loop {
                    if j >= b.len() {
                        break b.len();
                    }
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if !triple && b[j] == b'\n' {
                        break j;
                    }
                    if b[j] == q
                        && (!triple || (b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q)))
                    {
                        break j;
                    }
                    j += 1;
                };
                out.push(PyStr {
                    start: p,
                    body: i + open..end.min(b.len()),
                    end: (end + open).min(b.len()),
                    raw: prefix.contains('r'),
                    formatted: prefix.contains('f') || prefix.contains('b'),
                });
                i = (end + open).min(b.len());
            }
            _ => i += 1,
        }
    }
    Lexed {
        strings: out,
        comments,
    }
}

/// `host` with every string's body and every comment blanked (new lines kept), so that the
/// structure of the code can be read without what strings and comments contain.
fn code_only(host: &str) -> String {
    let lexed = lex(host);
    let mut b = host.as_bytes().to_vec();
    let blanked = lexed
        .strings
        .iter()
        .map(|s| s.body.clone())
        .chain(lexed.comments);
    for range in blanked {
        for c in &mut b[range] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// A string's value with the byte offset of `host` each byte comes from: escapes decoded
/// unless it is raw, a backslash–new-line joined away.
fn decode(host: &str, s: &PyStr) -> Vec<(u8, usize)> {
    let b = host.as_bytes();
    let mut out = Vec::new();
    let mut i = s.body.start;
    while i < s.body.end {
        if b[i] == b'\\' && i + 1 < s.body.end && !s.raw {
            let c = match b[i + 1] {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'\\' => Some(b'\\'),
                b'\'' => Some(b'\''),
                b'"' => Some(b'"'),
                b'\n' => None,
                other => {
                    out.push((b'\\', i));
                    Some(other)
                }
            };
            if let Some(c) = c {
                out.push((c, i + 1));
            }
            i += 2;
            continue;
        }
        out.push((b[i], i));
        i += 1;
    }
    out
}

/// The CUDA and OpenCL programs in `host`'s strings, in order. `file` is the name the `#line` directives
/// give.
pub fn programs(host: &str, file: &str) -> Vec<EmbeddedProgram> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(host.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);
    static ASSIGNED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"([A-Za-z_]\w*)\s*(?::[^=]*)?=\s*$").unwrap());
    lex(host)
        .strings
        .into_iter()
        .filter(|s| !s.formatted)
        .filter_map(|s| {
            let value: Vec<(u8, usize)> = decode(host, &s)
                .into_iter()
                .map(|(c, at)| (c, line_of(at)))
                .collect();
            // a `%` or `.format(…)` after the literal fills the program in before it compiles
            let value = templates::filled(host, s.end, &value).unwrap_or(value);
            let line_start = line_starts[line_of(s.start) - 1];
            let variable = ASSIGNED
                .captures(&host[line_start..s.start])
                .map(|c| c[1].to_string());
            program_of_value(&value, line_of(s.start), variable, file)
        })
        .collect()
}

/// A call that compiles a program: CuPy's `RawKernel` and `RawModule`, PyCUDA's
/// `SourceModule`, PyOpenCL's `Program` (whose `build` takes the options).
static COMPILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(RawKernel|RawModule|SourceModule|Program)\s*\(").unwrap());

/// A call that compiles a program: its line, its name (`RawKernel`) and its keyword arguments
/// as written (PyOpenCL's `build` options among them, as `options`).
pub struct CompileCall {
    line: usize,
    name: String,
    kwargs: Vec<(String, String)>,
}

impl CompileCall {
    fn kwarg(&self, name: &str) -> Option<&str> {
        self.kwargs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The options it passes (`options=('-DREPS=4',)`), with its line and name. `Ok(None)`
    /// when it passes none; `Err` when they are not strings the file fixes.
    pub fn options(&self) -> Result<Option<(usize, String, Vec<String>)>, String> {
        let Some(options) = self.kwarg("options") else {
            return Ok(None);
        };
        literal_items(options)
            .map(|o| {
                let call_name = match self.name.as_str() {
                    "Program" => "PyOpenCL Program build".to_string(),
                    name => format!("{name} call"),
                };
                Some((self.line, call_name, o))
            })
            .ok_or_else(|| {
                format!(
                    "`options={options}` at line {} is not a tuple of strings this file fixes",
                    self.line
                )
            })
    }

    /// Whether it is PyCUDA's `SourceModule`, which wraps the program in `extern "C" { … }`
    /// unless told `no_extern_c=True`: its kernels then have their source names, as
    /// `get_function("scale")` asks for them.
    pub fn wraps_in_extern_c(&self) -> bool {
        self.name == "SourceModule"
            && !self
                .kwarg("no_extern_c")
                .is_some_and(|v| v == "True" || v == "1")
    }

    /// The template instances CuPy is asked to compile (`RawModule(code=…,
    /// name_expressions=['scale<float, 3>'])`), each a literal, with the call's line.
    pub fn name_expressions(&self) -> Vec<(String, usize)> {
        self.kwarg("name_expressions")
            .and_then(literal_items)
            .map(|e| e.into_iter().map(|x| (x, self.line)).collect())
            .unwrap_or_default()
    }
}

/// The call that compiles the program whose string starts at host line `line` (written in the
/// call) or is held in the variable `source` (passed to it).
pub fn compile_call(host: &str, line: usize, source: Option<&str>) -> Option<CompileCall> {
    let code = code_only(host);
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    COMPILE.captures_iter(&code).find_map(|m| {
        let whole = m.get(0).unwrap();
        let (close, args) = call_args(&code, whole.end() - 1)?;
        let kwargs: Vec<(String, String)> = args
            .iter()
            .filter_map(|r| {
                let (k, v) = host[r.clone()].split_once('=')?;
                bare(k.trim()).then(|| (k.trim().to_string(), v.trim().to_string()))
            })
            .collect();
        let mut call = CompileCall {
            line: line_of(whole.start()),
            name: m[1].to_string(),
            kwargs,
        };
        // PyOpenCL: `Program(ctx, src)`, built with options later
        let opencl = call.name == "Program";
        let first = if opencl { args.get(1) } else { args.first() }?;
        if opencl {
            if let Some(options) = build_options(host, &code, whole.start(), close) {
                call.kwargs.push(("options".into(), options));
            }
        }
        let program = match call
            .kwarg("code")
            .or_else(|| call.kwarg("source"))
            .or_else(|| call.kwarg("src"))
        {
            Some(p) => p.to_string(),
            None => host[first.clone()].trim().to_string(),
        };
        let inline =
            program.starts_with(['r', 'R', 'u', 'U', '\'', '"']) && line_of(first.start) == line;
        (inline || source == Some(program.as_str())).then_some(call)
    })
}

/// The options of the `build` of the PyOpenCL program made by the call at `start..=close` of
/// `code`: `Program(…).build(options=…)`, or `prg.build(…)` of the variable it is assigned to.
fn build_options(host: &str, code: &str, start: usize, close: usize) -> Option<String> {
    static BUILD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*\.\s*build\s*\(").unwrap());
    let open = match BUILD.find(&code[close + 1..]) {
        Some(b) => close + 1 + b.end(),
        None => {
            let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
            let var = ASSIGNED_TO.captures(&code[line_start..start])?;
            let later = crate::launch_sites::c_text::cached_regex(&format!(
                r"\b{}\s*\.\s*build\s*\(",
                regex::escape(&var[1])
            ))
            .ok()?;
            close + later.find(&code[close..])?.end()
        }
    };
    let (_, args) = call_args(code, open - 1)?;
    let named = args.iter().find_map(|r| {
        let (k, v) = host[r.clone()].split_once('=')?;
        (k.trim() == "options").then(|| v.trim().to_string())
    });
    named.or_else(|| {
        let first = args.first()?;
        let a = host[first.clone()].trim();
        (!a.is_empty() && !a.contains('=')).then(|| a.to_string())
    })
}

/// `name =` right before a call.
static ASSIGNED_TO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([A-Za-z_]\w*)\s*=\s*[\w.]*$").unwrap());

/// The items of a tuple or list of plain string literals (`('-DREPS=3', "-std=c++17")`), or of
/// one literal; `None` when an item is anything else. Commas inside the strings are theirs.
fn literal_items(value: &str) -> Option<Vec<String>> {
    let v = value.trim();
    let code = code_only(v);
    let bracketed = v.starts_with(['(', '['])
        && matching_close(code.as_bytes(), 0) == Some(v.len().saturating_sub(1));
    if !bracketed {
        return literal(v).map(|one| vec![one]);
    }
    let items = call_args(&code, 0)?.1;
    // a one-item tuple's trailing comma leaves an empty item
    items
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| literal(&v[r]))
        .collect()
}

/// A C-shaped copy of a Python host for the launch reader, line for line, and each kernel
/// launch's call as written there (line, text).
pub struct Shaped {
    pub text: String,
    pub calls: Vec<(usize, String)>,
    /// The loop headers, as written ([`loops`]).
    pub loops: Vec<PythonLoop>,
}

/// A loop header of a Python host as written, for the note that counts its launches.
#[derive(Clone, Debug, PartialEq)]
pub struct PythonLoop {
    /// 1-based line of the header.
    pub line: usize,
    /// `for epoch in range(iters):`
    pub head: String,
    /// Why the loop cannot be counted, where the reason is Python's (a `for` over an iterable).
    pub why_not: Option<String>,
}

static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z_]\w*)\s*(?::\s*[A-Za-z_][\w.]*\s*)?=\s*([^=].*)$").unwrap()
});
/// An assignment to several names (`w, h = 1920, 1080`, `h, c, *rest = ext.forward(x)`): the
/// names, then the value.
static TARGETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\(?(\s*\*?[A-Za-z_]\w*(?:\s*,\s*\*?[A-Za-z_]\w*)+\s*,?\s*)\)?\s*=([^=].*)$")
        .unwrap()
});
/// `it += 3`, `n //= 2`: an augmented assignment, as C's compound one.
static AUGMENTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*)\s*(\+|-|\*|//|<<|>>)=\s*(.+)$").unwrap());
static DEF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^def\s+([A-Za-z_]\w*)\s*\((.*)\)\s*(?:->.*)?:\s*$").unwrap());
/// A kernel handle: `h = cp.RawKernel(…, 'name'…)` or `h = module.get_function('name')`.
static HANDLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z_][\w.]*)\s*=\s*(?:[\w.]*\bRawKernel|[\w.]*\.get_function)\s*\(").unwrap()
});
/// A numpy or CuPy scalar made from a value: `cp.int32(n)`, `np.float32(a)`.
static SCALAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:np|numpy|cp|cupy)\.(?:u?int(?:8|16|32|64)|float(?:16|32|64)|intc|uintc|int_|single|double)\s*\((.*)\)$")
        .unwrap()
});

/// The C-shaped copy of `host` (see the module's doc).
pub fn shape(host: &str) -> Shaped {
    shape_with_bindings(host, &[], &[])
}

/// [`shape`], where the PyTorch extensions the host loads from files bind `bindings` (Python
/// name, C++ function: [`bindings_in`] of their sources), so that their calls are those C++
/// functions' calls; the modules a `setup.py` builds (`built`, [`setup_extensions`]) are such
/// extensions where the host imports them.
pub fn shape_with_bindings(host: &str, bindings: &[(String, String)], built: &[String]) -> Shaped {
    let code = code_only(host);
    let lines: Vec<&str> = code.split('\n').collect();
    let raw_lines: Vec<&str> = host.split('\n').collect();
    let handles = kernel_handles(host, &code);
    let defs: Vec<calls::Def> = lines
        .iter()
        .filter_map(|l| calls::Def::of(l.trim()))
        .collect();
    // the arrays of one dimension, whose `len(x)` is their size
    let mut flat: Vec<String> = Vec::new();
    for m in lines.iter().filter_map(|l| arrays::made(l.trim())) {
        if m.flat || m.like.is_some_and(|l| flat.contains(&l)) {
            flat.push(m.name);
        }
    }
    // a statement continued over the following lines (inside brackets) is read at its first
    let mut statements: Vec<Option<Statement>> = Vec::with_capacity(lines.len());
    while statements.len() < lines.len() {
        let i = statements.len();
        let (text, n) = joined_statement(&lines, i);
        statements.push(Some(Statement {
            text: arrays::sizes_read(text.trim(), &flat),
            raw: raw_statement(&raw_lines, &lines, i, n),
        }));
        statements.extend((1..n).map(|_| None));
    }
    let opencl = pyopencl::Handles::of(statements.iter().flatten().map(|s| s.raw.as_str()));
    let lists = integer_lists(&code);
    // PyTorch: the tensors made with sizes, in order, and the extension modules built here
    let mut tensors: Vec<(String, Vec<String>)> = Vec::new();
    for m in statements
        .iter()
        .flatten()
        .filter_map(|s| arrays::made(&s.text))
    {
        if let Some(sizes) = m.tensor_sizes(&tensors) {
            tensors.push((m.name, sizes));
        }
    }
    let sources = extensions::inline_sources(host);
    let modules = extensions::Modules::of(
        statements.iter().flatten().map(|s| s.text.as_str()),
        &sources,
        bindings,
        built,
    );
    // a tensor cast into its own name (`x = x.half()`) has its shape but no one dtype
    let recast: Vec<String> = statements
        .iter()
        .flatten()
        .filter_map(|s| {
            let a = ASSIGNMENT.captures(&s.text)?;
            let value = a[2].trim();
            let own = arrays::without_moves(value) == &a[1];
            (own && dtypes::cast(&value[a[1].len()..]).is_some()).then(|| a[1].to_string())
        })
        .collect();
    // a tensor assigned anything else (alone, or among several names) has no one shape; moved
    // or cast (`x = x.cuda()`, `x = x.half()`) it keeps its own
    let reassigned = |text: &str| {
        let names = match ASSIGNMENT.captures(text) {
            Some(a) if arrays::without_moves(a[2].trim()) == &a[1] => Vec::new(),
            Some(a) => vec![a[1].to_string()],
            None => extensions::unpacked_names(text),
        };
        names
            .iter()
            .filter(|n| tensors.iter().any(|(t, _)| t == *n))
            .map(|n| format!(" {n} = python_value;"))
            .collect::<String>()
    };
    // a statement that opens no block, as C, and whether it launches a kernel; `params` are
    // those of the function it is in
    let simple = |text: &str, raw: &str, params: &[String]| -> (String, bool) {
        if let Some(array) = arrays::made(text) {
            (array.c_with(&tensors, &recast), false)
        } else if let Some(call) = calls::call_of_def(text, &defs, &handles) {
            call
        } else if let Some(call) = modules.call(text) {
            (format!("{call}{}", reassigned(text)), false)
        } else if let Some(call) = calls::call_of_param(text, params) {
            (call, false)
        } else if let Some(launch) = launch(text, &handles) {
            (launch, true)
        } else if let Some(shaped) = opencl.shape(text, raw) {
            shaped
        } else if let Some(a) = ASSIGNMENT.captures(text) {
            let tensor = reassigned(text);
            if !tensor.is_empty() {
                return (tensor.trim_start().to_string(), false);
            }
            let list = lists
                .contains(&a[1].to_string())
                .then(|| loops::literal_list(&a[2]));
            if let Some(Some(items)) = list {
                return (
                    format!("long {}[] = {{{}}};", &a[1], items.join(", ")),
                    false,
                );
            }
            let declared = c_expression(&a[2]).map(|e| format!("long {} = {e};", &a[1]));
            (declared.unwrap_or_default(), false)
        } else if let Some(a) = AUGMENTED.captures(text) {
            // `it += 3` steps a counter; a name it changes is no longer one value
            let op = if &a[2] == "//" { "/" } else { &a[2] };
            let e = c_expression(&a[3]).unwrap_or_else(|| "python_value".into());
            (format!("{} {op}= {e};", &a[1]), false)
        } else {
            let tensors = reassigned(text);
            let other = || tensors.trim_start().to_string();
            (tuple_assignment(text).unwrap_or_else(other), false)
        }
    };
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut calls = Vec::new();
    let mut loop_heads = Vec::new();
    // the indentation of each open block, and whether it is an `if`'s (else a `def`'s or a
    // loop's)
    let mut open: Vec<(usize, bool)> = Vec::new();
    // the indentation and the parameters of each open `def`
    let mut in_def: Vec<(usize, Vec<String>)> = Vec::new();
    // an `if` whose block ended on its own line, for an `elif` or `else` right after it
    let mut inline_if: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let Some(Statement { text, raw }) = &statements[i] else {
            out.push(String::new());
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        let mut c = String::new();
        let mut closed_if = None;
        if !text.is_empty() {
            while in_def.last().is_some_and(|(d, _)| indent <= *d) {
                in_def.pop();
            }
            closed_if = inline_if.take().filter(|&d| d == indent);
            while let Some(&(d, is_if)) = open.last().filter(|(d, _)| indent <= *d) {
                open.pop();
                c.push_str("} ");
                closed_if = (is_if && d == indent).then_some(d);
            }
        }
        if i == 0 {
            // the module's statements, in a function no `def` of the file is named as (a
            // script's own `def main():` is one of them)
            c.insert_str(0, "void python_module() { ");
        }
        let params: &[String] = in_def.last().map_or(&[], |(_, p)| p);
        // the statement after a header's colon, on its line: shaped, and the block closed
        let on_header_line = |body: &str, raw_body: &str, calls: &mut Vec<(usize, String)>| {
            let (shaped, launches) = simple(body, raw_body, params);
            if launches {
                calls.push((i + 1, raw.clone()));
            }
            format!(" {shaped} }}")
        };
        if let Some(d) = calls::Def::of(text) {
            c.push_str(&d.c_head());
            open.push((indent, false));
            in_def.push((indent, d.params.into_iter().map(|(p, _)| p).collect()));
        } else if let Some(h) = loops::header(text, raw, &lists) {
            c.push_str(&h.opening);
            let head = branches::top_level_colon(raw).map_or(raw.as_str(), |c| &raw[..c]);
            loop_heads.push(PythonLoop {
                line: i + 1,
                head: format!("{}:", head.trim()),
                why_not: h.why_not,
            });
            match h.body {
                Some((body, raw_body)) => c.push_str(&on_header_line(body, raw_body, &mut calls)),
                None => open.push((indent, false)),
            }
        } else if let Some(h) = branches::header(text, raw) {
            c.push_str(&branches::opening(&h, closed_if.is_some()));
            let is_if = h.keyword != branches::Keyword::Else;
            match h.body {
                Some((body, raw_body)) => {
                    c.push_str(&on_header_line(body, raw_body, &mut calls));
                    inline_if = is_if.then_some(indent);
                }
                None => open.push((indent, is_if)),
            }
        } else if let Some(b) = benchmark::shape(host, text, raw, &defs, &handles) {
            c.push_str(&b.c);
            if b.launches {
                calls.push((i + 1, raw.clone()));
            }
            loop_heads.push(PythonLoop {
                line: i + 1,
                head: b.head,
                why_not: b.why_not,
            });
        } else {
            let (shaped, launches) = simple(text, raw, params);
            if launches {
                calls.push((i + 1, raw.clone()));
            }
            c.push_str(&shaped);
        }
        out.push(arrays::as_c(c));
    }
    for (line, cpp) in sources {
        let shaped = &mut out[line];
        shaped.push(' ');
        shaped.push_str(&cpp);
    }
    let mut text = out.join("\n");
    for _ in &open {
        text.push_str(" }");
    }
    text.push_str(" }\n");
    Shaped {
        text,
        calls,
        loops: loop_heads,
    }
}

/// The names `code` assigns a list (or tuple) of integers once and otherwise only reads whole
/// (`sizes = [512, 1024]`, then `for n in sizes:`): no method call on it (`sizes.append(…)`),
/// no item read or set (`sizes[0]`), no augmented assignment.
fn integer_lists(code: &str) -> Vec<String> {
    let mut assigned: Vec<(String, bool)> = Vec::new();
    for line in code.lines() {
        if let Some(a) = ASSIGNMENT.captures(line.trim()) {
            let is_list = loops::literal_list(&a[2]).is_some();
            match assigned.iter_mut().find(|(n, _)| n.as_str() == &a[1]) {
                Some(seen) => seen.1 = false,
                None => assigned.push((a[1].to_string(), is_list)),
            }
        }
    }
    assigned
        .into_iter()
        .filter(|(name, is_list)| {
            let touched = crate::launch_sites::c_text::cached_regex(&format!(
                r"\b{}\s*(?:\.|\[|[-+*/<>|&]+=)",
                regex::escape(name)
            ))
            .is_ok_and(|r| r.is_match(code));
            *is_list && !touched
        })
        .map(|(name, _)| name)
        .collect()
}

/// `w, h = 1920, 1080` as C declarations, when every value is an integer expression and none
/// uses a name assigned (Python evaluates them all first: `a, b = b, a` swaps).
fn tuple_assignment(statement: &str) -> Option<String> {
    let c = TARGETS.captures(statement)?;
    let names: Vec<&str> = c[1].split(',').map(str::trim).collect();
    // a starred name takes a list, no integer
    if names.iter().any(|n| n.starts_with('*')) {
        return None;
    }
    let value = c[2].trim();
    let mut values = split_top(value);
    if values.len() == 1 {
        values = tuple(value);
    }
    let uses_assigned = values
        .iter()
        .any(|v| names.iter().any(|n| crate::c_lex::has_word(v, n)));
    if values.len() != names.len() || uses_assigned {
        return None;
    }
    let declarations: Vec<String> = names
        .iter()
        .zip(&values)
        .map(|(n, v)| c_expression(v).map(|e| format!("long {n} = {e};")))
        .collect::<Option<_>>()?;
    Some(declarations.join(" "))
}

/// A statement of a Python host: code only (its strings blanked), and as written without its
/// comments, on one line.
struct Statement {
    text: String,
    raw: String,
}

/// The statement that starts at line `i` of `lines` (code only), joined over the lines its open
/// brackets or a trailing backslash continue it to, and how many lines it takes.
fn joined_statement(lines: &[&str], i: usize) -> (String, usize) {
    let mut text = String::new();
    let mut depth: i32 = 0;
    let mut n = 0;
    while i + n < lines.len() {
        let l = lines[i + n];
        n += 1;
        for c in l.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
        let continued = l.trim_end().ends_with('\\');
        text.push_str(l.trim_end().trim_end_matches('\\'));
        text.push(' ');
        if depth <= 0 && !continued {
            break;
        }
    }
    (text, n)
}

/// Lines `i..i + n` of the host as written, without their comments (`code_lines` are the same
/// lines code only), on one line for the report.
fn raw_statement(raw_lines: &[&str], code_lines: &[&str], i: usize, n: usize) -> String {
    let end = (i + n).min(raw_lines.len()).min(code_lines.len());
    let kept: Vec<&str> = (i..end)
        .map(|k| {
            let len = code_lines[k].trim_end().len();
            raw_lines[k].get(..len).unwrap_or(raw_lines[k])
        })
        .collect();
    one_line(&kept.join(" "))
}

/// The kernel handles of `host` and the kernel each gets.
fn kernel_handles(host: &str, code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let start = at + (line.len() - trimmed.len());
        at += line.len();
        let Some(h) = HANDLE.captures(trimmed) else {
            continue;
        };
        let open = start + h.get(0).unwrap().end() - 1;
        let Some((_, args)) = call_args(code, open) else {
            continue;
        };
        let is_raw_kernel = h[0].contains("RawKernel");
        // RawKernel(code, name, …) or name=…; get_function(name)
        let named = args.iter().find_map(|r| {
            let a = code[r.clone()].trim_start();
            a.strip_prefix("name")
                .filter(|rest| rest.trim_start().starts_with('='))
                .map(|_| r.clone())
        });
        let positional = if is_raw_kernel {
            args.get(1)
        } else {
            args.first()
        };
        let Some(r) = named.or_else(|| positional.cloned()) else {
            continue;
        };
        let arg = host[r.clone()].trim();
        let arg = arg
            .strip_prefix("name")
            .map(|a| a.trim_start().trim_start_matches('=').trim())
            .unwrap_or(arg);
        if let Some(name) = literal(arg) {
            out.push((h[1].to_string(), name));
        }
    }
    out
}

/// The value of a plain one-line Python string literal.
fn literal(arg: &str) -> Option<String> {
    let q = arg.chars().next()?;
    if !(q == '\'' || q == '"') || arg.len() < 2 || !arg.ends_with(q) {
        return None;
    }
    let body = &arg[1..arg.len() - 1];
    (!body.contains(q) && !body.contains('\\')).then(|| body.to_string())
}

/// A call of a kernel handle (`statement` is code only) as a C launch: CuPy's
/// `h(grid, block, args, shared_mem=…)` or PyCUDA's `h(*args, block=…, grid=…, shared=…)`.
fn launch(statement: &str, handles: &[(String, String)]) -> Option<String> {
    let (handle, kernel) = handles.iter().find(|(h, _)| {
        statement
            .strip_prefix(h.as_str())
            .is_some_and(|rest| rest.trim_start().starts_with('('))
    })?;
    let open = handle.len() + statement[handle.len()..].find('(')?;
    let close = matching_close(statement.as_bytes(), open)?;
    let args = split_top(&statement[open + 1..close]);
    let kwarg = |name: &str| kwarg(&args, name);
    let positional: Vec<&String> = args.iter().filter(|a| !keyword(a)).collect();
    let (grid, block, values, shared) = match (kwarg("grid"), kwarg("block")) {
        (Some(g), Some(b)) => (
            g,
            b,
            positional.into_iter().cloned().collect(),
            kwarg("shared"),
        ),
        _ => {
            let [g, b, values, ..] = positional.as_slice() else {
                return None;
            };
            (
                g.to_string(),
                b.to_string(),
                tuple(values),
                kwarg("shared_mem"),
            )
        }
    };
    let dims = |d: &str| -> Option<String> {
        let items = size_items(d);
        match items.as_slice() {
            [x] => Some(x.clone()),
            [_, ..] => Some(format!("dim3({})", items.join(", "))),
            [] => None,
        }
    };
    let values: Vec<String> = values.iter().map(|v| argument(v)).collect();
    let mut config = vec![dims(&grid)?, dims(&block)?];
    if let Some(s) = shared.and_then(|s| c_expression(&s)) {
        config.push(s);
    }
    Some(format!(
        "{kernel}<<<{}>>>({});",
        config.join(", "),
        values.join(", ")
    ))
}

/// The components of a size tuple (`(n // 256, 1)`) as C. One kerncast cannot read stays as
/// written, so that the launch is still found and its error names what is not read.
fn size_items(d: &str) -> Vec<String> {
    tuple(d)
        .iter()
        .map(|e| c_expression(e).unwrap_or_else(|| e.replace("//", "/")))
        .collect()
}

/// A kernel argument as C: `cp.int32(n)` and `np.float32(a)` pass `n` and `a`.
fn argument(v: &str) -> String {
    let v = v.trim();
    let v = SCALAR
        .captures(v)
        .map_or(v.to_string(), |c| c[1].trim().to_string());
    c_expression(&v).unwrap_or(v)
}

/// Whether a call's argument is a keyword argument (`block=(128, 1, 1)`, not `a == b`).
fn keyword(arg: &str) -> bool {
    arg.split_once('=')
        .is_some_and(|(k, v)| bare(k.trim()) && !v.starts_with('='))
}

/// The value of the keyword argument `name` among a call's `args`.
fn kwarg(args: &[String], name: &str) -> Option<String> {
    args.iter().find_map(|a| {
        let (k, v) = a.split_once('=')?;
        (k.trim() == name && !v.starts_with('=')).then(|| v.trim().to_string())
    })
}

fn bare(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The items of a tuple or list written as one (`(a, b)`, `(a,)`, `[a, b]`), or the one value.
fn tuple(s: &str) -> Vec<String> {
    let s = s.trim();
    let inner = s
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| s.strip_prefix('[').and_then(|r| r.strip_suffix(']')));
    match inner {
        Some(i) if matching_close(s.as_bytes(), 0) == Some(s.len() - 1) => split_top(i)
            .into_iter()
            .filter(|x| !x.trim().is_empty())
            .collect(),
        _ => vec![s.to_string()],
    }
}

/// An integer expression of Python as C, when it uses only names, numbers, brackets and
/// operators both languages share (`//` is C's `/` on the non-negative sizes of a launch).
fn c_expression(e: &str) -> Option<String> {
    let e = e.trim();
    // `.`: an attribute or a float; `**`: a power, which C does not write so
    if e.is_empty()
        || e.contains("**")
        || e.contains(['[', '{', ',', '\'', '"', '@', ':', '=', '.'])
    {
        return None;
    }
    static CALL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_]\w*\s*\(").unwrap());
    static INT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bint\s*\(").unwrap());
    let e = INT.replace_all(e, "(");
    if CALL.is_match(&e) {
        return None;
    }
    let words_ok = e
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .all(|w| {
            ![
                "and", "or", "not", "if", "else", "for", "in", "lambda", "None", "True", "False",
            ]
            .contains(&w)
        });
    words_ok.then(|| e.replace("//", "/"))
}

/// The top-level comma-separated items of `s`, trimmed.
fn split_top(s: &str) -> Vec<String> {
    let wrapped = format!("({s})");
    arg_texts(&wrapped, 0)
        .map(|(_, items)| items.into_iter().map(String::from).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUPY: &str = r#"import cupy as cp
# a comment with 'quotes' and __global__
add = cp.RawKernel(r'''
extern "C" __global__
void my_add(const float *x, float *y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] += x[i];  // "\n" stays as written in a raw string
}
''', 'my_add')
n = 1 << 20
threads: int = 256
add(((n + threads - 1) // threads,), (threads,),
    (x, y, cp.int32(n)), shared_mem=0)  # grid, block, args
"#;

    #[test]
    fn a_program_in_a_python_string_keeps_its_host_lines() {
        let ps = programs(CUPY, "add.py");
        assert_eq!(ps.len(), 1);
        let p = &ps[0];
        assert_eq!((p.line, p.variable.as_deref()), (3, None));
        assert!(p.text.contains(r#"// "\n" stays"#), "{}", p.text);
        // the kernel's line is the host's
        let at = p
            .text
            .lines()
            .position(|l| l.starts_with("void my_add"))
            .unwrap();
        assert_eq!(p.host_line(at + 1), 5);
        // escapes are decoded outside raw strings; f-strings are not programs
        let escaped = "src = \"\"\"__global__ void k(int *x) {\\n  x[0] = 1;\\n}\"\"\"\n";
        let p = &programs(escaped, "e.py")[0];
        assert_eq!(p.variable.as_deref(), Some("src"));
        let code: Vec<&str> = p.text.lines().filter(|l| !l.starts_with("#line")).collect();
        assert_eq!(code, ["__global__ void k(int *x) {", "  x[0] = 1;", "}"]);
        assert!(programs("f = f'''__global__ void k{n}(int *x) {{}}'''\n", "f.py").is_empty());
    }

    /// The options of the call that compiles the program at `line` or in `source`.
    pub(super) fn options_for(
        host: &str,
        line: usize,
        source: Option<&str>,
    ) -> Result<Option<(usize, String, Vec<String>)>, String> {
        compile_call(host, line, source).map_or(Ok(None), |c| c.options())
    }

    fn name_expressions(host: &str, line: usize, source: Option<&str>) -> Vec<(String, usize)> {
        compile_call(host, line, source).map_or_else(Vec::new, |c| c.name_expressions())
    }

    fn wrapped_in_extern_c(host: &str, line: usize, source: Option<&str>) -> bool {
        compile_call(host, line, source).is_some_and(|c| c.wraps_in_extern_c())
    }

    #[test]
    fn the_options_a_program_is_compiled_with_are_read_from_its_call() {
        let host = r#"k = cp.RawKernel(r'''__global__ void a() {}''', 'a', options=('-DREPS=3', "--std=c++17"))
CODE = """__global__ void b() {}"""
m = cp.RawModule(code=CODE, options=flags)
OTHER = """__global__ void c() {}"""
s = SourceModule(OTHER)
"#;
        assert_eq!(
            options_for(host, 1, None),
            Ok(Some((
                1,
                "RawKernel call".to_string(),
                vec!["-DREPS=3".to_string(), "--std=c++17".to_string()]
            )))
        );
        assert_eq!(
            options_for(host, 2, Some("CODE")),
            Err("`options=flags` at line 3 is not a tuple of strings this file fixes".into())
        );
        assert_eq!(options_for(host, 4, Some("OTHER")), Ok(None));
        // a template's instances, commas inside their names
        let host = "CODE = '''template <int R> __global__ void k() {}'''\nm = cp.RawModule(code=CODE, name_expressions=('k<1>', \"ns::t<float, 3>\",))\n";
        assert_eq!(
            name_expressions(host, 1, Some("CODE")),
            [("k<1>".to_string(), 2), ("ns::t<float, 3>".to_string(), 2)]
        );
        assert!(name_expressions(host, 1, Some("OTHER")).is_empty());
        // PyCUDA wraps its program in `extern "C"` unless told not to; CuPy does not
        let host = "a = SourceModule(A)\nb = SourceModule(B, no_extern_c=True)\nc = cp.RawModule(code=C)\n";
        let wrapped: Vec<bool> = [(1, "A"), (2, "B"), (3, "C")]
            .iter()
            .map(|&(line, source)| wrapped_in_extern_c(host, line, Some(source)))
            .collect();
        assert_eq!(wrapped, [true, false, false]);
    }

    #[test]
    fn a_python_host_is_shaped_as_c_line_for_line() {
        let shaped = shape(CUPY);
        let lines: Vec<&str> = shaped.text.lines().collect();
        assert_eq!(lines.len(), CUPY.split('\n').count());
        assert_eq!(lines[9], "long n = 1 << 20;");
        assert_eq!(lines[10], "long threads = 256;");
        assert_eq!(
            lines[11],
            "my_add<<<(n + threads - 1) / threads, threads, 0>>>(x, y, n);"
        );
        // the comment's quotes and `__global__` are not code
        assert_eq!(lines[1], "");
        assert_eq!(
            shaped.calls,
            [(
                12,
                "add(((n + threads - 1) // threads,), (threads,), (x, y, cp.int32(n)), shared_mem=0)"
                    .to_string()
            )]
        );
    }

    #[test]
    fn a_tuple_assignment_of_integers_is_one_declaration_each() {
        let lines: Vec<String> =
            shape("w, h = 1920, 1080\n(a, b) = (w // 2, 4)\nb, a = a, b\np, q = size()\n")
                .text
                .lines()
                .map(String::from)
                .collect();
        assert_eq!(
            lines[0],
            "void python_module() { long w = 1920; long h = 1080;"
        );
        assert_eq!(lines[1], "long a = w / 2; long b = 4;");
        // a swap reads what it assigns; a call's result is not read
        assert_eq!((lines[2].as_str(), lines[3].as_str()), ("", ""));
    }

    #[test]
    fn launches_in_branches_the_file_s_values_rule_out_are_not_taken() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
threads = 256
n = 1 << 20
if threads == 128:
    k((n // 128,), (128,), (x, cp.int32(n)))
elif threads == 256:

    k((n // 256,), (256,), (x, cp.int32(n)))
else:
    k((n // 512,), (512,), (x, cp.int32(n)))
if threads > 1000: k((1,), (1,), (x, cp.int32(1)))
else: k((2,), (n // 2,), (x, cp.int32(n)))
for i in range(3):
    pass
else:
    k((3,), (3,), (x, cp.int32(n)))
"#;
        let lines: Vec<String> = shape(host).text.lines().map(String::from).collect();
        assert_eq!(lines[3], "if ((threads == 128)) {");
        assert_eq!(lines[5], "} else if ((threads == 256)) {");
        assert_eq!(lines[8], "} else {");
        assert_eq!(
            lines[10],
            "} if ((threads > 1000)) { scale<<<1, 1>>>(x, 1); }"
        );
        assert_eq!(lines[11], "else { scale<<<2, n / 2>>>(x, n); }");
        // a `for`'s `else` is no branch: it closes the loop's block and opens a plain one
        assert_eq!(lines[12], "for (long i = 0; i < 3; i += 1) {");
        assert_eq!(lines[14], "} {");
        let host_file = crate::launch_sites::HostFile::python(host, None);
        let params = ["x".to_string(), "n".to_string()];
        let blocks: Vec<[u64; 3]> = host_file
            .workloads("scale", &params, &[])
            .iter()
            .map(|w| w.resolve().unwrap().block)
            .collect();
        assert_eq!(blocks, [[256, 1, 1], [1 << 19, 1, 1], [3, 1, 1]]);
    }

    /// A `while` loop whose body steps its counter counts as C's does.
    #[test]
    fn a_python_while_loop_with_a_counter_is_counted() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
n = 1 << 20
it = 0
while it < 12:
    k((n // 256,), (256,), (x, cp.int32(n)))
    it += 3
"#;
        let params = ["x".to_string(), "n".to_string()];
        let w = crate::launch_sites::HostFile::python(host, None).workloads("scale", &params, &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(
            w[0].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 4 times (line 5: 4 times, in `while it < 12:`): \
             4.000 ms in all"
        );
    }

    /// A Python size sweep, over a list written in the loop or once before it, is predicted at
    /// each size; a list the code changes is not read.
    #[test]
    fn a_python_size_sweep_over_a_list_is_predicted_at_each_size() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
sizes = [1 << 16, 1 << 20]
for n in sizes:
    k(((n + 255) // 256,), (256,), (x, cp.int32(n)))
for m in (4096, 8192):
    for rep in range(10):
        k((m // 256,), (256,), (x, cp.int32(m)))
"#;
        let params = ["x".to_string(), "n".to_string()];
        let ws = crate::launch_sites::HostFile::python(host, None).workloads("scale", &params, &[]);
        let sizes: Vec<i64> = ws
            .iter()
            .map(|w| w.resolve().unwrap().params["n"])
            .collect();
        assert_eq!(sizes, [1 << 16, 1 << 20, 4096, 8192]);
        assert!(
            ws[1]
                .origin
                .as_deref()
                .unwrap()
                .contains("n = 1048576 (2 of 2 values of `for n in sizes:`, line 3)"),
            "{:?}",
            ws[1].origin
        );
        // the loop inside the sweep still repeats each size's launch
        assert!(ws[3]
            .runs_note(1e-3, None)
            .unwrap()
            .starts_with("the host code runs this launch 10 times"));
        let changed = host.replace("for n in sizes:", "sizes.append(7)\nfor n in sizes:");
        let ws =
            crate::launch_sites::HostFile::python(&changed, None).workloads("scale", &params, &[]);
        assert_eq!(ws.len(), 3, "{ws:?}");
        let err = ws[0].resolve().unwrap_err();
        assert!(err.contains("undefined name `n`"), "{err}");
        assert!(ws[0]
            .runs_note(1e-3, None)
            .unwrap()
            .contains("a `for` over `sizes`, not over a `range` or a list of integers"));
    }

    /// The `scale(x, n)` launches of a Python host: each one's `n` and note on its runs.
    fn runs_by_size(host: &str) -> Vec<(i64, String)> {
        let params = ["x".to_string(), "n".to_string()];
        crate::launch_sites::HostFile::python(host, None)
            .workloads("scale", &params, &[])
            .iter()
            .map(|w| {
                let n = w.resolve().unwrap().params["n"];
                (n, w.runs_note(1e-3, None).unwrap_or_default())
            })
            .collect()
    }

    /// A Python timing helper runs the lambda or the function it is given as often as it calls
    /// it: warm-up and timed loops, its default arguments and a call's keywords.
    #[test]
    fn a_launch_given_to_a_python_timing_helper_runs_as_often_as_the_helper_calls_it() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
def bench(fn, reps=100, warmup=3):
    for _ in range(warmup):
        fn()
    for _ in range(reps): fn()
def step(n):
    k(((n + 255) // 256,), (256,), (x, cp.int32(n)))
n = 1 << 20
t = bench(lambda: k((n // 256,), (256,), (x, cp.int32(n))), reps=20)
bench(lambda: step(4096), warmup=0)
"#;
        let runs = runs_by_size(host);
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!(
            runs.iter().find(|(n, _)| *n == 1 << 20).unwrap().1,
            "the host code runs this launch 23 times (line 9, called at line 4 as `fn()`, called \
             at line 9: 3 times, in `for _ in range(warmup):`; line 9, called at line 5 as \
             `fn()`, called at line 9: 20 times, in `for _ in range(reps):`): 23.000 ms in all"
        );
        // `warmup=0` skips the warm-up loop's runs
        assert!(
            runs.iter()
                .find(|(n, _)| *n == 4096)
                .unwrap()
                .1
                .starts_with("the host code runs this launch 100 times"),
            "{runs:?}"
        );
    }

    /// An array's size (`x.size`, `len(x)`) is the count it is made with.
    #[test]
    fn a_launch_sized_by_an_array_takes_the_array_s_count() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
x = cp.random.rand(1 << 20).astype(cp.float32)
n = x.size
k(((n + 255) // 256,), (256,), (x, cp.int32(n)))
m = cp.zeros((512, 256), dtype=cp.float32)
k((m.size // 128,), (128,), (m, cp.int32(len(m))))
y = cp.empty_like(x)
k((len(y) // 256,), (256,), (y, cp.int32(y.shape[0])))
"#;
        let params = ["x".to_string(), "n".to_string()];
        let ws = crate::launch_sites::HostFile::python(host, None).workloads("scale", &params, &[]);
        let sized: Vec<(u64, Option<i64>)> = ws
            .iter()
            .map(|w| {
                let r = w.resolve().unwrap();
                (r.grid[0], r.params.get("n").copied())
            })
            .collect();
        // `len(m)` of an array of two dimensions is its first, not its size: not read
        assert_eq!(
            sized,
            [(4096, Some(1 << 20)), (1024, None), (4096, Some(1 << 20))]
        );
    }

    /// A script's `def main():`, called under `if __name__ == "__main__":`, is called once per
    /// call of it, and a method's array parameter is not an array of the module.
    #[test]
    fn a_script_s_main_is_called_once_and_a_parameter_hides_the_module_s_array() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
def launch(x):
    n = x.size
    k(((n + 255) // 256,), (256,), (x, cp.int32(n)))
def main():
    x = cp.zeros(4096)
    for _ in range(3):
        k((x.size // 256,), (256,), (x, cp.int32(x.size)))
if __name__ == "__main__":
    for rep in range(2):
        main()
"#;
        let params = ["x".to_string(), "n".to_string()];
        let ws = crate::launch_sites::HostFile::python(host, None).workloads("scale", &params, &[]);
        assert_eq!(ws.len(), 2, "{ws:?}");
        let err = ws[0].resolve().unwrap_err();
        assert_eq!(err, "undefined name `n` in a workload expression");
        assert_eq!(
            ws[1].runs_note(1e-3, None).unwrap(),
            "the host code runs this launch 6 times (line 8, called at line 11: 3 × 2 = 6 times, \
             in `for _ in range(3):` inside `for rep in range(2):`): 6.000 ms in all"
        );
    }

    /// A script that sizes a launch, then sizes it and remakes its array again for a second one:
    /// each launch takes the values assigned last before it.
    #[test]
    fn a_script_that_reassigns_its_sizes_launches_each_with_the_values_before_it() {
        let host = r#"k = cp.RawKernel(CODE, 'scale')
n = 1 << 20
x = cp.ones(n, dtype=cp.float32)
blocks = (n + 255) // 256
k((blocks,), (256,), (x, cp.int32(n)))
n = 1 << 24
x = cp.ones(n, dtype=cp.float32)
blocks = (n + 255) // 256
k((blocks,), (256,), (x, cp.int32(n)))
k(((x.size + 255) // 256,), (256,), (x, cp.int32(x.size)))
"#;
        let params = ["x".to_string(), "n".to_string()];
        let ws = crate::launch_sites::HostFile::python(host, None).workloads("scale", &params, &[]);
        let sizes: Vec<Result<([u64; 3], i64), String>> = ws
            .iter()
            .map(|w| {
                let r = w.resolve()?;
                Ok((r.grid, r.params["n"]))
            })
            .collect();
        // the array made again has the size it was made with last
        assert_eq!(
            sizes,
            [
                Ok(([4096, 1, 1], 1 << 20)),
                Ok(([1 << 16, 1, 1], 1 << 24)),
                Ok(([1 << 16, 1, 1], 1 << 24))
            ]
        );
    }

    /// `cupyx.profiler.benchmark` runs its function `n_warmup` + `n_repeat` times.
    #[test]
    fn a_launch_timed_by_cupy_s_benchmark_runs_its_warm_up_and_repeats() {
        let host = r#"from cupyx.profiler import benchmark
k = cp.RawKernel(CODE, 'scale')
def step(x, n):
    k(((n + 255) // 256,), (256,), (x, cp.int32(n)))
print(benchmark(step, (x, 1 << 20), n_repeat=20))
benchmark(lambda: step(x, 4096), n_repeat=5, max_duration=1.0)
"#;
        let runs = runs_by_size(host);
        assert_eq!(
            runs,
            [
                (
                    1 << 20,
                    "the host code runs this launch 30 times (line 4, called at line 5: 30 \
                     times, in `benchmark(step, (x, 1 << 20), n_repeat=20)`): 30.000 ms in all"
                        .to_string()
                ),
                (
                    4096,
                    "the launch at line 4, called at line 6 is in a host loop whose trips \
                     kerncast cannot count (`benchmark(lambda: step(x, 4096), n_repeat=5, \
                     max_duration=1.0)`: `max_duration=1.0` stops the repeats once they take \
                     longer, which only a run knows): the figures are one launch's"
                        .to_string()
                )
            ]
        );
    }

    /// Launches in `for … in range(…)` loops are counted, and the note shows the loops as
    /// written in Python; a loop over an iterable says why it is not counted.
    #[test]
    fn launches_in_python_loops_are_counted_as_written() {
        let counted = r#"k = cp.RawKernel(CODE, 'scale')
n = 1 << 20
for epoch in range(10):
    for i in range(0, n, n // 4):
        k((n // 256,), (256,), (x, cp.int32(n)))
"#;
        let params = ["x".to_string(), "n".to_string()];
        let note = |host: &str| {
            let w =
                crate::launch_sites::HostFile::python(host, None).workloads("scale", &params, &[]);
            assert_eq!(w.len(), 1, "{w:?}");
            w[0].runs_note(1e-3, None).unwrap()
        };
        assert_eq!(
            note(counted),
            "the host code runs this launch 40 times (line 5: 4 × 10 = 40 times, in \
             `for i in range(0, n, n // 4):` inside `for epoch in range(10):`): 40.000 ms in all"
        );
        let iterable =
            format!("{counted}for b in loader:\n    k((n // 256,), (256,), (x, cp.int32(n)))\n");
        assert_eq!(
            note(&iterable),
            "the launch at line 7 is in a host loop whose trips kerncast cannot count \
             (`for b in loader:`: a `for` over `loader`, not over a `range` or a list of \
             integers): the figures are one launch's"
        );
    }

    #[test]
    fn pycuda_launches_and_calls_of_the_file_s_functions_are_shaped_too() {
        let host = r#"mod = SourceModule("""
__global__ void scale(float *x, int n) { }
""")
scale = mod.get_function("scale")
def run(n, block=128):
    scale(x, np.int32(n), block=(block, 1, 1), grid=(n // block, 1))
    m = len(x)
run(4096)
run(compute(5))
scale(x, np.int32(m), block=(128, 1, 1), grid=(len(x) // 128, 1))
"#;
        let lines: Vec<String> = shape(host).text.lines().map(String::from).collect();
        assert_eq!(lines[4], "void run(long n, long block = 128) {");
        assert_eq!(
            lines[5],
            "scale<<<dim3(n / block, 1), dim3(block, 1, 1)>>>(x, n);"
        );
        // `len(x)` is a call: not an integer kerncast can read
        assert_eq!(lines[6], "");
        assert_eq!(lines[7], "} run(4096);");
        assert_eq!(lines[8], "");
        // a size that is not read stays as written, for the error to name
        assert_eq!(
            lines[9],
            "scale<<<dim3(len(x) / 128, 1), dim3(128, 1, 1)>>>(x, m);"
        );
    }

    /// A `load_inline` module's functions are followed into their C++, with the shapes of the
    /// tensors the Python code passes them.
    #[test]
    fn a_load_inline_call_gives_its_launch_the_tensors_shape() {
        let host = r#"from torch.utils.cpp_extension import load_inline
src = r'''
__global__ void k(const float *x, int n, int cols) {}
void run(torch::Tensor x) {
  const int n = x.numel();
  k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n, x.size(-1));
}
'''
ext = load_inline("ext", cpp_sources="void run(torch::Tensor x);", cuda_sources=src)
a = torch.randn(64, 4096, device="cuda").half()
b = torch.empty_like(a)
for _ in range(3):
    ext.run(b.contiguous())
a = a * 2
ext.run(a)
"#;
        let lines: Vec<String> = shape(host).text.lines().map(String::from).collect();
        assert_eq!(
            lines[2],
            " __global__ void k(const float *x, int n, int cols) {}"
        );
        assert_eq!(
            lines[9],
            "std::vector<float> a((64) * (4096)); \
             torch::Tensor a = torch::empty({64, 4096}, torch::kHalf);"
        );
        assert_eq!(lines[12], "run(b);");
        assert_eq!(lines[13], "} a = python_value;");
        // among several names too; moved or cast, it keeps its shape
        let swapped = shape("t = torch.randn(8)\nt, u = t * 2, t\n");
        assert_eq!(swapped.text.lines().nth(1), Some("t = python_value;"));
        let moved = shape("t = torch.randn(8)\nt = t.cuda().half()\n");
        assert_eq!(moved.text.lines().nth(1), Some(""));
        let params = ["x".to_string(), "n".to_string(), "cols".to_string()];
        let specs = crate::launch_sites::HostFile::python(host, None).workloads("k", &params, &[]);
        // `b`'s shape is `a`'s as made; `a` assigned again has none
        let resolved: Vec<_> = specs.iter().map(|s| s.resolve()).collect();
        assert_eq!(resolved.len(), 2, "{specs:#?}");
        let w = resolved[0].as_ref().unwrap();
        assert_eq!(
            (w.grid[0], w.params["n"], w.params["cols"]),
            (1024, 262144, 4096)
        );
        assert!(resolved[1].is_err());
        assert!(
            specs[1].unset["n"].contains("reads `x.numel`"),
            "{:?}",
            specs[1].unset
        );
    }
}
