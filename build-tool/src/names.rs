//! Kernel names as the source writes them.

/// The template arguments of a kernel's name or signature, in one spelling
/// (`void fill<float, 256u>(float *, int)` and `fill<float, 256>` → `float,256`); None for a
/// name without them. The arguments are the first `<…>` of the name, up to its matching `>`;
/// spaces, integer suffixes (`256u`) and the demangler's integer casts (`(unsigned int)256`)
/// are dropped, so a profiler's and a demangler's spellings of one instance compare equal.
pub fn template_args(name: &str) -> Option<String> {
    let head = name.split('(').next().unwrap_or(name);
    let open = head.find('<')?;
    let mut depth = 0i32;
    let mut close = None;
    for (i, c) in name[open..].char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = &name[open + 1..close?];
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            // a cast of a literal, `(unsigned int)256` or an enum's `(lattice_type)19`
            '(' => {
                let cast: String = chars.clone().take_while(|&c| c != ')').collect();
                let after = chars.clone().nth(cast.chars().count() + 1);
                let is_type_name = !cast.trim().is_empty()
                    && cast
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == ' ');
                if is_type_name && after.is_some_and(|a| a.is_ascii_digit() || a == '-') {
                    for _ in 0..=cast.chars().count() {
                        chars.next();
                    }
                } else {
                    out.push(c);
                }
            }
            // an integer literal's suffix: after a number, not inside a name like `x2u`
            'u' | 'U' | 'l' | 'L' if ends_with_number(&out) => {}
            c => out.push(c),
        }
    }
    Some(out)
}

/// Whether a measured instance's template arguments (`measured`, from a profiler's
/// signature) name the analysed instance's (`analysed`, from the demangler), both in the
/// spelling of [`template_args`]. Argument by argument; a lambda's or an anonymous type's has
/// no spelling two tools share, so it matches any.
pub fn same_instance(measured: &str, analysed: &str) -> bool {
    let (m, a) = (top_level_args(measured), top_level_args(analysed));
    let unnamed =
        |s: &str| s.contains("lambda") || s.contains("anonymous") || s.contains("unnamed");
    m.len() == a.len()
        && m.iter().zip(&a).all(|(m, a)| {
            m == a || as_bool(m).is_some_and(|m| as_bool(a) == Some(m)) || unnamed(m) || unnamed(a)
        })
}

/// A `bool` template argument, as the demangler (`true`) or a profiler (`1`) writes it.
fn as_bool(arg: &str) -> Option<bool> {
    match arg.trim() {
        "true" | "1" | "(bool)1" => Some(true),
        "false" | "0" | "(bool)0" => Some(false),
        _ => None,
    }
}

/// Arguments split at the commas outside `<…>` and `(…)`.
fn top_level_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in args.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// Whether `s` ends with an integer literal (digits not preceded by a name's letters).
fn ends_with_number(s: &str) -> bool {
    let digits = s.trim_end_matches(|c: char| c.is_ascii_digit() || "uUlL".contains(c));
    digits.len() < s.len()
        && s[digits.len()..].starts_with(|c: char| c.is_ascii_digit())
        && !digits.ends_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// An Itanium-mangled entry's source name without parameters or return type
/// (`_Z6matmuliPKfS0_Pf` → `matmul`, `_Z9tiled_sumILi128EEvPKfPfi` → `tiled_sum<128>`); other
/// names unchanged. An integer template argument reads as the source writes it, `256`, where
/// the demangler writes the type of a non-`int` parameter (`(unsigned int)256`).
pub fn demangle(name: &str) -> String {
    // A literal pattern, built once (demangles_itanium_names_with_templates_and_namespaces
    // compiles it); were it ever refused, names would keep their casts.
    static INT_CAST: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\((?:(?:unsigned|signed) )?(?:char|short|int|long|long long)(?: int)?\)(-?\d+)",
        )
        .ok()
    });
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle_with_options(&options).ok())
        .map(|d| match INT_CAST.as_ref() {
            Some(re) => re.replace_all(&d, "$1").into_owned(),
            None => d,
        })
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profilers_and_a_demanglers_spelling_of_one_instance_compare_equal() {
        assert_eq!(
            template_args("void surfel_render<float>(const T1 *, int, T1, int, int, T1 *)"),
            Some("float".into())
        );
        assert_eq!(
            template_args("surfel_render<double>"),
            Some("double".into())
        );
        assert_eq!(
            template_args("void reduce6<float, 256u>(T1 *, T1 *, unsigned int)"),
            template_args("reduce6<float, (unsigned int)256>")
        );
        assert_eq!(
            template_args("reduce6<float, 256>"),
            Some("float,256".into())
        );
        assert_eq!(
            template_args("ns::k<vec<int, 4>, 2>"),
            Some("vec<int,4>,2".into())
        );
        assert_eq!(template_args("k<-3L>"), Some("-3".into()));
        assert_eq!(template_args("k<ulong>"), Some("ulong".into()));
        assert_eq!(template_args("k<x2u, 3u>"), Some("x2u,3".into()));
        assert_eq!(
            template_args("init_velocity_g<(lattice_type)19>"),
            template_args("void init_velocity_g<19>(float *)")
        );
        assert_eq!(template_args("k<(instance 1)>"), Some("(instance1)".into()));
        assert_eq!(template_args("saxpy"), None);
        assert_eq!(template_args("void saxpy(float *, vec<int>)"), None);
    }

    #[test]
    fn instances_compare_argument_by_argument_and_a_lambda_matches_any_spelling() {
        let args = |s: &str| template_args(s).unwrap();
        let measured =
            args("void k<2, lambda(float, float) (instance 1)], Array<char *, 6>>(int, T2)");
        let analysed =
            args("k<2, __nv_dl_wrapper_t<__nv_dl_tag<void (*)(), &f, 1u>>, Array<char*, 6>>");
        assert!(same_instance(&measured, &analysed));
        assert!(!same_instance(&args("k<float>"), &args("k<double>")));
        assert!(!same_instance(
            &args("k<2, lambda()>"),
            &args("k<3, lambda()>")
        ));
        assert!(!same_instance(&args("k<float, 2>"), &args("k<float>")));
        // a profiler writes a `bool` argument as a number
        assert!(same_instance(&args("k<1, float>"), &args("k<true, float>")));
        assert!(same_instance(&args("k<0>"), &args("k<false>")));
        assert!(!same_instance(&args("k<1>"), &args("k<false>")));
        assert!(!same_instance(&args("k<2>"), &args("k<true>")));
    }
}
