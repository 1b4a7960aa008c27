//! Launches inside host helpers (`void run(int n) { k<<<n / 256, 256>>>(n); }`): the helper's
//! parameters take the arguments of each call of it in the file (`run(N);`), one workload per
//! distinct call, so that the sizes `main` fixes reach the launch. A caller that is itself a
//! helper is followed the same way (`HostFile::contexts`), a few levels out.
//!
//! A lambda given a name (`auto run = [&](int n) { k<<<…>>>(n); };`, called `run(1 << 20)`) is
//! such a helper too, and so is a function template, whose template parameters take the
//! arguments of a call that names them (`launch<128>(x, n)` into `template <int BS> void
//! launch(float *x, int n)`).
//!
//! A callable handed to a helper instead of called (a timing helper's `time_ms([&] { … }, 20)`)
//! is called where the helper calls it (`passed`).

use super::c_text::{matching_close, opening};
use crate::workload::split_top;

/// The host function whose body holds byte `at` of `code` (comments and strings blanked).
#[derive(Clone, Debug, PartialEq)]
pub struct Enclosing {
    pub name: String,
    /// Parameter names in order (`int n` gives `n`; an unnamed or `void` one gives "").
    pub params: Vec<String>,
    /// Their default arguments as written (`int iters = 50` gives `50`), "" where none.
    pub defaults: Vec<String>,
    /// A function template's parameter names in order (`template <int BS, typename T>` gives
    /// `BS` and `T`).
    pub template_params: Vec<String>,
    /// Byte offset of the name in its definition.
    pub at: usize,
    /// The body, between its braces (a capture's: its statements).
    pub body: std::ops::Range<usize>,
    pub kind: Kind,
}

/// What a body is, and so where its calls are.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A function, or a lambda given a name: its calls are written with its name.
    Function,
    /// An unnamed lambda written as an argument of the call at `passing` of a helper that calls
    /// it (`passed`): its calls are the helper's.
    PassedLambda { passing: usize },
    /// The launches between `cudaStreamBeginCapture` and `cudaStreamEndCapture`, which a CUDA
    /// graph replays (`graphs`): its calls are the graph's launches.
    Capture,
}

/// One call of a helper: its 1-based line and its argument texts.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub line: usize,
    /// Byte offset of the call.
    pub at: usize,
    pub args: Vec<String>,
    /// The template arguments the call names (`launch<128>(…)` gives `128`).
    pub template_args: Vec<String>,
    pub how: How,
}

/// How a call reaches its callee.
#[derive(Clone, Debug, PartialEq)]
pub enum How {
    /// By its name, as written.
    Named,
    /// Through the helper it was passed to (`passed`).
    Through(Through),
    /// As a `cudaGraphLaunch` of the graph captured from it (`graphs`).
    Graph,
}

/// A call of a callable made by the helper it was passed to: the helper's parameter that holds
/// it (`f` of `float time_ms(F f, int reps)`), and the offsets of the helper's calls that pass
/// it, the only ones of the helper's calls that reach it.
#[derive(Clone, Debug, PartialEq)]
pub struct Through {
    pub param: String,
    pub passing: Vec<usize>,
}

const NOT_FUNCTIONS: [&str; 6] = ["if", "for", "while", "switch", "catch", "return"];

/// The innermost function definition around `at`: the nearest enclosing `{` whose header is
/// `name(params)` (blocks of `if`, `for`, lambdas and namespaces are looked through).
pub fn enclosing_function(code: &str, at: usize) -> Option<Enclosing> {
    enclosing(code, at, |i| function_header(code, i))
}

/// [`enclosing_function`], or an unnamed lambda around `at` that is passed to a helper that
/// calls it, or a stream capture around `at` that a graph launch replays, whichever is
/// innermost: what runs the code at `at`.
pub fn enclosing_callable(code: &str, at: usize) -> Option<Enclosing> {
    let f = enclosing(code, at, |i| {
        function_header(code, i).or_else(|| super::passed::passed_lambda(code, i))
    });
    let within = f.as_ref().map_or(0..code.len(), |f| f.body.clone());
    super::graphs::capture_around(code, at, within).or(f)
}

/// The first enclosing `{` around `at`, innermost first, that `header` reads as a function's.
fn enclosing(
    code: &str,
    at: usize,
    header: impl Fn(usize) -> Option<Enclosing>,
) -> Option<Enclosing> {
    let b = code.as_bytes();
    let mut depth = 0i32;
    for i in (0..at.min(b.len())).rev() {
        match b[i] {
            b'}' => depth += 1,
            b'{' if depth > 0 => depth -= 1,
            b'{' => {
                if let Some(f) = header(i) {
                    return Some(f);
                }
            }
            _ => {}
        }
    }
    None
}

/// The stretch of `code` whose definitions a statement at `at` sees first: its function's body,
/// else the whole file.
pub fn scope_of(code: &str, at: usize) -> std::ops::Range<usize> {
    enclosing_function(code, at).map_or(0..code.len(), |f| f.body)
}

/// `code` with the bodies of its functions blanked (line breaks kept): what is defined at file
/// scope, in namespaces and in classes. A blanked body keeps a `;`, so that no declaration is
/// read across it (`long reps = 100) { } long n = 5;` is two).
pub fn file_scope(code: &str) -> String {
    let b = code.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            if let Some(f) = function_header(code, i) {
                for c in &mut out[f.body.clone()] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                if let Some(c) = out[f.body.clone()].iter_mut().find(|c| **c == b' ') {
                    *c = b';';
                }
                i = f.body.end;
                continue;
            }
        }
        i += 1;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The function whose body opens at `open`, from the header before it: a named function, or a
/// lambda assigned to a name.
pub(super) fn function_header(code: &str, open: usize) -> Option<Enclosing> {
    if let Some((intro, params)) = lambda_head(code, open) {
        // `auto run = [&](…)`: the name the lambda is given
        let before = code[..intro].trim_end().strip_suffix('=')?.trim_end();
        let name_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |k| k + 1);
        let name = &before[name_start..];
        if !name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            return None;
        }
        return Some(Enclosing {
            name: name.to_string(),
            defaults: vec![String::new(); params.len()],
            params,
            template_params: Vec::new(),
            at: name_start,
            body: open + 1..matching_close(code.as_bytes(), open)?,
            kind: Kind::Function,
        });
    }
    let head = without_qualifiers(&code[..open]);
    if !head.ends_with(')') {
        return None;
    }
    let close = head.len() - 1;
    let paren = opening(code.as_bytes(), close, (b'(', b')'), b"")?;
    let before = code[..paren].trim_end();
    let name_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |k| k + 1);
    let name = &before[name_start..];
    let starts_ident = name.starts_with(|c: char| c.is_alphabetic() || c == '_');
    if !starts_ident || NOT_FUNCTIONS.contains(&name) {
        return None;
    }
    let decls = split_top(&code[paren + 1..close]);
    let params = decls.iter().map(|p| param_name(p)).collect::<Vec<_>>();
    let (params, defaults) = if params == [""] {
        (vec![], vec![])
    } else {
        let defaults = decls
            .iter()
            .map(|d| d.split_once('=').map_or("", |(_, v)| v.trim()).to_string())
            .collect();
        (params, defaults)
    };
    let body_end = matching_close(code.as_bytes(), open)?;
    Some(Enclosing {
        name: name.to_string(),
        params,
        defaults,
        template_params: template_params(&code[..name_start]),
        at: name_start,
        body: open + 1..body_end,
        kind: Kind::Function,
    })
}

/// The lambda whose body opens at `open` (`[&](int n) mutable {`, `[=] {`, `[](int i) ->
/// float {`): the offset of its `[` and its parameter names.
pub(super) fn lambda_head(code: &str, open: usize) -> Option<(usize, Vec<String>)> {
    let b = code.as_bytes();
    let mut head = without_qualifiers(&code[..open]);
    // a trailing return type
    if let Some(k) = head.rfind("->") {
        let ty = &head[k + 2..];
        let type_like = ty
            .chars()
            .all(|c| c.is_alphanumeric() || " _:<>*&,".contains(c));
        if type_like && head[..k].trim_end().ends_with(')') {
            head = without_qualifiers(&head[..k]);
        }
    }
    let (close_bracket, params) = if head.ends_with(']') {
        (head.len() - 1, Vec::new())
    } else if head.ends_with(')') {
        let paren = opening(b, head.len() - 1, (b'(', b')'), b"")?;
        let before = code[..paren].trim_end();
        if !before.ends_with(']') {
            return None;
        }
        let params: Vec<String> = split_top(&head[paren + 1..head.len() - 1])
            .iter()
            .map(|p| param_name(p))
            .collect();
        let params = if params == [""] { vec![] } else { params };
        (before.len() - 1, params)
    } else {
        return None;
    };
    Some((opening(b, close_bracket, (b'[', b']'), b"")?, params))
}

/// `head` without the qualifiers that may stand between a function's `)` and its body.
fn without_qualifiers(head: &str) -> &str {
    let mut head = head.trim_end();
    loop {
        let shorter = ["const", "noexcept", "override", "mutable", "constexpr"]
            .into_iter()
            .find_map(|q| {
                head.strip_suffix(q)
                    .filter(|r| !r.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            });
        match shorter {
            Some(r) => head = r.trim_end(),
            None => return head,
        }
    }
}

/// The parameter names of the `template <…>` that ends the text before a function's name (its
/// return type between), if any.
fn template_params(before_name: &str) -> Vec<String> {
    let statement = before_name
        .rfind([';', '}', '{'])
        .map_or(before_name, |k| &before_name[k + 1..]);
    let Some(at) = statement.find("template") else {
        return Vec::new();
    };
    let rest = statement[at + "template".len()..].trim_start();
    let Some(list) = rest.strip_prefix('<') else {
        return Vec::new();
    };
    let Some(close) = closing_angle(list) else {
        return Vec::new();
    };
    split_top(&list[..close])
        .iter()
        .map(|p| param_name(p))
        .collect()
}

/// The `>` that closes a template list whose `<` is just before `list`.
fn closing_angle(list: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (k, c) in list.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            ')' => depth -= 1,
            '>' if depth == 0 => return Some(k),
            '>' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The name a parameter declaration declares: `const int n = 4` gives `n`, `float *x` gives `x`.
pub(super) fn param_name(decl: &str) -> String {
    let decl = decl.split('=').next().unwrap_or("").trim();
    let last = decl
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    // a lone type (`int`, `void`) names nothing
    let words = decl
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .count();
    if words < 2 {
        String::new()
    } else {
        last.to_string()
    }
}

impl Call {
    /// The call as written, on one line: `launch<128>(x, n)`, a lambda argument as `[&] {…}`,
    /// and a call through a helper's parameter with that parameter's name (`f()`).
    pub fn shown(&self, name: &str) -> String {
        let targs = if self.template_args.is_empty() {
            String::new()
        } else {
            format!("<{}>", self.template_args.join(", "))
        };
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match a.find('{') {
                Some(k) => format!("{} {{…}}", super::c_text::one_line(&a[..k])),
                None => super::c_text::one_line(a),
            })
            .collect();
        let name = match &self.how {
            How::Through(t) => t.param.as_str(),
            _ => name,
        };
        format!("{name}{targs}({})", args.join(", "))
    }

    /// How the chain of calls to a launch reads this call, whose line is shown as `place`
    /// (`line 9`): `called at line 9`, or, for a helper calling what it was passed, `called at
    /// line 9 as `f()``.
    pub fn called_at(&self, place: &str) -> String {
        match &self.how {
            How::Named => format!("called at {place}"),
            How::Through(t) => format!("called at {place} as `{}()`", t.param),
            How::Graph => format!("in the graph launched at {place}"),
        }
    }
}

/// Every call of `f` in `code`: not its definition or declarations; calls on an object
/// (`s.run(…)`) only where `f` is a method; and the calls of the helpers `f` is passed to that
/// call it (`passed`). A stream capture's calls are the launches of its graph (`graphs`).
pub fn calls(code: &str, f: &Enclosing) -> Vec<Call> {
    match f.kind {
        Kind::Capture => super::graphs::graph_launches(code, f),
        Kind::PassedLambda { .. } => super::passed::calls_through_helpers(code, f),
        Kind::Function => {
            let mut out = direct_calls(code, f);
            out.extend(super::passed::calls_through_helpers(code, f));
            out
        }
    }
}

fn direct_calls(code: &str, f: &Enclosing) -> Vec<Call> {
    let Ok(re) = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{}\s*(?:<([^<>;(){{}}]*)>\s*)?\(",
        regex::escape(&f.name)
    )) else {
        return vec![];
    };
    let b = code.as_bytes();
    let mut out = Vec::new();
    // a method's calls on an object (`s.run(…)`, `p->run(…)`) are its calls too
    let method = super::classes::is_method(code, f.at);
    for c in re.captures_iter(code) {
        let m = c.get(0).expect("the whole match");
        let before = code[..m.start()].trim_end();
        let on_object = method && (before.ends_with('.') || before.ends_with("->"));
        if m.start() == f.at || !(on_object || is_call_position(before)) {
            continue;
        }
        let open = m.end() - 1;
        let Some(close) = matching_close(b, open) else {
            continue;
        };
        out.push(Call {
            line: code[..m.start()].matches('\n').count() + 1,
            at: m.start(),
            args: split_top(&code[open + 1..close]),
            template_args: c.get(1).map(|t| split_top(t.as_str())).unwrap_or_default(),
            how: How::Named,
        });
    }
    out
}

/// Whether a name after `before` is called rather than declared: it follows the start of a
/// statement or an operator that takes a value, `return`, `else` or `do`, or the head of an
/// `if`, `for`, `while` or `switch` whose statement it begins.
pub(super) fn is_call_position(before: &str) -> bool {
    let t = before.trim_end();
    let after_word = |w: &str| {
        t.strip_suffix(w)
            .is_some_and(|r| !r.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
    };
    t.is_empty()
        || t.ends_with(|c: char| ";{}=(,?:!".contains(c))
        || ["return", "else", "do"].into_iter().any(after_word)
        || t.ends_with(')') && statement_head(t)
}

/// Whether `t`, ending in `)`, ends with an `if (…)`, `for (…)`, `while (…)` or `switch (…)`.
fn statement_head(t: &str) -> bool {
    let Some(open) = opening(t.as_bytes(), t.len() - 1, (b'(', b')'), b"") else {
        return false;
    };
    let head = t[..open].trim_end();
    ["if", "for", "while", "switch"].into_iter().any(|kw| {
        head.strip_suffix(kw)
            .is_some_and(|r| !r.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_in_a_helper_finds_the_helper_and_its_calls() {
        let code = "void run_vadd(const float *a, float *c, int n = 8) {\n  if (n > 0) {\n    \
                    k<<<n / 256, 256>>>(a, c, n);\n  }\n}\nvoid run_vadd(const float *, float *, int);\n\
                    int main() {\n  run_vadd(a, c, N);\n  x = obj.run_vadd(1);\n  run_vadd(a, c, 2 * N);\n}\n";
        let at = code.find("<<<").unwrap();
        let f = enclosing_function(code, at).unwrap();
        assert_eq!(f.name, "run_vadd");
        assert_eq!(f.params, ["a", "c", "n"]);
        let calls = calls(code, &f);
        // the definition, the declaration and the member call are not calls
        assert_eq!(
            calls,
            [
                Call {
                    line: 8,
                    at: code.find("run_vadd(a, c, N)").unwrap(),
                    args: vec!["a".into(), "c".into(), "N".into()],
                    template_args: vec![],
                    how: How::Named,
                },
                Call {
                    line: 10,
                    at: code.find("run_vadd(a, c, 2").unwrap(),
                    args: vec!["a".into(), "c".into(), "2 * N".into()],
                    template_args: vec![],
                    how: How::Named,
                },
            ]
        );
    }

    #[test]
    fn a_named_lambda_is_a_helper_and_an_unnamed_one_is_looked_through() {
        let code = "int main(void) {\n  auto go = [&, n](int m) mutable {\n    k<<<m, 32>>>(m);\n  };\n  go(1 << 20);\n  std::for_each(v.begin(), v.end(), [](int q) { k<<<q, 1>>>(q); });\n}\n";
        let f = enclosing_function(code, code.find("<<<").unwrap()).unwrap();
        assert_eq!(
            (f.name.as_str(), &f.params[..]),
            ("go", &["m".to_string()][..])
        );
        let calls = calls(code, &f);
        assert_eq!(calls.len(), 1);
        assert_eq!(
            (calls[0].line, &calls[0].args[..]),
            (5, &["1 << 20".to_string()][..])
        );
        let f = enclosing_function(code, code.rfind("<<<").unwrap()).unwrap();
        assert_eq!((f.name.as_str(), f.params.len()), ("main", 0));
    }

    #[test]
    fn a_function_template_s_calls_give_its_template_arguments() {
        let code = "template <int BS, typename T = float>\nvoid launch(T *x, int n) {\n  k<BS><<<n / BS, BS>>>(x, n);\n}\nint main() {\n  launch<128>(x, N);\n  launch<256, double>(y, N);\n  launch(z, N);\n}\n";
        let f = enclosing_function(code, code.find("<<<").unwrap()).unwrap();
        assert_eq!(f.template_params, ["BS", "T"]);
        let targs: Vec<Vec<String>> = calls(code, &f)
            .into_iter()
            .map(|c| c.template_args)
            .collect();
        assert_eq!(
            targs,
            [
                vec!["128".to_string()],
                vec!["256".into(), "double".into()],
                vec![]
            ]
        );
        // a plain function has none
        let plain = "void run(int n) { k<<<n, 1>>>(n); }";
        let f = enclosing_function(plain, plain.find("<<<").unwrap()).unwrap();
        assert!(f.template_params.is_empty());
    }
}
