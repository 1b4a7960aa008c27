//! In-source workload annotations, the alternative to `kerncast.toml` for a kernel file that
//! should carry its own launch description:
//!
//! ```text
//! // kerncast: workload n=4096 grid=(n/256) block=256
//! // kerncast: workload name=big n=1<<20 grid=(n/16, n/16) block=(16,16) hint.trip=64
//! // kerncast: hint trip.k=128
//! __global__ void saxpy(int n, float a, const float *x, float *y) { ... }
//! ```
//!
//! An annotation applies to the next kernel defined after it (`__global__`, `__kernel`/`kernel`,
//! a PTX `.entry` or an LLVM `define`), or to the kernel named by `kernel=NAME`. Every other
//! `key=value` is a parameter, evaluated in order (later ones may use earlier ones); `grid` and
//! `block` take one expression or a parenthesised list of up to three; `/` rounds up in `grid`
//! (see [`crate::workload`]). `hint.KEY=NUMBER` and `hint KEY=NUMBER` lines set the values the
//! counter would otherwise assume (data-dependent trip counts). `#` and `;` comments work too,
//! for PTX and LLVM files.

use crate::param_fields::{alias_fields, source_fields, SourceField};
use crate::workload::{Dims, Expr, WorkloadSpec};
use std::collections::BTreeMap;

/// A kernel defined in a source file, with the workloads its annotations give it.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceKernel {
    pub name: String,
    /// 1-based line of the definition.
    pub line: usize,
    /// Parameter names in declaration order (empty when they could not be read).
    pub params: Vec<String>,
    /// Each parameter's type as written (`const float *`), in the same order.
    pub param_types: Vec<String>,
    /// Fields of the parameters passed by value as structs, laid out from the source.
    pub fields: Vec<SourceField>,
    pub workloads: Vec<WorkloadSpec>,
    /// The header that defines it (`src/kernels.cuh`, as the report shows it), when that is not
    /// the analysed file itself ([`crate::includes`]).
    pub file: Option<String>,
    /// The work-group size an OpenCL kernel requires
    /// (`__attribute__((reqd_work_group_size(16, 16, 1)))`), which a launch that leaves the
    /// local size to the runtime gets.
    pub required_local_size: Option<[u64; 3]>,
    /// A template's definition (`template <typename T>` before it): the compiler emits code
    /// only for its instances.
    pub template: bool,
}

/// An annotation that could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{line}: {message}")]
pub struct AnnotationError {
    pub line: usize,
    pub message: String,
}

/// Scans a source file for kernel definitions and `kerncast:` annotations. A kernel without
/// an annotation has no workload here; its launches in the host code give it its workloads
/// (`crate::host_workloads`).
pub fn scan(text: &str) -> Result<Vec<SourceKernel>, AnnotationError> {
    let mut kernels: Vec<SourceKernel> = Vec::new();
    let mut pending: Vec<WorkloadSpec> = Vec::new();
    let mut pending_hints: BTreeMap<String, f64> = BTreeMap::new();
    let mut named: Vec<(String, WorkloadSpec, usize)> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        let line = i + 1;
        if let Some(body) = annotation_body(raw) {
            let err = |message: String| AnnotationError { line, message };
            let body = body.trim();
            if let Some(rest) = body.strip_prefix("workload") {
                let (spec, kernel) = parse_workload(rest).map_err(err)?;
                match kernel {
                    Some(k) => named.push((k, spec, line)),
                    None => pending.push(spec),
                }
            } else if let Some(rest) = body.strip_prefix("hint") {
                for (k, v) in split_pairs(rest).map_err(err)? {
                    let x: f64 = v
                        .parse()
                        .map_err(|_| err(format!("hint `{k}` needs a number, got `{v}`")))?;
                    pending_hints.insert(k, x);
                }
            } else {
                return Err(err(format!(
                    "unknown kerncast annotation `{body}` (expected `workload` or `hint`)"
                )));
            }
            continue;
        }
        if !may_define_kernel(raw) {
            continue;
        }
        let (head, joined) = declaration_head(&lines[i..]);
        if let Some(name) = kernel_name(&head) {
            let first = without_attributes(&head);
            let rest: Vec<&str> = std::iter::once(first.as_str())
                .chain(lines[i + 1 + joined..].iter().copied())
                .collect();
            let sig = signature(&rest);
            let mut workloads = std::mem::take(&mut pending);
            for w in &mut workloads {
                for (k, v) in &pending_hints {
                    w.hints.entry(k.clone()).or_insert(*v);
                }
            }
            pending_hints.clear();
            let params = params_of(&sig);
            let types = param_types(&sig);
            let typed: Vec<(String, String)> = types.iter().cloned().zip(params.clone()).collect();
            kernels.push(SourceKernel {
                line,
                fields: source_fields(text, &typed),
                params,
                param_types: types,
                workloads,
                file: None,
                required_local_size: required_local_size(&lines[i.saturating_sub(1)..=i + joined]),
                template: !name.contains('<') && defines_template(&lines, i),
                name,
            });
        }
    }
    if !pending.is_empty() {
        return Err(AnnotationError {
            line: lines.len(),
            message: "a `kerncast: workload` annotation is not followed by a kernel".into(),
        });
    }
    name_instantiation_params(&mut kernels);
    let macros = int_macros(text);
    for (k, spec, line) in named {
        match kernels.iter_mut().find(|s| s.name == k) {
            Some(s) => s.workloads.push(spec),
            None => {
                return Err(AnnotationError {
                    line,
                    message: format!(
                        "annotation names kernel `{k}`, which this file does not define"
                    ),
                })
            }
        }
    }
    for k in &mut kernels {
        for w in &mut k.workloads {
            w.macros = macros.clone();
            alias_fields(w, &k.fields, &k.params);
        }
    }
    Ok(kernels)
}

/// Whether `line` could begin a kernel's definition: it holds a kernel qualifier, a PTX `.entry`
/// or an LLVM `define`, all that [`declaration_head`] and [`kernel_name`] look for. Most lines of
/// a file hold none, and are passed over without that work (the most of a PTX file's scan).
fn may_define_kernel(line: &str) -> bool {
    ["__global__", "kernel", ".entry", "define "]
        .iter()
        .any(|w| line.contains(w))
}

/// The first of `lines` joined with the next ones (how many is the second value) when it is a
/// kernel qualifier alone, the name on a later line: `__kernel __attribute__((…))` then
/// `void f(…)`, or `__global__ void` then `f(…)`.
fn declaration_head(lines: &[&str]) -> (String, usize) {
    let mut head = lines[0].to_string();
    let qualifier = |l: &str| {
        let t = without_attributes(l);
        let words: Vec<&str> = t.split_whitespace().collect();
        !t.contains('(')
            && !t.trim_start().starts_with("//")
            && (words.contains(&"__global__")
                || words.contains(&"__kernel")
                || words.first() == Some(&"kernel"))
    };
    let mut joined = 0;
    while qualifier(&head) && joined < 2 && joined + 1 < lines.len() {
        joined += 1;
        head = format!("{head} {}", lines[joined]);
    }
    (head, joined)
}

/// Whether the kernel defined on `lines[at]` is a template's: the code before its qualifier
/// (on that line and the few before it) ends with `template <…>`, perhaps then `static` or
/// `inline`.
fn defines_template(lines: &[&str], at: usize) -> bool {
    let code = |l: &str| l.split("//").next().unwrap_or("").to_string();
    let def = code(lines[at]);
    let qualifier = ["__global__", "__kernel"]
        .iter()
        .filter_map(|q| def.find(q))
        .min()
        .unwrap_or(0);
    let mut before: Vec<String> = lines[at.saturating_sub(3)..at]
        .iter()
        .map(|l| code(l))
        .collect();
    before.push(def[..qualifier].to_string());
    let joined = before.join(" ");
    let mut head = joined.trim_end();
    while let Some(rest) = ["static", "inline", "__forceinline__"]
        .iter()
        .find_map(|w| head.strip_suffix(w))
    {
        head = rest.trim_end();
    }
    if !head.ends_with('>') {
        return false;
    }
    let params_start = template_base(head).len();
    params_start < head.len() && head[..params_start].trim_end().ends_with("template")
}

/// `reqd_work_group_size(x, y, z)` on a kernel's line or the line before it (where
/// `__kernel __attribute__((…))` often stands alone).
fn required_local_size(lines: &[&str]) -> Option<[u64; 3]> {
    lines.iter().rev().find_map(|l| {
        l.match_indices("reqd_work_group_size")
            .find_map(|(at, name)| work_group_size_args(&l[at + name.len()..]))
    })
}

/// `(x, y, z)`, three decimal integers, at the start of `text`, spaces allowed around each.
fn work_group_size_args(text: &str) -> Option<[u64; 3]> {
    let mut rest = text.trim_start().strip_prefix('(')?;
    let mut size = [0u64; 3];
    for (k, n) in size.iter_mut().enumerate() {
        let t = rest.trim_start();
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        *n = t[..digits].parse().ok()?;
        let after = t[digits..].trim_start();
        rest = after.strip_prefix(if k < 2 { ',' } else { ')' })?;
    }
    Some(size)
}

/// Object-like macros with an integer value (`#define TILE 16`), for workload expressions. A
/// name defined with two different values (in `#if` branches) is left out: which one applies
/// depends on the build, so the expression reports it undefined rather than guess.
pub fn int_macros(text: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    let mut ambiguous = Vec::new();
    for l in text.lines() {
        let Some(rest) = l.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let mut it = rest.split_whitespace();
        let (Some(name), Some(val), None) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let ident = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let Ok(v) = val.trim_matches(|c| c == '(' || c == ')').parse::<i64>() else {
            continue;
        };
        if !ident {
            continue;
        }
        if out.insert(name.to_string(), v).is_some_and(|old| old != v) {
            ambiguous.push(name.to_string());
        }
    }
    for a in ambiguous {
        out.remove(&a);
    }
    out
}

/// Whether `text` gives a kernel a workload of its own (`// kerncast: workload …`), so that its
/// launches need not be read from the host code.
pub fn gives_workloads(text: &str) -> bool {
    text.lines()
        .filter_map(annotation_body)
        .any(|body| body.trim_start().starts_with("workload"))
}

fn annotation_body(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("//")
        .or_else(|| t.strip_prefix('#'))
        .or_else(|| t.strip_prefix(';'))?;
    t.trim_start().strip_prefix("kerncast:")
}

/// Attributes that carry parenthesised arguments and may stand between the return type and the
/// name (`__launch_bounds__(256)`, `__cluster_dims__(2, 1, 1)`, `__maxnreg__(64)`,
/// `__attribute__((reqd_work_group_size(64,1,1)))`), removed so the name and parameter list are
/// found.
const ATTRIBUTES: [&str; 5] = [
    "__launch_bounds__",
    "__cluster_dims__",
    "__maxnreg__",
    "__attribute__",
    "__declspec",
];

/// The line with every [`ATTRIBUTES`] group removed.
fn without_attributes(line: &str) -> String {
    let mut s = line.to_string();
    for a in ATTRIBUTES {
        while let Some(at) = s.find(a) {
            let Some(open) = s[at..].find('(').map(|o| at + o) else {
                break;
            };
            let mut depth = 0;
            let mut end = s.len();
            for (k, c) in s[open..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            s.replace_range(at..end, " ");
        }
    }
    s
}

/// A demangled name without its trailing template arguments (`tiled_sum<128>` → `tiled_sum`),
/// what a template's definition in the source is called.
pub fn template_base(name: &str) -> &str {
    if !name.ends_with('>') {
        return name;
    }
    let mut depth = 0i32;
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return &name[..i];
                }
            }
            _ => {}
        }
    }
    name
}

/// The kernel a line defines, if any.
fn kernel_name(line: &str) -> Option<String> {
    let line = without_attributes(line);
    let t = line.trim();
    if t.starts_with("//") || t.starts_with('#') {
        return None;
    }
    let ident_before_paren = |s: &str| -> Option<String> {
        let head = s[..s.find('(')?].trim_end();
        // An explicit instantiation names its arguments: `template __global__ void f<128>(…);`
        let (head, args) = match head.strip_suffix('>') {
            Some(_) => {
                let base = template_base(head);
                let args: String = head[base.len()..]
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                (base.trim_end(), args)
            }
            None => (head, String::new()),
        };
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        (!name.is_empty()).then_some(name + &args)
    };
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.contains(&"__global__")
        || words.contains(&"__kernel")
        || words.first() == Some(&"kernel")
    {
        return ident_before_paren(t);
    }
    if let Some(p) = t.find(".entry") {
        return ident_before_paren(&t[p + 6..])
            .or_else(|| Some(t[p + 6..].split_whitespace().next()?.to_string()));
    }
    if t.starts_with("define ") && (t.contains("ptx_kernel") || t.contains('@')) {
        let at = t.find('@')?;
        return ident_before_paren(&t[at + 1..]).map(|n| n.trim_matches('"').to_string());
    }
    None
}

/// The text of a definition's parameter list (which may span lines).
fn signature(lines: &[&str]) -> String {
    let mut s = String::new();
    let mut depth = 0i32;
    let mut started = false;
    for l in lines.iter().take(40) {
        for c in l.chars() {
            if c == '(' {
                depth += 1;
                if !started {
                    started = true;
                    continue;
                }
            }
            if c == ')' {
                depth -= 1;
                if started && depth == 0 {
                    return s;
                }
            }
            if started {
                s.push(c);
            }
        }
        s.push(' ');
    }
    s
}

/// The parameter declarations of a signature: split at its commas outside brackets, template
/// arguments included (`PackedTensorAccessor32<float, 2, RestrictPtrTraits> a` is one).
fn split_params(sig: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in sig.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&sig[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&sig[start..]);
    out
}

/// The parameter names of a signature, one per parameter so positions hold. A parameter
/// without a name (`float *`, `const int`, as in an explicit instantiation's declaration) is
/// named by its position, `p<i>`, as the counter names PTX parameters.
fn params_of(sig: &str) -> Vec<String> {
    const TYPE_WORDS: &[&str] = &[
        "int",
        "float",
        "double",
        "char",
        "short",
        "long",
        "unsigned",
        "signed",
        "bool",
        "void",
        "size_t",
        "uint",
        "uchar",
        "ushort",
        "ulong",
        "int32_t",
        "int64_t",
        "uint32_t",
        "uint64_t",
        "half",
        "__half",
        "const",
        "volatile",
        "__restrict__",
        "restrict",
        "__restrict",
    ];
    let sig = sig.trim();
    if sig.is_empty() || sig == "void" {
        return Vec::new();
    }
    split_params(sig)
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let p = p.split('=').next().unwrap_or("").trim();
            // `float a[]`, `float a[4]`: the name is before the brackets
            let p = p.split('[').next().unwrap_or("").trim_end();
            let words: Vec<&str> = p
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let ends_in_ident = p.ends_with(|c: char| c.is_alphanumeric() || c == '_');
            // a type word after a whole type is a name (`int half`), not after a qualifier or a
            // word C combines with another (`const half`, `unsigned int`)
            const COMBINING: &[&str] = &[
                "unsigned",
                "signed",
                "short",
                "long",
                "const",
                "volatile",
                "__restrict__",
                "restrict",
                "__restrict",
            ];
            let named_after_type = |k: usize| {
                words
                    .get(k.wrapping_sub(1))
                    .is_some_and(|t| TYPE_WORDS.contains(t) && !COMBINING.contains(t))
            };
            match words.last() {
                Some(w)
                    if ends_in_ident
                        && words.len() >= 2
                        && (!TYPE_WORDS.contains(w) || named_after_type(words.len() - 1))
                        && !w.starts_with(|c: char| c.is_ascii_digit()) =>
                {
                    w.to_string()
                }
                _ => format!("p{i}"),
            }
        })
        .collect()
}

/// The type text of each parameter of `sig` (what precedes its name), in order. An array
/// parameter is the pointer it decays to (`double a[][4]` is `double (*)[4]`, `float x[]`
/// `float *`): its argument is a buffer, not a value.
fn param_types(sig: &str) -> Vec<String> {
    let sig = sig.trim();
    if sig.is_empty() || sig == "void" {
        return Vec::new();
    }
    split_params(sig)
        .into_iter()
        .map(|p| {
            let p = p.split('=').next().unwrap_or("");
            let (p, dims) = p.split_once('[').unwrap_or((p, ""));
            let p = p.trim_end();
            let name_start = p
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let base = p[..name_start].trim();
            match dims.split_once('[') {
                _ if dims.is_empty() => base.to_string(),
                None => format!("{base} *"),
                Some((_, inner)) => format!("{base} (*)[{}", inner.trim()),
            }
        })
        .collect()
}

/// An explicit instantiation (`template __global__ void f<float, 4>(const float *, …);`)
/// usually names no parameters, and `const T`-style types cannot be told from names: it takes
/// the names of its template's definition in the file, which its body and workloads use.
fn name_instantiation_params(kernels: &mut [SourceKernel]) {
    let named: Vec<(String, Vec<String>)> = kernels
        .iter()
        .filter(|k| !k.name.ends_with('>'))
        .map(|k| (k.name.clone(), k.params.clone()))
        .collect();
    for k in kernels.iter_mut().filter(|k| k.name.ends_with('>')) {
        let base = template_base(&k.name);
        let Some((_, names)) = named.iter().find(|(n, _)| n == base) else {
            continue;
        };
        if names.len() == k.params.len() {
            for f in &mut k.fields {
                if let Some(rest) = f.name.strip_prefix(k.params[f.param].as_str()) {
                    f.name = format!("{}{rest}", names[f.param]);
                }
            }
            k.params.clone_from(names);
        }
    }
}

/// `key=value` pairs; a value runs to the next space outside parentheses.
fn split_pairs(s: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut items = Vec::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if !cur.is_empty() {
                items.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        return Err("unbalanced parentheses".into());
    }
    if !cur.is_empty() {
        items.push(cur);
    }
    // `a = b` written with spaces around `=`: glue the pieces back together.
    let mut glued: Vec<String> = Vec::new();
    for it in items {
        match glued.last_mut() {
            Some(last) if last.ends_with('=') || it.starts_with('=') => last.push_str(&it),
            _ => glued.push(it),
        }
    }
    for it in glued {
        let (k, v) = it
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got `{it}`"))?;
        if k.is_empty() || v.is_empty() {
            return Err(format!("expected key=value, got `{it}`"));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

/// Shift `1<<20` is handy in sizes; rewrite it to a product before parsing.
fn expand_shifts(v: &str) -> String {
    match v.split_once("<<") {
        Some((a, b)) => match (a.trim().parse::<i64>(), b.trim().parse::<u32>()) {
            (Ok(a), Ok(b)) if b < 62 => (a << b).to_string(),
            _ => v.to_string(),
        },
        None => v.to_string(),
    }
}

fn parse_workload(rest: &str) -> Result<(WorkloadSpec, Option<String>), String> {
    let mut spec = WorkloadSpec::empty();
    let mut kernel = None;
    for (k, v) in split_pairs(rest)? {
        match k.as_str() {
            "name" => spec.name = Some(v),
            "kernel" => kernel = Some(v),
            "grid" => spec.grid = Dims::parse(&v).map_err(|e| format!("grid: {e}"))?,
            "block" => spec.block = Dims::parse(&v).map_err(|e| format!("block: {e}"))?,
            _ if k.starts_with("buffer.") => {
                spec.buffers.insert(k["buffer.".len()..].to_string(), v);
            }
            _ if k.starts_with("hint.") => {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("hint `{k}` needs a number, got `{v}`"))?;
                spec.hints.insert(k["hint.".len()..].to_string(), x);
            }
            _ => {
                let e = Expr::parse(&expand_shifts(&v)).map_err(|e| format!("`{k}`: {e}"))?;
                spec.params.push((k, e));
            }
        }
    }
    if spec.grid.0.is_empty() || spec.block.0.is_empty() {
        return Err("a workload needs both grid= and block=".into());
    }
    // Names defined nowhere in the annotation may be macros that `kerncast rank --vary` supplies
    // (`block=(TILE,TILE)`); they are reported when the workload is resolved. Anything else
    // that fails (division by zero, a zero-sized launch) is an error here.
    if let Err(e) = spec.resolve() {
        if !e.starts_with("undefined name") {
            return Err(e);
        }
    }
    Ok((spec, kernel))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size is three integers in parentheses, spaced anyhow; a mention that is not one is
    /// passed over for the next, and the kernel's own line wins over the line before it.
    #[test]
    fn required_local_size_reads_three_integers() {
        let size = |lines: &[&str]| required_local_size(lines);
        assert_eq!(
            size(&["__attribute__((reqd_work_group_size(16, 8, 1)))"]),
            Some([16, 8, 1])
        );
        assert_eq!(
            size(&["reqd_work_group_size ( 32 ,1,\t1 ) void k("]),
            Some([32, 1, 1])
        );
        assert_eq!(size(&["reqd_work_group_size(16, 8)"]), None);
        assert_eq!(size(&["reqd_work_group_size(N, 1, 1)"]), None);
        assert_eq!(size(&["reqd_work_group_size(-4, 1, 1)"]), None);
        assert_eq!(
            size(&["// reqd_work_group_size is (x, y, z): reqd_work_group_size(4,2,1)"]),
            Some([4, 2, 1])
        );
        assert_eq!(
            size(&[
                "reqd_work_group_size(8,8,1)",
                "__kernel reqd_work_group_size(64, 1, 1)"
            ]),
            Some([64, 1, 1])
        );
        assert_eq!(
            size(&["reqd_work_group_size(8,8,1)", "__kernel void k("]),
            Some([8, 8, 1])
        );
    }

    const SRC: &str = r#"
// kerncast: workload n=1000 grid=(n/256) block=256
// kerncast: hint trip.loop=7
extern "C" __global__ void saxpy(int n, float a,
                                 const float *x, float *y) {
}
// kerncast: workload name=sq n = 64 grid=(n/16, n/16) block=(16,16)
__global__ void matmul(int n, const float* __restrict__ a, const float *b, float *c) {}
// kerncast: workload kernel=saxpy n=1<<20 grid=n/256 block=256 hint.trip.loop=9
"#;

    #[test]
    fn a_workload_annotation_gives_workloads_and_a_hint_alone_does_not() {
        assert!(gives_workloads(SRC));
        assert!(!gives_workloads(
            "// kerncast: hint trip.loop=7\n__global__ void k(int n) {}\n"
        ));
        assert!(!gives_workloads(
            "// workload n=4\n__global__ void k(int n) {}\n"
        ));
    }

    #[test]
    fn binds_annotations_to_kernels() {
        let ks = scan(SRC).unwrap();
        assert_eq!(ks.len(), 2);
        assert_eq!(ks[0].name, "saxpy");
        assert_eq!(ks[0].line, 4);
        assert_eq!(ks[0].params, vec!["n", "a", "x", "y"]);
        let w0 = ks[0].workloads[0].resolve().unwrap();
        assert_eq!(w0.grid, [4, 1, 1], "ceil division in grid");
        assert_eq!(w0.hints["trip.loop"], 7.0);
        let w1 = ks[0].workloads[1].resolve().unwrap();
        assert_eq!(w1.params["n"], 1 << 20);
        assert_eq!(w1.hints["trip.loop"], 9.0);
        let m = ks[1].workloads[0].resolve().unwrap();
        assert_eq!(m.name, "sq");
        assert_eq!(m.grid, [4, 4, 1]);
        assert_eq!(m.block, [16, 16, 1]);
        assert_eq!(ks[1].params, vec!["n", "a", "b", "c"]);
    }

    #[test]
    fn attributes_between_type_and_name_are_skipped() {
        let ks = scan(
            "// kerncast: workload n=64 grid=(n/32) block=32\n__global__ void __launch_bounds__(256, 2) cub_sum(const float *x, int n) {}\n\
             // kerncast: workload n=64 grid=(n/32) block=32\n__kernel __attribute__((reqd_work_group_size(32, 1, 1))) void cl_k(__global float *x, int n) {}\n\
             // kerncast: workload n=64 grid=(n/32) block=32\n__global__ void __cluster_dims__(2, 1, 1) __maxnreg__(64) pair(float *x, int n) {}",
        )
        .unwrap();
        let got: Vec<(&str, &[String], usize)> = ks
            .iter()
            .map(|k| (k.name.as_str(), k.params.as_slice(), k.workloads.len()))
            .collect();
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(got[0], ("cub_sum", p(&["x", "n"]).as_slice(), 1));
        assert_eq!(got[1], ("cl_k", p(&["x", "n"]).as_slice(), 1));
        assert_eq!(got[2], ("pair", p(&["x", "n"]).as_slice(), 1));
    }

    #[test]
    fn a_qualifier_alone_on_its_line_joins_the_name_on_the_next() {
        let ks = scan(
            "__kernel __attribute__((reqd_work_group_size(16, 8, 1)))\nvoid tile(__global float *x,\n  int n) {}\n\
             __global__ void\nsplit(int n) {}\n__kernel void plain(int n) {}\n",
        )
        .unwrap();
        // (name, line, parameters, required local size)
        type Scanned<'a> = (&'a str, usize, &'a [String], Option<[u64; 3]>);
        let got: Vec<Scanned> = ks
            .iter()
            .map(|k| {
                (
                    k.name.as_str(),
                    k.line,
                    k.params.as_slice(),
                    k.required_local_size,
                )
            })
            .collect();
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got[0],
            ("tile", 1, p(&["x", "n"]).as_slice(), Some([16, 8, 1]))
        );
        assert_eq!(got[1], ("split", 4, p(&["n"]).as_slice(), None));
        assert_eq!(got[2], ("plain", 6, p(&["n"]).as_slice(), None));
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn explicit_instantiations_are_kernels_with_their_arguments() {
        let src = "template <int B>\n__global__ void tiled_sum(const float *x, int n) {}\n\
            // kerncast: workload n=256 grid=(n/128) block=128\n\
            template __global__ void tiled_sum<128>(const float *, int);\n\
            // kerncast: workload n=256 grid=(n/64) block=64\n\
            template __global__ void tiled_sum< 2 * 32 >(const float *, int);";
        let ks = scan(src).unwrap();
        let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["tiled_sum", "tiled_sum<128>", "tiled_sum<2*32>"]);
        assert_eq!(ks[1].workloads.len(), 1);
        assert_eq!(ks[1].line, 4);
    }

    #[test]
    fn finds_opencl_ptx_and_llvm_kernels() {
        let ks = scan("__kernel void k1(__global float *x, int n) {}\n.visible .entry k2(\n define dso_local ptx_kernel void @k3(ptr %a) {").unwrap();
        let names: Vec<_> = ks.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, vec!["k1", "k2", "k3"]);
    }

    #[test]
    fn errors_name_the_line() {
        let e =
            scan("\n// kerncast: workload n=4 grid=(n/2\n__global__ void k(int n) {}").unwrap_err();
        assert_eq!(e.line, 2);
        let e = scan("// kerncast: workload n=4 block=2\n__global__ void k(int n) {}").unwrap_err();
        assert!(e.message.contains("grid="), "{}", e.message);
        let e = scan("// kerncast: workload kernel=nope grid=1 block=1\n__global__ void k() {}")
            .unwrap_err();
        assert!(e.message.contains("`nope`"));
        let e = scan("// kerncast: wrokload grid=1 block=1\n").unwrap_err();
        assert!(e.message.contains("unknown kerncast annotation"));
        let e =
            scan("// kerncast: workload n=0 grid=n block=1\n__global__ void k() {}").unwrap_err();
        assert!(e.message.contains("must be >= 1"), "{}", e.message);
        // A launch may follow an integer macro of the source; `--vary` (an override) wins.
        let src = "// kerncast: workload n=64 grid=(n/TILE) block=TILE\n#ifndef TILE\n#define TILE 16\n#endif\n__global__ void k(int n) {}";
        let w = &scan(src).unwrap()[0].workloads[0];
        let r = w.resolve().unwrap();
        assert_eq!((r.grid[0], r.block[0]), (4, 16));
        assert!(
            !r.params.contains_key("TILE"),
            "a macro is not a kernel parameter"
        );
        let o = [("TILE".to_string(), 32)].into_iter().collect();
        assert_eq!(w.resolve_with(&o).unwrap().block[0], 32);
        // An undefined name may be a rank macro: accepted here, reported when resolved.
        let ks = scan("// kerncast: workload grid=m block=1\n__global__ void k() {}").unwrap();
        let err = ks[0].workloads[0].resolve().unwrap_err();
        assert!(err.contains("`m`"), "{err}");
    }

    #[test]
    fn unnamed_parameters_keep_their_positions() {
        assert_eq!(
            params_of("float *, const int n, unsigned int, float a[], double2 v"),
            vec!["p0", "n", "p2", "a", "v"]
        );
        assert_eq!(params_of("void"), Vec::<String>::new());
        // `half` is a type and, after one, a name (a radix-2 FFT's half-length)
        assert_eq!(
            params_of("int half, const half, unsigned long, half h, float *half, long long"),
            vec!["half", "p1", "p2", "h", "half", "p5"]
        );
        assert_eq!(
            params_of("__global const float * restrict x, __local float *tmp"),
            vec!["x", "tmp"]
        );
        // a template argument list's commas are inside one parameter
        assert_eq!(
            params_of(
                "const torch::PackedTensorAccessor32<scalar_t,3,torch::RestrictPtrTraits> gates, \
                 std::pair<int, int> p, int n"
            ),
            vec!["gates", "p", "n"]
        );
        assert_eq!(
            param_types("const Acc<float, 2> a, int n"),
            vec!["const Acc<float, 2>", "int"]
        );
        // an array parameter is a pointer, as C adjusts it
        assert_eq!(
            param_types("double phi[][NY][NX], const float x[16], int n"),
            vec!["double (*)[NY][NX]", "const float *", "int"]
        );
    }

    #[test]
    fn a_template_definition_is_told_from_an_instance_and_a_plain_kernel() {
        let src = "template <typename T, int N = 4>\n__global__ void a(T *x) {}\n\
            template <typename T> static __global__ void b(T *x) {}\n\
            template <typename T>\n// a comment\n__global__\nvoid c(T *x) {}\n\
            template <> __global__ void a<float, 4>(float *x) {}\n\
            template __global__ void a<double, 4>(double *);\n\
            struct S { int v; }; // template <int> is only a comment here\n\
            __global__ void d(float *x) {}\n";
        let ks = scan(src).unwrap();
        let templates: Vec<(&str, bool)> =
            ks.iter().map(|k| (k.name.as_str(), k.template)).collect();
        assert_eq!(
            templates,
            [
                ("a", true),
                ("b", true),
                ("c", true),
                ("a<float,4>", false),
                ("a<double,4>", false),
                ("d", false),
            ]
        );
    }

    #[test]
    fn an_instantiation_takes_its_templates_parameter_names() {
        let src =
            "template <typename T, int U>\n__global__ void copy(const T *a, T *b, int n) {}\n\
                   // kerncast: workload n=1000 grid=(n/1024) block=256\n\
                   template __global__ void copy<double, 4>(const double *, double *, int);\n";
        let ks = scan(src).unwrap();
        let inst = ks.iter().find(|k| k.name == "copy<double,4>").unwrap();
        assert_eq!(inst.params, vec!["a", "b", "n"]);
        assert_eq!(inst.workloads.len(), 1);
    }
}
