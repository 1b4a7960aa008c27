//! Python's `for … in range(…)` and `while` as C loops, so that the launch reader counts the
//! launches a Python host repeats as it counts a C host's (`launch_sites::host_loops`):
//!
//! ```text
//! for step in range(10):        → for (long step = 0; step < 10; step += 1) {
//! for i in range(n - 1, 0, -2): → for (long i = n - 1; i > 0; i += -2) {
//! for n in [1 << 10, 1 << 20]:  → for (long n : {1 << 10, 1 << 20}) {
//! for n in sizes:               → for (long n : sizes) {    (`sizes = [512, 1024]` written
//!                                                           once, never changed: `lists`)
//! while err > tol:              → while ((err > tol)) {    (counted where its body steps a
//!                                                           counter: `it += 3` is C's `+=`)
//! for batch in loader:          → while (python_iterable) {   (not counted, and says so)
//! ```
//!
//! The note shows the loop as written in Python; where the shaped C cannot be counted for a
//! reason of Python's (an iterable, `range` arguments that are not integer expressions), that
//! reason replaces the one the C would give.

use super::branches::{c_condition, top_level_colon};
use super::{c_expression, split_top};
use regex::Regex;
use std::sync::LazyLock;

/// A loop header of a Python host, shaped.
pub(super) struct LoopHeader<'s> {
    /// The C that opens the loop's block.
    pub opening: String,
    /// The statement after the colon on the same line, if any (code only, and as written).
    pub body: Option<(&'s str, &'s str)>,
    /// Why the loop cannot be counted, in Python's terms, where the C's reason would mislead.
    pub why_not: Option<String>,
}

/// `statement` (code only; `raw` as written) as a loop header, if it is one; `lists` are the
/// file's lists of integers, which a `for` may run over.
pub(super) fn header<'s>(
    statement: &'s str,
    raw: &'s str,
    lists: &[String],
) -> Option<LoopHeader<'s>> {
    static FOR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^for\s+([A-Za-z_]\w*)\s+in\s+(.+)$").unwrap());
    static WHILE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^while\b\s*(.+)$").unwrap());
    if !statement.starts_with("for") && !statement.starts_with("while") {
        return None;
    }
    let colon = top_level_colon(statement)?;
    let head = statement[..colon].trim();
    let rest = statement[colon + 1..].trim();
    let raw = raw.trim_start();
    let raw_rest = raw[top_level_colon(raw)? + 1..].trim();
    let body = (!rest.is_empty()).then_some((rest, raw_rest));
    if let Some(c) = FOR.captures(head) {
        let (var, iter) = (&c[1], c[2].trim());
        let over_list = literal_list(iter)
            .map(|items| format!("{{{}}}", items.join(", ")))
            .or_else(|| lists.iter().find(|l| *l == iter).cloned());
        let (opening, why_not) = match range_loop(var, iter) {
            Some(Ok(opening)) => (opening, None),
            Some(Err(why)) => ("while (python_range) {".to_string(), Some(why)),
            None if over_list.is_some() => (
                format!("for (long {var} : {}) {{", over_list.unwrap_or_default()),
                None,
            ),
            None => (
                "while (python_iterable) {".to_string(),
                Some(format!(
                    "a `for` over `{iter}`, not over a `range` or a list of integers"
                )),
            ),
        };
        return Some(LoopHeader {
            opening,
            body,
            why_not,
        });
    }
    let c = WHILE.captures(head)?;
    Some(LoopHeader {
        opening: format!("while {} {{", c_condition(c[1].trim())),
        body,
        why_not: None,
    })
}

/// The items of a Python list or tuple of integers (`[512, 1 << 20]`, `(a, b)`), as C.
pub(super) fn literal_list(value: &str) -> Option<Vec<String>> {
    let v = value.trim();
    let inner = v
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| v.strip_prefix('(').and_then(|r| r.strip_suffix(')')))?;
    let items: Vec<String> = split_top(inner)
        .into_iter()
        .filter(|i| !i.is_empty())
        .collect();
    // `(n)` is a value, `(n,)` a tuple
    if items.is_empty() || (v.starts_with('(') && !inner.contains(',')) {
        return None;
    }
    items.iter().map(|i| c_expression(i)).collect()
}

/// `range(…)` as a C `for`; `None` when `iter` is not a `range`, an error when its arguments
/// are not integer expressions C reads alike.
fn range_loop(var: &str, iter: &str) -> Option<Result<String, String>> {
    let args = iter.strip_prefix("range(")?.strip_suffix(')')?;
    let parts: Option<Vec<String>> = split_top(args).iter().map(|a| c_expression(a)).collect();
    let unread =
        || format!("the arguments of `{iter}` are not integer expressions kerncast can read");
    let Some(parts) = parts else {
        return Some(Err(unread()));
    };
    let (start, stop, step) = match &parts[..] {
        [stop] => ("0", stop.as_str(), "1"),
        [start, stop] => (start.as_str(), stop.as_str(), "1"),
        [start, stop, step] => (start.as_str(), stop.as_str(), step.as_str()),
        _ => return Some(Err(unread())),
    };
    // a negative step counts down, to above the stop
    let cmp = if step.trim_start().starts_with('-') {
        ">"
    } else {
        "<"
    };
    Some(Ok(format!(
        "for (long {var} = {start}; {var} {cmp} {stop}; {var} += {step}) {{"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_for_over_a_list_of_integers_is_a_range_for() {
        let lists = ["sizes".to_string()];
        let shaped = |line: &str| {
            let h = header(line, line, &lists).unwrap();
            (h.opening, h.why_not)
        };
        assert_eq!(
            shaped("for n in [512, 1 << 20]:"),
            ("for (long n : {512, 1 << 20}) {".into(), None)
        );
        assert_eq!(
            shaped("for n in (a, b // 2):"),
            ("for (long n : {a, b / 2}) {".into(), None)
        );
        assert_eq!(
            shaped("for n in sizes:"),
            ("for (long n : sizes) {".into(), None)
        );
        // a list of what C does not read, or a name that is no list of the file's
        assert!(shaped("for n in [f(1), 2]:").1.is_some());
        assert!(shaped("for n in others:").1.is_some());
        assert_eq!(literal_list("(n)"), None);
        assert_eq!(literal_list("(n,)"), Some(vec!["n".into()]));
    }

    fn shaped(line: &str) -> (String, Option<String>) {
        let h = header(line, line, &[]).unwrap();
        (h.opening, h.why_not)
    }

    #[test]
    fn a_range_is_a_counted_for_and_other_loops_say_why_not() {
        assert_eq!(
            shaped("for step in range(10):").0,
            "for (long step = 0; step < 10; step += 1) {"
        );
        assert_eq!(
            shaped("for i in range(n - 1, 0, -2):").0,
            "for (long i = n - 1; i > 0; i += -2) {"
        );
        assert_eq!(
            shaped("for i in range(lo, hi // 2):").0,
            "for (long i = lo; i < hi / 2; i += 1) {"
        );
        assert_eq!(shaped("while err > tol:").0, "while ((err > tol)) {");
        assert_eq!(
            shaped("for batch in loader:").1.unwrap(),
            "a `for` over `loader`, not over a `range` or a list of integers"
        );
        assert!(shaped("for i in range(len(x)):")
            .1
            .unwrap()
            .contains("`range(len(x))`"));
        assert!(header("fork = 3", "fork = 3", &[]).is_none());
        let h = header(
            "for i in range(3): k(g, b, a)",
            "for i in range(3): k(g, b, a)",
            &[],
        )
        .unwrap();
        assert_eq!(h.body, Some(("k(g, b, a)", "k(g, b, a)")));
    }
}
