//! What a host loop's body does to its trips: the `break` that can end it early, and the
//! statements that change a counter.
//!
//! ```text
//! int iter = 0;
//! while (iter < 100) { jacobi<<<g, b>>>(a, b, n); iter += 2; }   // one step: 50 trips
//! for (int k = 0; k < 1000; ++k) { step<<<…>>>(…); if (done) break; }   // at most 1000
//! ```
//!
//! A `while` or `do` loop is counted when its condition compares a counter with a bound, its
//! body steps the counter in one statement of its own block, and the counter's last change
//! before the loop gives it a value, and no `continue` before the step can skip it. A
//! `return`, `exit` or `throw` in a body is taken as an error path that a run does not take;
//! a `break` is not.

use super::branches::{enclosing_brace, keyword, statement_start};
use super::c_text::matching_close;
use std::ops::Range;

/// The statement or block of a loop's body that starts after `from` (a `for` or `while` head's
/// `)`, or a `do`): a `{ … }` block, or the text up to the `;` that ends one statement.
pub(super) fn body_after(code: &str, from: usize) -> Range<usize> {
    let b = code.as_bytes();
    let i = from + code[from..].len() - code[from..].trim_start().len();
    let mut k = i;
    while k < b.len() {
        match b[k] {
            b'(' | b'[' => k = matching_close(b, k).unwrap_or(b.len() - 1),
            // a block ends the statement unless an `else` goes on with it
            b'{' => {
                let open = k;
                k = matching_close(b, k).unwrap_or(b.len() - 1);
                if open == i || keyword(code[k + 1..].trim_start(), "else").is_none() {
                    return i..k + 1;
                }
            }
            b';' if keyword(code[k + 1..].trim_start(), "else").is_none() => return i..k + 1,
            _ => {}
        }
        k += 1;
    }
    i..b.len()
}

/// The first `break` in `body` that leaves the loop itself, not a loop or `switch` nested in
/// it: its offset in `code`.
pub(super) fn early_exit(code: &str, body: Range<usize>) -> Option<usize> {
    own_jump(code, body, "break")
}

/// The first `continue` in `body` that goes on with the loop itself, not with a loop nested
/// in it (a `switch` does not take a `continue`): its offset in `code`.
pub(super) fn early_continue(code: &str, body: Range<usize>) -> Option<usize> {
    own_jump(code, body, "continue")
}

/// The first `jump` (`break` or `continue`) in `body` that acts on the loop itself.
fn own_jump(code: &str, body: Range<usize>, jump: &str) -> Option<usize> {
    let b = code.as_bytes();
    let mut i = body.start;
    while i < body.end {
        let (at, word) = next_word(code, i, body.end)?;
        i = at + word.len();
        match word {
            w if w == jump => return Some(at),
            "switch" if jump == "continue" => {}
            "for" | "while" | "switch" => {
                let mut k = i;
                while k < body.end && b[k].is_ascii_whitespace() {
                    k += 1;
                }
                if b.get(k) == Some(&b'(') {
                    let close = matching_close(b, k)?;
                    i = body_after(code, close + 1).end;
                }
            }
            "do" => i = body_after(code, i).end,
            _ => {}
        }
    }
    None
}

/// The next identifier or keyword in `code[from..end]`, with its offset.
fn next_word(code: &str, from: usize, end: usize) -> Option<(usize, &str)> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = from;
    while i < end {
        if ident(b[i]) && (i == 0 || !ident(b[i - 1])) {
            let mut k = i;
            while k < end && ident(b[k]) {
                k += 1;
            }
            return Some((i, &code[i..k]));
        }
        i += 1;
    }
    None
}

/// One statement that changes a variable.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Change {
    /// Offset of the variable's name in `code`.
    pub at: usize,
    /// The statement, from its start to its `;` (`iter += 2`, `int iter = 0`).
    pub statement: String,
    /// Whether it is a plain `var = value` (or a declaration with one).
    pub plain: bool,
}

/// The changes of `var` in `code[range]`: assignments, increments, and taking its address.
pub(super) fn changes(code: &str, range: Range<usize>, var: &str) -> Vec<Change> {
    let mut out = Vec::new();
    let mut i = range.start;
    while let Some((at, word)) = next_word(code, i, range.end) {
        i = at + word.len();
        if word != var {
            continue;
        }
        let after = code[i..range.end].trim_start();
        let before = code[range.start..at].trim_end();
        let compound = ["+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="];
        let plain = after.starts_with('=') && !after.starts_with("==");
        let steps = after.starts_with("++")
            || after.starts_with("--")
            || compound.iter().any(|op| after.starts_with(op))
            || before.ends_with("++")
            || before.ends_with("--");
        let address = before.ends_with('&')
            && !before.ends_with("&&")
            && !before[..before.len() - 1]
                .trim_end()
                .ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ')' || c == ']');
        if plain || steps || address {
            let start = statement_start(code, at);
            let end = statement_end(code, start);
            out.push(Change {
                at,
                statement: code[start..end].trim().to_string(),
                plain,
            });
        }
    }
    out
}

/// Where the statement that starts at `start` ends: its `;`, or the `)` or `}` of a bracket
/// opened before it (the step of a `for` head).
fn statement_end(code: &str, start: usize) -> usize {
    let mut depth = 0i32;
    for (k, c) in code.bytes().enumerate().skip(start) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return k,
            b')' | b']' | b'}' => depth -= 1,
            b';' if depth == 0 => return k,
            _ => {}
        }
    }
    code.len()
}

/// Whether the change at `at` is a statement of its own directly in `body` (not under an `if`
/// or in a nested block), so that it runs once on every trip.
pub(super) fn on_every_trip(code: &str, body: &Range<usize>, c: &Change) -> bool {
    let block = code.as_bytes().get(body.start) == Some(&b'{');
    let direct = if block {
        enclosing_brace(code, c.at) == Some(body.start)
    } else {
        true
    };
    let start = statement_start(code, c.at).max(body.start);
    let prefix = code[start..c.at].trim();
    direct && (prefix.is_empty() || prefix == "++" || prefix == "--")
}

/// The value `var` holds where the loop at `loop_at` starts: the text of its last change
/// before the loop in its function, which must be a plain `var = value` or a declaration
/// with one, in a block the loop is in and under no condition.
pub(super) fn start_before(code: &str, loop_at: usize, var: &str) -> Result<String, String> {
    let mut top = loop_at;
    let mut blocks = Vec::new();
    while let Some(open) = enclosing_brace(code, top) {
        blocks.push(open);
        top = open;
    }
    let last = changes(code, top..loop_at, var)
        .pop()
        .ok_or_else(|| format!("`{var}` has no value before it"))?;
    let line = code[..last.at].matches('\n').count() + 1;
    let start = statement_start(code, last.at);
    let prefix = &code[start..last.at];
    let guarded = ["if", "else", "for", "while", "do", "case", "switch"]
        .iter()
        .any(|kw| {
            prefix
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == *kw)
        })
        || prefix.contains(['(', '?', ':']);
    let in_scope = enclosing_brace(code, last.at).is_some_and(|o| blocks.contains(&o));
    if !last.plain || guarded || !in_scope {
        return Err(format!(
            "its counter `{var}` is last changed before it by `{}` (line {line}), not given a \
             value kerncast can read",
            last.statement
        ));
    }
    let rhs = &code[last.at + var.len()..];
    let rhs = rhs.trim_start().strip_prefix('=').unwrap_or(rhs);
    let end = value_end(rhs);
    Ok(rhs[..end].trim().to_string())
}

/// Where an initializer ends: its `;`, or the `,` of the next declarator.
fn value_end(text: &str) -> usize {
    let b = text.as_bytes();
    let mut depth = 0i32;
    for (k, c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b';' => return k,
            b',' if depth == 0 => return k,
            _ => {}
        }
    }
    text.len()
}
