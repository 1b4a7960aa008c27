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
    /// `.name` / `.name::qual` (also `.2d`, `.128`).
    #[regex(r"\.[A-Za-z0-9_][A-Za-z0-9_$]*(::[A-Za-z0-9_]+)*")]
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
    /// End of input.
    Eof,
    /// Text no token matches (the error is in [`Stream::error`]).
    LexError,
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

/// A token stream with two tokens of lookahead, lexed on demand (no token vector, so memory stays
/// flat however large the module). The first lexical error is kept in `error`; the stream
/// yields a `LexError` token there so the parser stops.
pub struct Stream<'s> {
    lx: logos::Lexer<'s, Tok>,
    buf: [Token; 2],
    /// The last token consumed by [`Stream::bump`].
    pub last: Token,
    pub error: Option<ParseError>,
}

impl<'s> Stream<'s> {
    pub fn new(src: &'s str) -> Result<Stream<'s>, ParseError> {
        if src.len() >= u32::MAX as usize {
            return Err(ParseError::new(
                "PTX text larger than 4 GiB",
                Span::default(),
            ));
        }
        let none = Token {
            kind: Tok::Eof,
            start: 0,
            end: 0,
            line: 1,
            col: 1,
        };
        let mut s = Stream {
            lx: Tok::lexer(src),
            buf: [none; 2],
            last: none,
            error: None,
        };
        s.buf[0] = s.pull();
        s.buf[1] = s.pull();
        Ok(s)
    }

    #[inline]
    pub fn peek(&self) -> Token {
        self.buf[0]
    }

    #[inline]
    pub fn peek2(&self) -> Token {
        self.buf[1]
    }

    /// Consumes the current token (never moves past `Eof` or a `LexError`).
    #[inline]
    pub fn bump(&mut self) -> Token {
        let t = self.buf[0];
        if !matches!(t.kind, Tok::Eof | Tok::LexError) {
            self.last = t;
            self.buf[0] = self.buf[1];
            self.buf[1] = if matches!(self.buf[1].kind, Tok::Eof | Tok::LexError) {
                self.buf[1]
            } else {
                self.pull()
            };
        }
        t
    }

    fn pull(&mut self) -> Token {
        let src = self.lx.source();
        match self.lx.next() {
            None => Token {
                kind: Tok::Eof,
                start: src.len() as u32,
                end: src.len() as u32,
                line: self.lx.extras.line + 1,
                col: (src.len() - self.lx.extras.line_start.min(src.len())) as u32 + 1,
            },
            Some(r) => {
                let sp = self.lx.span();
                let line = self.lx.extras.line + 1;
                let col = (sp.start - self.lx.extras.line_start.min(sp.start)) as u32 + 1;
                let mut t = Token {
                    kind: Tok::LexError,
                    start: sp.start as u32,
                    end: sp.end as u32,
                    line,
                    col,
                };
                match r {
                    Ok(kind) => t.kind = kind,
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
                        self.error.get_or_insert(ParseError::new(what, span));
                    }
                }
                t
            }
        }
    }
}
