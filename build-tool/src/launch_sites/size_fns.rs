//! Size helpers a launch calls (`div_up(n, 256)`, `CEIL_DIV(n, TILE)`): function-like macros
//! and host functions whose body is one `return` of an expression, expanded in place with
//! their arguments (each parenthesised, as the call evaluates it) so that the workload's
//! expressions can read them. Anything else (a helper with statements, a name defined twice)
//! stays a call, which the expressions cannot read and report unresolved.

use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// A helper's parameter names and the expression it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeFn {
    pub params: Vec<String>,
    pub body: String,
}

static MACRO_FN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()]*)\)[ \t]+(.+)$").unwrap()
});
static RETURN_FN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z_]\w*)\s*\(([^()]*)\)\s*(?:const\s*)?\{\s*return\s+([^;{}]+);\s*\}")
        .unwrap()
});

/// The size helpers of `code` (comments and strings blanked) by name; a name given two
/// definitions (overloads, `#if` branches) has none.
pub fn size_fns(code: &str) -> BTreeMap<String, SizeFn> {
    let mut found: BTreeMap<String, Option<SizeFn>> = BTreeMap::new();
    let found_one = |name: &str, params: &str, body: &str| {
        let params = split_top(params)
            .iter()
            .map(|p| super::callers::param_name(p))
            .collect::<Vec<_>>();
        // every parameter named, or none at all: `f()`, `f(void)`
        let all_named = params.iter().all(|p| !p.is_empty());
        (all_named || params == [""]).then(|| {
            (
                name.to_string(),
                SizeFn {
                    params: params.into_iter().filter(|p| !p.is_empty()).collect(),
                    body: body.trim().to_string(),
                },
            )
        })
    };
    let mut note = |entry: Option<(String, SizeFn)>| {
        if let Some((name, f)) = entry {
            found
                .entry(name)
                .and_modify(|old| {
                    if old.as_ref() != Some(&f) {
                        *old = None;
                    }
                })
                .or_insert(Some(f));
        }
    };
    for c in MACRO_FN.captures_iter(code) {
        // a macro's parameters are bare names: `a` declares `a`
        let params: Vec<String> = split_top(&c[2]);
        let f = SizeFn {
            params: params.into_iter().filter(|p| !p.is_empty()).collect(),
            body: c[3].trim().to_string(),
        };
        note(Some((c[1].to_string(), f)));
    }
    for c in RETURN_FN.captures_iter(code) {
        if matches!(&c[1], "if" | "for" | "while" | "switch") {
            continue;
        }
        note(found_one(&c[1], &c[2], &c[3]));
    }
    found
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect()
}

/// How many rounds of expansion a helper calling helpers gets.
const MAX_ROUNDS: usize = 8;

/// `text` with every call of a helper of `fns` replaced by its body over the call's arguments.
pub fn expand(text: &str, fns: &BTreeMap<String, SizeFn>) -> String {
    let mut t = text.to_string();
    for _ in 0..MAX_ROUNDS {
        match expand_first(&t, fns) {
            Some(next) => t = next,
            None => break,
        }
    }
    t
}

/// `text` with its first helper call expanded, or `None` when it calls none.
fn expand_first(text: &str, fns: &BTreeMap<String, SizeFn>) -> Option<String> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts_word = (b[i].is_ascii_alphabetic() || b[i] == b'_')
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.'));
        if !starts_word {
            i += 1;
            continue;
        }
        let end = i + b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        let name = &text[i..end];
        let open = end
            + b[end..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
        if let (Some(f), Some(b'(')) = (fns.get(name), b.get(open)) {
            let close = super::c_text::matching_close(b, open)?;
            let args = split_top(&text[open + 1..close]);
            let args: Vec<String> = args.into_iter().filter(|a| !a.is_empty()).collect();
            if args.len() == f.params.len() {
                let body = substitute(&f.body, &f.params, &args);
                return Some(format!("{}({body}){}", &text[..i], &text[close + 1..]));
            }
        }
        i = end;
    }
    None
}

/// `body` with each whole-word parameter replaced by its argument in parentheses.
pub(super) fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match params.iter().position(|p| p == word) {
            Some(k) => out.push_str(&format!("({})", args[k])),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in body.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_and_one_return_functions_expand_with_their_arguments() {
        let code = "#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))\n\
                    static inline int div_up(int x, int y) { return (x + y - 1) / y; }\n\
                    constexpr int blocks(int n) { return div_up(n, 256); }\n\
                    int busy(int n) { int m = n * 2; return m; }\n";
        let fns = size_fns(code);
        assert!(!fns.contains_key("busy"), "{fns:?}");
        let at_1000 = |text: &str| {
            let env = BTreeMap::from([("n".to_string(), 1000)]);
            crate::workload::Expr::parse(&expand(text, &fns))
                .and_then(|e| e.eval(&env, crate::workload::Div::Floor))
        };
        assert_eq!(at_1000("CEIL_DIV(n, 16)"), Ok(63));
        // arguments are parenthesised: (n + 1 + 2 - 1) / 2, not n + (1 + 2 - 1) / 2
        assert_eq!(at_1000("div_up(n + 1, 2) * 4"), Ok(2004));
        // a helper over a helper
        assert_eq!(at_1000("blocks(n)"), Ok(4));
        // a call with the wrong arity, or of an unknown function, stays
        assert_eq!(expand("div_up(n)", &fns), "div_up(n)");
        assert_eq!(expand("atoi(s)", &fns), "atoi(s)");
    }

    #[test]
    fn a_helper_defined_twice_is_not_expanded() {
        let code = "int up(int a) { return a + 1; }\nint up(int a) { return a + 2; }\n";
        assert!(size_fns(code).is_empty());
    }
}
