//! Calls of a Python host's own functions, shaped as C calls so that the launches in a function
//! see the values it is called with (`run(1 << 22, block=1024)` as `run(1 << 22, 1024);`), and
//! callables handed to a helper, as a benchmark's timing helper is given them:
//!
//! ```text
//! def bench(fn, reps=100):                   void bench(long fn, long reps = 100) {
//!     fn()                                       fn();
//!     for _ in range(reps):                      for (…) {
//!         fn()                                       fn(); } }
//! bench(lambda: add((g,), (b,), (x, n)))      bench([&] { add<<<g, b>>>(x, n); });
//! ```
//!
//! The C reader then follows the callable into the helper (`launch_sites::passed`), and counts
//! the launch once per call of `fn`.

use super::{c_expression, launch, split_top, ASSIGNMENT, DEF};
use crate::launch_sites::c_text::matching_close;

/// A function the file defines: its name, and its parameters with their defaults as C
/// (`None` where it has none or it is no integer expression), `self` and `*args` left out.
pub(super) struct Def {
    pub name: String,
    pub params: Vec<(String, Option<String>)>,
}

impl Def {
    /// The `def` on a line of code, if it is one.
    pub fn of(statement: &str) -> Option<Def> {
        let d = DEF.captures(statement)?;
        let params = split_top(&d[2])
            .into_iter()
            .filter_map(|p| {
                let (decl, default) = match p.split_once('=') {
                    Some((decl, default)) => (decl, c_expression(default)),
                    None => (p.as_str(), None),
                };
                let name = decl.split(':').next().unwrap_or("").trim().to_string();
                let kept = !name.is_empty() && name != "self" && !name.starts_with('*');
                kept.then_some((name, default))
            })
            .collect();
        Some(Def {
            name: d[1].to_string(),
            params,
        })
    }

    /// The C head: `void run(long n, long block = 128) {`.
    pub fn c_head(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(p, default)| match default {
                Some(d) => format!("long {p} = {d}"),
                None => format!("long {p}"),
            })
            .collect();
        format!("void {}({}) {{", self.name, params.join(", "))
    }
}

/// A call of one of the file's functions (`defs`), alone or assigned (`t = bench(…)`), as a C
/// call, and whether it launches a kernel (in a lambda it passes). Every argument must be an
/// integer expression, a name, or a lambda that launches a kernel or calls one of `defs`;
/// keyword arguments go to their parameter's place, and one left out before a given one takes
/// its default.
pub(super) fn call_of_def(
    statement: &str,
    defs: &[Def],
    handles: &[(String, String)],
) -> Option<(String, bool)> {
    let call = unassigned(statement);
    let open = call.find('(')?;
    let name = call[..open].trim();
    let def = defs.iter().find(|d| d.name == name)?;
    if matching_close(call.as_bytes(), open)? != call.len() - 1 {
        return None;
    }
    let mut args: Vec<Option<String>> = vec![None; def.params.len()];
    let mut launches = false;
    for (k, a) in split_top(&call[open + 1..call.len() - 1])
        .iter()
        .enumerate()
    {
        let (slot, value) = match keyword_arg(a) {
            Some((kw, v)) => (def.params.iter().position(|(p, _)| p == kw)?, v),
            None => (k, a.as_str()),
        };
        let shaped = match lambda(value) {
            Some((params, body)) => {
                let (c, launch) = lambda_body(body, defs, handles)?;
                launches |= launch;
                let params: Vec<String> = params.iter().map(|p| format!("long {p}")).collect();
                format!("[&]({}) {{ {c} }}", params.join(", "))
            }
            None => c_expression(value)?,
        };
        *args.get_mut(slot)? = Some(shaped);
    }
    let given = args.iter().rposition(Option::is_some).map_or(0, |k| k + 1);
    let args: Vec<String> = args[..given]
        .iter()
        .zip(&def.params)
        .map(|(a, (_, default))| a.clone().or_else(|| default.clone()))
        .collect::<Option<_>>()?;
    Some((format!("{name}({});", args.join(", ")), launches))
}

/// A call of one of `params`, the parameters of the function the statement is in (`fn()`,
/// `t = fn(n)`), as a C call: a helper calling what it is given. An argument that is no
/// integer expression is a value kerncast cannot read.
pub(super) fn call_of_param(statement: &str, params: &[String]) -> Option<String> {
    let call = unassigned(statement);
    let open = call.find('(')?;
    let name = call[..open].trim();
    if !params.iter().any(|p| p == name) || matching_close(call.as_bytes(), open)? != call.len() - 1
    {
        return None;
    }
    let args: Vec<String> = split_top(&call[open + 1..call.len() - 1])
        .iter()
        .map(|a| c_expression(a).unwrap_or_else(|| "python_value".into()))
        .collect();
    Some(format!("{name}({});", args.join(", ")))
}

/// The call in `t = f(…)`, or the statement.
pub(super) fn unassigned(statement: &str) -> &str {
    ASSIGNMENT
        .captures(statement)
        .map_or(statement, |a| a.get(2).expect("the value").as_str())
        .trim()
}

/// `reps=100` as `("reps", "100")`.
fn keyword_arg(a: &str) -> Option<(&str, &str)> {
    let (k, v) = a.split_once('=')?;
    let k = k.trim();
    let bare = !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_');
    (bare && !v.starts_with('=')).then_some((k, v.trim()))
}

/// `lambda a, b: body` as its parameters and body.
pub(super) fn lambda(a: &str) -> Option<(Vec<String>, &str)> {
    let rest = a.strip_prefix("lambda")?;
    if !rest.starts_with([' ', ':']) {
        return None;
    }
    let (params, body) = rest.split_once(':')?;
    let params = params
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    Some((params, body.trim()))
}

/// A lambda's body as C: a launch, or a call of one of `defs`.
pub(super) fn lambda_body(
    body: &str,
    defs: &[Def],
    handles: &[(String, String)],
) -> Option<(String, bool)> {
    launch(body, handles)
        .map(|c| (c, true))
        .or_else(|| call_of_def(body, defs, handles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_def_s_defaults_and_a_call_s_keywords_take_their_places() {
        let def = Def::of("def run(self, n, block: int = 128, *rest, reps=10 ** 2):").unwrap();
        assert_eq!(
            def.c_head(),
            "void run(long n, long block = 128, long reps) {"
        );
        let defs = [def];
        let handles = [("k".to_string(), "k".to_string())];
        let call = |s: &str| call_of_def(s, &defs, &handles);
        assert_eq!(call("run(4096)"), Some(("run(4096);".into(), false)));
        // a keyword after a left-out parameter: the default stands in
        assert_eq!(
            call("t = run(1 << 20, reps=3)"),
            Some(("run(1 << 20, 128, 3);".into(), false))
        );
        assert_eq!(
            call("run(reps=3, n=5)"),
            Some(("run(5, 128, 3);".into(), false))
        );
        // a left-out parameter without a default, an unknown keyword, a value read at run time
        assert_eq!(call("run(block=5)"), None);
        assert_eq!(call("run(5, depth=2)"), None);
        assert_eq!(call("run(len(x))"), None);
    }

    #[test]
    fn a_lambda_argument_that_launches_is_a_c_lambda() {
        let defs = [Def::of("def bench(fn, reps=100):").unwrap()];
        let handles = [("add".to_string(), "my_add".to_string())];
        let (c, launches) = call_of_def(
            "ms = bench(lambda: add((n // 256,), (256,), (x, cp.int32(n))), reps=20)",
            &defs,
            &handles,
        )
        .unwrap();
        assert_eq!(c, "bench([&]() { my_add<<<n / 256, 256>>>(x, n); }, 20);");
        assert!(launches);
        // a lambda that does something else gives no call
        assert_eq!(
            call_of_def("bench(lambda: print(1))", &defs, &handles),
            None
        );
        // inside the helper, a call of its parameter
        let params = ["fn".to_string(), "reps".to_string()];
        assert_eq!(call_of_param("fn()", &params), Some("fn();".into()));
        assert_eq!(
            call_of_param("t = fn(len(x), 2)", &params),
            Some("fn(python_value, 2);".into())
        );
        assert_eq!(call_of_param("go()", &params), None);
    }
}
