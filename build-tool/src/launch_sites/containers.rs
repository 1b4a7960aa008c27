//! The sizes of containers the host code declares with a count and never resizes, which C++
//! hosts size their launches with (a container made again, as a Python script remakes an
//! array, has at a launch the size of the making that reaches it, `reaching`):
//!
//! ```text
//! std::vector<float> h(4096);
//! thrust::device_vector<float> d(1 << 16);
//! inc<<<(h.size() + 255) / 256, 256>>>(ptr, h.size());   // h.size() = 4096
//! ```
//!
//! A `std::vector`, `thrust::device_vector`, `thrust::host_vector` or
//! `thrust::universal_vector` constructed with a count (`h(n)`, `h(n, 0.f)`), a `std::array<T,
//! N>` and a container given a braced list (`{a, b, c}`, three elements) have a size. The
//! expressions read it as the name `h.size` (`h.size()` and `std::size(h)` are rewritten so, in
//! `c_text::c_expr`). A container that is resized (`push_back`, `resize`, `insert`, `clear`,
//! …), assigned, swapped, or handed whole to a call (which may take it by reference and resize
//! it) has no one size, and [`why_no_size`] says why.

use super::c_text::{enclosing_paren, matching_close};
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// A container declaration: its kind (`vector` or `array`, with the array's template
/// arguments) and its name; what follows the name is read by [`size_of`].
static DECLARED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:std::vector|thrust::(?:device|host|universal)_vector)\s*<[^;{}()]*>\s*([A-Za-z_]\w*)\s*|\bstd::array\s*<([^;{}()]*)>\s*([A-Za-z_]\w*)\s*")
        .unwrap()
});

/// `h.size()` and `std::size(h)` as the name `h.size`.
pub(super) static SIZE_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Za-z_]\w*)\s*\.\s*size\s*\(\s*\)|\bstd::size\s*\(\s*([A-Za-z_]\w*)\s*\)")
        .unwrap()
});

/// The sizes of the containers `scope` declares that `code` never resizes, as `h.size` and
/// the count as written; a container declared twice has none.
pub(super) fn sizes_in(scope: &str, code: &str) -> BTreeMap<String, String> {
    let mut sizes: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (name, _, size) in declarations(scope) {
        sizes.entry(name).and_modify(|s| *s = None).or_insert(size);
    }
    sizes
        .into_iter()
        .filter_map(|(name, size)| {
            let size = size.filter(|_| why_no_size(code, &name).is_none())?;
            Some((format!("{name}.size"), size))
        })
        .collect()
}

/// The containers `scope` declares: each name, where it is in `scope`, and its size where it
/// has one.
pub(super) fn declarations(scope: &str) -> Vec<(String, usize, Option<String>)> {
    DECLARED
        .captures_iter(scope)
        .map(|c| {
            let name = c.get(1).or(c.get(3)).expect("one of the two names");
            let after = c.get(0).expect("the match").end();
            let size = match c.get(2) {
                Some(targs) => split_top(targs.as_str()).get(1).cloned(),
                None => size_of(scope, after),
            };
            (name.as_str().to_string(), name.start(), size)
        })
        .collect()
}

/// The count a vector is constructed with, from the text at `after` (just after its name):
/// `(n)` or `(n, value)`, or the number of elements of `{…}` or `= {…}`.
fn size_of(scope: &str, after: usize) -> Option<String> {
    let rest = scope[after..].trim_start();
    let at = scope.len() - rest.len();
    let rest_eq = rest.strip_prefix('=').map(str::trim_start);
    if let Some(r) = rest_eq.filter(|r| r.starts_with('{')) {
        let open = scope.len() - r.len();
        return elements(scope, open);
    }
    match rest.chars().next()? {
        '{' => elements(scope, at),
        '(' => {
            let close = matching_close(scope.as_bytes(), at)?;
            let args = split_top(&scope[at + 1..close]);
            // `(n)` or `(n, value)`; not a copy or a pair of iterators
            let count = args.first().filter(|a| !a.is_empty() && args.len() <= 2)?;
            let iterators = args
                .iter()
                .any(|a| a.contains("begin") || a.contains("end"));
            (!iterators).then(|| count.clone())
        }
        _ => None,
    }
}

/// How many elements the braced list that opens at `open` has.
fn elements(scope: &str, open: usize) -> Option<String> {
    let close = matching_close(scope.as_bytes(), open)?;
    let n = split_top(&scope[open + 1..close])
        .iter()
        .filter(|e| !e.is_empty())
        .count();
    Some(n.to_string())
}

/// Why the container `name` has no one size in `code`: the first statement that may resize it.
pub(super) fn why_no_size(code: &str, name: &str) -> Option<String> {
    let n = regex::escape(name);
    let change = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*(?:\.\s*(?:push_back|emplace_back|pop_back|insert|emplace|erase|resize|assign|clear|swap)\s*\(|=[^=])|\bswap\s*\(\s*{n}\b|[(,]\s*&?\s*{n}\s*[,)]"
    ))
    .expect("an escaped name makes a valid pattern");
    // not its declaration, `std::vector<int> l = {…}`
    let m = change.find_iter(code).find(|m| {
        let named_at = m.as_str().find(name).map_or(m.start(), |k| m.start() + k);
        let declared = code[..named_at].trim_end().ends_with('>');
        // `std::size(h)`, `sizeof(h)`, `std::data(h)` (and a Python host's `len(h)`) only read it
        let reader = m.as_str().starts_with('(')
            && ["size", "sizeof", "data", "begin", "end", "len"]
                .iter()
                .any(|f| ends_with_word(&code[..m.start()], f));
        !declared && !reader && !a_launch_argument(code, named_at)
    })?;
    let line = code[..m.start()].matches('\n').count() + 1;
    let start = code[..m.start()]
        .rfind([';', '{', '}', '\n'])
        .map_or(0, |k| k + 1);
    let end = code[m.start()..]
        .find([';', '\n'])
        .map_or(code.len(), |e| m.start() + e);
    Some(format!(
        "`{name}` may change size at line {line} (`{}`)",
        code[start..end].trim()
    ))
}

/// Whether the argument list that holds offset `at` is a kernel launch's (`k<<<g, b>>>(x,
/// n)`), which cannot resize a host container.
fn a_launch_argument(code: &str, at: usize) -> bool {
    enclosing_paren(code, at).is_some_and(|open| code[..open].trim_end().ends_with(">>>"))
}

/// Whether `text` ends with the word `w` (white space after it aside).
fn ends_with_word(text: &str, w: &str) -> bool {
    text.trim_end()
        .strip_suffix(w)
        .is_some_and(|r| !r.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_declared_with_a_count_give_their_size() {
        let code = "std::vector<float> h(4096);\nthrust::device_vector<float> d(1 << 16, 0.f);\nstd::array<int, 8> a;\nstd::vector<int> l = {1, 2, 3};\nstd::vector<int> b{7};\nstd::vector<float> c(h.begin(), h.end());\nstd::vector<float> later;\n";
        let sizes = sizes_in(code, code);
        let expected: BTreeMap<String, String> = [
            ("a.size", "8"),
            ("b.size", "1"),
            ("d.size", "1 << 16"),
            ("h.size", "4096"),
            ("l.size", "3"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(sizes, expected);
    }

    #[test]
    fn a_container_that_may_be_resized_has_no_size_and_says_why() {
        let base = "std::vector<float> h(4096);\n";
        for (change, why) in [
            (
                "h.push_back(1.f);",
                "`h` may change size at line 2 (`h.push_back(1.f)`)",
            ),
            ("h = other;", "`h` may change size at line 2 (`h = other`)"),
            (
                "fill(h, 3);",
                "`h` may change size at line 2 (`fill(h, 3)`)",
            ),
        ] {
            let code = format!("{base}{change}\n");
            assert_eq!(why_no_size(&code, "h").as_deref(), Some(why));
            assert!(sizes_in(&code, &code).is_empty(), "{code}");
        }
        // a kernel launch cannot resize it
        let launched = format!("{base}k<<<h.size() / 256, 256>>>(h, 1);\n");
        assert_eq!(why_no_size(&launched, "h"), None);
        // reading it, its elements or its data is no change
        let read = "std::vector<float> h(8);\nh[0] = 1.f;\nuse(h.data(), h.size());\nif (h == g) {}\nint n = std::size(h) + sizeof(h);\n";
        assert_eq!(why_no_size(read, "h"), None);
    }
}
