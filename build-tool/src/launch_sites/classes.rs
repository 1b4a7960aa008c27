//! Launches in a class's methods:
//!
//! ```text
//! class Solver {
//!   public: explicit Solver(int n) : n_(n) {}
//!   void step(float *u) { relax<<<(n_ + 255) / 256, 256>>>(u, n_); }
//!   int n_;
//! };
//! int main() { Solver s(1 << 22); s.step(u); }
//! ```
//!
//! The members the constructor's initializer list gives a value, for the one way the file
//! constructs the class (`Solver s(n);`, `Solver s{n};`, `auto s = Solver(n);`,
//! `new Solver(n)`), so that `n_` reaches the launch. A class constructed with different
//! arguments, or with more than one constructor that initialises members, gives none.

use super::branches::enclosing_brace;
use super::c_text::matching_close;
use super::callers::param_name;
use crate::workload::split_top;
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// The class or struct whose body holds byte `at`: its name and body.
pub fn enclosing_class(code: &str, at: usize) -> Option<(String, Range<usize>)> {
    static HEADER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:^|[;{}])\s*(?:template\s*<[^;{}]*>\s*)?(?:class|struct)\s+([A-Za-z_]\w*)[^;{}()]*$",
        )
        .unwrap()
    });
    let header = &*HEADER;
    let mut pos = at;
    while let Some(open) = enclosing_brace(code, pos) {
        let from = code[..open].rfind([';', '{', '}']).unwrap_or(0);
        if let Some(c) = header.captures(&code[from..open]) {
            let close = matching_close(code.as_bytes(), open)?;
            return Some((c[1].to_string(), open + 1..close));
        }
        pos = open;
    }
    None
}

/// A constructor's parameter names, and the members it initialises with their initialiser text.
type Constructor = (Vec<String>, Vec<(String, String)>);

/// The one constructor of `class` (in `body`) that initialises members: its parameter names
/// and the members with their initialiser text (`Solver(int n) : n_(n), half_(n / 2) {}`
/// gives `["n"]` and `[("n_", "n"), ("half_", "n / 2")]`).
fn constructor(code: &str, class: &str, body: &Range<usize>) -> Option<Constructor> {
    let b = code.as_bytes();
    let head =
        crate::launch_sites::c_text::cached_regex(&format!(r"\b{}\s*\(", regex::escape(class)))
            .ok()?;
    let text = &code[body.clone()];
    let mut found = Vec::new();
    for m in head.find_iter(text) {
        let open = body.start + m.end() - 1;
        let close = matching_close(b, open)?;
        let after = code[close + 1..].trim_start();
        if !after.starts_with(':') || after.starts_with("::") {
            continue;
        }
        let params: Vec<String> = split_top(&code[open + 1..close])
            .iter()
            .map(|p| param_name(p))
            .filter(|p| !p.is_empty())
            .collect();
        found.push((params, initializers(code, code.len() - after.len() + 1)?));
    }
    match found.len() {
        1 => found.pop(),
        _ => None,
    }
}

/// The member initialisers of a list that starts at `from` (after its `:`), up to the
/// constructor's body: `n_(n), m_{m} {` gives `[("n_", "n"), ("m_", "m")]`.
fn initializers(code: &str, from: usize) -> Option<Vec<(String, String)>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    loop {
        let rest = &code[i..];
        let name_at = i + rest.len() - rest.trim_start().len();
        let name_end =
            name_at + code[name_at..].find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        let open = name_end + code[name_end..].len() - code[name_end..].trim_start().len();
        if name_end == name_at || !matches!(b.get(open), Some(b'(' | b'{')) {
            return None;
        }
        let close = matching_close(b, open)?;
        out.push((
            code[name_at..name_end].to_string(),
            code[open + 1..close].trim().to_string(),
        ));
        let next = code[close + 1..].trim_start();
        if next.starts_with('{') {
            return Some(out);
        }
        i = code.len() - next.strip_prefix(',')?.len();
    }
}

/// The arguments every construction of `class` in the file gives, when they are all alike,
/// with the offset of one of them.
fn construction(code: &str, class: &str) -> Option<(Vec<String>, usize)> {
    let c = regex::escape(class);
    let forms = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{c}\s+[A-Za-z_]\w*\s*([({{])|(?:=\s*|\bnew\s+){c}\s*([({{])"
    ))
    .ok()?;
    let b = code.as_bytes();
    let mut seen: Option<(Vec<String>, usize)> = None;
    for m in forms.captures_iter(code) {
        let open = m.get(1).or(m.get(2))?.start();
        let close = matching_close(b, open)?;
        let args = split_top(&code[open + 1..close]);
        match &seen {
            Some((a, _)) if *a != args => return None,
            Some(_) => {}
            None => seen = Some((args, m.get(0)?.start())),
        }
    }
    seen
}

/// For a method of the class around `at`: each member the constructor initialises, with its
/// initialiser's text and the constructor's parameters bound to the construction's arguments
/// (`[("n_", "n")]` with `[("n", "1 << 22")]`), and where the construction is.
pub struct Members {
    pub values: Vec<(String, String)>,
    pub params: Vec<(String, String)>,
    pub constructed_at: usize,
}

pub fn members(code: &str, at: usize) -> Option<Members> {
    let (class, body) = enclosing_class(code, at)?;
    let (params, values) = constructor(code, &class, &body)?;
    let (args, constructed_at) = construction(code, &class)?;
    (params.len() == args.len()).then(|| Members {
        values,
        params: params.into_iter().zip(args).collect(),
        constructed_at,
    })
}

/// Whether the function defined at `at` is a method of a class (or struct), whose calls may
/// be written on an object (`obj.name(…)`, `obj->name(…)`).
pub fn is_method(code: &str, at: usize) -> bool {
    enclosing_class(code, at).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLVER: &str = "class Solver {\npublic:\n  explicit Solver(int n, int m) : n_(n), half_(n / 2), m_{m} {}\n  void step(float *u) { k<<<n_ / 256, 256>>>(u, n_); }\nprivate:\n  int n_, half_, m_;\n};\nint main() {\n  const int n = 1 << 22;\n  Solver s(n, 3);\n  s.step(u);\n}\n";

    #[test]
    fn a_method_s_members_come_from_the_one_construction() {
        let at = SOLVER.find("k<<<").unwrap();
        let (class, _) = enclosing_class(SOLVER, at).unwrap();
        assert_eq!(class, "Solver");
        let m = members(SOLVER, at).unwrap();
        assert_eq!(
            m.values,
            [
                ("n_".to_string(), "n".to_string()),
                ("half_".into(), "n / 2".into()),
                ("m_".into(), "m".into())
            ]
        );
        assert_eq!(
            m.params,
            [("n".to_string(), "n".to_string()), ("m".into(), "3".into())]
        );
        assert!(is_method(SOLVER, SOLVER.find("step").unwrap()));
        // built two ways: no values
        let twice = SOLVER.replace("  s.step(u);", "  s.step(u);\n  Solver t(n / 2, 3);");
        assert!(members(&twice, twice.find("k<<<").unwrap()).is_none());
        // a free function is no method
        assert!(!is_method(SOLVER, SOLVER.find("const int n").unwrap()));
    }
}
