//! The template arguments a call of a function template leaves to deduction, from the types of
//! the arguments it passes:
//!
//! ```text
//! template <typename T> void reduce(const T *in, T *out, int n) { reduce_sum<256, T><<<…>>>(…); }
//! float *f; double *d;
//! reduce(f, f, n);    // T = float: launches reduce_sum<256, float>
//! reduce(d, d, n);    // T = double
//! ```
//!
//! Only the simplest deduction, which is also the usual one: a template parameter that a
//! function parameter's type names alone (`T`, `const T *`, `T &`), and a call that passes a
//! variable of a built-in type there (`float *f`, declared in the caller's function or the
//! file). Anything else (`std::vector<T> &`, an expression, a class type) leaves the parameter
//! undeduced, and the launch may be any instantiation, as before.

use super::c_text::matching_close;
use super::callers::{Call, Enclosing};
use crate::c_lex::has_word;
use crate::param_fields::is_builtin_type;
use crate::workload::split_top;

/// The template arguments of `call` of `f`: those it writes, then for each other template
/// parameter the type deduced from the arguments, or "" where none is.
pub(super) fn template_args(code: &str, f: &Enclosing, call: &Call) -> Vec<String> {
    let decls = param_decls(code, f);
    f.template_params
        .iter()
        .enumerate()
        .map(|(k, t)| match call.template_args.get(k) {
            Some(written) => written.clone(),
            None => deduced(code, t, &decls, &f.params, call).unwrap_or_default(),
        })
        .collect()
}

/// The type the first parameter declared as `t` alone (qualifiers, `*` and `&` aside) gets from
/// the argument `call` passes to it.
fn deduced(
    code: &str,
    t: &str,
    decls: &[String],
    params: &[String],
    call: &Call,
) -> Option<String> {
    let k = decls
        .iter()
        .zip(params)
        .position(|(decl, name)| base_type(&without_name(decl, name)) == t)?;
    let arg = call.args.get(k)?.trim();
    let declared = declared_type(&code[..call.at], arg)?;
    is_builtin_type(&declared).then_some(declared)
}

/// The parameter declarations of `f` as written (`const T *in`), from the list after its name.
fn param_decls(code: &str, f: &Enclosing) -> Vec<String> {
    let Some(open) = code[f.at..].find('(').map(|k| f.at + k) else {
        return Vec::new();
    };
    matching_close(code.as_bytes(), open)
        .map(|close| split_top(&code[open + 1..close]))
        .unwrap_or_default()
}

/// `decl` without its name and default: `const T *in = nullptr` gives `const T *`.
fn without_name(decl: &str, name: &str) -> String {
    let decl = decl.split('=').next().unwrap_or(decl).trim_end();
    match decl.strip_suffix(name) {
        Some(rest) if !name.is_empty() => rest.to_string(),
        _ => decl.to_string(),
    }
}

/// A type with its qualifiers, `*` and `&` taken away: `const float *__restrict__` is `float`,
/// `unsigned int` stays two words.
fn base_type(ty: &str) -> String {
    const QUALIFIERS: [&str; 5] = [
        "const",
        "volatile",
        "__restrict__",
        "__restrict",
        "restrict",
    ];
    ty.replace(['*', '&'], " ")
        .split_whitespace()
        .filter(|w| !QUALIFIERS.contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The built-in type `name` is last declared with before the end of `code` (`float *x, *y;`
/// gives `y` the type `float`), where the declaration starts with the type.
fn declared_type(code: &str, name: &str) -> Option<String> {
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    code.split([';', '{', '}']).rev().find_map(|statement| {
        if !has_word(statement, name) {
            return None;
        }
        let s = statement.trim_start();
        // the longest run of leading words that is a type: `unsigned int *x` is `unsigned int`
        let words: Vec<&str> = s
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .take_while(|w| !w.is_empty())
            .collect();
        let (ty, len) = (1..=words.len()).rev().find_map(|n| {
            let ty = base_type(&words[..n].join(" "));
            let len = words[..n].iter().map(|w| w.len() + 1).sum::<usize>();
            is_builtin_type(&ty).then_some((ty, len))
        })?;
        let declarators = split_top(s.get(len.min(s.len())..)?);
        let declares = declarators.iter().any(|d| {
            let d = d.split(['=', '[', '(']).next().unwrap_or(d);
            base_type(d) == name
        });
        declares.then_some(ty)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_parameter_is_the_type_of_the_variable_passed() {
        let code = "template <typename T, int B>\nvoid reduce(const T *__restrict__ in, T *out, int n) { }\n\
                    int main() {\n  float *f, *g;\n  double* d;\n  unsigned int u = 3;\n  \
                    reduce(f, g, 4);\n  reduce<double>(d, d, 4);\n  reduce(u, u, 4);\n  \
                    reduce(f + 1, g, 4);\n}\n";
        let f =
            super::super::callers::enclosing_function(code, code.find("{ }").unwrap() + 1).unwrap();
        assert_eq!(f.template_params, ["T", "B"]);
        let calls = super::super::callers::calls(code, &f);
        let deduced: Vec<Vec<String>> = calls.iter().map(|c| template_args(code, &f, c)).collect();
        assert_eq!(
            deduced,
            [
                vec!["float".to_string(), String::new()],
                vec!["double".into(), String::new()],
                vec!["unsigned int".into(), String::new()],
                // an expression is not a variable: not deduced
                vec![String::new(), String::new()],
            ]
        );
    }

    #[test]
    fn declarations_give_the_types_of_their_names() {
        assert_eq!(base_type("const float *__restrict__ "), "float");
        assert_eq!(
            declared_type("float *x, *y;\nint n = 4", "y").as_deref(),
            Some("float")
        );
        assert_eq!(declared_type("double* d", "d").as_deref(), Some("double"));
        // a class type, and a name used but not declared in the statement
        assert_eq!(declared_type("Foo *p", "p"), None);
        assert_eq!(declared_type("int n = m", "m"), None);
    }
}
