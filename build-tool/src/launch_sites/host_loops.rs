//! The host loops around a launch, and how many times they run it:
//!
//! ```text
//! for (int it = 0; it < iters; ++it) { jacobi<<<grid, block>>>(a, b, n); std::swap(a, b); }
//! for (int s = 1; s < n; s *= 2) scan_step<<<…>>>(d, s, n);
//! while (residual > tol) { … }
//! ```
//!
//! A prediction is one launch's. An iterative solver runs it a hundred times, and the user wants
//! to know what the loop costs. [`enclosing_loops`] lists the `for`, `while` and `do` loops
//! around a launch in its function, innermost first. A `for` whose counter starts, ends and
//! steps by values the host code gives (`+=`, `-=`, `++`, `--`, `*=`, `/=`, `<<=`, `>>=`) has
//! its trips counted as C would run them, and `do { … } while (0)` (a statement macro's idiom)
//! runs once. Any other loop gives the reason it cannot be counted.
//! A `break`, or a change of the counter inside the body, is not seen.

use super::branches::{enclosing_brace, keyword, statement_start, value};
use super::c_text::matching_close;
use super::host_defs::HostDefs;
use crate::workload::HostLoop;
use std::collections::BTreeMap;

/// More trips than this are not walked one by one (a multiplying step needs few).
const MAX_WALKED: u64 = 1 << 20;

/// The loops around the statement at `at`, innermost first, with the host's values `defs`.
pub fn enclosing_loops(code: &str, at: usize, defs: &HostDefs) -> Vec<HostLoop> {
    let mut out = Vec::new();
    let mut pos = at;
    for _ in 0..64 {
        let start = statement_start(code, pos);
        let mut heads = loop_heads(code, start, pos);
        heads.reverse();
        out.extend(heads.into_iter().map(|(at, kw, head, inner)| {
            HostLoop {
                line: code[..at].matches('\n').count() + 1,
                counter: (kw == "for")
                    .then(|| counter_start(inner.split(';').next()?).map(|(v, _)| v.to_string()))
                    .flatten(),
                trips: trips(kw, &inner, defs),
                head,
            }
        }));
        let Some(open) = enclosing_brace(code, start) else {
            break;
        };
        pos = open;
    }
    out
}

/// The loop keywords in the text between a statement's start and `pos` (`for (…) if (c) for
/// (…)`), outermost first: the keyword's offset, the keyword, the head as written, and the text
/// in its brackets.
fn loop_heads(code: &str, start: usize, pos: usize) -> Vec<(usize, &'static str, String, String)> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = start;
    loop {
        while i < pos && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let rest = &code[i..pos];
        if let Some(after) = keyword(rest, "do") {
            let cond = do_condition(code, pos).unwrap_or_default();
            out.push((i, "do", format!("do … while ({cond})"), cond));
            i = pos - after.len();
            continue;
        }
        if keyword(rest, "else").is_some() {
            i += 4;
            continue;
        }
        let Some((kw, after)) = ["for", "while", "if", "switch"]
            .into_iter()
            .find_map(|kw| Some((kw, keyword(rest, kw)?)))
        else {
            break;
        };
        let open = pos - after.len() + (after.len() - after.trim_start().len());
        let Some(close) = (b.get(open) == Some(&b'('))
            .then(|| matching_close(b, open))
            .flatten()
        else {
            break;
        };
        if close >= pos {
            break;
        }
        if matches!(kw, "for" | "while") {
            let inner = code[open + 1..close].to_string();
            let head = format!(
                "{kw} ({})",
                inner.split_whitespace().collect::<Vec<_>>().join(" ")
            );
            out.push((i, kw, head, inner));
        }
        i = close + 1;
    }
    out
}

/// The condition of the `do { … } while (cond);` whose block opens at `open`.
fn do_condition(code: &str, open: usize) -> Option<String> {
    let b = code.as_bytes();
    let close = (b.get(open) == Some(&b'{')).then(|| matching_close(b, open))??;
    let after = keyword(code[close + 1..].trim_start(), "while")?.trim_start();
    let at = code.len() - after.len();
    let end = (after.starts_with('(')).then(|| matching_close(b, at))??;
    Some(code[at + 1..end].trim().to_string())
}

/// The trips of one loop (see the module doc).
fn trips(kw: &str, inner: &str, defs: &HostDefs) -> Result<u64, String> {
    // `do { … } while (0)`, the statement-macro idiom: once
    if kw == "do" && value(inner, defs, &mut BTreeMap::new()) == Some(0) {
        return Ok(1);
    }
    if kw != "for" {
        return Err(format!("a `{kw}` loop"));
    }
    let parts: Vec<&str> = inner.split(';').map(str::trim).collect();
    let [init, cond, step] = parts[..] else {
        return Err("not a `for (init; condition; step)` kerncast can read".into());
    };
    let (var, start) = counter_start(init)
        .ok_or_else(|| format!("its start `{init}` does not give one counter a value"))?;
    let mut read = BTreeMap::new();
    let start = value(start, defs, &mut read)
        .ok_or_else(|| format!("its start `{init}` has no value kerncast can read"))?;
    let (op, bound) = condition(cond, var)
        .ok_or_else(|| format!("its condition `{cond}` does not compare `{var}` with a bound"))?;
    let bound = value(bound, defs, &mut read)
        .ok_or_else(|| format!("its bound in `{cond}` has no value kerncast can read"))?;
    let (step_op, by) = step_of(step, var)
        .ok_or_else(|| format!("its step `{step}` is not one kerncast can read"))?;
    let by = value(by, defs, &mut read)
        .ok_or_else(|| format!("its step `{step}` has no value kerncast can read"))?;
    count(start, op, bound, step_op, by).ok_or_else(|| {
        format!(
            "from `{var}` = {start}, `{step}` does not end it by `{cond}` within {MAX_WALKED} trips"
        )
    })
}

/// `int it = 0`, `size_t i = n - 1`, `it = 0`: the counter and the text of its start.
fn counter_start(init: &str) -> Option<(&str, &str)> {
    let (lhs, start) = init.split_once('=')?;
    if start.starts_with('=') || start.contains(',') {
        return None;
    }
    let var = lhs.split_whitespace().last()?.trim_start_matches('*');
    let ident = !var.is_empty()
        && var.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !var.starts_with(|c: char| c.is_ascii_digit());
    ident.then_some((var, start.trim()))
}

/// `var OP bound` or `bound OP var`, as `var OP bound`.
fn condition<'a>(cond: &'a str, var: &str) -> Option<(&'static str, &'a str)> {
    for (op, mirrored) in [
        ("<=", ">="),
        (">=", "<="),
        ("!=", "!="),
        ("<", ">"),
        (">", "<"),
    ] {
        let Some((a, z)) = cond.split_once(op) else {
            continue;
        };
        if z.starts_with('=') || a.ends_with(['<', '>', '!', '=']) {
            continue;
        }
        if a.trim() == var {
            return Some((op, z.trim()));
        }
        if z.trim() == var {
            return Some((mirrored, a.trim()));
        }
    }
    None
}

/// `++it`, `it++`, `it += 2`, `it = it * 2`, …: the operator and the text of its operand.
fn step_of<'a>(step: &'a str, var: &str) -> Option<(&'static str, &'a str)> {
    let s = step.trim();
    if s == format!("++{var}") || s == format!("{var}++") {
        return Some(("+", "1"));
    }
    if s == format!("--{var}") || s == format!("{var}--") {
        return Some(("-", "1"));
    }
    for (written, op) in [
        ("+=", "+"),
        ("-=", "-"),
        ("*=", "*"),
        ("/=", "/"),
        ("<<=", "<<"),
        (">>=", ">>"),
    ] {
        if let Some(by) = s
            .strip_prefix(var)
            .and_then(|r| r.trim().strip_prefix(written))
        {
            return Some((op, by.trim()));
        }
    }
    // `it = it + 2`
    let rhs = s.strip_prefix(var)?.trim().strip_prefix('=')?.trim();
    let rest = rhs.strip_prefix(var)?.trim();
    ["+", "-", "*", "/", "<<", ">>"]
        .into_iter()
        .find_map(|op| Some((op, rest.strip_prefix(op)?.trim())))
}

/// How many times `for (v = start; v OP bound; v STEP by)` runs its body; `None` when it would
/// not end.
fn count(start: i64, op: &str, bound: i64, step: &str, by: i64) -> Option<u64> {
    let holds = |v: i64| match op {
        "<" => v < bound,
        "<=" => v <= bound,
        ">" => v > bound,
        ">=" => v >= bound,
        _ => v != bound,
    };
    if !holds(start) {
        return Some(0);
    }
    // an arithmetic step toward the bound: the closed form
    let toward = match (step, op) {
        ("+", "<" | "<=") if by > 0 => Some(bound - start),
        ("-", ">" | ">=") if by > 0 => Some(start - bound),
        ("+", "!=") if by > 0 && bound > start && (bound - start) % by == 0 => Some(bound - start),
        ("-", "!=") if by > 0 && start > bound && (start - bound) % by == 0 => Some(start - bound),
        _ => None,
    };
    if let Some(span) = toward {
        let span = span as u64 + u64::from(matches!(op, "<=" | ">="));
        return Some(span.div_ceil(by as u64));
    }
    let mut v = start;
    for n in 0..MAX_WALKED {
        if !holds(v) {
            return Some(n);
        }
        let next = match step {
            "+" => v.checked_add(by),
            "-" => v.checked_sub(by),
            "*" => v.checked_mul(by),
            "/" if by != 0 => Some(v / by),
            "<<" => u32::try_from(by).ok().and_then(|b| v.checked_shl(b)),
            ">>" => u32::try_from(by).ok().and_then(|b| v.checked_shr(b)),
            _ => None,
        };
        match next {
            Some(n) if n != v => v = n,
            _ => return None,
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

    fn loops(code: &str, d: &HostDefs) -> Vec<HostLoop> {
        enclosing_loops(code, code.find("k<<<").unwrap(), d)
    }

    #[test]
    fn a_counted_loop_gives_its_trips_innermost_first() {
        let d = defs(&[("iters", "100"), ("n", "1 << 20")]);
        let code = "int main() { for (int it = 0; it < iters; ++it) { \
                    for (int s = 1; s < n; s *= 2) k<<<g, b>>>(s); } }";
        let got = loops(code, &d);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].head, "for (int s = 1; s < n; s *= 2)");
        assert_eq!(got[0].counter.as_deref(), Some("s"));
        assert_eq!((got[0].line, got[1].line), (1, 1));
        assert_eq!(got[0].trips, Ok(20));
        assert_eq!(got[1].head, "for (int it = 0; it < iters; ++it)");
        assert_eq!(got[1].trips, Ok(100));
    }

    /// The step forms C allows, counted as C runs them.
    #[test]
    fn every_step_form_counts_as_c_runs_it() {
        let d = defs(&[("n", "10")]);
        for (head, want) in [
            ("for (int i = 0; i < n; i++)", 10),
            ("for (int i = 0; i <= n; i += 3)", 4),
            ("for (i = n; i > 0; --i)", 10),
            ("for (int i = n - 1; i >= 0; i -= 2)", 5),
            ("for (int i = 0; n > i; i = i + 1)", 10),
            ("for (int i = 0; i != n; ++i)", 10),
            ("for (long i = 0; i != n * 1000000; i += 2)", 5_000_000),
            ("for (long s = 1024; s > 0; s >>= 1)", 11),
            ("for (int s = n; s > 1; s /= 2)", 3),
            ("for (int i = n; i < 5; ++i)", 0),
        ] {
            let code = format!("void f() {{ {head} k<<<1, 1>>>(); }}");
            assert_eq!(loops(&code, &d)[0].trips, Ok(want), "{head}");
        }
    }

    /// Loops that cannot be counted say why; `if`s between the loop and the launch are passed,
    /// and the function's own braces are no loop.
    #[test]
    fn uncounted_loops_say_why() {
        let d = defs(&[]);
        let code = "void f(float tol) { while (err > tol) { if (x) k<<<1, 1>>>(); } }";
        let got = loops(code, &d);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].trips, Err("a `while` loop".into()));
        let code = "void f(int m) { for (int i = 0; i < m; ++i) k<<<1, 1>>>(); }";
        assert_eq!(
            loops(code, &d)[0].trips,
            Err("its bound in `i < m` has no value kerncast can read".into())
        );
        let code = "void f() { do { k<<<1, 1>>>(); } while (again()); }";
        assert_eq!(loops(code, &d)[0].trips, Err("a `do` loop".into()));
        assert_eq!(loops(code, &d)[0].head, "do … while (again())");
        let code = "void f() { do { k<<<1, 1>>>(); } while (0); }";
        assert_eq!(loops(code, &d)[0].trips, Ok(1));
        let code = "void f() { for (int i = 0; i < 4; i *= 2) k<<<1, 1>>>(); }";
        assert!(loops(code, &d)[0]
            .trips
            .as_ref()
            .unwrap_err()
            .contains("does not end"));
        assert!(loops("int main() { if (a) { k<<<1, 1>>>(); } }", &d).is_empty());
    }
}
