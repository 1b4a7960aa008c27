//! Range-based `for` loops over a list the host code writes out, the way benchmarks sweep sizes:
//!
//! ```text
//! for (int n : {1 << 10, 1 << 16, 1 << 20}) scale<<<(n + 255) / 256, 256>>>(x, n);
//! std::vector<int> widths = {512, 1024, 4096};
//! for (int cols : widths) softmax<<<rows, 256>>>(in, out, cols);
//! ```
//!
//! [`elements`] gives the list's elements as written, from a braced list in the head or from
//! the one declaration of the named list (`std::vector`, `std::array` or a C array), which the
//! code must never change. Anything else (a list filled at run time, a container returned by a
//! call) gives the reason it cannot be read.

use super::c_text::matching_close;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The loop variable and the range of `for (DECL : RANGE)`, when the head is a range-based one.
pub fn split(inner: &str) -> Option<(String, String)> {
    if inner.contains(';') {
        return None;
    }
    let b = inner.as_bytes();
    let mut depth = 0i32;
    for (k, c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b':' if depth == 0 => {
                let scope = b.get(k + 1) == Some(&b':') || (k > 0 && b[k - 1] == b':');
                if scope {
                    continue;
                }
                let decl = inner[..k].trim_end().trim_end_matches(['&', '*']);
                let var = decl
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .filter(|v| !v.is_empty())?;
                return Some((var.to_string(), inner[k + 1..].trim().to_string()));
            }
            _ => {}
        }
    }
    None
}

/// The elements of `range` (a braced list, or the name of a list `code` declares), as written.
pub fn elements(code: &str, range: &str) -> Result<Vec<String>, String> {
    if let Some(list) = range.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        return Ok(split_top(list)
            .into_iter()
            .filter(|e| !e.is_empty())
            .collect());
    }
    let name = range.trim();
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') || name.is_empty() {
        return Err(format!(
            "its range `{range}` is not a list kerncast can read"
        ));
    }
    let lists = declared_lists(code, name);
    let [(list, decl_end)] = &lists[..] else {
        return Err(if lists.is_empty() {
            format!("`{name}` is not declared with a braced list of values")
        } else {
            format!("`{name}` is declared with a list {} times", lists.len())
        });
    };
    if let Some(change) = changed_after(code, name, *decl_end) {
        return Err(format!("`{name}` is changed (`{change}`)"));
    }
    Ok(split_top(list)
        .into_iter()
        .filter(|e| !e.is_empty())
        .collect())
}

/// The lists `scope` declares with their elements that `code` declares once and never changes,
/// by name, each element as written.
pub fn lists_in(scope: &str, code: &str) -> BTreeMap<String, Vec<String>> {
    // a C array (`int sizes[] = {`) or a container (`std::vector<int> sizes = {`); not a
    // struct or class head, nor a scalar's braced initialiser
    static DECLARED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:\w\s+([A-Za-z_]\w*)\s*\[[^\]]*\]|>\s*([A-Za-z_]\w*))\s*(?:=\s*)?\{")
            .unwrap()
    });
    DECLARED
        .captures_iter(scope)
        .filter_map(|c| {
            let name = c.get(1).or(c.get(2))?.as_str().to_string();
            let items = elements(code, &name).ok()?;
            Some((name, items))
        })
        .collect()
}

/// The braced lists `name` is declared with (`std::vector<int> name = {…}`, `name{…}`,
/// `int name[] = {…}`, `std::array<int, 3> name{…}`), each with the offset after it.
fn declared_lists(code: &str, name: &str) -> Vec<(String, usize)> {
    let decl = crate::launch_sites::c_text::cached_regex(&format!(
        r"(?:[\w>\]]\s+|[&*]\s*){}\s*(?:\[[^\]]*\]\s*)?(?:=\s*)?\{{",
        regex::escape(name)
    ))
    .expect("an escaped name makes a valid pattern");
    decl.find_iter(code)
        .filter_map(|m| {
            let open = m.end() - 1;
            let close = matching_close(code.as_bytes(), open)?;
            Some((code[open + 1..close].to_string(), close + 1))
        })
        .collect()
}

/// A statement after offset `from` that changes the list `name`, as written.
fn changed_after(code: &str, name: &str, from: usize) -> Option<String> {
    let change = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{}\s*(?:\.\s*(?:push_back|emplace_back|pop_back|insert|erase|resize|assign|clear|swap)\s*\(|\[[^\]]*\]\s*(?:[-+*/]?=[^=]|\+\+|--)|=[^=])",
        regex::escape(name)
    ))
    .expect("an escaped name makes a valid pattern");
    let m = change.find(&code[from..])?;
    let start = from + m.start();
    let end = code[start..]
        .find([';', '\n'])
        .map_or(code.len(), |e| start + e);
    Some(code[start..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_for_head_gives_its_variable_and_range() {
        assert_eq!(
            split("int cols : widths"),
            Some(("cols".into(), "widths".into()))
        );
        assert_eq!(
            split("const auto &n : {1 << 10, 1 << 20}"),
            Some(("n".into(), "{1 << 10, 1 << 20}".into()))
        );
        assert_eq!(
            split("std::size_t n : sizes"),
            Some(("n".into(), "sizes".into()))
        );
        assert_eq!(split("int i = 0; i < n; ++i"), None);
        assert_eq!(split("int i = a ? 1 : 2; i < n; ++i"), None);
    }

    #[test]
    fn a_list_written_once_gives_its_elements() {
        let code = "std::vector<int> widths = {512, 1024, N * 4};\nint dims[3] = {16, 32, 64};\nstd::array<long, 2> big{1 << 20, 1 << 24};\n";
        assert_eq!(
            elements(code, "widths"),
            Ok(vec!["512".into(), "1024".into(), "N * 4".into()])
        );
        assert_eq!(
            elements(code, "dims"),
            Ok(vec!["16".into(), "32".into(), "64".into()])
        );
        assert_eq!(
            elements(code, "big"),
            Ok(vec!["1 << 20".into(), "1 << 24".into()])
        );
        assert_eq!(elements(code, "{8, 16}"), Ok(vec!["8".into(), "16".into()]));
    }

    #[test]
    fn a_list_changed_or_not_written_out_says_why() {
        let pushed = "std::vector<int> sizes = {1, 2};\nsizes.push_back(n);\n";
        assert_eq!(
            elements(pushed, "sizes"),
            Err("`sizes` is changed (`sizes.push_back(n)`)".into())
        );
        let stored = "int sizes[] = {1, 2};\nsizes[1] = 7;\n";
        assert_eq!(
            elements(stored, "sizes"),
            Err("`sizes` is changed (`sizes[1] = 7`)".into())
        );
        let filled = "std::vector<int> sizes;\nread_sizes(sizes);\n";
        assert_eq!(
            elements(filled, "sizes"),
            Err("`sizes` is not declared with a braced list of values".into())
        );
        let twice = "int a[] = {1};\nvoid f() { int a[] = {2, 3}; }\n";
        assert_eq!(
            elements(twice, "a"),
            Err("`a` is declared with a list 2 times".into())
        );
        assert!(elements("", "make_sizes()").is_err());
        // reading it is no change
        let read = "int s[] = {4, 8};\nint m = s[0] == 4;\nint k = s[1];\n";
        assert_eq!(elements(read, "s"), Ok(vec!["4".into(), "8".into()]));
    }
}
