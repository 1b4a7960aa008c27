//! C source as text: comments and strings blanked, brackets matched, integer expressions put
//! in the workload language.

use super::size_fns;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// A single identifier, the way an argument passes a variable.
pub(super) fn bare_name(arg: &str) -> Option<&str> {
    let a = arg.trim();
    let ident = a
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && a.chars().all(|c| c.is_alphanumeric() || c == '_');
    ident.then_some(a)
}

/// `dim3(a, b)` or `dim3{a, b}` (or the same without `dim3`, `{a, b}`) as its components.
pub(super) fn dim3_parts(term: &str) -> Option<Vec<String>> {
    let t = term.trim();
    let t = t.strip_prefix("dim3").map(str::trim).unwrap_or(t);
    let inner = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| t.strip_prefix('{').and_then(|r| r.strip_suffix('}')))?;
    let b = t.as_bytes();
    // `(a)+(b)` is an expression, not one parenthesised list
    if matching_close(b, 0) != Some(b.len() - 1) {
        return None;
    }
    // `dim3()` is (1, 1, 1): no component
    Some(
        split_top(inner)
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect(),
    )
}

/// `prop.multiProcessorCount` of a `cudaDeviceProp`: the SM count of the device.
static SM_COUNT_MEMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Za-z_]\w*\s*(?:\.|->)\s*multiProcessorCount\b").unwrap());
/// A PyTorch tensor's shape read in C++: `x.size(1)` and `x.sizes()[1]` (named `x.sizes[1]`;
/// `x.size(-1)`, the last, `x.sizes[-1]`),
/// `x.stride(0)` (`x.strides[0]`), `x.numel()` (`x.numel`).
static TENSOR_SHAPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b([A-Za-z_]\w*)\s*\.\s*(?:(size|stride)\s*\(\s*(-?\d+)\s*\)|sizes\s*\(\s*\)\s*\[\s*(\d+)\s*\]|numel\s*\(\s*\))",
    )
    .unwrap()
});
static SUFFIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d+)[uUlL]+\b").unwrap());
static BOOL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(true|false)\b").unwrap());
static SIZEOF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"sizeof\s*\(\s*((?:unsigned\s+|signed\s+|long\s+)*\w+)\s*\)").unwrap()
});

/// A C integer expression in the workload language: calls of the size helpers `fns` expanded,
/// a `cudaDeviceProp`'s `multiProcessorCount` read as the device's SM count, a container's
/// `size()` and a tensor's shape as names ([`TENSOR_SHAPE`]), suffixes dropped,
/// `true` and `false` as 1 and 0, `sizeof` of a built-in type replaced by its size (other
/// `sizeof`s are left, and fail to parse).
pub(super) fn c_expr(text: &str, fns: &BTreeMap<String, size_fns::SizeFn>) -> String {
    let t = size_fns::expand(text.trim(), fns);
    let t = SM_COUNT_MEMBER.replace_all(&t, crate::workload::DEVICE_SM_COUNT);
    let t = super::containers::SIZE_CALL.replace_all(&t, |c: &regex::Captures| {
        format!("{}.size", c.get(1).or(c.get(2)).map_or("", |m| m.as_str()))
    });
    let t = TENSOR_SHAPE.replace_all(&t, |c: &regex::Captures| match (c.get(2), c.get(3)) {
        (Some(what), Some(k)) => format!("{}.{}s[{}]", &c[1], what.as_str(), k.as_str()),
        _ => match c.get(4) {
            Some(k) => format!("{}.sizes[{}]", &c[1], k.as_str()),
            None => format!("{}.numel", &c[1]),
        },
    });
    let t = SUFFIX.replace_all(&t, "$1");
    let t = BOOL.replace_all(
        &t,
        |c: &regex::Captures| if &c[1] == "true" { "1" } else { "0" },
    );
    SIZEOF
        .replace_all(&t, |c: &regex::Captures| {
            let ty = c[1].split_whitespace().last().unwrap_or("");
            let long_long = c[1].matches("long").count() == 2;
            let bytes = match ty {
                "char" | "int8_t" | "uint8_t" | "bool" => 1,
                "short" | "half" | "__half" | "__nv_bfloat16" | "int16_t" | "uint16_t" => 2,
                "float" | "int" | "unsigned" | "int32_t" | "uint32_t" => 4,
                "long" if long_long => 8,
                "double" | "long" | "size_t" | "int64_t" | "uint64_t" | "float2" | "int2" => 8,
                "float4" | "double2" | "int4" => 16,
                _ => return c[0].to_string(),
            };
            bytes.to_string()
        })
        .into_owned()
}

/// `text` with comments and the insides of string and character literals (raw strings too)
/// blanked, line breaks kept (so offsets still give lines).
pub(super) fn code_only(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    for s in crate::c_lex::spans(text) {
        let blanked = match s.kind {
            crate::c_lex::Kind::Comment => s.range,
            // the quotes stay, so that an argument that is a string still reads as one
            _ => s.range.start + 1..s.body.end.max(s.range.end.saturating_sub(1)),
        };
        for c in &mut out[blanked] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The `)`, `]` or `}` that closes the bracket at `open`.
pub(crate) fn matching_close(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `<` that opens the template argument list closed by the `>` at `close`.
pub(super) fn matching_open(b: &[u8], close: usize) -> Option<usize> {
    opening(b, close, (b'<', b'>'), b";{}")
}

/// The `open` of `(open, shut)` that the `shut` at `close` closes, looking back no further
/// than any byte of `stops`.
pub(super) fn opening(
    b: &[u8],
    close: usize,
    (open, shut): (u8, u8),
    stops: &[u8],
) -> Option<usize> {
    let mut depth = 0i32;
    for k in (0..=close).rev() {
        match b[k] {
            c if c == shut => depth += 1,
            c if c == open => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            c if stops.contains(&c) => return None,
            _ => {}
        }
    }
    None
}

/// The `(` of the argument list that holds offset `at` (`f(a, ▸b)`), not looking back past the
/// statement or out of a `[…]` or `{…}`.
pub(super) fn enclosing_paren(code: &str, at: usize) -> Option<usize> {
    let b = code.as_bytes();
    let mut depth = 0i32;
    for k in (0..at.min(b.len())).rev() {
        match b[k] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' if depth > 0 => depth -= 1,
            b'(' => return Some(k),
            b'[' | b'{' | b';' => return None,
            _ => {}
        }
    }
    None
}

/// The `)` of the call whose `(` is at `open` in `code`, and the byte ranges of its top-level
/// arguments, each trimmed of white space.
pub(crate) fn call_args(code: &str, open: usize) -> Option<(usize, Vec<std::ops::Range<usize>>)> {
    let b = code.as_bytes();
    let close = matching_close(b, open)?;
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = open + 1;
    let mut k = open + 1;
    while k < close {
        match b[k] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(trimmed(code, start..k));
                start = k + 1;
            }
            b'<' => {
                if let Some(end) = crate::workload::template_args_close(&b[..close], k) {
                    k = end;
                }
            }
            _ => {}
        }
        k += 1;
    }
    out.push(trimmed(code, start..close));
    if out.len() == 1 && out[0].is_empty() {
        out.clear();
    }
    Some((close, out))
}

/// [`call_args`] as the arguments' texts.
pub(crate) fn arg_texts(code: &str, open: usize) -> Option<(usize, Vec<&str>)> {
    let (close, ranges) = call_args(code, open)?;
    Some((close, ranges.into_iter().map(|r| &code[r]).collect()))
}

fn trimmed(code: &str, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let s = &code[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    let end = r.end - (s.len() - s.trim_end().len());
    start..end.max(start)
}

/// `s` on one line: each run of white space (line breaks included) as one space.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bracketed text (`(…)`, `{…}`, as a byte range of `code`) that opens where the one match
/// of `decl` in `scope` ends, as in `size_t g[2] = {…}` or `cl::NDRange g(…)`; `None` when
/// `decl` matches there twice or not at all.
pub(super) fn bracket_after_once(
    code: &str,
    scope: &std::ops::Range<usize>,
    decl: &Regex,
) -> Option<std::ops::Range<usize>> {
    let text = &code[scope.clone()];
    let mut found = decl.find_iter(text);
    let m = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let open = scope.start + m.end() - 1;
    let close = matching_close(code.as_bytes(), open)?;
    Some(open..close + 1)
}

/// `s` without the parentheses around all of it: `((n))` is `n`.
pub(super) fn strip_parens(s: &str) -> &str {
    let b = s.as_bytes();
    if s.starts_with('(') && matching_close(b, 0) == Some(b.len() - 1) {
        strip_parens(s[1..s.len() - 1].trim())
    } else {
        s
    }
}

/// The compiled `pattern`, from the patterns compiled before: the host reader builds patterns
/// from the names it looks up (`\bn\s*=`) and looks each up for every launch and call of a
/// file, so most are compiled many times over. A full cache is emptied, not grown: at most
/// 4096 patterns of about 17 KB each (70 MB more at the most, measured on the
/// `host_read` benchmark's file).
pub(crate) fn cached_regex(pattern: &str) -> Result<std::sync::Arc<Regex>, regex::Error> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    const MOST: usize = 4096;
    static CACHE: LazyLock<Mutex<HashMap<String, Arc<Regex>>>> = LazyLock::new(Default::default);
    let cache = || CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(re) = cache().get(pattern) {
        return Ok(re.clone());
    }
    let re = Arc::new(Regex::new(pattern)?);
    let mut c = cache();
    if c.len() >= MOST {
        c.clear();
    }
    c.insert(pattern.to_string(), re.clone());
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_argument_list_is_inside_one_argument() {
        let call = "k<<<g, b>>>(a.packed_accessor32<float, 2, RestrictPtrTraits>(), \
                    std::min<int>(n, m), Acc<float, 2>{p, 1}, n)";
        let open = call.find(">>>(").unwrap() + 3;
        let (_, args) = arg_texts(call, open).unwrap();
        assert_eq!(
            args,
            vec![
                "a.packed_accessor32<float, 2, RestrictPtrTraits>()",
                "std::min<int>(n, m)",
                "Acc<float, 2>{p, 1}",
                "n"
            ]
        );
        // a tensor's shape, read in C++, as names
        assert_eq!(
            c_expr(
                "(x.size(1) + 255) / x.sizes()[0] * t.numel() + v.stride(0) + x.size(-1)",
                &Default::default()
            ),
            "(x.sizes[1] + 255) / x.sizes[0] * t.numel + v.strides[0] + x.sizes[-1]"
        );
        // comparisons are not template arguments
        let call = "f(i < n, m > k, a<b, (c > d))";
        let (_, args) = arg_texts(call, 1).unwrap();
        assert_eq!(args, vec!["i < n", "m > k", "a<b", "(c > d)"]);
    }
}
