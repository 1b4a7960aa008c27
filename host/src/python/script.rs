//! A Python file as the reader holds it: its text, its syntax tree, and where its lines start.
//! Apart from the reader, so that the interpreter, which runs scripts, does not import it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A parsed Python file.
pub struct Script {
    pub path: PathBuf,
    /// The name reports give it (its path as given).
    pub display: Arc<str>,
    pub text: String,
    pub module: ruff_python_ast::ModModule,
    line_starts: Vec<usize>,
}

impl Script {
    /// Reads and parses a file; syntax errors go to `diagnostics`, and the statements that
    /// parse are kept.
    pub(super) fn load(
        path: &Path,
        display: &str,
        diagnostics: &mut Vec<String>,
    ) -> Option<Script> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                diagnostics.push(format!("{display}: error: cannot read the file: {e}"));
                return None;
            }
        };
        let parsed = ruff_python_parser::parse_unchecked_source(
            &text,
            ruff_python_ast::PySourceType::Python,
        );
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        for e in parsed.errors() {
            let (line, col) = line_col(&line_starts, &text, e.location.start().to_usize());
            diagnostics.push(format!("{display}:{line}:{col}: error: {}", e.error));
        }
        let script = Script {
            path: path.to_path_buf(),
            display: Arc::from(display),
            module: parsed.into_syntax(),
            text,
            line_starts,
        };
        Some(script)
    }

    /// The 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        line_col(&self.line_starts, &self.text, offset)
    }
}

fn line_col(line_starts: &[usize], text: &str, offset: usize) -> (u32, u32) {
    let line = line_starts.partition_point(|s| *s <= offset).max(1);
    let start = line_starts[line - 1];
    let col = text
        .get(start..offset.min(text.len()))
        .map(|s| s.chars().count())
        .unwrap_or(0)
        + 1;
    (line as u32, col as u32)
}
