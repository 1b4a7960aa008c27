//! Kernel programs that Python fills in before it compiles them, as PyCUDA's and CuPy's
//! examples template tile sizes and types:
//!
//! ```text
//! mod = SourceModule("""… float s[%(block)d]; …""" % {"block": BLOCK})
//! k = cp.RawKernel("""… {dtype} acc = 0; … [{tile}] …""".format(dtype="float", tile=TILE), "k")
//! ```
//!
//! An argument is read where it is a string literal or an integer expression of names the file
//! assigns once at its top level (`BLOCK = 128`). A template with an argument or a placeholder
//! that is not read stays as written, and the compiler names what it cannot parse.

use super::{c_expression, code_only, split_top};
use crate::workload::{Div, Expr};
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The program `value` (bytes with their lines) filled in by the `%` or `.format(…)` that
/// follows its literal at byte `after` of `host`; `None` where none follows or where an
/// argument or a placeholder is not read.
pub(super) fn filled(host: &str, after: usize, value: &[(u8, usize)]) -> Option<Vec<(u8, usize)>> {
    let rest = host.get(after..)?;
    let code = rest.trim_start_matches([' ', '\t']);
    let at = after + (rest.len() - code.len());
    if !code.starts_with('%') && !code.starts_with(".format(") {
        return None;
    }
    let names = module_values(host);
    if let Some(operand) = code.strip_prefix('%') {
        let operand = operand.trim_start();
        let start = at + 1 + (code.len() - 1 - operand.len());
        let args = if operand.starts_with('{') {
            Args::Named(named(&dict_items(host, start)?, &names)?)
        } else if operand.starts_with('(') {
            Args::Positional(positional(&bracketed(host, start)?, &names)?)
        } else {
            let word: String = operand
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            Args::Positional(vec![value_of(&word, &names)?])
        };
        percent(value, &args)
    } else {
        let items = bracketed(host, at + ".format".len())?;
        let (keyword, plain): (Vec<&String>, Vec<&String>) =
            items.iter().partition(|i| keyword_arg(i).is_some());
        let named = keyword
            .into_iter()
            .map(|i| {
                let (k, v) = keyword_arg(i)?;
                Some((k.to_string(), value_of(v, &names)?))
            })
            .collect::<Option<BTreeMap<_, _>>>()?;
        let plain = plain
            .into_iter()
            .map(|i| value_of(i, &names))
            .collect::<Option<Vec<_>>>()?;
        braces(value, &named, &plain)
    }
}

enum Args {
    Named(BTreeMap<String, String>),
    Positional(Vec<String>),
}

/// `name=value` of a keyword argument (not `==`).
fn keyword_arg(item: &str) -> Option<(&str, &str)> {
    static KEYWORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*([A-Za-z_]\w*)\s*=([^=].*)$").unwrap());
    let c = KEYWORD.captures(item)?;
    let (k, v) = (c.get(1)?.as_str(), c.get(2)?.as_str());
    Some((k, v.trim()))
}

/// The top-level items between the bracket at byte `open` of `host` and its match (none for
/// the empty place a trailing comma leaves).
fn bracketed(host: &str, open: usize) -> Option<Vec<String>> {
    let close = matching(host, open)?;
    let mut items = split_top(&host[open + 1..close]);
    items.retain(|i| !i.trim().is_empty());
    Some(items)
}

/// The `key: value` items of the dict literal opening at byte `open`.
fn dict_items(host: &str, open: usize) -> Option<Vec<(String, String)>> {
    bracketed(host, open)?
        .into_iter()
        .map(|i| {
            let (k, v) = i.split_once(':')?;
            Some((string_literal(k)?, v.trim().to_string()))
        })
        .collect()
}

/// The bracket that closes the one at byte `open`, outside string literals (the code with its
/// strings blanked has the same offsets).
fn matching(host: &str, open: usize) -> Option<usize> {
    crate::launch_sites::c_text::matching_close(code_only(host).as_bytes(), open)
}

fn named(
    items: &[(String, String)],
    names: &BTreeMap<String, i64>,
) -> Option<BTreeMap<String, String>> {
    items
        .iter()
        .map(|(k, v)| Some((k.clone(), value_of(v, names)?)))
        .collect()
}

fn positional(items: &[String], names: &BTreeMap<String, i64>) -> Option<Vec<String>> {
    items.iter().map(|i| value_of(i, names)).collect()
}

/// The text an argument puts in the program: a string literal's contents, or an integer
/// expression's value.
fn value_of(arg: &str, names: &BTreeMap<String, i64>) -> Option<String> {
    if let Some(s) = string_literal(arg) {
        return Some(s);
    }
    let e = Expr::parse(&c_expression(arg)?).ok()?;
    e.eval(names, Div::Floor).ok().map(|v| v.to_string())
}

/// The contents of a plain one-line string literal (`'float'`, `"block"`).
fn string_literal(s: &str) -> Option<String> {
    let s = s.trim();
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = s.strip_prefix(q)?.strip_suffix(q)?;
    (!inner.contains(q) && !inner.contains('\\')).then(|| inner.to_string())
}

/// The integers the file assigns at its top level, each once, in order (`BLOCK = 128`,
/// `TILE = BLOCK // 4`).
fn module_values(host: &str) -> BTreeMap<String, i64> {
    static ASSIGN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*)\s*(?::[^=]*)?=\s*([^=].*)$").unwrap());
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut values = BTreeMap::new();
    for line in code_only(host).lines() {
        let Some(c) = ASSIGN.captures(line.trim_end()) else {
            continue;
        };
        *seen.entry(c[1].to_string()).or_default() += 1;
        let value = c_expression(&c[2])
            .and_then(|e| Expr::parse(&e).ok())
            .and_then(|e| e.eval(&values, Div::Floor).ok());
        if let Some(v) = value {
            values.insert(c[1].to_string(), v);
        }
    }
    values.retain(|k, _| seen.get(k) == Some(&1));
    values
}

/// `%`-formatting: `%%`, and `%(name)d` / `%(name)s` or `%d` / `%s` / `%i` in order.
fn percent(value: &[(u8, usize)], args: &Args) -> Option<Vec<(u8, usize)>> {
    let mut out = Vec::new();
    let mut next = 0;
    let mut i = 0;
    while i < value.len() {
        let (c, line) = value[i];
        if c != b'%' {
            out.push((c, line));
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let key = if value.get(j).map(|v| v.0) == Some(b'(') {
            let close = (j..value.len()).find(|&k| value[k].0 == b')')?;
            let k: Vec<u8> = value[j + 1..close].iter().map(|v| v.0).collect();
            j = close + 1;
            Some(String::from_utf8(k).ok()?)
        } else {
            None
        };
        let text = match (value.get(j).map(|v| v.0)?, &key, args) {
            (b'%', None, _) => "%".to_string(),
            (b'd' | b'i' | b's', Some(k), Args::Named(m)) => m.get(k)?.clone(),
            (b'd' | b'i' | b's', None, Args::Positional(v)) => {
                next += 1;
                v.get(next - 1)?.clone()
            }
            _ => return None,
        };
        out.extend(text.bytes().map(|b| (b, line)));
        i = j + 1;
    }
    Some(out)
}

/// `.format`: `{{`, `}}`, and `{name}`, `{0}`, `{}` (an optional `:d`).
fn braces(
    value: &[(u8, usize)],
    named: &BTreeMap<String, String>,
    plain: &[String],
) -> Option<Vec<(u8, usize)>> {
    let mut out = Vec::new();
    let mut next = 0;
    let mut i = 0;
    while i < value.len() {
        let (c, line) = value[i];
        let twice = value.get(i + 1).map(|v| v.0) == Some(c);
        match c {
            b'{' | b'}' if twice => {
                out.push((c, line));
                i += 2;
            }
            b'{' => {
                let close = (i + 1..value.len()).find(|&k| value[k].0 == b'}')?;
                let field: Vec<u8> = value[i + 1..close].iter().map(|v| v.0).collect();
                let field = String::from_utf8(field).ok()?;
                let field = field.strip_suffix(":d").unwrap_or(&field);
                let text = if field.is_empty() {
                    next += 1;
                    plain.get(next - 1)?
                } else if let Ok(k) = field.parse::<usize>() {
                    plain.get(k)?
                } else {
                    named.get(field)?
                };
                out.extend(text.bytes().map(|b| (b, line)));
                i = close + 1;
            }
            b'}' => return None,
            _ => {
                out.push((c, line));
                i += 1;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::programs;

    /// PyCUDA's `%` with a dict and CuPy's `.format` with keywords fill in module-level values
    /// and literal types; `%%` and doubled braces are the characters they stand for.
    #[test]
    fn percent_and_format_templates_are_filled_in() {
        let host = "BLOCK = 128\nHALF = BLOCK // 2\n\
                    mod = SourceModule(\"\"\"\n__global__ void k(float *x) {\n  \
                    __shared__ float s[%(block)d];\n  s[threadIdx.x %% %(half)d] = x[0];\n}\n\"\"\" \
                    % {\"block\": BLOCK, 'half': HALF})\n\
                    k2 = cp.RawKernel('''\nextern \"C\" __global__ void k2({t} *x) {{ x[{}] = {n:d}; }}\n'''\
                    .format(7, t='double', n=HALF * 3,), 'k2')\n";
        let ps = programs(host, "t.py");
        assert_eq!(ps.len(), 2);
        assert!(
            ps[0].text.contains("__shared__ float s[128];")
                && ps[0].text.contains("threadIdx.x % 64]"),
            "{}",
            ps[0].text
        );
        assert!(
            ps[1].text.contains("void k2(double *x) { x[7] = 192; }"),
            "{}",
            ps[1].text
        );
    }

    /// An argument that is not read (a name assigned twice, a call) leaves the program as
    /// written, for the compiler to name what it cannot parse.
    #[test]
    fn a_template_whose_arguments_are_not_read_stays_as_written() {
        let host = "B = 64\nB = 128\n\
                    mod = SourceModule(\"\"\"\n__global__ void k(float *x) { x[%(b)d] = 0; }\n\"\"\" % {'b': B})\n";
        let ps = programs(host, "t.py");
        assert!(ps[0].text.contains("x[%(b)d]"), "{}", ps[0].text);
    }
}
