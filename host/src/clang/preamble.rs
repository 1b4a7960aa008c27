//! A unit's preamble: the preprocessor directives its file opens with, up to the last point
//! where they are balanced after a system `#include`. Headers such as `<cuda_fp16.h>` or
//! `<random>` cost a unit more to parse than its own code, and the same preamble opens many
//! files of a project, so it can be precompiled once ([`super::prelude`]) as clangd does.
//!
//! The preamble is taken only where loading it precompiled leaves the unit as it was: the
//! directives are read again from the file itself after the precompiled header, where a
//! `#define` repeats a definition identical to the one in force, a conditional decides as it
//! did, and an `#include` of a header with a guard (or `#pragma once`) reads nothing. So it
//! holds only what reads the same in both places: `#include <…>` (a quoted include names the
//! program's own files, which it edits), the conditionals, `#define`, `#undef`, `#pragma`; it
//! ends before the first other directive (`#line`, `#error`, an include by macro) or code.
//! Where a header has no guard and cannot be read twice, the unit says so in errors, and the
//! caller reads it without the preamble.

use super::{Index, Unit};
use std::path::Path;

/// The leading directives of a file, as a source of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preamble {
    /// The directives, one to a line, as written (a directive continued with `\` keeps its
    /// continuation); comments between them are left out, so files that differ only there share
    /// a preamble.
    pub text: String,
    /// The headers its `#include <…>`s name, as spelled (`cuda_fp16.h`, `bits/types.h`).
    pub headers: Vec<String>,
}

/// The preamble of `file` parsed with `args`, when it has a system `#include`; its tokens come
/// from clang's lexer (a parse of the file alone, [`Index::parse_single_file`]). Only the
/// file's start is parsed, four times more each time the directives run past it: spelling
/// every token of a 3000-line file cost 20 ms, its preamble a few hundred bytes.
pub fn of_file(index: &Index, file: &Path, args: &[String]) -> Option<Preamble> {
    let text = std::fs::read_to_string(file).ok()?;
    let logical = LogicalLines::in_text(&text);
    let mut want = FIRST_BYTES;
    loop {
        let end = logical.end_from(want).unwrap_or(text.len());
        let unit: Unit<'_> = index.parse_single_file(file, args, &text[..end]).ok()?;
        let tokens = unit.tokens_spelled(&file.to_string_lossy(), 0, end as u32);
        match leading_directives(&text, &tokens) {
            Walk::Ended(p) => return p,
            Walk::RanOut(p) if end == text.len() => return p,
            Walk::RanOut(_) => want = end.saturating_mul(4),
        }
    }
}

/// Bytes of a file first parsed for its preamble.
const FIRST_BYTES: usize = 4096;

/// How the directives of a file's start ended.
#[derive(Debug, PartialEq, Eq)]
enum Walk {
    /// At code or at a directive a preamble does not hold: the preamble, if there is one.
    Ended(Option<Preamble>),
    /// With the tokens given: the preamble so far.
    RanOut(Option<Preamble>),
}

#[cfg(test)]
impl Walk {
    /// The preamble, however the walk ended.
    fn preamble(self) -> Option<Preamble> {
        match self {
            Walk::Ended(p) | Walk::RanOut(p) => p,
        }
    }
}

/// The preamble of `text` from its first tokens (spelling, byte offset; without comments).
fn leading_directives(text: &str, tokens: &[(String, u32)]) -> Walk {
    let logical = LogicalLines::in_text(text);
    let mut pieces: Vec<&str> = Vec::new();
    let mut headers: Vec<String> = Vec::new();
    // (directives, headers) up to the last balanced point after a system include
    let mut cut = None;
    let mut depth = 0u32;
    let mut i = 0;
    let mut ended = false;
    while i < tokens.len() {
        let (first, at) = &tokens[i];
        if first != "#" {
            ended = true;
            break;
        }
        let line = logical.of(*at);
        let mut j = i + 1;
        while j < tokens.len() && logical.of(tokens[j].1) == line {
            j += 1;
        }
        let directive = &tokens[i..j];
        let name = directive.get(1).map_or("", |t| t.0.as_str());
        let holds = match name {
            "include" => match system_header(&directive[2..]) {
                Some(h) => {
                    headers.push(h);
                    true
                }
                None => false,
            },
            "if" | "ifdef" | "ifndef" => {
                depth += 1;
                true
            }
            "endif" if depth > 0 => {
                depth -= 1;
                true
            }
            "elif" | "elifdef" | "elifndef" | "else" | "define" | "undef" | "pragma" | "" => true,
            _ => false,
        };
        let (last, last_at) = &directive[directive.len() - 1];
        let end = (*last_at as usize + last.len()).min(text.len());
        let Some(piece) = text.get(*at as usize..end).filter(|_| holds) else {
            ended = true;
            break;
        };
        pieces.push(piece);
        if depth == 0 && !headers.is_empty() {
            cut = Some((pieces.len(), headers.len()));
        }
        i = j;
    }
    let preamble = cut.map(|(n_pieces, n_headers)| {
        headers.truncate(n_headers);
        let mut text = pieces[..n_pieces].join("\n");
        text.push('\n');
        Preamble { text, headers }
    });
    if ended {
        Walk::Ended(preamble)
    } else {
        Walk::RanOut(preamble)
    }
}

/// The header an `#include`'s operand names, when it is a system header written out
/// (`<cuda_fp16.h>`, lexed as `<`, `cuda_fp16`, `.`, `h`, `>` or as one header-name token).
fn system_header(operand: &[(String, u32)]) -> Option<String> {
    let first = operand.first()?.0.as_str();
    if first.len() > 2 && first.starts_with('<') && first.ends_with('>') {
        return Some(first[1..first.len() - 1].to_string());
    }
    if first != "<" {
        return None;
    }
    let close = operand.iter().position(|t| t.0 == ">")?;
    if close + 1 != operand.len() || close < 2 {
        return None;
    }
    Some(operand[1..close].iter().map(|t| t.0.as_str()).collect())
}

/// Which logical line (physical lines joined by a trailing `\`) each byte offset is on.
struct LogicalLines {
    /// The byte offset each logical line starts at, ascending.
    starts: Vec<usize>,
}

impl LogicalLines {
    fn in_text(text: &str) -> LogicalLines {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if *b != b'\n' {
                continue;
            }
            let before = &bytes[..i];
            let before = before.strip_suffix(b"\r").unwrap_or(before);
            if !before.ends_with(b"\\") {
                starts.push(i + 1);
            }
        }
        LogicalLines { starts }
    }

    fn of(&self, offset: u32) -> usize {
        self.starts.partition_point(|s| *s <= offset as usize)
    }

    /// Where the first logical line starting at or after byte `at` starts (the end of the text
    /// before it), if one does.
    fn end_from(&self, at: usize) -> Option<usize> {
        self.starts
            .get(self.starts.partition_point(|s| *s < at))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test's stand-in for clang's lexer on these small texts: the words and the
    /// punctuation of a line, with their offsets.
    fn lex(text: &str) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        let mut word = String::new();
        let mut start = 0;
        for (i, c) in text.char_indices() {
            if c.is_alphanumeric() || c == '_' {
                if word.is_empty() {
                    start = i;
                }
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                out.push((std::mem::take(&mut word), start as u32));
            }
            if !c.is_whitespace() && c != '\\' {
                out.push((c.to_string(), i as u32));
            }
        }
        if !word.is_empty() {
            out.push((word, start as u32));
        }
        out
    }

    #[test]
    fn the_preamble_ends_at_the_last_balanced_directive_after_a_system_include() {
        let text = "#ifndef X\n#include <cuda_fp16.h>\n#endif\n#define N 4\n#include \"own.h\"\n#include <vector>\nint x;\n";
        let p = leading_directives(text, &lex(text)).preamble().unwrap();
        assert_eq!(
            p.text,
            "#ifndef X\n#include <cuda_fp16.h>\n#endif\n#define N 4\n"
        );
        assert_eq!(p.headers, ["cuda_fp16.h"]);
    }

    #[test]
    fn no_preamble_without_a_system_include_before_the_code() {
        for text in [
            "#include \"own.h\"\n#include <vector>\n",
            "int x;\n#include <vector>\n",
            "#define N 4\n",
            "#if A\n#include <vector>\nint y;\n#endif\n",
        ] {
            assert_eq!(
                leading_directives(text, &lex(text)).preamble(),
                None,
                "{text}"
            );
        }
    }

    #[test]
    fn a_continued_directive_is_kept_whole_and_a_line_directive_ends_the_preamble() {
        let text =
            "#include <cstdio>\n#define TWICE(a) \\\n  ((a) + (a))\n#line 40\n#include <random>\n";
        let p = leading_directives(text, &lex(text)).preamble().unwrap();
        assert_eq!(
            p.text,
            "#include <cstdio>\n#define TWICE(a) \\\n  ((a) + (a))\n"
        );
        assert_eq!(p.headers, ["cstdio"]);
    }

    #[test]
    fn directives_that_run_to_the_end_of_the_tokens_given_ran_out() {
        let text = "#include <cstdio>\n#define N 4\n";
        let tokens = lex(text);
        assert!(matches!(
            leading_directives(text, &tokens),
            Walk::RanOut(Some(_))
        ));
        // the same start with the code after it: the walk ends there
        let text = "#include <cstdio>\n#define N 4\nint x;\n";
        assert!(matches!(
            leading_directives(text, &lex(text)),
            Walk::Ended(Some(_))
        ));
        assert_eq!(leading_directives("", &[]), Walk::RanOut(None));
    }

    #[test]
    fn a_prefix_ends_where_a_logical_line_starts() {
        let lines = LogicalLines::in_text("#define A \\\n  1\nint x;\n");
        // inside the continued line: its end is after the continuation
        assert_eq!(lines.end_from(3), Some(16));
        assert_eq!(lines.end_from(16), Some(16));
        assert_eq!(lines.end_from(17), Some(23));
        assert_eq!(lines.end_from(24), None);
    }

    #[test]
    fn a_header_name_lexed_as_one_token_or_as_its_parts() {
        let parts: Vec<(String, u32)> = ["<", "bits", "/", "types", ".", "h", ">"]
            .iter()
            .map(|s| (s.to_string(), 0))
            .collect();
        assert_eq!(system_header(&parts).as_deref(), Some("bits/types.h"));
        assert_eq!(
            system_header(&[("<math.h>".into(), 0)]).as_deref(),
            Some("math.h")
        );
        assert_eq!(system_header(&[("\"own.h\"".into(), 0)]), None);
        assert_eq!(system_header(&[("HEADER".into(), 0)]), None);
    }
}
