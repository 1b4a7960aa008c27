//! Python's operators on values (arithmetic, comparison, equality, indexing), as Python
//! computes them. They need no interpreter, and the library models use them as the
//! interpreter does.

use super::value::Val;
use crate::heap::Registry;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};
use ruff_python_ast as ast;
use std::rc::Rc;

pub(super) fn op_name(op: ast::Operator) -> &'static str {
    use ast::Operator::*;
    match op {
        Add => "+",
        Sub => "-",
        Mult => "*",
        MatMult => "@",
        Div => "/",
        Mod => "%",
        Pow => "**",
        LShift => "<<",
        RShift => ">>",
        BitOr => "|",
        BitXor => "^",
        BitAnd => "&",
        FloorDiv => "//",
    }
}

/// `i` as an index into a sequence of `len` elements (negative from the end).
pub fn index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let j = if i < 0 { i + len } else { i };
    (0..len).contains(&j).then_some(j as usize)
}

pub(super) fn first_unknown<'a>(a: &Val<'a>, b: &Val<'a>) -> Val<'a> {
    if a.is_unknown() {
        a.clone()
    } else if b.is_unknown() {
        b.clone()
    } else {
        Val::unknown("a value kerncast does not compute")
    }
}

pub fn unary<'a>(op: ast::UnaryOp, v: Val<'a>) -> Val<'a> {
    use ast::UnaryOp::*;
    match (op, &v) {
        (Not, _) => match v.truth() {
            Some(t) => Val::Bool(!t),
            None => v,
        },
        (_, Val::Unknown(_)) => v,
        (USub, _) if v.as_bigint().is_some() => Val::Int(-v.as_bigint().unwrap_or_default()),
        (USub, Val::Float(f)) => Val::Float(-f),
        (UAdd, _) if v.as_bigint().is_some() => Val::Int(v.as_bigint().unwrap_or_default()),
        (UAdd, Val::Float(_)) => v,
        (Invert, _) if v.as_bigint().is_some() => Val::Int(!v.as_bigint().unwrap_or_default()),
        _ => Val::unknown("a unary operation on a value kerncast does not compute"),
    }
}

/// `l op r` as Python computes it.
pub fn binop<'a>(heap: &Registry<'a>, op: ast::Operator, l: &Val<'a>, r: &Val<'a>) -> Val<'a> {
    use ast::Operator::*;
    if l.is_unknown() || r.is_unknown() {
        return first_unknown(l, r);
    }
    // Sequences.
    match (op, l, r) {
        (Add, Val::Str(a), Val::Str(b)) => return Val::Str(Rc::from(format!("{a}{b}"))),
        (Add, Val::List(a), Val::List(b)) => {
            let mut v = a.borrow().clone();
            v.extend(b.borrow().iter().cloned());
            return Val::list(heap, v);
        }
        (Add, Val::Tuple(a), Val::Tuple(b)) => {
            let mut v = a.as_ref().clone();
            v.extend(b.iter().cloned());
            return Val::tuple(v);
        }
        (Mult, Val::Str(_) | Val::List(_) | Val::Tuple(_), n)
        | (Mult, n, Val::Str(_) | Val::List(_) | Val::Tuple(_))
            if n.as_bigint().is_some() =>
        {
            let seq = if n.same(l) && !matches!(l, Val::Str(_) | Val::List(_) | Val::Tuple(_)) {
                r
            } else {
                l
            };
            let times = n.as_i64().unwrap_or(0).clamp(0, 1 << 20) as usize;
            return match seq {
                Val::Str(s) => Val::Str(Rc::from(s.repeat(times))),
                Val::List(v) => Val::list(
                    heap,
                    v.borrow()
                        .iter()
                        .cloned()
                        .cycle()
                        .take(v.borrow().len() * times)
                        .collect(),
                ),
                Val::Tuple(v) => {
                    Val::tuple(v.iter().cloned().cycle().take(v.len() * times).collect())
                }
                _ => Val::unknown("a repeated sequence"),
            };
        }
        (Mod, Val::Str(fmt), args) => {
            return percent_format(fmt, args)
                .map(|s| Val::Str(Rc::from(s)))
                .unwrap_or_else(|| {
                    Val::unknown("a string formatted with `%` that kerncast cannot fill in")
                });
        }
        _ => {}
    }
    match (l.as_bigint(), r.as_bigint()) {
        (Some(a), Some(b)) => int_op(op, a, b),
        _ => match (l.as_f64(), r.as_f64()) {
            (Some(a), Some(b)) => float_op(op, a, b),
            _ => Val::unknown(&format!(
                "`{}` on values kerncast does not compute",
                op_name(op)
            )),
        },
    }
}

fn int_op<'a>(op: ast::Operator, a: BigInt, b: BigInt) -> Val<'a> {
    use ast::Operator::*;
    Val::Int(match op {
        Add => a + b,
        Sub => a - b,
        Mult => a * b,
        Div => {
            if b.is_zero() {
                return Val::unknown("a division by zero (Python raises ZeroDivisionError)");
            }
            return match (a.to_f64(), b.to_f64()) {
                (Some(x), Some(y)) => Val::Float(x / y),
                _ => Val::unknown("a true division of integers too large for a float"),
            };
        }
        FloorDiv => {
            if b.is_zero() {
                return Val::unknown("a division by zero (Python raises ZeroDivisionError)");
            }
            a.div_floor(&b)
        }
        Mod => {
            if b.is_zero() {
                return Val::unknown("a modulo by zero (Python raises ZeroDivisionError)");
            }
            a.mod_floor(&b)
        }
        Pow => {
            if b.is_negative() {
                return match (a.to_f64(), b.to_f64()) {
                    (Some(x), Some(y)) => Val::Float(x.powf(y)),
                    _ => Val::unknown("a power kerncast does not compute"),
                };
            }
            match b.to_u32() {
                Some(e) if e <= 4096 => num_traits::pow(a, e as usize),
                _ => return Val::unknown("a power too large to compute"),
            }
        }
        LShift => match b.to_usize() {
            Some(s) if s <= 4096 => a << s,
            _ => return Val::unknown("a shift kerncast does not compute"),
        },
        RShift => match b.to_usize() {
            // `>>` rounds toward negative infinity on big integers, as Python's does.
            Some(s) => a >> s,
            None => return Val::unknown("a shift kerncast does not compute"),
        },
        BitOr => a | b,
        BitXor => a ^ b,
        BitAnd => a & b,
        MatMult => return Val::unknown("`@` on integers"),
    })
}

fn float_op<'a>(op: ast::Operator, a: f64, b: f64) -> Val<'a> {
    use ast::Operator::*;
    Val::Float(match op {
        Add => a + b,
        Sub => a - b,
        Mult => a * b,
        Div | FloorDiv | Mod if b == 0.0 => {
            return Val::unknown("a division by zero (Python raises ZeroDivisionError)")
        }
        Div => a / b,
        FloorDiv => (a / b).floor(),
        Mod => {
            let m = a % b;
            if m != 0.0 && (m < 0.0) != (b < 0.0) {
                m + b
            } else {
                m
            }
        }
        Pow => a.powf(b),
        _ => return Val::unknown(&format!("`{}` on a float", op_name(op))),
    })
}

/// `l op r` for a comparison, as Python computes it.
pub fn compare<'a>(op: ast::CmpOp, l: &Val<'a>, r: &Val<'a>) -> Val<'a> {
    use ast::CmpOp::*;
    match op {
        Is | IsNot => {
            let same = match (l, r) {
                (Val::None, Val::None) => Some(true),
                (Val::None, Val::Unknown(_)) | (Val::Unknown(_), Val::None) => None,
                (Val::None, _) | (_, Val::None) => Some(false),
                (Val::Bool(a), Val::Bool(b)) => Some(a == b),
                _ => {
                    if l.is_unknown() || r.is_unknown() {
                        None
                    } else {
                        Some(l.same(r))
                    }
                }
            };
            return match same {
                Some(s) => Val::Bool(s == (op == Is)),
                None => first_unknown(l, r),
            };
        }
        In | NotIn => {
            if r.is_unknown() {
                return r.clone();
            }
            let found = match r {
                Val::Str(hay) => match l {
                    Val::Str(needle) => Some(hay.contains(&**needle)),
                    _ => None,
                },
                _ => r.elements().and_then(|items| {
                    let mut unknown = false;
                    for x in &items {
                        match equal(l, x) {
                            Some(true) => return Some(true),
                            None => unknown = true,
                            _ => {}
                        }
                    }
                    (!unknown).then_some(false)
                }),
            };
            return match found {
                Some(f) => Val::Bool(f == (op == In)),
                None => first_unknown(l, &Val::unknown("a membership test kerncast cannot decide")),
            };
        }
        _ => {}
    }
    if l.is_unknown() || r.is_unknown() {
        return first_unknown(l, r);
    }
    match op {
        Eq | NotEq => match equal(l, r) {
            Some(e) => Val::Bool(e == (op == Eq)),
            None => Val::unknown("an equality kerncast cannot decide"),
        },
        _ => match order(l, r) {
            Some(o) => Val::Bool(match op {
                Lt => o.is_lt(),
                LtE => o.is_le(),
                Gt => o.is_gt(),
                GtE => o.is_ge(),
                _ => false,
            }),
            None => Val::unknown("a comparison kerncast cannot decide"),
        },
    }
}

/// Python's `==`, where decidable.
pub fn equal<'a>(a: &Val<'a>, b: &Val<'a>) -> Option<bool> {
    if a.is_unknown() || b.is_unknown() {
        return None;
    }
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => Some(x == y),
        (Val::None, Val::None) => Some(true),
        (Val::None, _) | (_, Val::None) => Some(false),
        (Val::Tuple(_) | Val::List(_), Val::Tuple(_) | Val::List(_)) => {
            let (x, y) = (a.elements()?, b.elements()?);
            if x.len() != y.len() || std::mem::discriminant(a) != std::mem::discriminant(b) {
                return Some(false);
            }
            for (p, q) in x.iter().zip(y.iter()) {
                if !equal(p, q)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        _ => match (a.as_bigint(), b.as_bigint()) {
            (Some(x), Some(y)) => Some(x == y),
            _ => match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => Some(x == y),
                _ => match (a, b) {
                    (Val::Str(_), _) | (_, Val::Str(_)) => Some(false),
                    _ => Some(a.same(b)),
                },
            },
        },
    }
}

fn order<'a>(a: &Val<'a>, b: &Val<'a>) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => Some(x.cmp(y)),
        (Val::Tuple(_) | Val::List(_), Val::Tuple(_) | Val::List(_)) => {
            let (x, y) = (a.elements()?, b.elements()?);
            for (p, q) in x.iter().zip(y.iter()) {
                match order(p, q)? {
                    std::cmp::Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => match (a.as_bigint(), b.as_bigint()) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
        },
    }
}

/// `fmt % args`: `%d`, `%i`, `%s`, `%r`, `%f`, `%%`, and `%(name)d` from a dict.
pub fn percent_format(fmt: &str, args: &Val<'_>) -> Option<String> {
    let positional: Vec<Val<'_>> = match args {
        Val::Tuple(t) => t.as_ref().clone(),
        Val::Dict(_) => Vec::new(),
        v => vec![v.clone()],
    };
    let mut next = 0usize;
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut key = None;
        if chars.peek() == Some(&'(') {
            chars.next();
            let mut k = String::new();
            for d in chars.by_ref() {
                if d == ')' {
                    break;
                }
                k.push(d);
            }
            key = Some(k);
        }
        // Flags and width are not read: a conversion with them is not filled in.
        let conv = chars.next()?;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let v = match &key {
            Some(k) => match args {
                Val::Dict(d) => d
                    .borrow()
                    .iter()
                    .find(|(x, _)| x.as_str() == Some(k))
                    .map(|(_, v)| v.clone())?,
                _ => return None,
            },
            None => {
                next += 1;
                positional.get(next - 1).cloned()?
            }
        };
        if v.is_unknown() {
            return None;
        }
        match conv {
            'd' | 'i' | 'u' => match (v.as_bigint(), v.as_f64()) {
                (Some(i), _) => out.push_str(&i.to_string()),
                (None, Some(f)) => out.push_str(&(f.trunc() as i128).to_string()),
                _ => return None,
            },
            's' => out.push_str(&v.display()),
            'r' => out.push_str(&v.repr()),
            'f' => out.push_str(&format!("{:.6}", v.as_f64()?)),
            _ => return None,
        }
    }
    Some(out)
}
