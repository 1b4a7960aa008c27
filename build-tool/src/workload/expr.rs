//! The workload's integer expressions: integers, names, `+ - * / %`, `<<` and `>>`, the
//! comparisons, `&&`, `||` and `!` (1 or 0, as in C), `c ? a : b`, `min(a, b)` and `max(a, b)`
//! (also `std::min`, `std::max`), and parentheses, with C's precedence.
//!
//! Division rounds **up** in grid expressions (`n/256` with n = 1000 gives 4 blocks, so the grid
//! covers the problem, like `(n + 255) / 256` in host code) and **down** everywhere else
//! (block sizes and parameter values), as in C. A workload read from a launch in host code
//! (`crate::launch_sites`) keeps C's rounding down in its grid too, since it is written as C.
//!
//! The comparisons, the conditional and `min`/`max` are here because host code sizes launches
//! with them: `std::min((n + 255) / 256, prop.multiProcessorCount * 8)` caps a grid-stride
//! kernel's grid, and `n < 1024 ? n : 1024` picks a block size.

use std::collections::BTreeMap;

/// A parsed integer expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64),
    Var(String),
    /// `+ - * / %`, `<` for `<<` and `>` for `>>`.
    Bin(Box<Expr>, char, Box<Expr>),
    Neg(Box<Expr>),
    /// A comparison or `&&` / `||`: 1 when it holds, else 0.
    Test(Box<Expr>, Test, Box<Expr>),
    /// `!e`: 1 when `e` is 0, else 0.
    Not(Box<Expr>),
    /// `c ? a : b`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    Min(Box<Expr>, Box<Expr>),
    Max(Box<Expr>, Box<Expr>),
}

/// The operators whose value is true (1) or false (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl Test {
    fn symbol(self) -> &'static str {
        match self {
            Test::Lt => "<",
            Test::Le => "<=",
            Test::Gt => ">",
            Test::Ge => ">=",
            Test::Eq => "==",
            Test::Ne => "!=",
            Test::And => "&&",
            Test::Or => "||",
        }
    }

    fn of(token: &str) -> Option<Test> {
        [
            Test::Lt,
            Test::Le,
            Test::Gt,
            Test::Ge,
            Test::Eq,
            Test::Ne,
            Test::And,
            Test::Or,
        ]
        .into_iter()
        .find(|t| t.symbol() == token)
    }
}

/// How `/` rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Div {
    Floor,
    Ceil,
}

impl Expr {
    pub fn parse(s: &str) -> Result<Expr, String> {
        let toks = lex(s)?;
        let mut p = Parser { toks, pos: 0 };
        let e = p.conditional()?;
        if p.pos != p.toks.len() {
            return Err(format!("unexpected `{}` in `{s}`", p.toks[p.pos]));
        }
        Ok(e)
    }

    pub fn eval(&self, env: &BTreeMap<String, i64>, div: Div) -> Result<i64, String> {
        let ovf = || "integer overflow in a workload expression".to_string();
        Ok(match self {
            Expr::Int(i) => *i,
            Expr::Var(v) => *env
                .get(v)
                .ok_or_else(|| format!("undefined name `{v}` in a workload expression"))?,
            Expr::Neg(e) => e.eval(env, div)?.checked_neg().ok_or_else(ovf)?,
            Expr::Not(e) => i64::from(e.eval(env, div)? == 0),
            // only the branch taken is evaluated, as in C (`n > 0 ? total / n : 0`)
            Expr::Select(c, a, b) => match c.eval(env, div)? {
                0 => b.eval(env, div)?,
                _ => a.eval(env, div)?,
            },
            Expr::Min(a, b) => a.eval(env, div)?.min(b.eval(env, div)?),
            Expr::Max(a, b) => a.eval(env, div)?.max(b.eval(env, div)?),
            Expr::Test(a, Test::And, b) => {
                i64::from(a.eval(env, div)? != 0 && b.eval(env, div)? != 0)
            }
            Expr::Test(a, Test::Or, b) => {
                i64::from(a.eval(env, div)? != 0 || b.eval(env, div)? != 0)
            }
            Expr::Test(a, t, b) => {
                let (a, b) = (a.eval(env, div)?, b.eval(env, div)?);
                i64::from(match t {
                    Test::Lt => a < b,
                    Test::Le => a <= b,
                    Test::Gt => a > b,
                    Test::Ge => a >= b,
                    Test::Eq => a == b,
                    _ => a != b,
                })
            }
            Expr::Bin(a, op, b) => {
                let (a, b) = (a.eval(env, div)?, b.eval(env, div)?);
                match op {
                    '+' => a.checked_add(b).ok_or_else(ovf)?,
                    '-' => a.checked_sub(b).ok_or_else(ovf)?,
                    '*' => a.checked_mul(b).ok_or_else(ovf)?,
                    '<' => u32::try_from(b)
                        .ok()
                        .and_then(|b| a.checked_shl(b))
                        .filter(|v| v >> b == a)
                        .ok_or_else(ovf)?,
                    '>' => u32::try_from(b)
                        .ok()
                        .and_then(|b| a.checked_shr(b))
                        .ok_or_else(ovf)?,
                    '/' | '%' if b == 0 => return Err("division by zero".into()),
                    '%' => a.rem_euclid(b),
                    _ => match div {
                        Div::Floor => a.div_euclid(b),
                        Div::Ceil => -((-a).div_euclid(b)),
                    },
                }
            }
        })
    }

    /// Names the expression refers to (both branches of a conditional).
    pub fn vars(&self, out: &mut Vec<String>) {
        match self {
            Expr::Int(_) => {}
            Expr::Var(v) => out.push(v.clone()),
            Expr::Neg(e) | Expr::Not(e) => e.vars(out),
            Expr::Bin(a, _, b) | Expr::Test(a, _, b) | Expr::Min(a, b) | Expr::Max(a, b) => {
                a.vars(out);
                b.vars(out);
            }
            Expr::Select(c, a, b) => {
                c.vars(out);
                a.vars(out);
                b.vars(out);
            }
        }
    }

    /// The expression with every name `v` replaced by `f(v)`.
    pub fn map_vars(self, f: &dyn Fn(String) -> Expr) -> Expr {
        let m = |e: Box<Expr>| Box::new(e.map_vars(f));
        match self {
            Expr::Int(i) => Expr::Int(i),
            Expr::Var(v) => f(v),
            Expr::Neg(e) => Expr::Neg(m(e)),
            Expr::Not(e) => Expr::Not(m(e)),
            Expr::Bin(a, op, b) => Expr::Bin(m(a), op, m(b)),
            Expr::Test(a, t, b) => Expr::Test(m(a), t, m(b)),
            Expr::Min(a, b) => Expr::Min(m(a), m(b)),
            Expr::Max(a, b) => Expr::Max(m(a), m(b)),
            Expr::Select(c, a, b) => Expr::Select(m(c), m(a), m(b)),
        }
    }
}

impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expr::Int(i) => write!(f, "{i}"),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Neg(e) => write!(f, "-{e}"),
            Expr::Not(e) => write!(f, "!{e}"),
            Expr::Bin(a, '<', b) => write!(f, "({a}<<{b})"),
            Expr::Bin(a, '>', b) => write!(f, "({a}>>{b})"),
            Expr::Bin(a, op, b) => write!(f, "({a}{op}{b})"),
            Expr::Test(a, t, b) => write!(f, "({a}{}{b})", t.symbol()),
            Expr::Select(c, a, b) => write!(f, "({c} ? {a} : {b})"),
            Expr::Min(a, b) => write!(f, "min({a}, {b})"),
            Expr::Max(a, b) => write!(f, "max({a}, {b})"),
        }
    }
}

/// The operators of two characters, before their one-character prefixes.
const PAIRS: [&str; 8] = ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||"];

fn lex(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    let scope = |i: usize| cs.get(i) == Some(&':') && cs.get(i + 1) == Some(&':');
    while i < cs.len() {
        let c = cs[i];
        let pair: String = cs[i..cs.len().min(i + 2)].iter().collect();
        if c.is_whitespace() {
            i += 1;
        } else if PAIRS.contains(&pair.as_str()) {
            out.push(pair);
            i += 2;
        } else if c.is_ascii_alphanumeric() || c == '_' || scope(i) {
            // names may be members (`cfg.n`) and qualified (`std::min`)
            let st = i;
            loop {
                if scope(i) {
                    i += 2;
                } else if i < cs.len() && (cs[i].is_ascii_alphanumeric() || "_.".contains(cs[i])) {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(cs[st..i].iter().collect());
        } else if "+-*/%()<>!?:,".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            return Err(format!("unexpected character `{c}` in `{s}`"));
        }
    }
    if out.is_empty() {
        return Err("empty expression".into());
    }
    Ok(out)
}

struct Parser {
    toks: Vec<String>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }

    fn expect(&mut self, tok: &str) -> Result<(), String> {
        if self.peek() != Some(tok) {
            return Err(format!("missing `{tok}`"));
        }
        self.pos += 1;
        Ok(())
    }

    fn conditional(&mut self) -> Result<Expr, String> {
        let c = self.tests(0)?;
        if self.peek() != Some("?") {
            return Ok(c);
        }
        self.pos += 1;
        let a = self.conditional()?;
        self.expect(":")?;
        let b = self.conditional()?;
        Ok(Expr::Select(Box::new(c), Box::new(a), Box::new(b)))
    }

    /// The operators that give 1 or 0, loosest first: `||`, `&&`, equality, relations.
    fn tests(&mut self, level: usize) -> Result<Expr, String> {
        const LEVELS: [&[&str]; 4] = [&["||"], &["&&"], &["==", "!="], &["<", "<=", ">", ">="]];
        let Some(ops) = LEVELS.get(level) else {
            return self.shift();
        };
        let mut e = self.tests(level + 1)?;
        while let Some(t) = self.peek().filter(|t| ops.contains(t)).and_then(Test::of) {
            self.pos += 1;
            e = Expr::Test(Box::new(e), t, Box::new(self.tests(level + 1)?));
        }
        Ok(e)
    }

    fn shift(&mut self) -> Result<Expr, String> {
        let mut e = self.sum()?;
        while let Some(op @ ("<<" | ">>")) = self.peek() {
            let op = op.chars().next().unwrap_or('<');
            self.pos += 1;
            e = Expr::Bin(Box::new(e), op, Box::new(self.sum()?));
        }
        Ok(e)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.product()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            let op = op.chars().next().unwrap_or('+');
            self.pos += 1;
            e = Expr::Bin(Box::new(e), op, Box::new(self.product()?));
        }
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut e = self.atom()?;
        while let Some(op @ ("*" | "/" | "%")) = self.peek() {
            let op = op.chars().next().unwrap_or('*');
            self.pos += 1;
            e = Expr::Bin(Box::new(e), op, Box::new(self.atom()?));
        }
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let t = self.peek().ok_or("expression ends early")?.to_string();
        self.pos += 1;
        match t.as_str() {
            "(" => {
                let e = self.conditional()?;
                self.expect(")")?;
                Ok(e)
            }
            "-" => Ok(Expr::Neg(Box::new(self.atom()?))),
            "!" => Ok(Expr::Not(Box::new(self.atom()?))),
            _ if t.chars().next().is_some_and(|c| c.is_ascii_digit()) => t
                .parse()
                .map(Expr::Int)
                .map_err(|_| {
                    if t.parse::<f64>().is_ok() {
                        format!("`{t}` is not an integer: workload values are integer expressions; leave a float parameter out (counts read a float only through the branches that test it, which are listed assumptions)")
                    } else {
                        format!("bad integer `{t}`")
                    }
                }),
            _ if self.peek() == Some("(") => self.call(&t),
            _ if t
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && !t.contains("::") =>
            {
                Ok(Expr::Var(t))
            }
            _ => Err(format!("unexpected `{t}`")),
        }
    }

    /// `min(a, b)` or `max(a, b)`, with or without `std::` (the only calls the language has).
    fn call(&mut self, name: &str) -> Result<Expr, String> {
        let bare = name
            .strip_prefix("std::")
            .or_else(|| name.strip_prefix("::"))
            .unwrap_or(name);
        if !matches!(bare, "min" | "max") {
            return Err(format!(
                "`{name}(…)` is not a function workload expressions know"
            ));
        }
        self.pos += 1;
        let a = self.conditional()?;
        self.expect(",")?;
        let b = self.conditional()?;
        self.expect(")")?;
        let (a, b) = (Box::new(a), Box::new(b));
        Ok(if bare == "min" {
            Expr::Min(a, b)
        } else {
            Expr::Max(a, b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn eval(s: &str, pairs: &[(&str, i64)]) -> Result<i64, String> {
        Expr::parse(s)?.eval(&env(pairs), Div::Floor)
    }

    #[test]
    fn precedence_and_rounding() {
        let e = Expr::parse("(n + 15)/16 * 2 - 1").unwrap();
        assert_eq!(e.eval(&env(&[("n", 33)]), Div::Floor).unwrap(), 5);
        let g = Expr::parse("n/256").unwrap();
        assert_eq!(g.eval(&env(&[("n", 1000)]), Div::Ceil).unwrap(), 4);
        assert_eq!(g.eval(&env(&[("n", 1000)]), Div::Floor).unwrap(), 3);
        assert_eq!(g.eval(&env(&[("n", 1024)]), Div::Ceil).unwrap(), 4);
        assert_eq!(eval("-3 % 5", &[]), Ok(2));
        assert_eq!(eval("1 << 4 + 1", &[]), Ok(32));
        assert_eq!(eval("n >> 2 + 1", &[("n", 64)]), Ok(8));
    }

    #[test]
    fn comparisons_conditionals_and_min_max_are_c_s() {
        let grid = "std::min((n + 255) / 256, device.sm_count * 8)";
        assert_eq!(
            eval(grid, &[("n", 1 << 24), ("device.sm_count", 68)]),
            Ok(544)
        );
        assert_eq!(eval(grid, &[("n", 1000), ("device.sm_count", 68)]), Ok(4));
        assert_eq!(eval("max(1, n / 4096)", &[("n", 100)]), Ok(1));
        assert_eq!(eval("::max(1, min(n, 7))", &[("n", 100)]), Ok(7));
        // `?:` binds loosest and nests to the right; comparisons bind looser than `<<`
        let block = "n < 1 << 10 ? n : n < 1 << 20 ? 256 : 1024";
        assert_eq!(eval(block, &[("n", 512)]), Ok(512));
        assert_eq!(eval(block, &[("n", 4096)]), Ok(256));
        assert_eq!(eval(block, &[("n", 1 << 22)]), Ok(1024));
        assert_eq!(
            eval("a == 2 && b != 3 || !c", &[("a", 2), ("b", 3), ("c", 0)]),
            Ok(1)
        );
        assert_eq!(eval("a >= 2 && b <= 3", &[("a", 1), ("b", 3)]), Ok(0));
        // the branch not taken is not evaluated
        assert_eq!(eval("n > 0 ? 64 / n : 0", &[("n", 0)]), Ok(0));
        // both branches' names are read
        let mut names = Vec::new();
        Expr::parse("c ? a : min(b, d)").unwrap().vars(&mut names);
        assert_eq!(names, ["c", "a", "b", "d"]);
        // the text shown parses back to the same expression
        for s in [grid, block, "!(a && b) || c > 1"] {
            let e = Expr::parse(s).unwrap();
            assert_eq!(Expr::parse(&e.to_string()), Ok(e.clone()), "{e}");
        }
    }

    #[test]
    fn errors_are_reported() {
        assert!(Expr::parse("n +").is_err());
        assert!(Expr::parse("(n").is_err());
        assert!(Expr::parse("n $ 2").is_err());
        assert_eq!(Expr::parse("c ? a"), Err("missing `:`".into()));
        assert_eq!(Expr::parse("min(a)"), Err("missing `,`".into()));
        assert_eq!(
            Expr::parse("atoi(s)"),
            Err("`atoi(…)` is not a function workload expressions know".into())
        );
        assert!(Expr::parse("std::size").is_err());
        let float = Expr::parse("2.5").unwrap_err();
        assert!(
            float.starts_with("`2.5` is not an integer")
                && float.contains("leave a float parameter out"),
            "{float}"
        );
        assert_eq!(Expr::parse("2x5"), Err("bad integer `2x5`".into()));
        let e = Expr::parse("n/0").unwrap();
        assert_eq!(
            e.eval(&env(&[("n", 1)]), Div::Ceil),
            Err("division by zero".into())
        );
        assert!(eval("m", &[]).is_err());
        assert!(eval("-n", &[("n", i64::MIN)]).is_err());
    }
}
