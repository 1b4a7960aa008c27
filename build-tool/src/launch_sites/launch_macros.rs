//! Launches written through a function-like macro, as projects wrap `<<<…>>>` to check errors
//! or to size a 1-D grid:
//!
//! ```text
//! #define LAUNCH_1D(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)
//! LAUNCH_1D(scale, m, y, m);      // scale<<<((m) + 255) / 256, 256>>>(y, m)
//! ```
//!
//! Each use of a macro whose body launches is expanded as the preprocessor would (parameters
//! and `__VA_ARGS__` replaced by the use's arguments, other launch macros in the result
//! expanded in turn), and the launches of the expansion are read at the use: its line, its
//! function and its branches. The launches written in the `#define` itself, in terms of the
//! macro's parameters, are not launches of their own.

use super::c_text::{call_args, one_line};
use super::{launch_sites_in, LaunchSite};
use regex::Regex;
use std::sync::LazyLock;

/// A function-like `#define`, its continuation lines joined: name, parameters, body.
static FUNCTION_LIKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)((?:[^\n\\]|\\\r?\n|\\)*)")
        .unwrap()
});

/// How deep launch macros may nest in one another.
const MOST_NESTED: usize = 4;

struct LaunchMacro {
    name: String,
    params: Vec<String>,
    variadic: bool,
    body: String,
    /// A use of the macro: `NAME(`.
    use_of: Regex,
}

/// The function-like macros of `code` whose body launches a kernel, itself or through
/// another such macro.
fn launch_macros(code: &str) -> Vec<LaunchMacro> {
    let all: Vec<LaunchMacro> = FUNCTION_LIKE
        .captures_iter(code)
        .map(|c| {
            let mut params: Vec<String> = c[2].split(',').map(|p| p.trim().to_string()).collect();
            let variadic = params.last().is_some_and(|p| p == "...");
            if variadic {
                params.pop();
            }
            LaunchMacro {
                name: c[1].to_string(),
                params,
                variadic,
                body: c[3].replace("\\\r\n", " ").replace("\\\n", " "),
                use_of: Regex::new(&format!(r"\b{}\s*\(", regex::escape(&c[1]))).unwrap(),
            }
        })
        .collect();
    let mut launching: Vec<bool> = all.iter().map(|m| m.body.contains("<<<")).collect();
    for _ in 0..MOST_NESTED {
        for i in 0..all.len() {
            launching[i] = launching[i]
                || all.iter().zip(&launching).any(|(other, &l)| {
                    l && all[i].body.contains(&other.name) && other.use_of.is_match(&all[i].body)
                });
        }
    }
    all.into_iter()
        .zip(launching)
        .filter_map(|(m, l)| l.then_some(m))
        .collect()
}

/// Whether `at` is inside a preprocessor directive of `code` (its continuation lines included).
pub(super) fn in_directive(code: &str, at: usize) -> bool {
    let mut start = code[..at].rfind('\n').map_or(0, |n| n + 1);
    let continued = |end: usize| code[..end].trim_end_matches('\r').ends_with('\\');
    while start >= 2 && continued(start - 1) {
        start = code[..start - 1].rfind('\n').map_or(0, |n| n + 1);
    }
    code[start..].trim_start().starts_with('#')
}

/// The launches of `code` written through the launch macros it or `headers` (the code of the
/// headers it includes) define, each at its use in `code`.
pub(super) fn launches(code: &str, headers: &[String]) -> Vec<LaunchSite> {
    let macros = if headers.is_empty() {
        launch_macros(code)
    } else {
        launch_macros(&format!("{}\n{code}", headers.join("\n")))
    };
    if macros.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in &macros {
        for u in m.use_of.find_iter(code) {
            if in_directive(code, u.start()) {
                continue;
            }
            let Some((close, _)) = call_args(code, u.end() - 1) else {
                continue;
            };
            let written = one_line(&code[u.start()..=close]);
            let line = code[..u.start()].matches('\n').count() + 1;
            for mut site in expanded_launches(&macros, &code[u.start()..=close], 0) {
                site.call = Some(format!("{written}, which expands to {}", site.shown()));
                site.line = line;
                site.at = u.start();
                out.push(site);
            }
        }
    }
    out
}

/// The launches of the macro use `text` (`NAME(args)`) once expanded, nested uses included.
fn expanded_launches(macros: &[LaunchMacro], text: &str, depth: usize) -> Vec<LaunchSite> {
    let Some(expansion) = expand(macros, text) else {
        return Vec::new();
    };
    let mut sites = launch_sites_in(&expansion);
    if depth < MOST_NESTED {
        for m in macros {
            for u in m.use_of.find_iter(&expansion) {
                if let Some((close, _)) = call_args(&expansion, u.end() - 1) {
                    sites.extend(expanded_launches(
                        macros,
                        &expansion[u.start()..=close],
                        depth + 1,
                    ));
                }
            }
        }
    }
    sites
}

/// The body of the macro `text` uses, with the use's arguments in place of its parameters.
fn expand(macros: &[LaunchMacro], text: &str) -> Option<String> {
    let open = text.find('(')?;
    let name = text[..open].trim();
    let m = macros.iter().find(|m| m.name == name)?;
    let (_, ranges) = call_args(text, open)?;
    let args: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
    if args.len() < m.params.len() || (!m.variadic && args.len() > m.params.len()) {
        return None;
    }
    let rest = args[m.params.len()..].join(", ");
    static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_]\w*").unwrap());
    Some(
        WORD.replace_all(&m.body, |c: &regex::Captures| {
            let w = &c[0];
            if m.variadic && w == "__VA_ARGS__" {
                return rest.clone();
            }
            match m.params.iter().position(|p| p == w) {
                Some(i) => args[i].to_string(),
                None => w.to_string(),
            }
        })
        .replace("##", ""),
    )
}

#[cfg(test)]
mod tests {
    use super::super::HostFile;
    use super::*;

    const HOST: &str = r#"
#define CHECK(x) do { if ((x) != cudaSuccess) abort(); } while (0)
#define LAUNCH(kernel, grid, block, ...) do { \
    kernel<<<grid, block>>>(__VA_ARGS__); \
    CHECK(cudaGetLastError()); } while (0)
#define LAUNCH_1D(k, n, ...) LAUNCH(k, ((n) + 255) / 256, 256, __VA_ARGS__)
int main() {
  const int n = 1 << 22, m = 1 << 20;
  LAUNCH(axpy, n / 256, 256, 2.0f, x, y, n);
  LAUNCH_1D(scale, m, y, m);
}
"#;

    #[test]
    fn a_use_of_a_launch_macro_is_a_launch_at_the_use() {
        let sites = launches(HOST, &[]);
        let shown: Vec<String> = sites
            .iter()
            .map(|s| format!("{} {}", s.line, s.call.as_deref().unwrap()))
            .collect();
        assert_eq!(
            shown,
            [
                "9 LAUNCH(axpy, n / 256, 256, 2.0f, x, y, n), which expands to axpy<<<n / 256, 256>>>(2.0f, x, y, n)",
                "10 LAUNCH_1D(scale, m, y, m), which expands to scale<<<((m) + 255) / 256, 256>>>(y, m)",
            ]
        );
        assert!(in_directive(HOST, HOST.find("kernel<<<").unwrap()));
        let crlf = HOST.replace('\n', "\r\n");
        assert_eq!(launches(&crlf, &[]).len(), 2);
        assert!(in_directive(&crlf, crlf.find("kernel<<<").unwrap()));
        assert!(!in_directive(HOST, HOST.find("LAUNCH(axpy").unwrap()));
    }

    #[test]
    fn the_expansion_s_sizes_are_worked_out_in_the_use_s_scope() {
        let params: Vec<String> = ["y", "m"].map(String::from).to_vec();
        let specs = HostFile::new(HOST, None).workloads("scale", &params, &[]);
        assert_eq!(specs.len(), 1, "{specs:?}");
        let w = specs[0].resolve().unwrap();
        assert_eq!((w.grid, w.block), ([4096, 1, 1], [256, 1, 1]));
        assert_eq!(w.params["m"], 1 << 20);
        // the `<<<` of the #define is not a launch of a kernel named `kernel`
        assert!(HostFile::new(HOST, None)
            .workloads("kernel", &["x".to_string()], &[])
            .is_empty());
    }

    #[test]
    fn a_launch_macro_of_an_included_header_is_read_at_its_use() {
        let header = "#pragma once\n#define LAUNCH_1D(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)\n";
        let main = "#include \"launch.cuh\"\nint main() {\n  int m = 1 << 20;\n  LAUNCH_1D(scale, m, y, m);\n}\n";
        let params: Vec<String> = ["y", "m"].map(String::from).to_vec();
        assert!(HostFile::new(main, None)
            .workloads("scale", &params, &[])
            .is_empty());
        let specs = HostFile::with_headers(main, None, &[header]).workloads("scale", &params, &[]);
        assert_eq!(specs.len(), 1, "{specs:?}");
        let w = specs[0].resolve().unwrap();
        assert_eq!((w.grid, w.block), ([4096, 1, 1], [256, 1, 1]));
        // the use's line in the file that uses it, not in the header
        assert!(
            specs[0].origin.as_deref().unwrap_or("").contains("line 4"),
            "{:?}",
            specs[0].origin
        );
    }
}
