//! Parse errors carry the span of the offending token, so the CLI can point at it with a caret.

use super::ir::Span;

/// Malformed PTX: what was wrong and where (byte range, 1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}", line = span.line, col = span.col)]
pub struct ParseError {
    pub message: String,
    pub span: Span,
}

impl ParseError {
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        ParseError {
            message: message.into(),
            span,
        }
    }
}
