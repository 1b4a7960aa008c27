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
//!
//! So are C's floating-point sizes, as in `ceil(n / 256.0)` and `(int)ceil((float)n /
//! block.x)`: floating literals (`256.0` a `double`, `256.0f` a `float`), casts (`(int)`,
//! `(unsigned int)`, `(float)`, `static_cast<double>(…)`, `int(…)`) and `ceil`, `floor`,
//! `round` and `trunc` (also `std::`, and `ceilf` …). They are computed as C computes them,
//! in `float` or `double` by C's usual arithmetic conversions, so a grid is the one the program
//! launches. A floating value becomes an integer only through a cast or where it is whole
//! (`ceil(…)`): a size that would be truncated without one (`n * 0.5` for an odd `n`) is an
//! error that says so, never a guess.

use std::collections::BTreeMap;

/// A parsed integer expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64),
    /// A floating-point literal: its value, and whether it is a `float` (`2.5f`), not a
    /// `double`.
    Float(f64, bool),
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
    /// `(int)e`, `(float)e`, `static_cast<double>(e)`, `int(e)`.
    Cast(Scalar, Box<Expr>),
    /// `ceil(e)`, `floor(e)`, `round(e)` or `trunc(e)`.
    Round(Rounding, Box<Expr>),
}

/// The C type a cast converts to: an integer type, `float` or `double`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Int,
    Float,
    Double,
}

/// The words of the types a cast may name.
const TYPE_WORDS: [&str; 16] = [
    "const", "signed", "unsigned", "char", "short", "int", "long", "size_t", "ssize_t", "int32_t",
    "uint32_t", "int64_t", "uint64_t", "uint", "float", "double",
];

impl Scalar {
    /// The type that the words name (`unsigned int`, `float`), where they are all type words.
    fn of(words: &[String]) -> Option<Scalar> {
        if words.is_empty() || !words.iter().all(|w| TYPE_WORDS.contains(&w.as_str())) {
            return None;
        }
        Some(if words.iter().any(|w| w == "double") {
            Scalar::Double
        } else if words.iter().any(|w| w == "float") {
            Scalar::Float
        } else {
            Scalar::Int
        })
    }

    fn name(self) -> &'static str {
        match self {
            Scalar::Int => "long",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
}

/// How `ceil`, `floor`, `round` and `trunc` round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Ceil,
    Floor,
    Round,
    Trunc,
}

impl Rounding {
    const ALL: [Rounding; 4] = [
        Rounding::Ceil,
        Rounding::Floor,
        Rounding::Round,
        Rounding::Trunc,
    ];

    fn name(self) -> &'static str {
        match self {
            Rounding::Ceil => "ceil",
            Rounding::Floor => "floor",
            Rounding::Round => "round",
            Rounding::Trunc => "trunc",
        }
    }

    fn apply(self, v: f64) -> f64 {
        match self {
            Rounding::Ceil => v.ceil(),
            Rounding::Floor => v.floor(),
            Rounding::Round => v.round(),
            Rounding::Trunc => v.trunc(),
        }
    }
}

/// `x op y` for `+ - * /`.
fn arithmetic<T>(x: T, op: char, y: T) -> T
where
    T: std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>,
{
    match op {
        '+' => x + y,
        '-' => x - y,
        '*' => x * y,
        _ => x / y,
    }
}

/// A value as C holds it while it computes an expression.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Int(i64),
    Float(f32),
    Double(f64),
}

impl Value {
    fn f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(x) => f64::from(x),
            Value::Double(x) => x,
        }
    }

    fn truthy(self) -> bool {
        self.f64() != 0.0
    }

    fn f32(self) -> f32 {
        match self {
            Value::Int(i) => i as f32,
            Value::Float(x) => x,
            Value::Double(x) => x as f32,
        }
    }

    /// `a op b` (`+ - * /`) in the type that C's usual arithmetic conversions give two operands
    /// of which one is floating: `double` if either is, else `float`.
    fn floating(a: Value, op: char, b: Value) -> Result<Value, String> {
        match op {
            '%' => return Err("`%` of a floating-point value".into()),
            '<' | '>' => return Err("a shift of a floating-point value".into()),
            '/' if b.f64() == 0.0 => return Err("division by zero".into()),
            _ => {}
        }
        if matches!(a, Value::Double(_)) || matches!(b, Value::Double(_)) {
            Ok(Value::Double(arithmetic(a.f64(), op, b.f64())))
        } else {
            Ok(Value::Float(arithmetic(a.f32(), op, b.f32())))
        }
    }

    /// C's conversion to an integer type: the value truncated toward zero.
    fn truncated(self) -> Result<i64, String> {
        let x = match self {
            Value::Int(i) => return Ok(i),
            _ => self.f64().trunc(),
        };
        if !x.is_finite() || x.abs() >= 9.2e18 {
            return Err(format!("{} does not fit an integer", self.f64()));
        }
        Ok(x as i64)
    }
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
        // a value given as a fraction (`--param alpha=2.5`) is no workload value
        let mut names = Vec::new();
        e.vars(&mut names);
        let fraction = || {
            e.value(&BTreeMap::new(), Div::Floor)
                .is_ok_and(|v| v.f64().fract() != 0.0)
        };
        if names.is_empty() && fraction() {
            return Err(format!("`{s}` is not an integer: workload values are integer expressions; leave a float parameter out (counts read a float only through the branches that test it, which are listed assumptions)"));
        }
        Ok(e)
    }

    /// The expression's value with the names' values `env`: an integer, or a floating value
    /// that is whole.
    pub fn eval(&self, env: &BTreeMap<String, i64>, div: Div) -> Result<i64, String> {
        match self.value(env, div)? {
            Value::Int(i) => Ok(i),
            v if v.f64().fract() == 0.0 => v.truncated(),
            v => Err(format!(
                "`{self}` is {}, not an integer: a floating-point size becomes one only through \
                 `ceil`, `floor`, `round` or an integer cast",
                v.f64()
            )),
        }
    }

    fn value(&self, env: &BTreeMap<String, i64>, div: Div) -> Result<Value, String> {
        let ovf = || "integer overflow in a workload expression".to_string();
        let int = |v: i64| Ok(Value::Int(v));
        match self {
            Expr::Int(i) => int(*i),
            Expr::Float(x, true) => Ok(Value::Float(*x as f32)),
            Expr::Float(x, false) => Ok(Value::Double(*x)),
            Expr::Var(v) => int(*env
                .get(v)
                .ok_or_else(|| format!("undefined name `{v}` in a workload expression"))?),
            Expr::Neg(e) => match e.value(env, div)? {
                Value::Int(i) => int(i.checked_neg().ok_or_else(ovf)?),
                Value::Float(x) => Ok(Value::Float(-x)),
                Value::Double(x) => Ok(Value::Double(-x)),
            },
            Expr::Not(e) => int(i64::from(!e.value(env, div)?.truthy())),
            // only the branch taken is evaluated, as in C (`n > 0 ? total / n : 0`)
            Expr::Select(c, a, b) => match c.value(env, div)?.truthy() {
                false => b.value(env, div),
                true => a.value(env, div),
            },
            Expr::Min(a, b) | Expr::Max(a, b) => {
                let (x, y) = (a.value(env, div)?, b.value(env, div)?);
                let min = matches!(self, Expr::Min(..));
                Ok(match (x, y) {
                    (Value::Int(x), Value::Int(y)) => {
                        Value::Int(if min { x.min(y) } else { x.max(y) })
                    }
                    _ if (x.f64() <= y.f64()) == min => x,
                    _ => y,
                })
            }
            Expr::Cast(Scalar::Int, e) => int(e.value(env, div)?.truncated()?),
            Expr::Cast(Scalar::Float, e) => Ok(Value::Float(e.value(env, div)?.f64() as f32)),
            Expr::Cast(Scalar::Double, e) => Ok(Value::Double(e.value(env, div)?.f64())),
            // C's rounding functions return the floating type they are given (`ceilf` a
            // `float`, `ceil` of an integer a `double`)
            Expr::Round(r, e) => Ok(match e.value(env, div)? {
                Value::Float(x) => Value::Float(r.apply(f64::from(x)) as f32),
                v => Value::Double(r.apply(v.f64())),
            }),
            Expr::Test(a, Test::And, b) => int(i64::from(
                a.value(env, div)?.truthy() && b.value(env, div)?.truthy(),
            )),
            Expr::Test(a, Test::Or, b) => int(i64::from(
                a.value(env, div)?.truthy() || b.value(env, div)?.truthy(),
            )),
            Expr::Test(a, t, b) => {
                use std::cmp::Ordering::*;
                let order = match (a.value(env, div)?, b.value(env, div)?) {
                    (Value::Int(a), Value::Int(b)) => Some(a.cmp(&b)),
                    (a, b) => a.f64().partial_cmp(&b.f64()),
                };
                int(i64::from(match t {
                    Test::Lt => order == Some(Less),
                    Test::Le => matches!(order, Some(Less | Equal)),
                    Test::Gt => order == Some(Greater),
                    Test::Ge => matches!(order, Some(Greater | Equal)),
                    Test::Eq => order == Some(Equal),
                    _ => order != Some(Equal),
                }))
            }
            Expr::Bin(a, op, b) => {
                let (a, b) = match (a.value(env, div)?, b.value(env, div)?) {
                    (Value::Int(a), Value::Int(b)) => (a, b),
                    (a, b) => return Value::floating(a, *op, b),
                };
                int(match op {
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
                })
            }
        }
    }

    /// Whether C computes the expression as a floating-point value (`2.f`, `ceil(n / 256.0)`,
    /// `x * 0.5`), not an integer (`(int)ceil(…)`, a comparison); `floating_name` says which
    /// names hold one.
    pub fn is_floating(&self, floating_name: &dyn Fn(&str) -> bool) -> bool {
        let f = |e: &Expr| e.is_floating(floating_name);
        match self {
            Expr::Float(..) | Expr::Round(..) => true,
            Expr::Cast(t, _) => *t != Scalar::Int,
            Expr::Int(_) | Expr::Test(..) | Expr::Not(_) => false,
            Expr::Var(v) => floating_name(v),
            Expr::Neg(e) => f(e),
            Expr::Bin(a, _, b) | Expr::Min(a, b) | Expr::Max(a, b) => f(a) || f(b),
            Expr::Select(_, a, b) => f(a) || f(b),
        }
    }

    /// Names the expression refers to (both branches of a conditional).
    pub fn vars(&self, out: &mut Vec<String>) {
        match self {
            Expr::Int(_) | Expr::Float(..) => {}
            Expr::Var(v) => out.push(v.clone()),
            Expr::Neg(e) | Expr::Not(e) | Expr::Cast(_, e) | Expr::Round(_, e) => e.vars(out),
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
            Expr::Float(x, single) => Expr::Float(x, single),
            Expr::Var(v) => f(v),
            Expr::Cast(t, e) => Expr::Cast(t, m(e)),
            Expr::Round(r, e) => Expr::Round(r, m(e)),
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
            Expr::Float(x, false) => write!(f, "{x:?}"),
            Expr::Float(x, true) => write!(f, "{x:?}f"),
            Expr::Cast(t, e) => write!(f, "({})({e})", t.name()),
            Expr::Round(r, e) => write!(f, "{}({e})", r.name()),
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
            // an element of a member array (`q.s[0]`, `x.sizes[1]`) is named as a field is
            let member = cs[st..i].contains(&'.');
            while member && cs.get(i) == Some(&'[') {
                // a tensor's last size is `x.sizes[-1]`
                let sign = usize::from(cs.get(i + 1) == Some(&'-'));
                let digits = cs[i + 1 + sign..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if digits == 0 || cs.get(i + 1 + sign + digits) != Some(&']') {
                    break;
                }
                i += sign + digits + 2;
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
                if let Some(ty) = self.cast_type(")") {
                    return Ok(Expr::Cast(ty, Box::new(self.atom()?)));
                }
                let e = self.conditional()?;
                self.expect(")")?;
                Ok(e)
            }
            "static_cast" if self.peek() == Some("<") => {
                self.pos += 1;
                let ty = self
                    .cast_type(">")
                    .ok_or("a `static_cast` to a type that is no number")?;
                self.expect("(")?;
                let e = self.conditional()?;
                self.expect(")")?;
                Ok(Expr::Cast(ty, Box::new(e)))
            }
            "-" => Ok(Expr::Neg(Box::new(self.atom()?))),
            "!" => Ok(Expr::Not(Box::new(self.atom()?))),
            _ if t.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                if let Ok(i) = t.parse() {
                    return Ok(Expr::Int(i));
                }
                let single = t.ends_with(['f', 'F']) && !t.starts_with("0x");
                let digits = if single { &t[..t.len() - 1] } else { &t[..] };
                match digits.parse::<f64>() {
                    Ok(x) if digits.contains(['.', 'e', 'E']) => Ok(Expr::Float(x, single)),
                    _ => Err(format!("bad integer `{t}`")),
                }
            }
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

    /// The type of a cast, where the tokens from here to `close` are type words (`unsigned
    /// int`); it moves past `close`.
    fn cast_type(&mut self, close: &str) -> Option<Scalar> {
        let end = self.pos + self.toks[self.pos..].iter().position(|t| t == close)?;
        let ty = Scalar::of(&self.toks[self.pos..end])?;
        self.pos = end + 1;
        Some(ty)
    }

    /// `min(a, b)` or `max(a, b)`, a rounding (`ceil(x)`, `floorf(x)`) or a functional cast
    /// (`int(x)`), with or without `std::`.
    fn call(&mut self, name: &str) -> Result<Expr, String> {
        let bare = name
            .strip_prefix("std::")
            .or_else(|| name.strip_prefix("::"))
            .unwrap_or(name);
        let rounding = Rounding::ALL
            .into_iter()
            .find(|r| bare == r.name() || bare.strip_suffix('f') == Some(r.name()));
        let cast = Scalar::of(&[bare.to_string()]);
        if rounding.is_some() || cast.is_some() {
            self.pos += 1;
            let e = Box::new(self.conditional()?);
            self.expect(")")?;
            // `ceilf` rounds a `float`
            return Ok(match rounding {
                Some(r) if bare.ends_with('f') => {
                    Expr::Round(r, Box::new(Expr::Cast(Scalar::Float, e)))
                }
                Some(r) => Expr::Round(r, e),
                None => Expr::Cast(cast.unwrap_or(Scalar::Int), e),
            });
        }
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
    fn a_member_array_element_is_one_name() {
        let e = Expr::parse("(x.sizes[1] + 255) / 256 * q.s[0]").unwrap();
        let mut names = Vec::new();
        e.vars(&mut names);
        assert_eq!(names, ["x.sizes[1]", "q.s[0]"]);
        assert_eq!(eval("x.sizes[1] / 2", &[("x.sizes[1]", 8)]), Ok(4));
        assert_eq!(eval("x.sizes[-1] - 1", &[("x.sizes[-1]", 8)]), Ok(7));
        // a plain array's element is not a name kerncast knows
        assert!(Expr::parse("h[0] / 2").is_err());
        assert!(Expr::parse("x.s[i]").is_err());
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

    /// C's floating-point sizes: literals, casts and roundings, computed in C's types.
    #[test]
    fn floating_point_sizes_are_computed_as_c_computes_them() {
        let n = [("n", 1_000_000), ("block.x", 128)];
        assert_eq!(eval("ceil(n / 256.0)", &n), Ok(3907));
        assert_eq!(eval("(int)ceil((float)n / block.x)", &n), Ok(7813));
        assert_eq!(
            eval("static_cast<int>(std::ceil(n / 512.0f))", &n),
            Ok(1954)
        );
        assert_eq!(eval("(unsigned int)((n + 63) / 64)", &n), Ok(15625));
        assert_eq!(eval("int(n * 0.25) + floorf(2.5f)", &n), Ok(250_002));
        assert_eq!(eval("(int)(n / 3.0)", &n), Ok(333_333));
        assert_eq!(eval("n / 3.0 > 333333 ? 1 : 0", &n), Ok(1));
        // in `float`, as C computes it: 2^24 + 1 is not a float, so the quotient is whole
        let big = [("n", (1 << 24) + 1)];
        assert_eq!(eval("ceil((float)n / 256)", &big), Ok(65536));
        assert_eq!(eval("ceil((double)n / 256)", &big), Ok(65537));
        // a fraction with no rounding is no size, and says so
        let half = eval("n * 0.5", &[("n", 7)]).unwrap_err();
        assert!(
            half.starts_with("`(n*0.5)` is 3.5, not an integer"),
            "{half}"
        );
        assert!(eval("n % 2.0", &[("n", 7)]).is_err());
        // which values C computes as floating-point
        let floating = |s: &str| Expr::parse(s).unwrap().is_floating(&|v| v == "a");
        assert!(floating("2.f") && floating("ceil(n / 2)") && floating("a * 2"));
        assert!(!floating("(int)ceil(n / 2.0)") && !floating("n / 2") && !floating("a > 1"));
        // the text shown parses back to the same expression
        for s in [
            "(int)ceil((float)n / 256)",
            "floorf(n * 0.5)",
            "1.5f + (double)n",
        ] {
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
