//! OpenCL host code's launches, read as [`LaunchSite`]s so that the rules for CUDA's `<<<…>>>`
//! apply to them unchanged:
//!
//! ```text
//! cl_kernel k = clCreateKernel(program, "saxpy", &err);     // C++: cl::Kernel k(program, "saxpy");
//! clSetKernelArg(k, 0, sizeof(int), &n);                    //      k.setArg(0, n);
//! clSetKernelArg(k, 4, TILE * TILE * sizeof(float), NULL);  //      k.setArg(4, cl::Local(…));
//! clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
//!                     // queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(…), cl::NDRange(…));
//! ```
//!
//! The kernel is the one named in the call that made the kernel object: a string literal, or a
//! string the file fixes (a variable declared once with one, a `#define`). An argument is the
//! one set last before the launch and after the object was made, by a literal index or a
//! counter (`i++` after `i = 0`).
//! OpenCL counts work-items where CUDA counts blocks, so the grid is ⌈global / local⌉ in each
//! dimension. A local size left to the runtime (`NULL`, `cl::NullRange`) is not guessed: the
//! block reads `local_size` (`local_size_x`, `_y`, `_z` in 2-D and 3-D), which the workload then
//! asks for, unless the kernel requires a size (`reqd_work_group_size`,
//! [`with_required_local_size`]). `__local` arguments add up to the launch's dynamic shared memory.
//!
//! `clSetKernelArg` and `clEnqueueNDRangeKernel` read through the addresses they are given, so
//! [`blank_read_only_addresses`] hides those `&`s from the rule that a variable whose address
//! is taken may change.

use super::c_text::{arg_texts, bracket_after_once, call_args, dim3_parts, one_line, strip_parens};
use super::callers;
use super::LaunchSite;
use crate::workload::split_top;
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// `k = clCreateKernel(` or `k = cl::Kernel(`: the object and, at the bracket, its arguments.
static CREATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([A-Za-z_][\w.\[\]>-]*?)\s*=\s*(?:clCreateKernel|cl::Kernel)\s*[({]").unwrap()
});
/// `cl::Kernel k(`: a C++ kernel object declared with its program and name.
static CPP_DECLARE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bcl::Kernel\s+([A-Za-z_]\w*)\s*[({]").unwrap());
static SET_ARG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bclSetKernelArg\s*\(").unwrap());
static CPP_SET_ARG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([A-Za-z_][\w.\[\]>-]*?)\s*(?:\.|->)\s*setArg\s*\(").unwrap());
/// A launch: C's two calls (`c`), or C++'s member functions (`task` for `enqueueTask`).
static ENQUEUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?P<c>clEnqueueNDRangeKernel|clEnqueueTask)\s*\(|(?:\.|->)\s*(?:enqueueNDRangeKernel|(?P<task>enqueueTask))\s*\(",
    )
    .unwrap()
});
/// A C++ kernel functor called with its launch sizes: `vadd(cl::EnqueueArgs(queue, …), …)`.
static FUNCTOR_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?P<functor>[A-Za-z_]\w*)\s*\(\s*(?:cl::)?EnqueueArgs\s*[({]").unwrap()
});
/// A C++ kernel functor made from a program: `auto f = cl::KernelFunctor<…>(program, "f")`
/// or `cl::make_kernel<…> f(program, "f")`.
static FUNCTOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:\b(?P<assigned>[A-Za-z_]\w*)\s*=\s*)?(?:cl::)?(?:KernelFunctor|make_kernel)\s*<[^;()]*>\s*(?P<declared>[A-Za-z_]\w*)?\s*\(",
    )
    .unwrap()
});
static ND_RANGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bclEnqueueNDRangeKernel\s*\(").unwrap());
static VOID_CAST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\(\s*(?:const\s+)?(?:void|char|size_t|std::size_t)\s*\*\s*\)\s*").unwrap()
});
static CPP_LOCAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:cl::)?(?:Local|__local)\s*\((.*)\)$").unwrap());

/// Whether `text` launches OpenCL kernels at all (the rest of this module is skipped if not).
pub(super) fn mentions(text: &str) -> bool {
    text.contains("clEnqueue") || text.contains("enqueueNDRangeKernel")
}

/// A kernel object made from a program: `var` as written (white space removed).
struct KernelObject {
    var: String,
    at: usize,
    /// The kernel it names; `None` when the name is not a string literal.
    name: Option<String>,
}

/// What one argument is set to.
#[derive(Clone, Debug, PartialEq)]
enum ArgValue {
    /// A value, as C text: `n` for `&n`.
    Value(String),
    /// `__local` memory of this many bytes.
    Local(String),
    /// A pointer the text does not resolve (`clSetKernelArg(k, 0, sizeof(int), p)`).
    Unread,
}

struct ArgSet {
    var: String,
    at: usize,
    index: usize,
    value: ArgValue,
}

/// One launch in the code: an enqueue, or a call of a kernel functor.
struct Enqueue {
    at: usize,
    /// The call, from its name to its `)`.
    span: Range<usize>,
    /// The kernel object, as written without white space and a C++ `()` (`k()` is `k`).
    var: String,
    /// `work_dim` as written (C's `clEnqueueNDRangeKernel` only).
    dims: Option<String>,
    /// `None` for a task: one work-item.
    global: Option<String>,
    local: Option<String>,
    /// The arguments the call itself passes (a functor's); else they are set before it.
    passed: Option<Vec<ArgValue>>,
}

/// Every OpenCL launch of `text` (`code` is `text` with comments and strings blanked).
pub(super) fn launches(text: &str, code: &str) -> Vec<LaunchSite> {
    let objects = kernel_objects(text, code);
    let sets = arg_sets(code);
    let mut out = Vec::new();
    for e in enqueues(code) {
        for (name, values, in_call) in bindings(code, &objects, &sets, &e) {
            if let Some(site) = site(text, code, &e, name, values, in_call) {
                out.push(site);
            }
        }
    }
    out
}

/// The enqueues and functor calls of `code`.
fn enqueues(code: &str) -> Vec<Enqueue> {
    let mut out = Vec::new();
    for m in ENQUEUE
        .captures_iter(code)
        .chain(FUNCTOR_CALL.captures_iter(code))
    {
        let whole = m.get(0).unwrap();
        let functor = m.name("functor");
        let open = match functor {
            Some(f) => f.end() + code[f.end()..].find('(').unwrap_or(0),
            None => whole.end() - 1,
        };
        let Some((close, args)) = arg_texts(code, open) else {
            continue;
        };
        let arg = |k: usize| args.get(k).map(|a| a.to_string());
        let api = m.name("c").map(|g| g.as_str());
        let mut e = Enqueue {
            at: whole.start(),
            span: whole.start()..close + 1,
            var: String::new(),
            dims: None,
            global: None,
            local: None,
            passed: None,
        };
        match (api, functor) {
            (Some("clEnqueueTask"), _) => e.var = arg(1).unwrap_or_default(),
            (Some(_), _) => {
                (e.var, e.dims, e.global, e.local) =
                    (arg(1).unwrap_or_default(), arg(2), arg(4), arg(5));
            }
            (None, Some(f)) => {
                let Some(ranges) = args.first().and_then(|a| enqueue_args(code, a)) else {
                    continue;
                };
                e.var = f.as_str().to_string();
                (e.global, e.local) = ranges;
                e.passed = Some(args[1..].iter().map(|a| cpp_value(a)).collect());
            }
            (None, None) if m.name("task").is_some() => e.var = arg(0).unwrap_or_default(),
            (None, None) => {
                (e.var, e.global, e.local) = (arg(0).unwrap_or_default(), arg(2), arg(3))
            }
        }
        e.var = object_var(&e.var);
        if e.global.is_none() && api != Some("clEnqueueTask") && m.name("task").is_none() {
            continue;
        }
        out.push(e);
    }
    out.sort_by_key(|e| e.at);
    out
}

/// The global and local sizes of `cl::EnqueueArgs(queue, global[, local])` (the queue and an
/// offset are optional).
fn enqueue_args(code: &str, call: &str) -> Option<(Option<String>, Option<String>)> {
    let open = call.find('(')?;
    let inner = call[open + 1..].strip_suffix(')')?;
    let args = split_top(inner);
    // a size, not a queue: an `NDRange`, a number, or a variable declared `cl::NDRange`
    let sized = |a: &String| {
        let a = a.trim();
        let declared = || {
            crate::launch_sites::c_text::cached_regex(&format!(
                r"\bcl::NDRange\s+{}\s*[({{]",
                regex::escape(a)
            ))
            .is_ok_and(|re| re.is_match(code))
        };
        a.starts_with("cl::NDRange")
            || a.starts_with("NDRange")
            || a.starts_with(|c: char| c.is_ascii_digit())
            || declared()
    };
    // without a queue first, the sizes start at once
    let sizes = if args.first().is_some_and(sized) || args.len() == 1 {
        &args[..]
    } else {
        &args[1..]
    };
    match sizes {
        [g] => Some((Some(g.clone()), None)),
        [g, l] => Some((Some(g.clone()), Some(l.clone()))),
        [_, g, l, ..] => Some((Some(g.clone()), Some(l.clone()))),
        [] => None,
    }
}

/// The kernels `e` launches, each with the arguments set before it and, where the kernel object
/// is a parameter of the function `e` is in, the call of that function it came from.
fn bindings(
    code: &str,
    objects: &[KernelObject],
    sets: &[ArgSet],
    e: &Enqueue,
) -> Vec<(String, Vec<Option<ArgValue>>, Option<usize>)> {
    let made = |var: &str, before: usize| {
        objects
            .iter()
            .filter(|o| o.var == var)
            .min_by_key(|o| (o.at > before, o.at.abs_diff(before)))
    };
    let helper = callers::enclosing_function(code, e.at)
        .and_then(|f| Some((f.params.iter().position(|p| *p == e.var)?, f)));
    // a kernel object passed to the helper that launches it (the parameter hides any other
    // object of that name): one launch per call of the helper
    let Some((k, f)) = helper else {
        let Some(object) = made(&e.var, e.at) else {
            return Vec::new();
        };
        let values = match &e.passed {
            Some(v) => v.iter().cloned().map(Some).collect(),
            None => set_before(sets, &e.var, object.at.min(e.at), e.at, Vec::new()),
        };
        return object
            .name
            .clone()
            .map(|n| (n, values, None))
            .into_iter()
            .collect();
    };
    let mut out = Vec::new();
    for call in callers::calls(code, &f) {
        let Some(var) = call
            .args
            .get(k)
            .map(|a| object_var(a.trim_start_matches(['&', '*'])))
        else {
            continue;
        };
        let Some(object) = made(&var, call.at) else {
            continue;
        };
        let Some(name) = object.name.clone() else {
            continue;
        };
        // set by the caller before the call, then by the helper before the launch
        let values = set_before(sets, &var, object.at.min(call.at), call.at, Vec::new());
        let values = set_before(sets, &e.var, f.body.start, e.at, values);
        out.push((name, values, Some(call.at)));
    }
    out
}

/// `values` with the arguments of `var` set between `from` and `to` laid over them, the last of
/// each index winning.
fn set_before(
    sets: &[ArgSet],
    var: &str,
    from: usize,
    to: usize,
    mut values: Vec<Option<ArgValue>>,
) -> Vec<Option<ArgValue>> {
    for s in sets
        .iter()
        .filter(|s| s.var == var && s.at > from && s.at < to)
    {
        if values.len() <= s.index {
            values.resize(s.index + 1, None);
        }
        values[s.index] = Some(s.value.clone());
    }
    values
}

/// The launch `e` of kernel `name` with its arguments `values`, as a [`LaunchSite`].
fn site(
    text: &str,
    code: &str,
    e: &Enqueue,
    name: String,
    values: Vec<Option<ArgValue>>,
    in_call: Option<usize>,
) -> Option<LaunchSite> {
    let scope = callers::scope_of(code, e.at);
    // the sizes read from arrays and `cl::NDRange` variables, for the report to show
    let mut read = Vec::new();
    let mut parts = |term: &str| {
        let parts = range_parts(code, &scope, term)?;
        if super::c_text::bare_name(term).is_some() && parts != [term.trim()] {
            read.push(format!("{} = {{{}}}", term.trim(), parts.join(", ")));
        }
        Some(parts)
    };
    let (grid, block) = match &e.global {
        None => (vec!["1".to_string()], vec!["1".to_string()]),
        Some(global) => {
            let global = parts(global)?;
            let local = e.local.as_deref().and_then(&mut parts);
            if local.is_none() {
                read.push(RUNTIME_CHOOSES.into());
            }
            let dims = e
                .dims
                .as_deref()
                .and_then(|d| d.trim().parse::<usize>().ok())
                .filter(|d| (1..=3).contains(d))
                .unwrap_or(global.len().clamp(1, 3));
            launch_dims(&global, local.as_deref(), dims)
        }
    };
    let locals: Vec<String> = values
        .iter()
        .filter_map(|v| match v {
            Some(ArgValue::Local(bytes)) => Some(format!("({bytes})")),
            _ => None,
        })
        .collect();
    let mut config = vec![
        format!("dim3({})", grid.join(", ")),
        format!("dim3({})", block.join(", ")),
    ];
    if !locals.is_empty() {
        config.push(locals.join(" + "));
    }
    let shown: Vec<String> = values
        .iter()
        .map(|v| match v {
            Some(ArgValue::Value(t)) => t.clone(),
            Some(ArgValue::Local(bytes)) => format!("__local({bytes})"),
            Some(ArgValue::Unread) | None => "?".into(),
        })
        .collect();
    let call = one_line(&text[e.span.clone()]);
    let call = call.trim_start_matches(['.', '-', '>']);
    let read = if read.is_empty() {
        String::new()
    } else {
        format!("; {}", read.join(", "))
    };
    Some(LaunchSite {
        line: code[..e.at].matches('\n').count() + 1,
        at: e.at,
        config,
        args: values
            .into_iter()
            .map(|v| match v {
                Some(ArgValue::Value(t)) => t,
                _ => String::new(),
            })
            .collect(),
        call: Some(if e.passed.is_some() {
            format!("{call}{read}")
        } else {
            format!("{call} with {name}({}){read}", shown.join(", "))
        }),
        in_call,
        picked_by: Vec::new(),
        kernel: name,
    })
}

/// `code` with the `&` of the addresses `clSetKernelArg` and `clEnqueueNDRangeKernel` only read
/// (an argument's value, the offset, global and local sizes) blanked, offsets kept.
pub(super) fn blank_read_only_addresses(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    let read_only: [(&Regex, &[usize]); 2] = [(&SET_ARG, &[3]), (&ND_RANGE, &[3, 4, 5])];
    for (re, which) in read_only {
        for m in re.find_iter(code) {
            let Some((_, ranges)) = call_args(code, m.end() - 1) else {
                continue;
            };
            for r in which.iter().filter_map(|k| ranges.get(*k)) {
                for c in &mut out[r.clone()] {
                    if *c == b'&' {
                        *c = b' ';
                    }
                }
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| code.to_string())
}

/// The kernel objects `code` makes, with the kernel each names (read from `text`, whose string
/// literals `code` blanks).
fn kernel_objects(text: &str, code: &str) -> Vec<KernelObject> {
    let mut out = Vec::new();
    let found = CREATE
        .captures_iter(code)
        .chain(CPP_DECLARE.captures_iter(code))
        .chain(FUNCTOR.captures_iter(code));
    for c in found {
        let whole = c.get(0).unwrap();
        let Some(var) = c.get(1).or(c.name("declared")) else {
            continue;
        };
        let Some((_, args)) = call_args(code, whole.end() - 1) else {
            continue;
        };
        // a literal, or a string the file fixes (`const char *name = "saxpy";`, a `#define`)
        let name = args
            .get(1)
            .and_then(|r| super::cl_build::fixed_string(text, code, &text[r.clone()]).ok())
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
        out.push(KernelObject {
            var: object_var(var.as_str()),
            at: whole.start(),
            name,
        });
    }
    out
}

/// Every `clSetKernelArg` and `setArg` of `code` whose index is known.
fn arg_sets(code: &str) -> Vec<ArgSet> {
    let mut out = Vec::new();
    for (re, cpp) in [(&*SET_ARG, false), (&*CPP_SET_ARG, true)] {
        for m in re.captures_iter(code) {
            let whole = m.get(0).unwrap();
            let Some((_, args)) = arg_texts(code, whole.end() - 1) else {
                continue;
            };
            let (var, index, value) = if cpp {
                let [index, value] = args[..] else { continue };
                (object_var(&m[1]), index, cpp_value(value))
            } else {
                let [var, index, size, value] = args[..] else {
                    continue;
                };
                (object_var(var), index, c_value(size, value))
            };
            let Some(index) = arg_index(code, index, whole.start()) else {
                continue;
            };
            out.push(ArgSet {
                var,
                at: whole.start(),
                index,
                value,
            });
        }
    }
    out.sort_by_key(|s| s.at);
    out
}

/// `clSetKernelArg`'s value: `&n` (cast to `void *` or not) is `n`, a null pointer is `__local`
/// memory of `size` bytes.
fn c_value(size: &str, value: &str) -> ArgValue {
    let v = VOID_CAST.replace(value.trim(), "");
    let v = v.trim();
    if ["NULL", "nullptr", "0"].contains(&v) {
        return ArgValue::Local(size.trim().to_string());
    }
    match v.strip_prefix('&') {
        Some(x) => ArgValue::Value(strip_parens(x.trim()).to_string()),
        None => ArgValue::Unread,
    }
}

/// `setArg`'s value: passed by value, or `cl::Local(bytes)`.
fn cpp_value(value: &str) -> ArgValue {
    match CPP_LOCAL.captures(value.trim()) {
        Some(c) => ArgValue::Local(c[1].trim().to_string()),
        None => ArgValue::Value(value.trim().to_string()),
    }
}

/// An argument index: a literal, or `i++` counting on from the last `i = K` before `at`.
fn arg_index(code: &str, index: &str, at: usize) -> Option<usize> {
    let index = index.trim();
    if let Ok(k) = index.parse() {
        return Some(k);
    }
    let counter = index.strip_suffix("++")?.trim();
    if !counter.chars().all(|c| c.is_alphanumeric() || c == '_') || counter.is_empty() {
        return None;
    }
    let c = regex::escape(counter);
    let reset =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{c}\s*=\s*(\d+)\s*[;,)]")).ok()?;
    let (from, start) = reset
        .captures_iter(&code[..at])
        .last()
        .map(|m| (m.get(0).unwrap().end(), m[1].parse::<usize>().ok()))?;
    let steps = crate::launch_sites::c_text::cached_regex(&format!(r"\b{c}\s*\+\+")).ok()?;
    Some(start? + steps.find_iter(&code[from..at]).count())
}

/// A global or local size as its components: `&n` is `[n]`, an array `size_t g[2] = {a, b}` (or
/// set element by element, once each) is `[a, b]`, `cl::NDRange(a, b)` (or a variable of it)
/// is `[a, b]`. `None` for a null pointer or `cl::NullRange`: the runtime's choice.
fn range_parts(code: &str, scope: &Range<usize>, term: &str) -> Option<Vec<String>> {
    let t = VOID_CAST.replace(term.trim(), "");
    let t = t.trim();
    if ["NULL", "nullptr", "0", "cl::NullRange", "NullRange"].contains(&t) {
        return None;
    }
    if let Some(r) = t
        .strip_prefix("cl::NDRange")
        .or_else(|| t.strip_prefix("NDRange"))
    {
        return Some(dim3_parts(r).unwrap_or_else(|| vec![t.to_string()]));
    }
    if let Some(x) = t.strip_prefix('&') {
        let x = strip_parens(x.trim());
        // `&g[0]` is the array `g`
        return Some(match x.strip_suffix("[0]") {
            Some(array) => {
                array_parts(code, scope, array.trim()).unwrap_or_else(|| vec![x.to_string()])
            }
            None => vec![x.to_string()],
        });
    }
    let named = array_parts(code, scope, t).or_else(|| nd_range_variable(code, scope, t));
    Some(named.unwrap_or_else(|| vec![t.to_string()]))
}

/// The elements of the array `name`, from its initializer or from one assignment to each.
fn array_parts(code: &str, scope: &Range<usize>, name: &str) -> Option<Vec<String>> {
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') || name.is_empty() {
        return None;
    }
    let n = regex::escape(name);
    let writes = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*\[([^\]]*)\]\s*(?:[-+*/%&|^]|<<|>>)?=[^=]"
    ))
    .ok()?;
    let init = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*\[[^\]]*\]\s*=\s*\{{([^{{}}]*)\}}"
    ))
    .ok()?;
    for text in [&code[scope.clone()], &callers::file_scope(code)] {
        let all: Vec<_> = writes.captures_iter(text).collect();
        if all.is_empty() {
            continue;
        }
        if let Some(c) = init.captures(text) {
            return (all.len() == 1).then(|| split_top(&c[1]));
        }
        let mut parts: Vec<Option<String>> = Vec::new();
        for w in &all {
            let k: usize = w[1].trim().parse().ok()?;
            let stmt_end = w.get(0).unwrap().end() - 1;
            let value = text[stmt_end..].split(';').next()?.trim().to_string();
            if parts.len() <= k {
                parts.resize(k + 1, None);
            }
            if parts[k].replace(value).is_some() {
                return None;
            }
        }
        return parts.into_iter().collect();
    }
    None
}

/// The sizes of a `cl::NDRange name(a, b)` declared in scope.
fn nd_range_variable(code: &str, scope: &Range<usize>, name: &str) -> Option<Vec<String>> {
    let n = regex::escape(name);
    let decl = crate::launch_sites::c_text::cached_regex(&format!(
        r"(?:\bcl::NDRange\s+{n}\s*|\b{n}\s*=\s*cl::NDRange\s*)[({{]"
    ))
    .ok()?;
    dim3_parts(&code[bracket_after_once(code, scope, &decl)?])
}

/// What a launch's origin says when the runtime chooses its work-group size.
const RUNTIME_CHOOSES: &str = "the runtime chooses the work-group size (`local_size` here)";

/// `w` with the work-group size the kernel requires (`reqd_work_group_size`) where its launch
/// left the size to the runtime: the runtime must then use that one. A `local_size` the
/// workload already sets (`--param`) stays, and so does every other workload.
pub fn with_required_local_size(w: &mut crate::workload::WorkloadSpec, size: [u64; 3]) {
    let mut read = Vec::new();
    for e in &w.block.0 {
        e.vars(&mut read);
    }
    let names = [
        ("local_size", 0),
        ("local_size_x", 0),
        ("local_size_y", 1),
        ("local_size_z", 2),
    ];
    let mut set = Vec::new();
    for (name, k) in names {
        if read.iter().any(|r| r == name) && !w.params.iter().any(|(p, _)| p == name) {
            set.push((name.to_string(), crate::workload::Expr::Int(size[k] as i64)));
        }
    }
    if set.is_empty() {
        return;
    }
    set.append(&mut w.params);
    w.params = set;
    let [x, y, z] = size;
    if let Some(o) = &mut w.origin {
        *o = o.replace(
            RUNTIME_CHOOSES,
            &format!("the work-group size is the kernel's reqd_work_group_size({x}, {y}, {z})"),
        );
    }
}

/// Grid and block of an NDRange launch in `dims` dimensions: ⌈global / local⌉ blocks of
/// `local`, or of `local_size` when the runtime chooses it.
fn launch_dims(
    global: &[String],
    local: Option<&[String]>,
    dims: usize,
) -> (Vec<String>, Vec<String>) {
    let mut grid = Vec::new();
    let mut block = Vec::new();
    for k in 0..dims {
        let g = global
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("global_size[{k}]"));
        let l = match local {
            Some(l) => l
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("local_size[{k}]")),
            None if dims == 1 => "local_size".to_string(),
            None => format!("local_size_{}", ["x", "y", "z"][k]),
        };
        grid.push(format!("(({g}) + ({l}) - 1) / ({l})"));
        block.push(l);
    }
    (grid, block)
}

/// A kernel object as written, without white space (`ctx -> k` is `ctx->k`) and the `()` that
/// gives a C++ object's `cl_kernel` (`k()` is `k`).
fn object_var(s: &str) -> String {
    let v: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    v.strip_suffix("()").map_or(v.clone(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::super::HostFile;
    use crate::workload::{Workload, WorkloadSpec};

    fn specs(src: &str, kernel: &str, params: &[&str]) -> Vec<WorkloadSpec> {
        let params: Vec<String> = params.iter().map(|s| s.to_string()).collect();
        HostFile::new(src, None).workloads(kernel, &params, &[])
    }

    fn one(src: &str, kernel: &str, params: &[&str]) -> Workload {
        let s = specs(src, kernel, params);
        assert_eq!(s.len(), 1, "{s:?}");
        s[0].resolve().unwrap()
    }

    #[test]
    fn a_c_program_s_kernel_objects_arguments_and_sizes() {
        let src = r#"
#define TILE 16
int main(void) {
    const int n = 1 << 24;
    cl_kernel k_saxpy = clCreateKernel(program, "saxpy", &err);
    clSetKernelArg(k_saxpy, 0, sizeof(int), &n);
    clSetKernelArg(k_saxpy, 2, sizeof(cl_mem), &x);
    size_t local = 256;
    size_t global = ((n + local - 1) / local) * local;
    clEnqueueNDRangeKernel(queue, k_saxpy, 1, NULL, &global, &local, 0, NULL, NULL);

    cl_kernel k_t = clCreateKernel(program, "transpose", &err);
    int w = 4096, h = 2048;
    err |= clSetKernelArg(k_t, 2, sizeof(int), (void *)&w);
    err |= clSetKernelArg(k_t, 3, sizeof(int), (void *)&h);
    err |= clSetKernelArg(k_t, 4, TILE * (TILE + 1) * sizeof(float), NULL);
    size_t gws[2] = {w, h / 2};
    size_t lws[2];
    lws[0] = TILE;
    lws[1] = TILE / 2;
    clEnqueueNDRangeKernel(queue, k_t, 2, NULL, gws, lws, 0, NULL, NULL);
}
"#;
        let w = one(src, "saxpy", &["n", "a", "x", "y"]);
        assert_eq!((w.grid, w.block), ([65536, 1, 1], [256, 1, 1]));
        assert_eq!(w.params["n"], 1 << 24);
        // an OpenCL global size counts work-items: 4096 × 1024 of them in 16 × 8 groups
        let s = specs(src, "transpose", &["in", "out", "width", "height", "tile"]);
        let w = s[0].resolve().unwrap();
        assert_eq!((w.grid, w.block), ([256, 128, 1], [16, 8, 1]));
        assert_eq!((w.params["width"], w.params["height"]), (4096, 2048));
        assert_eq!(
            w.hints[kerncast_passes::count::DYNAMIC_SHARED_BYTES],
            (16 * 17 * 4) as f64
        );
        assert_eq!(
            s[0].origin.as_deref(),
            Some(
                "the launch at line 21: clEnqueueNDRangeKernel(queue, k_t, 2, NULL, gws, lws, 0, \
                 NULL, NULL) with transpose(?, ?, w, h, __local(TILE * (TILE + 1) * sizeof(float))); \
                 gws = {w, h / 2}, lws = {TILE, TILE / 2}, where w = 4096, h = 2048"
            )
        );
    }

    #[test]
    fn sizes_declared_first_and_assigned_once_later() {
        // the style of NVIDIA's OpenCL samples: file-scope sizes, set in main
        let src = r#"
size_t szGlobalWorkSize;
size_t szLocalWorkSize;
int iNumElements = 1 << 20;
int main() {
    szLocalWorkSize = 256;
    szGlobalWorkSize = ((iNumElements + 255) / 256) * 256;
    cl_kernel k = clCreateKernel(p, "VectorAdd", &e);
    clSetKernelArg(k, 3, sizeof(cl_int), (void *)&iNumElements);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &szGlobalWorkSize, &szLocalWorkSize, 0, NULL, NULL);
    size_t twice;
    twice = 64;
    twice = 128;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &twice, &szLocalWorkSize, 0, NULL, NULL);
    if (getenv("BIG")) twice = 4096;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &twice, &szLocalWorkSize, 0, NULL, NULL);
}
"#;
        let s = specs(src, "VectorAdd", &["a", "b", "c", "n"]);
        let w = s[0].resolve().unwrap();
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([4096, 1, 1], [256, 1, 1], 1 << 20)
        );
        // a size assigned twice has the value of the last assignment before the launch, where
        // that one runs on every path to it; after a conditional one it has no one value
        assert_eq!(s[1].resolve().unwrap().params["twice"], 128);
        assert!(s[2].resolve().unwrap_err().contains("`twice`"), "{s:?}");
    }

    #[test]
    fn a_global_size_rounds_up_to_whole_work_groups() {
        let src =
            "void f() {\n const int n = 1000;\n cl_kernel k = clCreateKernel(p, \"k\", 0);\n \
                   clSetKernelArg(k, 0, sizeof(int), &n);\n size_t g = n, l = 64;\n \
                   clEnqueueNDRangeKernel(q, k, 1, 0, &g, &l, 0, 0, 0);\n}\n";
        assert_eq!(one(src, "k", &["n"]).grid, [16, 1, 1]);
    }

    #[test]
    fn a_kernel_named_by_a_string_the_file_fixes() {
        let launch = "cl_kernel k = clCreateKernel(p, NAME, 0);\n size_t g = 256, l = 64;\n \
                      clEnqueueNDRangeKernel(q, k, 1, 0, &g, &l, 0, 0, 0);\n";
        let by_define = format!("#define NAME \"scale\"\nvoid f() {{\n {launch}}}\n");
        assert_eq!(one(&by_define, "scale", &[]).grid, [4, 1, 1]);
        let by_variable = format!(
            "static const char *name = \"scale\";\nvoid f() {{\n {}}}\n",
            launch.replace("NAME", "name")
        );
        assert_eq!(one(&by_variable, "scale", &[]).grid, [4, 1, 1]);
        // a name the program picks at run time names no kernel
        let chosen = "void f(const char *name) {\n cl_kernel k = clCreateKernel(p, name, 0);\n \
                      size_t g = 256, l = 64;\n clEnqueueNDRangeKernel(q, k, 1, 0, &g, &l, 0, 0, 0);\n}\n";
        assert!(specs(chosen, "scale", &[]).is_empty());
    }

    #[test]
    fn counters_the_last_setting_and_the_object_each_launch_uses() {
        let src = r#"
void go() {
    const int n = 4096, m = 512;
    int arg = 0;
    cl_kernel k = clCreateKernel(program, "a", &err);
    clSetKernelArg(k, arg++, sizeof(cl_mem), &buf);
    clSetKernelArg(k, arg++, sizeof(int), &n);
    size_t g = n, l = 128;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
    clSetKernelArg(k, 1, sizeof(int), &m);
    size_t g2 = m;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g2, &l, 0, NULL, NULL);
    k = clCreateKernel(program, "b", &err);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g2, &l, 0, NULL, NULL);
}
"#;
        let a = specs(src, "a", &["x", "n"]);
        let a: Vec<(i64, [u64; 3])> = a
            .iter()
            .map(|s| s.resolve().unwrap())
            .map(|w| (w.params["n"], w.grid))
            .collect();
        assert_eq!(a, [(4096, [32, 1, 1]), (512, [4, 1, 1])]);
        // `b`'s object is made after `a`'s arguments were set: they are not its
        let b = one(src, "b", &["x", "n"]);
        assert!(!b.params.contains_key("n"), "{b:?}");
    }

    #[test]
    fn a_size_the_runtime_chooses_or_the_program_writes_is_asked_for() {
        let src = r#"
void go() {
    const int n = 4096;
    cl_kernel k = clCreateKernel(program, "k", &err);
    clSetKernelArg(k, 0, sizeof(int), &n);
    size_t g = n;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
    size_t l;
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(l), &l, NULL);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
}
"#;
        let s = specs(src, "k", &["n"]);
        let errors: Vec<String> = s.iter().map(|s| s.resolve().unwrap_err()).collect();
        assert!(errors[0].contains("`local_size`"), "{errors:?}");
        assert!(
            s[0].origin
                .as_deref()
                .unwrap()
                .contains("the runtime chooses the work-group size"),
            "{:?}",
            s[0].origin
        );
        assert!(errors[1].contains("`l`"), "{errors:?}");
    }

    #[test]
    fn the_cpp_bindings_kernels_functors_and_tasks() {
        let src = r#"
int main() {
    const int n = 1 << 20;
    const int W = 1920, H = 1080;
    cl::Kernel scale(program, "scale");
    scale.setArg(0, x);
    scale.setArg(1, n);
    scale.setArg(2, cl::Local(64 * sizeof(float)));
    queue.enqueueNDRangeKernel(scale, cl::NullRange, cl::NDRange(n), cl::NDRange(128));
    cl::Kernel blur = cl::Kernel(program, "blur");
    blur.setArg(2, W);
    blur.setArg(3, H);
    cl::NDRange global(W, H);
    queue.enqueueNDRangeKernel(blur, cl::NullRange, global, cl::NDRange(16, 16));
    cl::Kernel fill(program, "fill");
    fill.setArg(1, 1000);
    queue.enqueueTask(fill);
    auto add = cl::KernelFunctor<cl::Buffer, int>(program, "add");
    add(cl::EnqueueArgs(queue, cl::NDRange(3000), cl::NDRange(64)), x, 3000);
    cl::make_kernel<cl::Buffer, int> twice(program, "twice");
    cl::NDRange g2(4096);
    cl::NDRange l2(32);
    twice(cl::EnqueueArgs(g2, l2), x, 4096);
}
"#;
        let w = one(src, "scale", &["x", "n", "tmp"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([8192, 1, 1], [128, 1, 1], 1 << 20)
        );
        assert_eq!(w.hints[kerncast_passes::count::DYNAMIC_SHARED_BYTES], 256.0);
        let w = one(src, "blur", &["in", "out", "w", "h"]);
        assert_eq!((w.grid, w.block), ([120, 68, 1], [16, 16, 1]));
        assert_eq!((w.params["w"], w.params["h"]), (1920, 1080));
        let w = one(src, "fill", &["x", "n"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([1, 1, 1], [1, 1, 1], 1000)
        );
        let w = one(src, "add", &["x", "n"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([47, 1, 1], [64, 1, 1], 3000)
        );
        // no queue: the sizes come first
        let w = one(src, "twice", &["x", "n"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([128, 1, 1], [32, 1, 1], 4096)
        );
    }

    #[test]
    fn a_kernel_object_passed_to_the_helper_that_launches_it() {
        let src = r#"
static void run(cl_command_queue q, cl_kernel k, int rows) {
    clSetKernelArg(k, 1, sizeof(int), &rows);
    size_t g = rows, l = 64;
    clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
}
int main() {
    cl_kernel a = clCreateKernel(program, "a", &err);
    cl_kernel b = clCreateKernel(program, "b", &err);
    run(queue, a, 4096);
    run(queue, b, 640);
}
"#;
        let a = one(src, "a", &["x", "rows"]);
        assert_eq!((a.grid, a.params["rows"]), ([64, 1, 1], 4096));
        let b = one(src, "b", &["x", "rows"]);
        assert_eq!((b.grid, b.params["rows"]), ([10, 1, 1], 640));
    }
}
