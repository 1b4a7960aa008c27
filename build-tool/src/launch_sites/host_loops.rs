//! The host loops around a launch, and how many times they run it:
//!
//! ```text
//! for (int it = 0; it < iters; ++it) { jacobi<<<grid, block>>>(a, b, n); std::swap(a, b); }
//! for (int s = 1; s < n; s *= 2) scan_step<<<…>>>(d, s, n);
//! while (residual > tol) { … }
//! ```
//!
//! A prediction is one launch's. An iterative solver runs it a hundred times, and the user wants
//! to know what the loop costs. [`enclosing_loops_within`] lists the `for`, `while` and `do`
//! loops around a launch in its function, innermost first. A `for` whose counter starts, ends and
//! steps by values the host code gives (`+=`, `-=`, `++`, `--`, `*=`, `/=`, `<<=`, `>>=`) has
//! its trips counted as C would run them, a range-based `for` over a list the code writes out
//! (`range_for`) runs once per element, and `do { … } while (0)` (a statement macro's idiom)
//! runs once. A `while` or `do` loop whose body steps a counter is counted the same way, from
//! the counter's value before it (`loop_body`). A loop whose body can `break` out of it, or
//! changes a `for` counter, is not counted; it says why, and how many trips it runs at most.
//! Any other loop gives the reason it cannot be counted.
//!
//! A `for` loop of at most [`MAX_SWEPT`] trips also gives its counter's values, one per trip,
//! so that a launch that reads the counter (a size sweep) is predicted at each. A `for` whose
//! head reads the counter of a loop around it that lists its values is counted at each of them
//! ([`follow`]): a multi-pass algorithm's schedule, whose trips are the nest's.

use super::branches::{enclosing_brace, keyword, statement_start, value};
use super::c_text::{matching_close, strip_parens};
use super::host_defs::HostDefs;
use super::loop_body;
use super::range_for;
use crate::workload::{Follows, HostLoop};
use std::collections::BTreeMap;
use std::ops::Range;

/// More trips than this are not walked one by one (a multiplying step needs few).
const MAX_WALKED: u64 = 1 << 20;

/// The most values of a loop's counter listed for a launch to be predicted at each
/// ([`HostLoop::values`]): a size sweep has a few, the passes of a multi-pass algorithm one per
/// power of two of its size (a radix-2 FFT of 2^20 points, 20), a time-stepping loop many more.
pub const MAX_SWEPT: u64 = 32;

/// The most trips of a loop nest whose inner loop follows the outer counter that are predicted
/// one by one: such a nest is a multi-pass algorithm's schedule (a bitonic sort of 2^22 keys
/// runs 253 passes), whose passes are what it costs.
pub const MAX_SWEPT_NEST: u64 = 256;

#[cfg(test)]
pub fn enclosing_loops(code: &str, at: usize, defs: &HostDefs) -> Vec<HostLoop> {
    enclosing_loops_within(code, at, defs, 0)
}

/// The loops around the statement at `at` that start at or after the offset `from`,
/// innermost first, with the host's values `defs`. `from` is the body of what runs the
/// statement: a lambda that a helper calls is not run by the loops around where it is written.
pub fn enclosing_loops_within(
    code: &str,
    at: usize,
    defs: &HostDefs,
    from: usize,
) -> Vec<HostLoop> {
    let mut heads: Vec<Head> = Vec::new();
    let mut pos = at;
    for _ in 0..64 {
        let start = statement_start(code, pos);
        if start < from {
            break;
        }
        heads.extend(loop_heads(code, start, pos).into_iter().rev());
        let Some(open) = enclosing_brace(code, start) else {
            break;
        };
        pos = open;
    }
    let mut out: Vec<HostLoop> = heads
        .iter()
        .map(|h| {
            let trips = trips(code, h, defs);
            HostLoop {
                line: line_of(code, h.at),
                counter: counter(code, h),
                values: match trips {
                    Ok(t) if t <= MAX_SWEPT => counter_values(code, h, defs),
                    _ => Vec::new(),
                },
                trips,
                head: h.head.clone(),
                follows: None,
            }
        })
        .collect();
    for i in 0..out.len() {
        if out[i].trips.is_ok() {
            continue;
        }
        let (inner, enclosing) = out.split_at_mut(i + 1);
        if let Some(f) = follow(code, &heads[i], enclosing, defs) {
            let l = &mut inner[i];
            let values: Vec<i64> = f.at.iter().flat_map(|(_, _, v)| v.clone()).collect();
            let trips: u64 = f.at.iter().map(|(_, t, _)| t).sum();
            let all_listed = f.at.iter().all(|(_, t, v)| v.len() as u64 == *t);
            l.values = if all_listed && trips <= MAX_SWEPT_NEST {
                values
            } else {
                Vec::new()
            };
            l.trips = Ok(trips);
            l.follows = Some(f);
        }
    }
    out
}

/// A loop `h` whose head (or, for a `while` or `do` loop, its counter's start) reads the
/// counter of one of the loops around it (`enclosing`, innermost first) that lists its values,
/// counted at each of them: a multi-pass algorithm's schedule (a bitonic sort's `for (j = k >>
/// 1; j > 0; j >>= 1)` inside `for (k = 2; k <= n; k <<= 1)`). Only a `for` lists its own
/// values. `None` where it cannot be counted at every value.
fn follow(code: &str, h: &Head, enclosing: &[HostLoop], defs: &HostDefs) -> Option<Follows> {
    // a `while` or `do` loop's counter starts before it (`int j = k / 2; while (j > 0) …`)
    let start = match h.kw {
        "for" => String::new(),
        _ => {
            let (var, _) = stepped_counter(code, h).ok()?;
            loop_body::start_before(code, h.at, &var).ok()?
        }
    };
    let outer = enclosing.iter().find(|o| {
        o.counter.as_ref().is_some_and(|c| {
            crate::c_lex::has_word(&h.inner, c) || crate::c_lex::has_word(&start, c)
        })
    })?;
    let counter = outer.counter.clone()?;
    if outer.values.is_empty() {
        return None;
    }
    let at = outer
        .values
        .iter()
        .map(|&v| {
            let mut d = defs.clone();
            d.scalars.insert(counter.clone(), v.to_string());
            let t = trips(code, h, &d).ok()?;
            let values = if t <= MAX_SWEPT {
                counter_values(code, h, &d)
            } else {
                Vec::new()
            };
            Some((v, t, values))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Follows {
        line: outer.line,
        counter,
        at,
    })
}

/// One loop as written.
struct Head {
    /// The offset of its keyword.
    at: usize,
    kw: &'static str,
    /// The head as written: `for (int i = 0; i < n; ++i)`, `do … while (again())`.
    head: String,
    /// The text in the head's brackets (a `do` loop's condition).
    inner: String,
    /// Its body, a block or one statement.
    body: Range<usize>,
}

/// 1-based line of the offset `at`.
fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

/// The loop keywords in the text between a statement's start and `pos` (`for (…) if (c) for
/// (…)`), outermost first.
fn loop_heads(code: &str, start: usize, pos: usize) -> Vec<Head> {
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
            out.push(Head {
                at: i,
                kw: "do",
                head: format!("do … while ({cond})"),
                inner: cond,
                body: loop_body::body_after(code, pos),
            });
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
            out.push(Head {
                at: i,
                kw,
                head,
                inner,
                body: loop_body::body_after(code, close + 1),
            });
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

/// The counter of a loop: a `for` loop's (`it` of `for (int it = 0; …)`), or the one a
/// `while` or `do` loop's body steps.
fn counter(code: &str, h: &Head) -> Option<String> {
    match h.kw {
        "for" => match range_for::split(&h.inner) {
            Some((var, _)) => Some(var),
            None => counter_start(h.inner.split(';').next()?).map(|(v, _)| v.to_string()),
        },
        _ => stepped_counter(code, h).ok().map(|(var, _)| var),
    }
}

/// The values a `for` loop's counter takes, in order, one per trip; empty where they are not
/// all known (a `while` loop's counter is stepped somewhere in its body, so a launch there may
/// see it before or after the step).
fn counter_values(code: &str, h: &Head, defs: &HostDefs) -> Vec<i64> {
    let mut read = BTreeMap::new();
    if h.kw != "for" {
        return Vec::new();
    }
    if let Some((_, range)) = range_for::split(&h.inner) {
        let elements = range_for::elements(code, &range).unwrap_or_default();
        let values: Option<Vec<i64>> = elements.iter().map(|e| value(e, defs, &mut read)).collect();
        return values.unwrap_or_default();
    }
    let parts: Vec<&str> = h.inner.split(';').map(str::trim).collect();
    let [init, cond, step] = parts[..] else {
        return Vec::new();
    };
    let mut walk = || -> Option<Vec<i64>> {
        let (var, start) = counter_start(init)?;
        let (op, bound) = condition(cond, var)?;
        let (step_op, by) = step_of(step, var)?;
        let mut v = value(start, defs, &mut read)?;
        let (bound, by) = (value(bound, defs, &mut read)?, value(by, defs, &mut read)?);
        let mut out = Vec::new();
        while holds(v, op, bound) && out.len() as u64 <= MAX_SWEPT {
            out.push(v);
            v = stepped(v, step_op, by)?;
        }
        Some(out)
    };
    walk().unwrap_or_default()
}

/// The trips of one loop (see the module doc).
fn trips(code: &str, h: &Head, defs: &HostDefs) -> Result<u64, String> {
    let trips = match h.kw {
        "for" => for_trips(code, h, defs)?,
        _ => conditional_trips(code, h, defs)?,
    };
    match loop_body::early_exit(code, h.body.clone()) {
        Some(at) => Err(format!(
            "its body can leave it early (`break` on line {}), so it runs at most {trips} \
             time(s)",
            line_of(code, at)
        )),
        None => Ok(trips),
    }
}

/// The trips of `for (init; condition; step)`, or of `for (decl : list)`.
fn for_trips(code: &str, h: &Head, defs: &HostDefs) -> Result<u64, String> {
    if let Some((var, range)) = range_for::split(&h.inner) {
        if let Some(c) = loop_body::changes(code, h.body.clone(), &var).first() {
            return Err(format!(
                "its body changes `{var}` (`{}`, line {})",
                c.statement,
                line_of(code, c.at)
            ));
        }
        return range_for::elements(code, &range).map(|e| e.len() as u64);
    }
    let parts: Vec<&str> = h.inner.split(';').map(str::trim).collect();
    let [init, cond, step] = parts[..] else {
        return Err("not a `for (init; condition; step)` kerncast can read".into());
    };
    let (var, start) = counter_start(init)
        .ok_or_else(|| format!("its start `{init}` does not give one counter a value"))?;
    if let Some(c) = loop_body::changes(code, h.body.clone(), var).first() {
        return Err(format!(
            "its body changes `{var}` (`{}`, line {})",
            c.statement,
            line_of(code, c.at)
        ));
    }
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

/// The trips of `while (cond) body` or `do body while (cond);`, counted through the counter
/// its body steps, from the counter's value before the loop.
fn conditional_trips(code: &str, h: &Head, defs: &HostDefs) -> Result<u64, String> {
    let mut read = BTreeMap::new();
    // `do { … } while (0)`, the statement-macro idiom: once
    if h.kw == "do" && value(&h.inner, defs, &mut read) == Some(0) {
        return Ok(1);
    }
    let cond = strip_parens(h.inner.trim());
    let (var, step) = stepped_counter(code, h)?;
    let (op, bound) = condition(cond, &var).expect("stepped_counter found it in the condition");
    let bound = value(bound, defs, &mut read)
        .ok_or_else(|| format!("its bound in `{cond}` has no value kerncast can read"))?;
    let (step_op, by) = step_of(&step, &var).expect("stepped_counter read the step");
    let by = value(by, defs, &mut read)
        .ok_or_else(|| format!("its step `{step}` has no value kerncast can read"))?;
    let init = loop_body::start_before(code, h.at, &var)?;
    let start = value(&init, defs, &mut read).ok_or_else(|| {
        format!("its counter's value before it, `{var} = {init}`, is not one kerncast can read")
    })?;
    let not_ending = || {
        format!("from `{var}` = {start}, `{step}` does not end it by `{cond}` within {MAX_WALKED} trips")
    };
    if h.kw == "do" {
        // the body runs once before the condition is first asked
        let next = stepped(start, step_op, by).ok_or_else(not_ending)?;
        return count(next, op, bound, step_op, by)
            .map(|n| n + 1)
            .ok_or_else(not_ending);
    }
    count(start, op, bound, step_op, by).ok_or_else(not_ending)
}

/// The counter of a `while` or `do` loop: a name its condition compares with a bound, which
/// its body changes in exactly one statement, run on every trip, that steps it (`iter += 2`);
/// with that statement's text.
fn stepped_counter(code: &str, h: &Head) -> Result<(String, String), String> {
    let cond = strip_parens(h.inner.trim());
    let mut sides: Vec<&str> = Vec::new();
    for op in ["<=", ">=", "!=", "<", ">"] {
        if let Some((a, z)) = cond.split_once(op) {
            sides.extend([a.trim(), z.trim()]);
        }
    }
    let names = sides.into_iter().filter(|s| {
        !s.is_empty()
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    });
    let mut changed = None;
    for var in names {
        if condition(cond, var).is_none() {
            continue;
        }
        let changes = loop_body::changes(code, h.body.clone(), var);
        if let [one] = &changes[..] {
            if loop_body::on_every_trip(code, &h.body, one)
                && step_of(&one.statement, var).is_some()
            {
                if let Some(at) =
                    loop_body::early_continue(code, h.body.clone()).filter(|at| *at < one.at)
                {
                    return Err(format!(
                        "its body can skip the step `{}` of `{var}` (`continue` on line {})",
                        one.statement,
                        line_of(code, at)
                    ));
                }
                return Ok((var.to_string(), one.statement.clone()));
            }
        }
        if let Some(c) = changes.first() {
            changed.get_or_insert((var, c.clone(), changes.len()));
        }
    }
    Err(match changed {
        Some((var, c, n)) => format!(
            "its body changes `{var}` in {n} place(s), not by one step on every trip (`{}`, \
             line {})",
            c.statement,
            line_of(code, c.at)
        ),
        None => format!(
            "a `{}` loop whose condition `{cond}` tests no counter its body steps",
            h.kw
        ),
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
    let holds = |v: i64| holds(v, op, bound);
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
        match stepped(v, step, by) {
            Some(n) if n != v => v = n,
            _ => return None,
        }
    }
    None
}

/// Whether `v OP bound` holds.
fn holds(v: i64, op: &str, bound: i64) -> bool {
    match op {
        "<" => v < bound,
        "<=" => v <= bound,
        ">" => v > bound,
        ">=" => v >= bound,
        _ => v != bound,
    }
}

/// `v` after one step `v STEP by`; `None` where it overflows or the step is not one C has.
fn stepped(v: i64, step: &str, by: i64) -> Option<i64> {
    match step {
        "+" => v.checked_add(by),
        "-" => v.checked_sub(by),
        "*" => v.checked_mul(by),
        "/" if by != 0 => Some(v / by),
        "<<" => u32::try_from(by).ok().and_then(|b| v.checked_shl(b)),
        ">>" => u32::try_from(by).ok().and_then(|b| v.checked_shr(b)),
        _ => None,
    }
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

    /// A loop whose head reads the enclosing loop's counter is counted at each of its values,
    /// its trips and values over the whole nest; where the enclosing loop lists no values, or
    /// the loop cannot be counted at one of them, it keeps its reason.
    #[test]
    fn a_loop_that_reads_an_enclosing_counter_is_counted_at_each_of_its_values() {
        let d = defs(&[("n", "16")]);
        let code = "int main() { int j, k; for (k = 2; k <= n; k <<= 1) { \
                    for (j = k >> 1; j > 0; j = j >> 1) k<<<g, b>>>(j, k); } }";
        let got = loops(code, &d);
        let f = got[0].follows.as_ref().expect("follows `k`");
        assert_eq!((f.line, f.counter.as_str()), (1, "k"));
        assert_eq!(
            f.at,
            [
                (2, 1, vec![1]),
                (4, 2, vec![2, 1]),
                (8, 3, vec![4, 2, 1]),
                (16, 4, vec![8, 4, 2, 1])
            ]
        );
        assert_eq!(got[0].trips, Ok(10));
        assert_eq!(got[0].values, [1, 2, 1, 4, 2, 1, 8, 4, 2, 1]);
        assert_eq!(
            (got[1].trips.clone(), got[1].follows.is_none()),
            (Ok(4), true)
        );
        // the enclosing loop lists no values (its bound is unknown): the reason stands
        let unknown = loops(code, &defs(&[]));
        assert!(unknown[0].follows.is_none());
        assert_eq!(
            unknown[0].trips,
            Err("its start `j = k >> 1` has no value kerncast can read".into())
        );
        // an inner loop that cannot be counted at a value (its bound is unknown)
        let code = "int main() { for (int k = 1; k <= 4; ++k) for (int j = 0; j < k * m; ++j) \
                    k<<<g, b>>>(j); }";
        assert!(loops(code, &d)[0].trips.is_err());
        // a `while` whose counter starts from the outer one: counted, its values not listed
        let code = "int main() { for (int k = 2; k <= n; k <<= 1) { int j = k / 2; \
                    while (j > 0) { k<<<g, b>>>(); j /= 2; } } }";
        let got = loops(code, &d);
        assert_eq!((got[0].trips.clone(), got[0].values.len()), (Ok(10), 0));
        assert_eq!(got[0].follows.as_ref().map(|f| f.at.len()), Some(4));
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
        assert_eq!(
            got[0].trips,
            Err(
                "a `while` loop whose condition `err > tol` tests no counter its body steps".into()
            )
        );
        let code = "void f(int m) { for (int i = 0; i < m; ++i) k<<<1, 1>>>(); }";
        assert_eq!(
            loops(code, &d)[0].trips,
            Err("its bound in `i < m` has no value kerncast can read".into())
        );
        let code = "void f() { do { k<<<1, 1>>>(); } while (again()); }";
        assert_eq!(
            loops(code, &d)[0].trips,
            Err("a `do` loop whose condition `again()` tests no counter its body steps".into())
        );
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

    /// A `while` or `do` loop whose body steps a counter once a trip counts as the `for` loop
    /// it stands for, from the counter's value before it; the launch reading it is seen.
    #[test]
    fn while_and_do_loops_count_the_counter_their_body_steps() {
        let d = defs(&[("iters", "100")]);
        let code = "int main() { int iter = 0;\n while (iter < iters) {\n k<<<g, b>>>(a, b);\n \
                    k2<<<g, b>>>(b, a);\n iter += 2;\n } }";
        let got = loops(code, &d);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].head, "while (iter < iters)");
        assert_eq!((got[0].line, got[0].trips.clone()), (2, Ok(50)));
        assert_eq!(got[0].counter.as_deref(), Some("iter"));
        for (code, want) in [
            (
                "int i = 0, j = 9; while (i != 12) { k<<<1, 1>>>(); i++; }",
                12,
            ),
            (
                "long s = 1 << 20; while (s > 1) { k<<<1, 1>>>(s); s >>= 1; }",
                20,
            ),
            ("int i = 0; do { k<<<1, 1>>>(); ++i; } while (i < 5);", 5),
            // the body runs before the condition is asked
            ("int i = 10; do { k<<<1, 1>>>(); i++; } while (i < 5);", 1),
            (
                "int i = 3; i = 0; while (i < 4) { k<<<1, 1>>>(); i = i + 1; }",
                4,
            ),
            ("int i; i = 4; while (0 < i) { k<<<1, 1>>>(); i--; }", 4),
        ] {
            let code = format!("void f() {{ {code} }}");
            assert_eq!(loops(&code, &d)[0].trips, Ok(want), "{code}");
        }
    }

    /// A range-based `for` over a list the code writes out runs once per element; a `for` of
    /// few trips lists its counter's values, a longer one and a `while` loop do not.
    #[test]
    fn a_range_for_runs_per_element_and_short_loops_list_their_values() {
        let d = defs(&[("N", "1 << 20")]);
        let got = |code: &str| loops(&format!("void f() {{ {code} }}"), &d).remove(0);
        let l = got("std::vector<int> sizes = {512, 1024, N};\nfor (int n : sizes) k<<<n, 1>>>();");
        assert_eq!(l.head, "for (int n : sizes)");
        assert_eq!(
            (l.counter.as_deref(), l.trips, l.values),
            (Some("n"), Ok(3), vec![512, 1024, 1 << 20])
        );
        let l = got("for (const auto &b : {64, 128}) k<<<1, b>>>();");
        assert_eq!((l.trips, l.values), (Ok(2), vec![64, 128]));
        let l = got("for (int n = 1 << 16; n <= N; n *= 4) k<<<n, 1>>>();");
        assert_eq!(
            (l.trips, l.values),
            (Ok(3), vec![1 << 16, 1 << 18, 1 << 20])
        );
        // more trips than are swept: counted, no values
        let l = got("for (int t = 0; t < 100; ++t) k<<<1, 1>>>(t);");
        assert_eq!((l.trips, l.values), (Ok(100), vec![]));
        let l = got("int i = 0; while (i < 4) { k<<<1, 1>>>(i); ++i; }");
        assert_eq!((l.trips, l.values), (Ok(4), vec![]));
        // a list the code fills, or a body that changes the variable: not counted
        let l = got("std::vector<int> s = {1};\ns.push_back(2);\nfor (int n : s) k<<<n, 1>>>();");
        assert_eq!(l.trips, Err("`s` is changed (`s.push_back(2)`)".into()));
        let l = got("for (int n : {1, 2}) { n *= 2; k<<<n, 1>>>(); }");
        assert_eq!(
            l.trips,
            Err("its body changes `n` (`n *= 2`, line 1)".into())
        );
    }

    /// A `while` loop is counted only where its counter's start and step are certain.
    #[test]
    fn a_while_loop_with_an_uncertain_counter_says_why() {
        let d = defs(&[]);
        let why = |code: &str| {
            let code = format!("void f(int a) {{ {code} }}");
            loops(&code, &d)[0].trips.clone().unwrap_err()
        };
        assert_eq!(
            why("int i = 0; while (i < 10) { k<<<1, 1>>>(); if (a) i++; }"),
            "its body changes `i` in 1 place(s), not by one step on every trip (`if (a) i++`, \
             line 1)"
        );
        assert_eq!(
            why("int i = 0; while (i < 10) { k<<<1, 1>>>(); i++; i += a; }"),
            "its body changes `i` in 2 place(s), not by one step on every trip (`i++`, line 1)"
        );
        assert_eq!(
            why("int i = 0; while (i < 10) { k<<<1, 1>>>(); read(&i); }"),
            "its body changes `i` in 1 place(s), not by one step on every trip (`read(&i)`, \
             line 1)"
        );
        assert_eq!(
            why("int i = 0; if (a) i = 5; while (i < 10) { k<<<1, 1>>>(); i++; }"),
            "its counter `i` is last changed before it by `if (a) i = 5` (line 1), not given a \
             value kerncast can read"
        );
        assert_eq!(
            why("int i = 0; for (; i < 3; i++) {} while (i < 10) { k<<<1, 1>>>(); i++; }"),
            "its counter `i` is last changed before it by `i++` (line 1), not given a value \
             kerncast can read"
        );
        assert_eq!(
            why("int i = a; while (i < 10) { k<<<1, 1>>>(); i++; }"),
            "its counter's value before it, `i = a`, is not one kerncast can read"
        );
        assert_eq!(
            why("while (i < 10) { k<<<1, 1>>>(); i++; }"),
            "`i` has no value before it"
        );
        // a `continue` before the step repeats a trip without it; one after it, or of an
        // inner loop, does not
        assert_eq!(
            why("int i = 0; while (i < 10) { switch (a) { case 1: continue; }\n k<<<1, 1>>>(); i++; }"),
            "its body can skip the step `i++` of `i` (`continue` on line 1)"
        );
        let code = "void f() { int i = 0; while (i < 10) { for (;;) { continue; } k<<<1, 1>>>(); \
                    i++; if (x) continue; } }";
        assert_eq!(loops(code, &d)[0].trips, Ok(10));
    }

    /// A `break` of the loop itself (not of a loop or `switch` inside it) makes its trips a
    /// bound, and so does a `for` counter changed in the body; `return` is an error path.
    #[test]
    fn a_break_or_a_changed_counter_leaves_the_trips_uncounted() {
        let d = defs(&[]);
        let code = "void f() { for (int t = 0; t < 1000; ++t) {\n k<<<1, 1>>>();\n \
                    if (done()) break;\n } }";
        assert_eq!(
            loops(code, &d)[0].trips,
            Err(
                "its body can leave it early (`break` on line 3), so it runs at most 1000 \
                 time(s)"
                    .into()
            )
        );
        let code = "void f() { int i = 0; while (i < 8) { k<<<1, 1>>>(); i++; if (e) break; } }";
        assert!(loops(code, &d)[0]
            .trips
            .as_ref()
            .unwrap_err()
            .ends_with("at most 8 time(s)"));
        let code = "void f() { for (int t = 0; t < 10; ++t) { k<<<1, 1>>>(); \
                    for (;;) { if (x) break; } while (y) break; do { break; } while (0); \
                    switch (t) { case 1: break; } if (bad) return; } }";
        assert_eq!(loops(code, &d)[0].trips, Ok(10));
        let code = "void f() { for (int t = 0; t < 10; ++t) { k<<<1, 1>>>(); t += 1; } }";
        assert_eq!(
            loops(code, &d)[0].trips,
            Err("its body changes `t` (`t += 1`, line 1)".into())
        );
        // a single statement as the body
        let code =
            "void f() { for (int t = 0; t < 10; ++t) if (t > 2) k<<<1, 1>>>(); else break; }";
        assert!(loops(code, &d)[0].trips.is_err());
    }
}
