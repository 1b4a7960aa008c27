//! Concrete machine semantics of the integer and predicate instructions that steer loops, for
//! the registers whose values are known numbers. Why not the affine transfer function: that one
//! reasons on mathematical integers (no wrap-around, `shr.s` by 31 taken as 0), which is right
//! for symbolic counts but could mis-evaluate a loop exit; here every value is the register's bits
//! and every operation wraps exactly as the hardware does, so a trip count found is the real one.

use crate::affine::dests;
use crate::emu::alu::Ty;
use crate::ptx::{Inst, Operand, SReg};
use std::collections::BTreeMap;

/// A known register value: integer bits or a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum C {
    Int(u64),
    Pred(bool),
}

/// Known registers; a register that is absent is unknown.
pub type State = BTreeMap<String, C>;

/// Values of the special registers that are constants during the analysis (`%ntid`).
pub type SRegs<'a> = &'a dyn Fn(&SReg) -> Option<u64>;

/// Keep only the registers every state agrees on.
pub fn meet<'a>(mut states: impl Iterator<Item = &'a State>) -> State {
    let Some(first) = states.next() else {
        return State::new();
    };
    let mut out = first.clone();
    for s in states {
        out.retain(|k, v| s.get(k) == Some(v));
    }
    out
}

fn value(o: &Operand, s: &State, sregs: SRegs) -> Option<C> {
    match o {
        Operand::Reg(r) => s.get(r).copied(),
        Operand::Imm(v) => Some(C::Int(*v as u64)),
        Operand::SpecialReg(r) => sregs(r).map(C::Int),
        Operand::Not(inner) => match value(inner, s, sregs)? {
            C::Pred(b) => Some(C::Pred(!b)),
            C::Int(_) => None,
        },
        _ => None,
    }
}

/// Whether the instruction runs: `Some(true)` when it is unguarded or its guard is known true,
/// `None` when the guard is unknown.
pub fn guard(i: &Inst, s: &State) -> Option<bool> {
    match &i.pred {
        None => Some(true),
        Some(g) => match s.get(&g.reg)? {
            C::Pred(b) => Some(*b != g.negated),
            C::Int(_) => None,
        },
    }
}

/// Execute one instruction: its destinations get their values, or become unknown.
pub fn step(i: &Inst, s: &mut State, sregs: SRegs) {
    let ds = dests(i);
    if ds.is_empty() {
        return;
    }
    let out = match guard(i, s) {
        Some(false) => return,
        Some(true) => eval(i, s, sregs),
        None => None,
    };
    for d in &ds {
        s.remove(d);
    }
    for (r, v) in out.unwrap_or_default() {
        s.insert(r, v);
    }
}

fn ty(i: &Inst, k: usize) -> Option<Ty> {
    let t = Ty::parse(i.types.get(k)?.as_str())?;
    (!t.is_float() && t.bits() <= 64).then_some(t)
}

/// The same signedness at twice the width (`mul.wide`).
fn wide(t: Ty) -> Option<Ty> {
    Some(match (t.bits(), t.signed()) {
        (16, true) => Ty::S32,
        (16, false) => Ty::U32,
        (32, true) => Ty::S64,
        (32, false) => Ty::U64,
        _ => return None,
    })
}

fn eval(i: &Inst, s: &State, sregs: SRegs) -> Option<Vec<(String, C)>> {
    let dst = match i.operands.first()? {
        Operand::Reg(r) => vec![r.clone()],
        Operand::Pair(p, q) => vec![p.reg()?.to_string(), q.reg()?.to_string()],
        _ => return None,
    };
    let src: Vec<Option<C>> = i.operands[1..].iter().map(|o| value(o, s, sregs)).collect();
    let int = |k: usize, t: Ty| match src.get(k).copied().flatten() {
        Some(C::Int(v)) => Some(t.int(v)),
        _ => None,
    };
    let pred = |k: usize| match src.get(k).copied().flatten() {
        Some(C::Pred(b)) => Some(b),
        _ => None,
    };
    let has = |m: &str| i.modifiers.iter().any(|x| x == m);
    let is_pred = i.types.first().is_some_and(|t| t.as_str() == "pred");
    let one = |v: C| Some(vec![(dst[0].clone(), v)]);
    if is_pred {
        let r = match i.opcode.as_str() {
            "mov" => src.first().copied().flatten(),
            "not" => pred(0).map(|a| C::Pred(!a)),
            "and" => pred(0).zip(pred(1)).map(|(a, b)| C::Pred(a && b)),
            "or" => pred(0).zip(pred(1)).map(|(a, b)| C::Pred(a || b)),
            "xor" => pred(0).zip(pred(1)).map(|(a, b)| C::Pred(a != b)),
            _ => None,
        };
        return one(r?);
    }
    if i.opcode == "setp" {
        let t = ty(i, 0)?;
        let (a, b) = (int(0, t)?, int(1, t)?);
        let (ua, ub) = (t.wrap(a), t.wrap(b));
        let r = match i.modifiers.first()?.as_str() {
            "eq" => a == b,
            "ne" => a != b,
            "lt" => a < b,
            "le" => a <= b,
            "gt" => a > b,
            "ge" => a >= b,
            "lo" => ua < ub,
            "ls" => ua <= ub,
            "hi" => ua > ub,
            "hs" => ua >= ub,
            _ => return None,
        };
        let r = match i.modifiers.get(1).map(String::as_str) {
            None => r,
            Some("and") => r && pred(2)?,
            Some("or") => r || pred(2)?,
            Some("xor") => r != pred(2)?,
            Some(_) => return None,
        };
        let mut out = vec![(dst[0].clone(), C::Pred(r))];
        if let Some(q) = dst.get(1) {
            out.push((q.clone(), C::Pred(!r)));
        }
        return Some(out);
    }
    if dst.len() != 1 || has("cc") || has("sat") {
        return None;
    }
    let t = ty(i, 0)?;
    let v: i128 = match i.opcode.as_str() {
        "mov" => int(0, t)?,
        "cvt" => int(0, ty(i, 1)?)?,
        "add" => int(0, t)? + int(1, t)?,
        "sub" => int(0, t)? - int(1, t)?,
        "neg" => -int(0, t)?,
        "not" => !int(0, t)?,
        "and" => int(0, t)? & int(1, t)?,
        "or" => int(0, t)? | int(1, t)?,
        "xor" => int(0, t)? ^ int(1, t)?,
        "min" => int(0, t)?.min(int(1, t)?),
        "max" => int(0, t)?.max(int(1, t)?),
        "selp" => {
            if pred(2)? {
                int(0, t)?
            } else {
                int(1, t)?
            }
        }
        "div" | "rem" => {
            let (a, b) = (int(0, t)?, int(1, t)?);
            // i128 division truncates toward zero, as PTX's does
            match (b, i.opcode.as_str()) {
                (0, _) => return None,
                (_, "div") => a / b,
                _ => a % b,
            }
        }
        "mul" | "mad" => {
            let p = int(0, t)?.checked_mul(int(1, t)?)?;
            let (out_ty, p) = if has("wide") {
                (wide(t)?, p)
            } else if has("hi") {
                (t, p >> t.bits())
            } else {
                (t, p)
            };
            let acc = if i.opcode == "mad" {
                int(2, out_ty)?
            } else {
                0
            };
            return one(C::Int(out_ty.wrap(p + acc)));
        }
        "shl" | "shr" => {
            let a = int(0, t)?;
            let n = int(1, Ty::U32)? as u32;
            let bits = t.bits();
            match (i.opcode.as_str(), t.signed()) {
                ("shl", _) if n >= bits => 0,
                ("shl", _) => ((t.wrap(a) as u128) << n) as i128,
                (_, true) => a >> n.min(bits - 1),
                _ if n >= bits => 0,
                _ => (t.wrap(a) >> n) as i128,
            }
        }
        _ => return None,
    };
    one(C::Int(t.wrap(v)))
}
