//! The project headers a source includes (`#include "kernels.cuh"`), so that a kernel defined in
//! a header is known by its source: its parameter names, annotations and line, and the launches
//! of the file that includes it.

use std::path::{Path, PathBuf};

/// A header read for its kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// As the report shows it: beside the including file's shown path, or as found in an
    /// include directory.
    pub display: String,
    pub text: String,
}

/// How deep `#include` chains are followed (a guard against include cycles that `#pragma once`
/// would break).
const MAX_DEPTH: usize = 8;

/// The quoted includes of `path` (shown as `display`, text `text`), found beside the including
/// file or in `include_dirs` as the compiler looks for them, and theirs in turn, each once.
/// System headers (`<…>`) are not read, and a quoted include found nowhere is left to the
/// compiler to report.
pub fn local_headers(
    path: &Path,
    display: &str,
    text: &str,
    include_dirs: &[PathBuf],
) -> Vec<Header> {
    let mut out = Vec::new();
    let mut seen: Vec<PathBuf> = path.canonicalize().into_iter().collect();
    walk(path, display, text, include_dirs, 0, &mut seen, &mut out);
    out
}

fn walk(
    path: &Path,
    display: &str,
    text: &str,
    include_dirs: &[PathBuf],
    depth: usize,
    seen: &mut Vec<PathBuf>,
    out: &mut Vec<Header>,
) {
    if depth >= MAX_DEPTH {
        return;
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    let shown_dir = Path::new(display).parent().unwrap_or(Path::new(""));
    for name in quoted_includes(text) {
        let beside = (dir.join(&name), shown_dir.join(&name));
        let found = std::iter::once(beside)
            .chain(include_dirs.iter().map(|d| (d.join(&name), d.join(&name))))
            .find(|(p, _)| p.is_file());
        let Some((file, shown)) = found else { continue };
        let Ok(canonical) = file.canonicalize() else {
            continue;
        };
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        let Ok(header_text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let shown = shown.display().to_string();
        walk(
            &file,
            &shown,
            &header_text,
            include_dirs,
            depth + 1,
            seen,
            out,
        );
        out.push(Header {
            display: shown,
            text: header_text,
        });
    }
}

/// The names in `#include "name"` lines.
fn quoted_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let name = rest.strip_prefix('"')?;
            Some(name[..name.find('"')?].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_includes_are_followed_beside_the_file_and_in_include_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("inc")).unwrap();
        std::fs::write(
            root.join("src/kernels.cuh"),
            "#pragma once\n#include \"common.h\"\n#include \"kernels.cuh\"\n__global__ void k() {}\n",
        )
        .unwrap();
        std::fs::write(root.join("inc/common.h"), "#define TILE 16\n").unwrap();
        let main = root.join("src/main.cu");
        let text = "#include <cstdio>\n  #  include \"kernels.cuh\"\n#include \"missing.h\"\n";
        std::fs::write(&main, text).unwrap();
        let headers = local_headers(&main, "src/main.cu", text, &[root.join("inc")]);
        let shown: Vec<String> = headers.iter().map(|h| h.display.clone()).collect();
        // a header's own includes come before it; each is read once; <cstdio> is not read
        assert_eq!(
            shown,
            [
                root.join("inc/common.h").display().to_string(),
                "src/kernels.cuh".into()
            ]
        );
        assert!(headers[1].text.contains("__global__ void k()"));
    }
}
