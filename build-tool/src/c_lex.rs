//! Where the comments and the string and character literals of C and C++ source lie, found once
//! so that every reader of host code agrees on what is code: the launch readers blank them
//! ([`crate::launch_sites`]), and the OpenCL programs a host file carries are read from its
//! strings ([`crate::embedded`]).

use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Comment,
    Char,
    /// `"…"`, with any encoding prefix (`L`, `u8`) left outside.
    Str,
    /// `R"delim(…)delim"`: no escapes, line breaks kept.
    RawStr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub kind: Kind,
    /// From the opening quote (or `//`, `/*`) to past the closing one.
    pub range: Range<usize>,
    /// The contents: between the quotes, inside a raw string's delimiters.
    pub body: Range<usize>,
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `"` at `q` opens a raw string when an `R` (alone or after `u8`, `u`, `U` or `L`) is right
/// before it.
fn opens_raw(b: &[u8], q: usize) -> bool {
    if q == 0 || b[q - 1] != b'R' {
        return false;
    }
    let before = &b[..q - 1];
    let prefix_len = ["u8", "u", "U", "L", ""]
        .iter()
        .find(|p| before.ends_with(p.as_bytes()))
        .map_or(0, |p| p.len());
    let start = before.len() - prefix_len;
    start == 0 || !is_ident(b[start - 1])
}

/// `'` at `q` separates digits (`1'000'000`): the token it ends starts with a digit. After a
/// prefix (`L'x'`, `u8'x'`) it opens a character literal.
fn digit_separator(b: &[u8], q: usize) -> bool {
    let token = b[..q].iter().rev().take_while(|c| is_ident(**c)).count();
    token > 0 && b[q - token].is_ascii_digit()
}

/// Whether `text` holds the identifier `name` as a whole word (`vec` is not in `vec_kernel`).
pub fn has_word(text: &str, name: &str) -> bool {
    let b = text.as_bytes();
    !name.is_empty()
        && text.match_indices(name).any(|(at, _)| {
            let end = at + name.len();
            let starts_a_word = at == 0 || !is_ident(b[at - 1]);
            let ends_a_word = end >= b.len() || !is_ident(b[end]);
            starts_a_word && ends_a_word
        })
}

/// The comments and literals of `text`, in order. A plain literal ends at its closing quote or
/// at an unescaped line break (as a compiler's error recovery would); a raw one at its
/// `)delim"`. A `'` after a digit or letter is a C++14 digit separator (`1'000'000`), not a
/// character literal.
pub fn spans(text: &str) -> Vec<Span> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i..].starts_with(b"//") {
            let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
            out.push(Span {
                kind: Kind::Comment,
                range: start..end,
                body: start + 2..end,
            });
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let close = text[i + 2..].find("*/");
            let end = close.map_or(b.len(), |e| i + 2 + e + 2);
            let body_end = close.map_or(b.len(), |e| i + 2 + e);
            out.push(Span {
                kind: Kind::Comment,
                range: start..end,
                body: start + 2..body_end,
            });
            i = end;
        } else if b[i] == b'"' && opens_raw(b, i) {
            let open = text[i + 1..].find('(').map(|o| i + 1 + o);
            let Some(open) = open.filter(|&o| !text[i + 1..o].contains(['\n', ' ', '"'])) else {
                i += 1;
                continue;
            };
            let close = format!("){}\"", &text[i + 1..open]);
            let body_end = text[open + 1..]
                .find(&close)
                .map_or(b.len(), |e| open + 1 + e);
            let end = (body_end + close.len()).min(b.len());
            out.push(Span {
                kind: Kind::RawStr,
                range: start..end,
                body: open + 1..body_end,
            });
            i = end;
        } else if b[i] == b'"' || (b[i] == b'\'' && !digit_separator(b, i)) {
            let q = b[i];
            i += 1;
            while i < b.len() && b[i] != q && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            let body_end = i.min(b.len());
            let end = if i < b.len() && b[i] == q {
                i + 1
            } else {
                body_end
            };
            out.push(Span {
                kind: if q == b'"' { Kind::Str } else { Kind::Char },
                range: start..end,
                body: start + 1..body_end,
            });
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// A plain literal's body decoded as C does: simple, octal and hex escapes, and a backslash
/// before a line break joins the lines. Each byte comes with the offset in `body` it was read at.
pub fn unescape(body: &[u8]) -> Vec<(u8, usize)> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let at = i;
        if body[i] != b'\\' || i + 1 >= body.len() {
            out.push((body[i], at));
            i += 1;
            continue;
        }
        let e = body[i + 1];
        i += 2;
        let radix_digits = |from: usize, radix: u32, most: usize| {
            let n = body[from..]
                .iter()
                .take(most)
                .take_while(|c| (**c as char).is_digit(radix))
                .count();
            let v = std::str::from_utf8(&body[from..from + n])
                .ok()
                .and_then(|d| u32::from_str_radix(d, radix).ok())
                .unwrap_or(0);
            (v as u8, n)
        };
        let c = match e {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'a' => 0x07,
            b'b' => 0x08,
            b'\n' => continue,
            b'x' => {
                let (v, n) = radix_digits(i, 16, usize::MAX);
                i += n;
                v
            }
            b'0'..=b'7' => {
                let (v, n) = radix_digits(i - 1, 8, 3);
                i += n - 1;
                v
            }
            other => other,
        };
        out.push((c, at));
    }
    out
}

/// What may stand between two literals that C joins, besides white space and comments: the
/// next one's encoding prefix.
pub const PREFIXES: [&str; 10] = ["", "R", "u8", "u8R", "u", "uR", "U", "UR", "L", "LR"];

/// The runs of string literals in `text` that C joins into one: adjacent literals with only
/// white space, comments and an encoding prefix between them. `spans` are `text`'s.
pub fn joined_runs<'a>(text: &str, spans: &'a [Span]) -> Vec<Vec<&'a Span>> {
    let mut out: Vec<Vec<&Span>> = Vec::new();
    let mut open = false;
    // the text between the last literal and here, comments left out
    let mut between = String::new();
    let mut at = 0;
    for s in spans {
        between.push_str(&text[at..s.range.start]);
        at = s.range.end;
        match s.kind {
            Kind::Comment => continue,
            Kind::Char => open = false,
            Kind::Str | Kind::RawStr => {
                match out.last_mut() {
                    Some(run) if open && PREFIXES.contains(&between.trim()) => run.push(s),
                    _ => out.push(vec![s]),
                }
                open = true;
            }
        }
        between.clear();
    }
    out
}

/// A run of joined literals decoded as the compiler does, each byte with the offset in `text`
/// it was read at.
pub fn decode(text: &str, run: &[&Span]) -> Vec<(u8, usize)> {
    let mut value = Vec::new();
    for s in run {
        let body = &text.as_bytes()[s.body.clone()];
        let bytes: Vec<(u8, usize)> = match s.kind {
            Kind::RawStr => body.iter().copied().zip(0..).collect(),
            _ => unescape(body),
        };
        value.extend(bytes.into_iter().map(|(c, k)| (c, s.body.start + k)));
    }
    value
}

/// The value of `text` when it is only string literals that C joins (white space, comments
/// and encoding prefixes between them): `"-D TILE=16 " "-cl-mad-enable"`.
pub fn literal_value(text: &str) -> Option<String> {
    let spans = spans(text);
    let runs = joined_runs(text, &spans);
    let [run] = runs.as_slice() else {
        return None;
    };
    // nothing but comments around the run, and no character literal in it
    let code: String = {
        let mut out = String::new();
        let mut at = 0;
        for s in &spans {
            out.push_str(&text[at..s.range.start]);
            if s.kind == Kind::Char {
                return None;
            }
            at = s.range.end;
        }
        out.push_str(&text[at..]);
        out
    };
    if !code
        .chars()
        .all(|c| c.is_whitespace() || "u8ULR".contains(c))
    {
        return None;
    }
    let bytes: Vec<u8> = decode(text, run).into_iter().map(|(c, _)| c).collect();
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        spans(text)
            .into_iter()
            .map(|s| (s.kind, &text[s.body]))
            .collect()
    }

    #[test]
    fn comments_strings_chars_and_raw_strings() {
        let t = "a = \"x\\\"y\"; // c \"no\"\nb = '\"'; /* m\nn */ R\"k(say \"hi\"\n)k\" u8R\"(z)\" LR\"(w)\"";
        assert_eq!(
            kinds(t),
            vec![
                (Kind::Str, "x\\\"y"),
                (Kind::Comment, " c \"no\""),
                (Kind::Char, "\""),
                (Kind::Comment, " m\nn "),
                (Kind::RawStr, "say \"hi\"\n"),
                (Kind::RawStr, "z"),
                (Kind::RawStr, "w"),
            ]
        );
    }

    #[test]
    fn an_r_ending_a_name_is_not_a_raw_prefix_and_digit_separators_are_not_chars() {
        let t = "f(BAR\"s\"); n = 1'000'000; c = 'q'; w = L'\"';";
        assert_eq!(
            kinds(t),
            vec![(Kind::Str, "s"), (Kind::Char, "q"), (Kind::Char, "\"")],
            "{:?}",
            spans(t)
        );
    }

    #[test]
    fn escapes_decode_as_c_does() {
        let s: Vec<u8> = unescape(br#"a\tb\x41\101\0\"\\"#)
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(s, b"a\tbAA\0\"\\");
    }

    #[test]
    fn joined_literals_have_one_value_and_anything_else_none() {
        assert_eq!(
            literal_value(" \"-D TILE=16 \" /* more */ \"-cl-mad-enable\" "),
            Some("-D TILE=16 -cl-mad-enable".into())
        );
        assert_eq!(literal_value("opts"), None);
        assert_eq!(literal_value("\"a\" + b"), None);
        assert_eq!(literal_value("NULL"), None);
        assert_eq!(literal_value("/* none */"), None);
    }

    #[test]
    fn an_unterminated_literal_ends_at_the_line_break() {
        let t = "x = \"abc\ny = 2;";
        let s = spans(t);
        assert_eq!(s.len(), 1);
        assert_eq!(&t[s[0].range.clone()], "\"abc");
    }
}
