//! PTX tokens (logos DFA). Dotted words (`.global`, `.shared::cta`, `.x`) are one token kind so the
//! parser decides whether one is a directive, a suffix or a dimension from its position.
//! Line and column are tracked while lexing so every token carries them without a second pass.

use super::error::ParseError;
use super::ir::Span;
use logos::Logos;

#[derive(Default)]
pub struct Lines {
    line: u32,
    line_start: usize,
}

fn newline(lex: &mut logos::Lexer<Tok>) -> logos::Skip {
    lex.extras.line += 1;
    lex.extras.line_start = lex.span().end;
    logos::Skip
}

fn block_comment(lex: &mut logos::Lexer<Tok>) -> Result<logos::Skip, ()> {
    let rest = lex.remainder();
    match rest.find("*/") {
        Some(end) => {
            let body = &rest[..end];
            let base = lex.span().end;
            for (i, b) in body.bytes().enumerate() {
                if b == b'\n' {
                    lex.extras.line += 1;
                    lex.extras.line_start = base + i + 1;
                }
            }
            lex.bump(end + 2);
            Ok(logos::Skip)
        }
        None => Err(()),
    }
}

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(extras = Lines)]
#[logos(skip r"[ \t\r\x0c]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok {
    #[token("\n", newline)]
    #[token("/*", block_comment)]
    Ignored,
    /// `.name` / `.name::qual`.
    #[regex(r"\.[A-Za-z_][A-Za-z0-9_$]*(::[A-Za-z0-9_]+)*")]
    Dot,
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]*")]
    Ident,
    #[regex(r"0[fF][0-9a-fA-F]{8}")]
    F32Hex,
    #[regex(r"0[dD][0-9a-fA-F]{16}")]
    F64Hex,
    #[regex(r"0[xX][0-9a-fA-F]+U?")]
    HexInt,
    #[regex(r"0[bB][01]+U?")]
    BinInt,
    /// Decimal (or, with a leading 0, octal) integer.
    #[regex(r"[0-9]+U?")]
    DecInt,
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")]
    DecFloat,
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    Str,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("@")]
    At,
    #[token("!")]
    Bang,
    #[token("|")]
    Pipe,
    #[token("=")]
    Eq,
    /// End of input (appended by [`lex`]).
    Eof,
}

/// One token: kind and position (byte range, 1-based line and column).
#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

impl Token {
    pub fn span(&self) -> Span {
        Span {
            start: self.start as usize,
            end: self.end as usize,
            line: self.line,
            col: self.col,
        }
    }
}

/// Lexes the whole text; the last token is `Eof`.
pub fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    if src.len() >= u32::MAX as usize {
        return Err(ParseError::new(
            "PTX text larger than 4 GiB",
            Span::default(),
        ));
    }
    let mut out = Vec::with_capacity(src.len() / 4 + 1);
    let mut lx = Tok::lexer(src);
    while let Some(t) = lx.next() {
        let sp = lx.span();
        let line = lx.extras.line + 1;
        let col = (sp.start - lx.extras.line_start.min(sp.start)) as u32 + 1;
        match t {
            Ok(kind) => out.push(Token {
                kind,
                start: sp.start as u32,
                end: sp.end as u32,
                line,
                col,
            }),
            Err(()) => {
                let span = Span {
                    start: sp.start,
                    end: sp.end.max(sp.start + 1).min(src.len()),
                    line,
                    col,
                };
                let what = if src[sp.start..].starts_with("/*") {
                    "unterminated block comment".to_string()
                } else {
                    format!("unexpected character {:?}", &src[sp.clone()])
                };
                return Err(ParseError::new(what, span));
            }
        }
    }
    let end = src.len() as u32;
    out.push(Token {
        kind: Tok::Eof,
        start: end,
        end,
        line: lx.extras.line + 1,
        col: (src.len() - lx.extras.line_start.min(src.len())) as u32 + 1,
    });
    Ok(out)
}
