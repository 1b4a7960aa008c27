//! Kernel names as the source writes them.

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
