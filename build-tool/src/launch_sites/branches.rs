//! The branches a launch is in, so that a launch the host code never reaches is not predicted:
//!
//! ```text
//! int block_size = 32;
//! if (block_size == 16) MatrixMulCUDA<16><<<grid, threads>>>(…);   // not taken
//! else                  MatrixMulCUDA<32><<<grid, threads>>>(…);
//! switch (threads) { case 256: reduce<256><<<…>>>(…); break; … }
//! ```
//!
//! [`guards`] lists the conditions around a statement (`if`, `else`, `else if`, and `case`
//! labels, or `default:` as none of its switch's labels, that no earlier case falls into);
//! [`decide`] evaluates one with the host's values, and leaves it undecided when it reads
//! anything else (a value read at run time).
//!
//! The program is read as run without command-line arguments: `argc` is 1 where the code
//! gives it no other value ([`ARGC`]). So `int n = argc > 1 ? atoi(argv[1]) : 1 << 24;` is
//! 1 << 24, the size the program's author chose for a plain run, and a launch under
//! `if (argc > 1)` is listed as not taken, with that reason. [`settled`] takes a conditional's
//! branch where its condition is known.

use super::c_text::{c_expr, matching_close, opening, strip_parens};
use super::host_defs::HostDefs;
use crate::workload::{Div, Expr};
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// A condition the statement needs: `cond` must evaluate to `holds`.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub cond: String,
    pub holds: bool,
}

/// The conditions under which the statement at `at` runs, innermost first.
pub fn guards(code: &str, at: usize) -> Vec<Guard> {
    let mut out = Vec::new();
    let mut pos = at;
    // each round: the statement at `pos`, then the block around it
    for _ in 0..64 {
        let start = statement_start(code, pos);
        out.extend(prefix_guards(code, start, pos));
        let Some(open) = enclosing_brace(code, start) else {
            break;
        };
        pos = open;
    }
    out
}

/// Whether `g` holds with the host's values `defs`, and the values it read; `None` when it reads
/// a name without one.
pub fn decide(g: &Guard, defs: &HostDefs) -> Option<(bool, Vec<(String, i64)>)> {
    let mut read = BTreeMap::new();
    let v = truth(&g.cond, defs, &mut read)?;
    Some((v == g.holds, read.into_iter().collect()))
}

/// Where the statement that `pos` is in starts: after the `;`, `{` or `}` before it, outside
/// brackets.
pub(super) fn statement_start(code: &str, pos: usize) -> usize {
    let b = code.as_bytes();
    let mut depth = 0i32;
    for k in (0..pos.min(b.len())).rev() {
        match b[k] {
            b')' | b']' => depth += 1,
            b'(' | b'[' => depth -= 1,
            b';' | b'{' | b'}' if depth <= 0 => return k + 1,
            _ => {}
        }
    }
    0
}

/// The `{` of the block around `pos`.
pub(super) fn enclosing_brace(code: &str, pos: usize) -> Option<usize> {
    let b = code.as_bytes();
    let mut depth = 0usize;
    for k in (0..pos.min(b.len())).rev() {
        match b[k] {
            b'}' => depth += 1,
            b'{' if depth == 0 => return Some(k),
            b'{' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The guards that the text between a statement's start and `pos` puts on it: `if (c)`,
/// `else` (the preceding `if`'s condition false), `case K:` and `default:` labels.
fn prefix_guards(code: &str, start: usize, pos: usize) -> Vec<Guard> {
    let mut out = Vec::new();
    let mut i = start;
    let b = code.as_bytes();
    loop {
        while i < pos && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let rest = &code[i..pos];
        if let Some(after) = keyword(rest, "else") {
            let not_taken = preceding_ifs(code, start).into_iter();
            out.extend(not_taken.map(|cond| Guard { cond, holds: false }));
            i += rest.len() - after.len();
        } else if let Some((cond, end)) = if_condition(code, i).filter(|(_, end)| *end <= pos) {
            out.push(Guard { cond, holds: true });
            i = end;
        } else if keyword(rest, "case").is_some() || keyword(rest, "default").is_some() {
            out.extend(case_guard(code, start, i, pos));
            break;
        } else {
            break;
        }
    }
    out
}

/// `rest` after the keyword `kw`, where it starts with it as a whole word.
pub(super) fn keyword<'a>(rest: &'a str, kw: &str) -> Option<&'a str> {
    let after = rest.strip_prefix(kw)?;
    (!after.starts_with(|c: char| c.is_alphanumeric() || c == '_')).then_some(after)
}

/// `if (c)` (or `if constexpr (c)`) at `i`, after white space: the condition and where the
/// statement after it starts.
fn if_condition(code: &str, i: usize) -> Option<(String, usize)> {
    let rest = code[i..].trim_start();
    let after = keyword(rest, "if")?.trim_start();
    let after = keyword(after, "constexpr").unwrap_or(after).trim_start();
    let open = code.len() - after.len();
    let close = (after.starts_with('(')).then(|| matching_close(code.as_bytes(), open))??;
    Some((code[open + 1..close].trim().to_string(), close + 1))
}

/// The conditions of the `if` whose branch ends just before `else_start` (its `}` or `;`), and
/// of the `if`s that one is the `else` of: all of them false.
fn preceding_ifs(code: &str, else_start: usize) -> Vec<String> {
    let b = code.as_bytes();
    let Some(end) = else_start.checked_sub(1) else {
        return Vec::new();
    };
    // the then-branch: a block after its `if (c)`, or one statement that starts with it
    let head_start = if b[end] == b'}' {
        match opening(b, end, (b'{', b'}'), b"") {
            Some(open) => statement_start(code, open),
            None => return Vec::new(),
        }
    } else {
        statement_start(code, end)
    };
    let head = code[head_start..].trim_start();
    let mut out = Vec::new();
    let mut from = code.len() - head.len();
    if let Some(after) = keyword(head, "else") {
        out.extend(preceding_ifs(code, head_start));
        from = code.len() - after.len();
    }
    out.extend(if_condition(code, from).map(|(cond, _)| cond));
    out
}

/// `switch (x) { … case 1: case 2: stmt` — the statement runs when `x` is one of the labels,
/// and after `default:` when it is none of the switch's labels, unless an earlier case can fall
/// into it (the statement before the labels is not a `break`, `return` or the switch's `{`).
fn case_guard(code: &str, start: usize, labels_at: usize, pos: usize) -> Option<Guard> {
    let mut labels = Vec::new();
    let mut default = false;
    let mut rest = code[labels_at..pos].trim_start();
    loop {
        if let Some(after) = keyword(rest, "default") {
            default = true;
            rest = after.trim_start().strip_prefix(':')?.trim_start();
            continue;
        }
        let Some(after) = keyword(rest, "case") else {
            break;
        };
        let colon = label_end(after)?;
        labels.push(after[..colon].trim().to_string());
        rest = after[colon + 1..].trim_start();
    }
    // `case 3: default:` runs for 3 and for the values no label names: no one condition
    if labels.is_empty() == !default {
        return None;
    }
    let open = enclosing_brace(code, start)?;
    let previous = code[statement_start(code, start.saturating_sub(1))..start].trim();
    let falls_in = start.checked_sub(1) != Some(open)
        && !previous.starts_with("break")
        && !previous.starts_with("return")
        && !previous.starts_with("continue");
    if falls_in {
        return None;
    }
    let head = code[statement_start(code, open)..open].trim();
    let rest = keyword(head, "switch")?.trim();
    let close = matching_close(rest.as_bytes(), 0)?;
    let x = rest.get(1..close)?.trim();
    if default {
        labels = switch_labels(code, open);
        if labels.is_empty() {
            return None;
        }
    }
    Some(Guard {
        cond: labels
            .iter()
            .map(|l| format!("({x}) == ({l})"))
            .collect::<Vec<_>>()
            .join(" || "),
        holds: !default,
    })
}

/// Where the `case` label at the start of `after` ends: its `:`, not one of a `::` inside it.
fn label_end(after: &str) -> Option<usize> {
    after
        .char_indices()
        .find(|&(k, c)| c == ':' && !after[k..].starts_with("::") && !after[..k].ends_with(':'))
        .map(|(k, _)| k)
}

/// The `case` labels of the switch whose block opens at `open`, not those of a switch inside
/// it.
fn switch_labels(code: &str, open: usize) -> Vec<String> {
    let b = code.as_bytes();
    let Some(close) = matching_close(b, open) else {
        return Vec::new();
    };
    let mut labels = Vec::new();
    let mut depth = 0i32;
    let mut k = open + 1;
    while k < close {
        match b[k] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b'c' if depth == 0
                && (k == 0 || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_')) =>
            {
                if let Some(after) = keyword(&code[k..close], "case") {
                    if let Some(colon) = label_end(after) {
                        labels.push(after[..colon].trim().to_string());
                    }
                }
            }
            _ => {}
        }
        k += 1;
    }
    labels
}

/// The value of a C condition: `||`, `&&`, `!`, comparisons and integer arithmetic.
fn truth(cond: &str, defs: &HostDefs, read: &mut BTreeMap<String, i64>) -> Option<bool> {
    let c = cond.trim();
    // one known operand decides `||` (true) and `&&` (false) whatever the others are
    for (op, decides) in [("||", true), ("&&", false)] {
        if let Some(parts) = split_op(c, op) {
            let values: Vec<Option<bool>> = parts.iter().map(|p| truth(p, defs, read)).collect();
            if values.contains(&Some(decides)) {
                return Some(decides);
            }
            return values.iter().all(Option::is_some).then_some(!decides);
        }
    }
    for op in ["==", "!=", "<=", ">=", "<", ">"] {
        if let Some(parts) = split_op(c, op) {
            let [a, z] = &parts[..] else { return None };
            let (a, z) = (value(a, defs, read)?, value(z, defs, read)?);
            return Some(match op {
                "==" => a == z,
                "!=" => a != z,
                "<=" => a <= z,
                ">=" => a >= z,
                "<" => a < z,
                _ => a > z,
            });
        }
    }
    if let Some(inner) = c.strip_prefix('!').filter(|r| !r.starts_with('=')) {
        return truth(inner, defs, read).map(|v| !v);
    }
    let b = c.as_bytes();
    if c.starts_with('(') && matching_close(b, 0) == Some(b.len() - 1) {
        return truth(&c[1..c.len() - 1], defs, read);
    }
    match c {
        "true" => Some(true),
        "false" => Some(false),
        _ => value(c, defs, read).map(|v| v != 0),
    }
}

/// `c` split at the top-level occurrences of the operator `op` (not inside brackets, and not
/// part of `<<`, `>>`, `->`, `<=` or `>=`), when it has any.
fn split_op(c: &str, op: &str) -> Option<Vec<String>> {
    let b = c.as_bytes();
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut from = 0;
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            _ if depth == 0 && c[k..].starts_with(op) => {
                let prev = k.checked_sub(1).map(|p| b[p]);
                let next = b.get(k + op.len()).copied();
                let single = op.len() == 1;
                let glued = single
                    && (matches!(prev, Some(b'<' | b'>' | b'-'))
                        || matches!(next, Some(b'<' | b'>' | b'=')));
                if !glued {
                    parts.push(c[from..k].to_string());
                    k += op.len();
                    from = k;
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    if parts.is_empty() {
        return None;
    }
    parts.push(c[from..].to_string());
    Some(parts)
}

/// The value of `argc` where the host code gives it none: the program run without arguments.
pub(super) const ARGC: i64 = 1;

/// How deep values are read through the definitions they read.
const MAX_DEPTH: usize = 16;

/// An integer expression's value from the host's definitions, noting each name it reads.
pub(super) fn value(text: &str, defs: &HostDefs, read: &mut BTreeMap<String, i64>) -> Option<i64> {
    value_at(text, defs, read, 0)
}

fn value_at(
    text: &str,
    defs: &HostDefs,
    read: &mut BTreeMap<String, i64>,
    depth: usize,
) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let text = settled_at(text, defs, depth);
    let e = Expr::parse(&c_expr(&text, &defs.fns)).ok()?;
    let mut names = Vec::new();
    e.vars(&mut names);
    let mut env = BTreeMap::new();
    for n in names {
        let v = named(&n, defs, depth + 1)?;
        read.insert(n.clone(), v);
        env.insert(n, v);
    }
    e.eval(&env, Div::Floor).ok()
}

/// A host name's value, through the definitions it reads.
fn named(name: &str, defs: &HostDefs, depth: usize) -> Option<i64> {
    if let Some(v) = defs.macros.get(name) {
        return Some(*v);
    }
    match defs.scalars.get(name) {
        Some(text) => value_at(text, defs, &mut BTreeMap::new(), depth),
        None => (name == "argc").then_some(ARGC),
    }
}

/// `text` with a conditional whose condition the host's values decide replaced by the branch
/// it takes, as far as they decide (`argc > 1 ? atoi(argv[1]) : 1 << 24` is `1 << 24`): the
/// branch not taken may be anything, even what kerncast cannot read. Other text as it is.
pub(super) fn settled(text: &str, defs: &HostDefs) -> String {
    settled_at(text, defs, 0)
}

fn settled_at(text: &str, defs: &HostDefs, depth: usize) -> String {
    let indexed = list_items(text.trim(), defs, depth);
    let t = strip_parens(&indexed);
    let Some((question, colon)) = conditional(t) else {
        return indexed;
    };
    match value_at(&t[..question], defs, &mut BTreeMap::new(), depth + 1) {
        Some(0) => settled_at(&t[colon + 1..], defs, depth + 1),
        Some(_) => settled_at(&t[question + 1..colon], defs, depth + 1),
        None => indexed,
    }
}

/// `text` with each item of a list the host code writes out that it reads at an index with a
/// value (`sizes[i]` with `i` = 1 and `int sizes[] = {512, 1024};`) as that item, `(1024)`.
fn list_items(text: &str, defs: &HostDefs, depth: usize) -> String {
    static INDEXED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b([A-Za-z_]\w*)\s*\[([^\[\]]*)\]").unwrap());
    if defs.lists.is_empty() {
        return text.to_string();
    }
    INDEXED
        .replace_all(text, |c: &regex::Captures| {
            let item = defs.lists.get(&c[1]).and_then(|items| {
                let k = value_at(&c[2], defs, &mut BTreeMap::new(), depth + 1)?;
                items.get(usize::try_from(k).ok()?)
            });
            item.map_or_else(|| c[0].to_string(), |i| format!("({i})"))
        })
        .into_owned()
}

/// The `?` and its `:` of a conditional `c ? a : b` at the top level of `t`.
pub(super) fn conditional(t: &str) -> Option<(usize, usize)> {
    let b = t.as_bytes();
    let mut depth = 0i32;
    let mut question = None;
    let mut open = 0;
    for (k, c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'?' if depth == 0 => {
                question.get_or_insert(k);
                open += 1;
            }
            b':' if depth == 0 && b.get(k + 1) != Some(&b':') && (k == 0 || b[k - 1] != b':') => {
                open -= 1;
                if open == 0 {
                    return question.map(|q| (q, k));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(pairs: &[(&str, &str)]) -> HostDefs {
        HostDefs::of_scalars(pairs)
    }

    fn at(code: &str, what: &str) -> Vec<Guard> {
        guards(code, code.find(what).unwrap())
    }

    fn g(cond: &str, holds: bool) -> Guard {
        Guard {
            cond: cond.into(),
            holds,
        }
    }

    #[test]
    fn if_else_and_else_if_chains() {
        let code = "void f() {\n  if (bs == 16) {\n    A();\n  } else if (bs == 32)\n    B();\n  else {\n    for (;;) { C(); }\n  }\n  D();\n}\n";
        assert_eq!(at(code, "A()"), [g("bs == 16", true)]);
        assert_eq!(at(code, "B()"), [g("bs == 16", false), g("bs == 32", true)]);
        assert_eq!(
            at(code, "C()"),
            [g("bs == 16", false), g("bs == 32", false)]
        );
        let braceless = "void f() {\n  if (a) A();\n  else if (b) B();\n  else C();\n}\n";
        assert_eq!(at(braceless, "C()"), [g("a", false), g("b", false)]);
        let diff = "void f() {\n  if (diff > 0) { A(); } else { B(); }\n}\n";
        assert_eq!(at(diff, "B()"), [g("diff > 0", false)]);
        assert_eq!(at(code, "D()"), []);
    }

    #[test]
    fn switch_cases_without_fallthrough() {
        let code = "void f() {\n  switch (threads) {\n  case 512: K<float, 512><<<g, 512>>>(); break;\n  case 256:\n  case 128: K256(); break;\n  case 64: X(); \n  case 32: K32(); break;\n  default: K1();\n  }\n}\n";
        assert_eq!(at(code, "<<<"), [g("(threads) == (512)", true)]);
        assert_eq!(
            at(code, "K256"),
            [g("(threads) == (256) || (threads) == (128)", true)]
        );
        // case 64 falls into case 32: no guard either way
        assert_eq!(at(code, "K32"), []);
        // default runs for any value no label names
        assert_eq!(
            at(code, "K1"),
            [g(
                "(threads) == (512) || (threads) == (256) || (threads) == (128) || (threads) == \
                 (64) || (threads) == (32)",
                false
            )]
        );
        // … unless a case falls into it, or shares its statement
        let falls = code.replace("K32(); break;", "K32();");
        assert_eq!(at(&falls, "K1"), []);
        let shared = code.replace("default: K1();", "case 7: default: K1();");
        assert_eq!(at(&shared, "K1"), []);
    }

    #[test]
    fn conditions_evaluate_with_the_host_s_values_or_stay_undecided() {
        let d = defs(&[("bs", "32"), ("n", "bs * 64"), ("tiled", "true")]);
        let v = |c: &str| decide(&g(c, true), &d).map(|(v, _)| v);
        assert_eq!(v("bs == 16"), Some(false));
        assert_eq!(v("bs != 16 && (n >= 2048 || argc > 1)"), Some(true));
        assert_eq!(v("!(bs < 64)"), Some(false));
        assert_eq!(v("(n << 1) > 4096"), Some(false));
        // the program is read as run without arguments
        assert_eq!(v("argc > 1"), Some(false));
        assert_eq!(v("verbose > 1"), None);
        assert_eq!(v("tiled && !false"), Some(true));
        let (_, read) = decide(&g("n > 1000", false), &d).unwrap();
        assert_eq!(read, [("n".to_string(), 2048)]);
    }

    #[test]
    fn a_conditional_the_host_s_values_decide_is_its_branch() {
        let d = defs(&[("bs", "32"), ("n", "argc > 1 ? atoi(argv[1]) : 1 << 24")]);
        assert_eq!(settled("argc > 1 ? atoi(argv[1]) : 1 << 24", &d), "1 << 24");
        assert_eq!(settled("(bs == 32) ? (n > 1 ? 4 : 5) : f(x)", &d), "4");
        // nested in the branch not taken, and `::` is no branch
        assert_eq!(
            settled("bs < 8 ? a ? 1 : 2 : std::max(bs, 3)", &d),
            "std::max(bs, 3)"
        );
        // undecided, or no conditional: as written
        assert_eq!(settled("seed ? 1 : 2", &d), "seed ? 1 : 2");
        assert_eq!(settled("n + 1", &d), "n + 1");
        assert_eq!(value("n / 2", &d, &mut BTreeMap::new()), Some(1 << 23));
        // a definition that reads itself has no value, and ends
        let looped = defs(&[("m", "m > 1 ? 2 : 3")]);
        assert_eq!(value("m", &looped, &mut BTreeMap::new()), None);
    }
}
