//! Python's `if`, `elif` and `else` as C's, so that the launch reader's rules for branches
//! ([`crate::launch_sites`]) decide them with the file's values as they do a C host's:
//!
//! ```text
//! if threads == 128:            → if ((threads == 128)) {
//!     k((n // 128,), (128,), …)       k<<<n / 128, 128>>>(…);
//! elif threads == 256:          → } else if ((threads == 256)) {
//! else:                         → } else {
//! ```
//!
//! A condition is written as C only where both languages read it alike: names, numbers,
//! arithmetic, comparisons (not chained), `and`, `or`, and a leading `not`. Any other (a call,
//! an attribute, `in`, a bitwise operator, whose precedence differs) becomes a name with no
//! value, so the branch is left undecided and its launches count, as before.

/// A branch statement: its keyword, its condition (as C), and the statement on the same line
/// after its colon, if any.
pub(super) struct Header<'s> {
    pub keyword: Keyword,
    pub cond: Option<String>,
    /// `k(…)` in `if big: k(…)` (code only), and as written.
    pub body: Option<(&'s str, &'s str)>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Keyword {
    If,
    Elif,
    Else,
}

/// A condition C cannot be given: undecided.
const UNREAD: &str = "(python_condition_not_read)";

/// `statement` (code only; `raw` the same as written) as a branch header, if it is one.
pub(super) fn header<'s>(statement: &'s str, raw: &'s str) -> Option<Header<'s>> {
    let (keyword, rest, raw_rest) = [
        ("elif", Keyword::Elif),
        ("if", Keyword::If),
        ("else", Keyword::Else),
    ]
    .into_iter()
    .find_map(|(word, k)| {
        let rest = statement.strip_prefix(word)?;
        let raw_rest = raw.trim_start().strip_prefix(word)?;
        rest.starts_with(|c: char| c.is_whitespace() || c == ':' || c == '(')
            .then_some((k, rest, raw_rest))
    })?;
    let colon = top_level_colon(rest)?;
    let raw_colon = top_level_colon(raw_rest)?;
    let cond = match keyword {
        Keyword::Else if !rest[..colon].trim().is_empty() => return None,
        Keyword::Else => None,
        _ => Some(c_condition(rest[..colon].trim())),
    };
    let body = rest[colon + 1..].trim();
    Some(Header {
        keyword,
        cond,
        body: (!body.is_empty()).then(|| (body, raw_rest[raw_colon + 1..].trim())),
    })
}

/// The C that opens the header's block: `if (…) {`, `else if (…) {`, `else {`, or a plain `{`
/// for an `else` that does not follow an `if` (a `for`'s or a `try`'s), and an `elif` or
/// `else` whose `if` was not read.
pub(super) fn opening(h: &Header, follows_if: bool) -> String {
    match (h.keyword, &h.cond, follows_if) {
        (Keyword::If, Some(c), _) => format!("if {c} {{"),
        (Keyword::Elif, Some(c), true) => format!("else if {c} {{"),
        (Keyword::Else, _, true) => "else {".to_string(),
        _ => "{".to_string(),
    }
}

/// The offset of the `:` that ends a header, outside brackets and strings.
pub(super) fn top_level_colon(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ':') if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// A Python condition as C, in brackets, or [`UNREAD`] where the two would read it apart.
pub(super) fn c_condition(cond: &str) -> String {
    let (negated, cond) = match cond.strip_prefix("not ") {
        Some(rest) => (true, rest.trim()),
        None => (false, cond),
    };
    let mut parts = Vec::new();
    for or_part in split_word(cond, "or") {
        let mut ands = Vec::new();
        for and_part in split_word(&or_part, "and") {
            let Some(c) = comparison(&and_part) else {
                return UNREAD.to_string();
            };
            ands.push(c);
        }
        parts.push(ands.join(" && "));
    }
    let c = format!("({})", parts.join(" || "));
    if negated {
        format!("!{c}")
    } else {
        c
    }
}

/// `s` split at the word `word` (outside brackets).
fn split_word(s: &str, word: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for token in s.split_inclusive(|c: char| c.is_whitespace() || "()".contains(c)) {
        let bare = token.trim_end_matches(|c: char| c.is_whitespace() || "()".contains(c));
        depth += token.matches('(').count() as i32;
        if depth == 0 && bare == word {
            out.push(String::new());
        } else {
            out.last_mut().unwrap().push_str(token);
        }
        depth -= token.matches(')').count() as i32;
    }
    out.into_iter().map(|p| p.trim().to_string()).collect()
}

/// One comparison (or a bare value) as C, in brackets; `None` for what C reads otherwise.
fn comparison(s: &str) -> Option<String> {
    let s = s.trim();
    let word_ok = s
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .all(|w| {
            ![
                "and", "or", "not", "in", "is", "if", "else", "lambda", "None",
            ]
            .contains(&w)
        });
    let chars_ok = s
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c.is_whitespace() || "()+-*/%<>=!".contains(c));
    let comparisons = ["==", "!=", "<=", ">=", "<", ">"]
        .iter()
        .map(|op| s.matches(op).count())
        .sum::<usize>()
        - s.matches("<=").count()
        - s.matches(">=").count()
        - s.matches("<<").count() * 2
        - s.matches(">>").count() * 2;
    static CALL: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[A-Za-z_]\w*\s*\(").unwrap());
    if s.is_empty()
        || !word_ok
        || !chars_ok
        || CALL.is_match(s)
        || s.contains("**")
        || comparisons > 1
    {
        return None;
    }
    static BOOL: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b(True|False)\b").unwrap());
    let s = s.replace("//", "/");
    let s = BOOL.replace_all(&s, |c: &regex::Captures| {
        if &c[1] == "True" { "1" } else { "0" }.to_string()
    });
    Some(format!("({s})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_both_languages_read_alike_are_written_as_c() {
        let c = |s: &str| c_condition(s);
        assert_eq!(c("threads == 256"), "((threads == 256))");
        assert_eq!(
            c("n // 2 > 1 << 10 and big"),
            "((n / 2 > 1 << 10) && (big))"
        );
        assert_eq!(c("a or b and c <= 4"), "((a) || (b) && (c <= 4))");
        assert_eq!(c("not fast"), "!((fast))");
        assert_eq!(c("use_tiles == True"), "((use_tiles == 1))");
        // read otherwise by C, or not an integer condition: undecided
        for unread in [
            "0 < n < 10",
            "n & 1 == 0",
            "x.size > 4",
            "len(x) > 4",
            "mode in (1, 2)",
            "a and not b",
            "(a or b) and c",
            "__name__ == \"        \"",
            "n ** 2 > 4",
        ] {
            assert_eq!(c(unread), UNREAD, "{unread}");
        }
    }

    #[test]
    fn headers_and_the_statement_after_their_colon() {
        let h = header("if n > 4: k(x)", "if n > 4: k(x)  ").unwrap();
        assert_eq!(h.keyword, Keyword::If);
        assert_eq!(h.cond.as_deref(), Some("((n > 4))"));
        assert_eq!(h.body, Some(("k(x)", "k(x)")));
        let h = header("elif (n > 4):", "elif (n > 4):").unwrap();
        assert_eq!((h.keyword, h.body), (Keyword::Elif, None));
        assert_eq!(opening(&h, true), "else if (((n > 4))) {");
        // an `else` after no `if` (a `for`'s) opens a plain block
        let h = header("else:", "else:").unwrap();
        assert_eq!(
            (opening(&h, true).as_str(), opening(&h, false).as_str()),
            ("else {", "{")
        );
        for not_a_header in ["iffy = 3", "elsewhere(2)", "if_big = {1: 2}"] {
            assert!(
                header(not_a_header, not_a_header).is_none(),
                "{not_a_header}"
            );
        }
    }
}
