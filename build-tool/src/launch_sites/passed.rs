//! Callables the host code hands to its own helpers instead of calling them, as in the timing
//! helper of nearly every benchmark program:
//!
//! ```text
//! template <typename F> float time_ms(F f, int reps) {
//!   f();                                    // warm-up
//!   for (int r = 0; r < reps; ++r) f();
//!   …
//! }
//! time_ms([&] { saxpy<<<g, b>>>(a, x, y, n); }, 20);   // saxpy runs 21 times
//! auto halve = [&] { scale<<<g, b>>>(x, n); };
//! time_ms(halve, 10);                                  // scale runs 11 times
//! ```
//!
//! An unnamed lambda written as an argument of a call of such a helper is a helper itself
//! ([`passed_lambda`]), and a named lambda or function passed by name is called too: each call
//! of the parameter that takes it, in the helper's body, is a call of it
//! ([`calls_through_helpers`]), reached only through the helper's calls that pass it. A callable
//! passed to a function the file does not define (`std::thread`, a library's `for_each`), or
//! one the helper only passes on, is read as before: an unnamed lambda's body belongs to the
//! function it is written in, and nothing repeats it.

use super::c_text::{call_args, enclosing_paren, matching_close, opening};
use super::callers::{self, Call, Enclosing, How, Kind, Through};
use crate::workload::split_top;

/// A call that hands a callable to a helper: the helper's name, the index of the argument
/// that is the callable, and the offset of the call (its name's, as [`callers::calls`] gives).
#[derive(Debug, PartialEq)]
struct Passing {
    helper: String,
    index: usize,
    at: usize,
}

/// The unnamed lambda whose body opens at `open`, where it is an argument of a call of a
/// helper the file defines and that helper calls it.
pub(super) fn passed_lambda(code: &str, open: usize) -> Option<Enclosing> {
    let (intro, params) = callers::lambda_head(code, open)?;
    let passing = passing_call(code, intro)?;
    if invocations(code, &passing).is_empty() {
        return None;
    }
    Some(Enclosing {
        name: "lambda".into(),
        defaults: vec![String::new(); params.len()],
        params,
        template_params: Vec::new(),
        at: intro,
        body: open + 1..matching_close(code.as_bytes(), open)?,
        kind: Kind::PassedLambda {
            passing: passing.at,
        },
    })
}

/// The calls of `f` that the helpers it is passed to make: for an unnamed lambda, the helper
/// it is written into; for a named one or a function, every helper call that names it as an
/// argument (`time_ms(halve, 10)`, `bench(&run, 5)`).
pub(super) fn calls_through_helpers(code: &str, f: &Enclosing) -> Vec<Call> {
    let passings: Vec<Passing> = match f.kind {
        Kind::PassedLambda { .. } => passing_call(code, f.at).into_iter().collect(),
        Kind::Function => passed_by_name(code, &f.name),
        Kind::Capture => Vec::new(),
    };
    passings.iter().flat_map(|p| invocations(code, p)).collect()
}

/// The calls that pass `name` as a whole argument.
fn passed_by_name(code: &str, name: &str) -> Vec<Passing> {
    let Ok(re) =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{}\b", regex::escape(name)))
    else {
        return Vec::new();
    };
    re.find_iter(code)
        .filter_map(|m| {
            let after = code[m.end()..].trim_start();
            if !(after.starts_with(',') || after.starts_with(')')) {
                return None;
            }
            // `&run`, a function's address
            let before = code[..m.start()].trim_end();
            let start = match before.strip_suffix('&') {
                Some(r) if !r.ends_with('&') => r.len(),
                _ => m.start(),
            };
            passing_call(code, start)
        })
        .collect()
}

/// The call of which the argument starting at `arg` is one, where a helper's name is called.
fn passing_call(code: &str, arg: usize) -> Option<Passing> {
    let b = code.as_bytes();
    let before = code[..arg].trim_end();
    if !(before.ends_with('(') || before.ends_with(',')) {
        return None;
    }
    let open = enclosing_paren(code, arg)?;
    let (_, args) = call_args(code, open)?;
    let index = args.iter().position(|r| r.contains(&arg))?;
    let mut head = code[..open].trim_end();
    if head.ends_with('>') {
        let lt = opening(b, head.len() - 1, (b'<', b'>'), b";{}")?;
        head = code[..lt].trim_end();
    }
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |k| k + 1);
    let helper = &head[start..];
    let keyword = ["if", "for", "while", "switch", "return", "sizeof"].contains(&helper);
    if keyword || !helper.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return None;
    }
    Some(Passing {
        helper: helper.to_string(),
        index,
        at: start,
    })
}

/// The calls of the callable that `passing` hands over: in each definition of the helper, the
/// calls of the parameter that takes it.
fn invocations(code: &str, passing: &Passing) -> Vec<Call> {
    definitions(code, &passing.helper)
        .iter()
        .filter_map(|h| {
            let param = h.params.get(passing.index).filter(|p| !p.is_empty())?;
            Some(calls_of_param(code, h, param, passing.at))
        })
        .flatten()
        .collect()
}

/// The definitions of the function or named lambda `name` in `code`.
fn definitions(code: &str, name: &str) -> Vec<Enclosing> {
    let Ok(re) =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{}\b", regex::escape(name)))
    else {
        return Vec::new();
    };
    re.find_iter(code)
        .filter_map(|m| {
            // the body follows the header before any `;`
            let k = code[m.end()..].find(['{', ';'])?;
            let open = m.end() + k;
            if code.as_bytes()[open] != b'{' {
                return None;
            }
            callers::function_header(code, open).filter(|f| f.at == m.start())
        })
        .collect()
}

/// The calls of the parameter `param` in the body of `helper`, as calls of what the call at
/// `passing` gives it.
fn calls_of_param(code: &str, helper: &Enclosing, param: &str, passing: usize) -> Vec<Call> {
    let Ok(re) =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{}\s*\(", regex::escape(param)))
    else {
        return Vec::new();
    };
    let body = &code[helper.body.clone()];
    re.find_iter(body)
        .filter_map(|m| {
            let at = helper.body.start + m.start();
            if !callers::is_call_position(&code[..at]) {
                return None;
            }
            let open = helper.body.start + m.end() - 1;
            let close = matching_close(code.as_bytes(), open)?;
            let args = split_top(&code[open + 1..close]);
            Some(Call {
                line: code[..at].matches('\n').count() + 1,
                at,
                args: if args == [""] { Vec::new() } else { args },
                template_args: Vec::new(),
                how: How::Through(Through {
                    param: param.to_string(),
                    passing: vec![passing],
                }),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMED: &str = "template <typename F>\nfloat time_ms(F f, int reps) {\n  f();\n  for (int r = 0; r < reps; ++r) f();\n  return 0;\n}\nvoid run(int m) { k<<<m, 32>>>(m); }\nint main() {\n  float t = time_ms([&] { k<<<n, 32>>>(n); }, 20);\n  auto halve = [&] { k<<<n / 2, 32>>>(n); };\n  time_ms(halve, 10);\n  time_ms(&run, 3);\n  std::thread th([&] { k<<<1, 1>>>(1); });\n}\n";

    #[test]
    fn a_lambda_written_into_a_helper_s_call_is_called_where_the_helper_calls_it() {
        let code = TIMED;
        let launch = code.find("k<<<n, 32").unwrap();
        let f = callers::enclosing_callable(code, launch).unwrap();
        let passing = code.find("time_ms([&]").unwrap();
        assert_eq!(f.kind, Kind::PassedLambda { passing });
        assert!(f.params.is_empty());
        let calls = callers::calls(code, &f);
        let lines: Vec<(usize, String)> = calls
            .iter()
            .map(|c| (c.line, c.called_at(&format!("line {}", c.line))))
            .collect();
        assert_eq!(
            lines,
            [
                (3, "called at line 3 as `f()`".to_string()),
                (4, "called at line 4 as `f()`".to_string())
            ]
        );
        // the helper's call that passes it is shown with the lambda shortened
        let passing = callers::enclosing_function(code, calls[0].at).unwrap();
        let of_helper = callers::calls(code, &passing);
        assert_eq!(of_helper.len(), 3);
        assert_eq!(of_helper[0].shown("time_ms"), "time_ms([&] {…}, 20)");
        // a lambda given to a function the file does not define is looked through
        let f = callers::enclosing_callable(code, code.find("k<<<1, 1").unwrap()).unwrap();
        assert_eq!((f.name.as_str(), f.kind), ("main", Kind::Function));
    }

    #[test]
    fn a_named_lambda_or_function_passed_by_name_is_called_by_the_helper() {
        let code = TIMED;
        let halve = callers::enclosing_function(code, code.find("k<<<n / 2").unwrap()).unwrap();
        assert_eq!(halve.name, "halve");
        let calls = callers::calls(code, &halve);
        assert_eq!(calls.len(), 2);
        let passing = code.find("time_ms(halve").unwrap();
        assert!(calls
            .iter()
            .all(|c| matches!(&c.how, How::Through(t) if t.passing == [passing])));
        let run = callers::enclosing_function(code, code.find("k<<<m").unwrap()).unwrap();
        let calls = callers::calls(code, &run);
        assert_eq!(
            calls.iter().map(|c| c.line).collect::<Vec<_>>(),
            [3, 4],
            "{calls:?}"
        );
        assert_eq!(calls[0].shown("run"), "f()");
    }

    #[test]
    fn only_a_whole_argument_of_a_helper_s_call_is_passed() {
        let code = "void go(F f, int n) { f(n); }\nint main() { go(g, 2); go(x + g, 3); h(g, 1); g(4); }\n";
        let passings = passed_by_name(code, "g");
        // `x + g` is no callable, `h` is defined nowhere (no definitions, so no calls), and `g(4)`
        // is a call
        assert_eq!(
            passings,
            [
                Passing {
                    helper: "go".into(),
                    index: 0,
                    at: code.find("go(g").unwrap()
                },
                Passing {
                    helper: "h".into(),
                    index: 0,
                    at: code.find("h(g").unwrap()
                }
            ]
        );
        assert!(invocations(code, &passings[1]).is_empty());
        let calls = invocations(code, &passings[0]);
        assert_eq!(
            (calls.len(), &calls[0].args[..]),
            (1, &["n".to_string()][..])
        );
    }
}
