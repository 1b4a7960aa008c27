//! The transfer function of one instruction on the register values ([`transfer`]), and the
//! readings of operands and addresses it is made of, which the counter also takes for memory
//! instructions ([`address`], [`wmma_base`], [`wmma_pitch`]).
//!
//! A min, max or select of quasi-affine values is a named symbol ([`crate::named`]); a bit
//! operation that is not arithmetic on its operands is kept by its sign and zeros
//! ([`Val::Bits`]). `shr.s` by width−1 is taken as 0 (see the stage's notes in `affine`).

use super::symbols::{
    aggregate_vector_read, cluster_sreg, grid, lane_id, param_read, param_read_symbol,
    param_symbol, param_value, sanitize, sreg,
};
use super::value::{konst, lin, num, Env, Val};
use crate::cond::Cond;
use crate::named;
use crate::piecewise::Piecewise;
use crate::poly::{Atom, LinExpr, Poly};
use crate::ptx::{AddrBase, Function, Inst, Operand, SReg};
use std::ops::Not;

/// Largest predicate formula (nodes) a register may hold; see [`Cond::size_exceeds`].
pub const MAX_COND_NODES: usize = 512;
/// Largest polynomial (terms, degree) a register may hold.
pub const MAX_POLY_TERMS: usize = 256;
pub const MAX_POLY_DEGREE: u32 = 16;

/// Registers an instruction writes.
pub fn dests(i: &Inst) -> Vec<String> {
    if matches!(
        i.opcode.as_str(),
        "st" | "bra" | "ret" | "exit" | "bar" | "barrier" | "membar" | "fence" | "red" | "prefetch"
    ) {
        return vec![];
    }
    match i.operands.first() {
        Some(Operand::Reg(r)) => vec![r.clone()],
        Some(Operand::Vector(v)) | Some(Operand::List(v)) => {
            v.iter().filter_map(|o| o.reg().map(String::from)).collect()
        }
        Some(Operand::Pair(a, b)) => [a, b]
            .iter()
            .filter_map(|o| o.reg().map(String::from))
            .collect(),
        _ => vec![],
    }
}

/// The predicate `p` of `shfl.sync.mode.b32 d|p, a, b, c, mask`: whether the source lane is in
/// range, per the PTX ISA's semantics (lane offsets `b[4:0]`, clamp `c[4:0]`, segment mask
/// `c[12:8]`). It depends on the lane and on `b` and `c` only, never on the shuffled data, so
/// CUB's and cooperative groups' `@p add` after a shuffle is counted exactly. Segment masks
/// other than a power-of-two width, and `bfly`/`idx` with a lane-varying `b`, stay unknown.
fn shfl_in_range(i: &Inst, b: Option<&Poly>, c: Option<&Poly>, ntid: [u64; 3]) -> Option<Cond> {
    let c = c.and_then(konst)?;
    let (cval, seg) = (c & 31, (c >> 8) & 31);
    let lane = lane_id(ntid);
    // A segment of width w = 2^k masks the lane's bits k..4: seg = 32 - w.
    let width = 32 - seg;
    if width & (width - 1) != 0 {
        return None;
    }
    let min_lane = lane.floor_div(width).scale(width);
    let top = cval & (width - 1); // cval & !seg
    let max_lane = min_lane.add_const(top);
    let b_lin = b.and_then(lin)?;
    let bval = match konst(&Poly::from_lin(&b_lin)) {
        Some(k) => LinExpr::constant(k & 31),
        None => b_lin.sub(&b_lin.floor_div(32).scale(32)),
    };
    let has = |m: &str| i.modifiers.iter().any(|x| x == m);
    if has("up") {
        compare("ge", &lane.sub(&bval), &max_lane)
    } else if has("down") {
        compare("le", &lane.add(&bval), &max_lane)
    } else {
        let k = konst(&Poly::from_lin(&bval))?;
        let in_range = if has("bfly") {
            // lane ^ k stays in the lane's segment; it is in range for every lane when the clamp
            // is the segment's last lane.
            (k & seg == 0 && top == width - 1).then_some(true)?
        } else {
            // idx: j = min_lane | (k & !seg), in range when its offset is at most the clamp.
            (k & (width - 1)) <= top
        };
        Some(if in_range {
            Cond::True
        } else {
            Cond::True.not()
        })
    }
}

/// Value of an operand.
pub fn operand(f: &Function, o: &Operand, env: &Env, ntid: [u64; 3]) -> Val {
    match o {
        Operand::Reg(r) => env.get(r).cloned().unwrap_or(Val::Unknown),
        Operand::Imm(v) => Val::Num(Poly::constant(crate::poly::poly::rat(*v as i128))),
        Operand::SpecialReg(SReg::Nctaid(d)) if grid().is_some() => {
            let g = grid().unwrap_or([1; 3]);
            Val::Num(Poly::constant(crate::poly::poly::rat(g[d.index()] as i128)))
        }
        Operand::SpecialReg(s) if s.cluster_register().is_some() => {
            cluster_sreg(f, s).map_or(Val::Unknown, Val::Num)
        }
        Operand::SpecialReg(s) => sreg(s, ntid),
        Operand::Symbol(s) => Val::Num(Poly::var(&format!("sym_{}", sanitize(s)))),
        Operand::Not(inner) => match operand(f, inner, env, ntid) {
            Val::Pred(c) => Val::Pred(c.not()),
            _ => Val::Unknown,
        },
        _ => Val::Unknown,
    }
}

/// Address of the memory operand that `classify::mem_access` describes, as a polynomial (base
/// register or symbol plus offset): the operand `classify::access_operand` names (the first
/// address, the global source of `cp.async`, none for `wmma`, whose operand is a tile base).
pub fn address(f: &Function, inst: &Inst, env: &Env, ntid: [u64; 3]) -> Option<Poly> {
    let _ = ntid;
    operand_address(
        f,
        inst.operands.get(crate::classify::access_operand(inst)?)?,
        env,
    )
}

/// The tile base of a `wmma.load` / `wmma.store` (its one `[…]` operand), as a polynomial. The
/// ISA requires it to be the same in every lane of the warp.
pub fn wmma_base(f: &Function, inst: &Inst, env: &Env) -> Option<Poly> {
    let op = inst
        .operands
        .iter()
        .find(|o| matches!(o, Operand::Addr { .. }))?;
    operand_address(f, op, env)
}

/// Bytes from one row of a `wmma` tile to the next: its last operand, `ldm`, in elements.
pub fn wmma_pitch(f: &Function, inst: &Inst, env: &Env, ntid: [u64; 3]) -> Option<Poly> {
    let ldm = match operand(f, inst.operands.last()?, env, ntid) {
        Val::Num(p) => p,
        _ => return None,
    };
    let bits = inst.types.last()?.bits() as i128;
    Some(ldm.scale(&(crate::poly::poly::rat(bits) / crate::poly::poly::rat(8))))
}

fn operand_address(f: &Function, op: &Operand, env: &Env) -> Option<Poly> {
    let Operand::Addr { base, offset } = op else {
        return None;
    };
    let b = match base {
        AddrBase::Reg(r) => match env.get(r) {
            Some(Val::Num(p)) => p.clone(),
            _ => return None,
        },
        // a kernel parameter's slot: the same address in every lane
        AddrBase::Symbol(s) if f.param_index(s).is_some() => Poly::var(&param_symbol(f, s)),
        AddrBase::Symbol(s) => Poly::var(&format!("sym_{}", sanitize(s))),
        AddrBase::None => Poly::zero(),
    };
    Some(b.add(&Poly::constant(crate::poly::poly::rat(*offset as i128))))
}

/// The largest power of two (up to 2^62) that divides every value of `p` because it divides
/// every coefficient (all integers); `None` when a coefficient is not an integer. The zero
/// polynomial gives 2^62.
fn power_of_two_dividing(p: &Poly) -> Option<i128> {
    let mut k = 62u32;
    for c in p.terms.values() {
        if !c.is_integer() {
            return None;
        }
        let c = num_traits::ToPrimitive::to_i128(&c.to_integer())?;
        if c != 0 {
            k = k.min(c.trailing_zeros());
        }
    }
    Some(1i128 << k)
}

/// The transfer function of one instruction on the register environment.
pub fn transfer(f: &Function, i: &Inst, env: &mut Env, ntid: [u64; 3]) {
    let ds = dests(i);
    if ds.is_empty() {
        return;
    }
    let mut ops: Vec<Val> = i
        .operands
        .iter()
        .skip(1)
        .map(|o| operand(f, o, env, ntid))
        .collect();
    let is_float = i.types.iter().any(|t| t.is_float());
    let bits = i.types.last().map_or(32, |t| t.bits());
    // A negative immediate of an unsigned widening or high multiply (`mul.wide.u32 %rd, %r,
    // -1431655765`) is its unsigned value: the product is taken on the integers.
    let unsigned = i.types.iter().any(|t| t.as_str().starts_with('u'));
    let widening = i.modifiers.iter().any(|m| m == "wide" || m == "hi");
    if matches!(i.opcode.as_str(), "mul" | "mad") && unsigned && widening && bits < 64 {
        for (o, v) in i.operands.iter().skip(1).zip(ops.iter_mut()) {
            if let Operand::Imm(x) = o {
                if *x < 0 {
                    let u = *x as i128 + (1i128 << bits);
                    *v = Val::Num(Poly::constant(crate::poly::poly::rat(u)));
                }
            }
        }
    }
    let a = ops.first().and_then(num);
    let b = ops.get(1).and_then(num);
    let c = ops.get(2).and_then(num);
    let mulc = |x: &Poly, y: &Poly| -> Option<Poly> { Some(x.mul(y)) };
    let v: Val = if is_float && !matches!(i.opcode.as_str(), "mov" | "setp" | "selp" | "cvt") {
        Val::Unknown
    } else {
        match i.opcode.as_str() {
            // `mov.pred p, 0|1`
            "mov" if i.types.iter().any(|t| t.as_str() == "pred") => match a.and_then(konst) {
                Some(c) if c != 0 => Val::Pred(Cond::True),
                Some(_) => Val::Pred(Cond::True.not()),
                None => ops.first().cloned().unwrap_or(Val::Unknown),
            },
            "mov" | "cvta" => ops.first().cloned().unwrap_or(Val::Unknown),
            // `mapa.shared::cluster d, a, rank`: the address of `a`'s byte in another block of
            // the cluster, a window per block. Counted at `a`'s offset, which sets the banks.
            "mapa" => ops.first().cloned().unwrap_or(Val::Unknown),
            "cvt" if !is_float => ops.first().cloned().unwrap_or(Val::Unknown),
            "ld" if i.modifiers.iter().any(|m| m == "param") => {
                match param_read(f, i.operands.get(1), env) {
                    Some((s, offset)) => param_read_symbol(f, s, offset)
                        .map_or(Val::Unknown, |sym| param_value(&sym)),
                    None => Val::Unknown,
                }
            }
            "add" => opt(a.zip(b).map(|(x, y)| x.add(y))),
            "sub" => opt(a.zip(b).map(|(x, y)| x.sub(y))),
            "neg" => opt(a.map(|x| x.scale(&crate::poly::poly::rat(-1)))),
            // an unsigned high product by a constant: floor(M·x / 2^bits)
            "mul" if i.modifiers.iter().any(|m| m == "hi") => {
                let x = a.and_then(lin).zip(b.and_then(konst));
                let x = x.or_else(|| b.and_then(lin).zip(a.and_then(konst)));
                match x {
                    Some((e, m)) if unsigned && m > 0 => {
                        Val::Num(Poly::from_lin(&floor_div_magic(&e.scale(m), 1i128 << bits)))
                    }
                    _ => Val::Unknown,
                }
            }
            "mul" => opt(a.zip(b).and_then(|(x, y)| mulc(x, y))),
            "mad" if i.modifiers.iter().any(|m| m == "hi") => Val::Unknown,
            "mad" => opt(a
                .zip(b)
                .and_then(|(x, y)| mulc(x, y))
                .zip(c)
                .map(|(p, z)| p.add(z))),
            "shl" => opt(a.zip(b.and_then(konst)).and_then(|(x, k)| {
                (0..63)
                    .contains(&k)
                    .then(|| x.scale(&crate::poly::poly::rat(1i128 << k)))
            })),
            "shr" => match (a, b.and_then(konst)) {
                (Some(_), Some(k))
                    if k == bits as i128 - 1
                        && i.types.iter().any(|t| t.as_str().starts_with('s')) =>
                {
                    Val::Num(Poly::zero())
                }
                (Some(x), Some(k)) if (0..62).contains(&k) => {
                    opt(lin(x).map(|e| Poly::from_lin(&floor_div_magic(&e, 1i128 << k))))
                }
                _ => Val::Unknown,
            },
            // bit field extract: floor(a/2^pos) mod 2^len; the whole rest of the value when
            // the field reaches the top bit (then also for a signed, sign-extended field)
            "bfe" => match (a.and_then(lin), b.and_then(konst), c.and_then(konst)) {
                (Some(e), Some(pos), Some(len))
                    if (0..bits as i128).contains(&pos) && len > 0 && pos + len >= bits as i128 =>
                {
                    Val::Num(Poly::from_lin(&e.floor_div(1i128 << pos)))
                }
                (Some(e), Some(pos), Some(len))
                    if unsigned && pos >= 0 && len > 0 && pos + len < 64 =>
                {
                    Val::Num(Poly::from_lin(
                        &e.floor_div(1i128 << pos)
                            .sub(&e.floor_div(1i128 << (pos + len)).scale(1i128 << len)),
                    ))
                }
                _ => Val::Unknown,
            },
            "div" => match (a.and_then(lin), b.and_then(konst)) {
                (Some(e), Some(m)) if m > 0 => Val::Num(Poly::from_lin(&e.floor_div(m))),
                _ => Val::Unknown,
            },
            "rem" => match (a.and_then(lin), b.and_then(konst)) {
                (Some(e), Some(m)) if m > 0 => {
                    Val::Num(Poly::from_lin(&e.sub(&e.floor_div(m).scale(m))))
                }
                _ => Val::Unknown,
            },
            "and" if !matches!(ops.first(), Some(Val::Pred(_))) => {
                match (a.and_then(lin), b.and_then(konst)) {
                    (Some(e), Some(m)) if m > 0 && (m + 1) & m == 0 => {
                        let md = m + 1;
                        Val::Num(Poly::from_lin(&e.sub(&e.floor_div(md).scale(md))))
                    }
                    // `x & -2^k` clears the low k bits: 2^k·floor(x / 2^k) in two's complement.
                    (Some(e), Some(m)) if m < 0 && (-m) & (-m - 1) == 0 => {
                        Val::Num(Poly::from_lin(&e.floor_div(-m).scale(-m)))
                    }
                    // A run of ones, bits lo..hi-1 (`x & 0x3fffe000` in a signed `%`):
                    // 2^lo·floor(x / 2^lo) − 2^hi·floor(x / 2^hi).
                    (Some(e), Some(m))
                        if m > 0 && {
                            let low = m & -m;
                            (m + low) & (m + low - 1) == 0
                        } =>
                    {
                        let lo = m & -m;
                        let hi = m + lo;
                        Val::Num(Poly::from_lin(
                            &e.floor_div(lo).scale(lo).sub(&e.floor_div(hi).scale(hi)),
                        ))
                    }
                    _ => Val::Unknown,
                }
            }
            "and" | "or" | "xor" => match (ops.first(), ops.get(1)) {
                (Some(Val::Pred(x)), Some(Val::Pred(y))) => Val::Pred(match i.opcode.as_str() {
                    "and" => Cond::And(Box::new(x.clone()), Box::new(y.clone())),
                    "or" => Cond::Or(Box::new(x.clone()), Box::new(y.clone())),
                    _ => x.clone().xor(y.clone()),
                }),
                // `x | c` and `x ^ c` with x a multiple of 2^k and 0 <= c < 2^k set bits that x
                // has clear: x + c (`(m << 1) | 1` is how compilers write 2m + 1). A numeric
                // `and` was taken above.
                (Some(Val::Num(x)), Some(Val::Num(y))) if i.opcode != "and" => {
                    let disjoint = |x: &Poly, c: i128| {
                        c >= 0 && power_of_two_dividing(x).is_some_and(|d| c < d)
                    };
                    match (konst(x), konst(y)) {
                        (_, Some(c)) if disjoint(x, c) => Val::Num(x.add(y)),
                        (Some(c), _) if disjoint(y, c) => Val::Num(x.add(y)),
                        _ => Val::Unknown,
                    }
                }
                _ => Val::Unknown,
            },
            "not" => match ops.first() {
                Some(Val::Pred(x)) => Val::Pred(x.clone().not()),
                // two's complement: !x = -x - 1
                Some(Val::Num(x)) => Val::Num(
                    x.scale(&crate::poly::poly::rat(-1))
                        .add(&Poly::constant(crate::poly::poly::rat(-1))),
                ),
                _ => Val::Unknown,
            },
            "selp" => match (ops.first(), ops.get(1), ops.get(2)) {
                (Some(x), Some(y), _) if x == y => x.clone(),
                (Some(Val::Num(x)), Some(Val::Num(y)), Some(Val::Pred(c))) if !is_float => {
                    match (lin(x), lin(y)) {
                        (Some(x), Some(y)) if too_deep(&[&x, &y]) => Val::Unknown,
                        (Some(x), Some(y)) => {
                            Val::Num(Poly::from_lin(&named::name(Piecewise::Select(
                                Box::new(c.clone()),
                                Box::new(Piecewise::Leaf(x)),
                                Box::new(Piecewise::Leaf(y)),
                            ))))
                        }
                        _ => Val::Unknown,
                    }
                }
                _ => Val::Unknown,
            },
            "min" | "max" => match (a.and_then(lin), b.and_then(lin)) {
                (Some(x), Some(y)) if too_deep(&[&x, &y]) => Val::Unknown,
                (Some(x), Some(y)) => Val::Num(Poly::from_lin(&extremum(i.opcode == "max", x, y))),
                _ => Val::Unknown,
            },
            // |x| = max(x, -x)
            "abs" => match a.and_then(lin) {
                Some(x) => {
                    let nx = x.scale(-1);
                    Val::Num(Poly::from_lin(&extremum(true, x, nx)))
                }
                None => Val::Unknown,
            },
            // `setp.cmp.s32 p, a, b` and `setp.cmp.bop.s32 p, a, b, q` (p = (a cmp b) bop q)
            "setp" if !is_float && matches!(i.modifiers.len(), 1 | 2) => {
                let cmp = i.modifiers[0].as_str();
                let unsigned_bits = i
                    .types
                    .iter()
                    .find(|t| t.as_str().starts_with('u'))
                    .map(|t| t.bits())
                    .or_else(|| {
                        matches!(cmp, "lo" | "ls" | "hi" | "hs")
                            .then(|| i.types.first().map_or(32, |t| t.bits()))
                    });
                let c = match (a.and_then(lin), b.and_then(lin)) {
                    (Some(x), Some(y)) => match unsigned_bits {
                        Some(bits) => compare_unsigned(cmp, &x, &y, bits),
                        None => compare(cmp, &x, &y),
                    },
                    _ => None,
                };
                match (c, i.modifiers.get(1).map(String::as_str), ops.get(2)) {
                    (Some(c), None, _) => Val::Pred(c),
                    (Some(c), Some("and"), Some(Val::Pred(q))) => Val::Pred(c.and(q.clone())),
                    (Some(c), Some("or"), Some(Val::Pred(q))) => Val::Pred(c.or(q.clone())),
                    (Some(c), Some("xor"), Some(Val::Pred(q))) => Val::Pred(c.xor(q.clone())),
                    _ => Val::Unknown,
                }
            }
            _ => Val::Unknown,
        }
    };
    let v = match v {
        Val::Unknown if !is_float => by_sign(i, &ops).unwrap_or(Val::Unknown),
        v => v,
    };
    // Each instruction may double a formula (`and.pred p, q, q`; `mul x, y, y`), so a short
    // chain would grow past any memory; past these sizes a value is unknown (then listed as an
    // assumption where it decides control flow), which bounds the work by construction.
    let v = match v {
        Val::Pred(c) if c.size_exceeds(MAX_COND_NODES) => Val::Unknown,
        Val::Bits { negative, zero }
            if negative.size_exceeds(MAX_COND_NODES)
                || zero
                    .as_ref()
                    .is_some_and(|z| z.size_exceeds(MAX_COND_NODES)) =>
        {
            Val::Unknown
        }
        Val::Num(p) if p.terms.len() > MAX_POLY_TERMS || p.degree() > MAX_POLY_DEGREE => {
            Val::Unknown
        }
        v => v,
    };
    if i.opcode == "shfl" {
        if let Some(Operand::Pair(d, p)) = i.operands.first() {
            if let (Some(d), Some(p)) = (d.reg(), p.reg()) {
                let in_range = shfl_in_range(i, b, c, ntid).map_or(Val::Unknown, Val::Pred);
                env.insert(d.to_string(), Val::Unknown);
                env.insert(p.to_string(), in_range);
                return;
            }
        }
    }
    // setp p|q: q is the negation
    if i.opcode == "setp" {
        if let Some(Operand::Pair(p, q)) = i.operands.first() {
            if let (Some(p), Some(q)) = (p.reg(), q.reg()) {
                let nq = match &v {
                    Val::Pred(c) => Val::Pred(c.clone().not()),
                    _ => Val::Unknown,
                };
                env.insert(p.to_string(), v);
                env.insert(q.to_string(), nq);
                return;
            }
        }
    }
    if ds.len() == 1 {
        env.insert(ds[0].clone(), v);
    } else if let Some((s, offset)) = aggregate_vector_read(f, i, env).filter(|_| !is_float) {
        // `ld.param.v2.u32 {%r1, %r2}, [p]`: consecutive fields of an aggregate
        let width = bits.div_ceil(8) as i64;
        for (k, d) in ds.into_iter().enumerate() {
            let v = param_read_symbol(f, s, offset + k as i64 * width)
                .map_or(Val::Unknown, |sym| param_value(&sym));
            env.insert(d, v);
        }
    } else {
        for d in ds {
            env.insert(d, Val::Unknown);
        }
    }
}

/// Bit operations and tests that only the signs and zeros of their operands decide: the sign
/// bit of `a | b` is set where `a` or `b` is negative, of `a & b` where both are, of `a ^ b`
/// where one is, of `~a` where `a` is not; `x < 0` (signed) reads it back. `a | b` is zero where
/// both are, and `a ^ b` of two affine values where they are equal; `x == 0` reads that back.
fn by_sign(i: &Inst, ops: &[Val]) -> Option<Val> {
    let neg = |v: &Val| match v {
        Val::Bits { negative, .. } => Some(negative.clone()),
        Val::Num(p) => lin(p).map(|e| Cond::Ge(e.scale(-1).add_const(-1))),
        _ => None,
    };
    let zero = |v: &Val| match v {
        Val::Bits { zero, .. } => zero.clone(),
        Val::Num(p) => lin(p).map(Cond::Eq),
        _ => None,
    };
    let c = |k: usize| ops.get(k).and_then(num).and_then(konst);
    match i.opcode.as_str() {
        "and" | "or" | "xor" => {
            let (a, b) = (ops.first()?, ops.get(1)?);
            let (x, y) = (neg(a)?, neg(b)?);
            let (negative, zero) = match i.opcode.as_str() {
                "and" => (x.and(y), None),
                "or" => (x.or(y), zero(a).zip(zero(b)).map(|(p, q)| p.and(q))),
                _ => (
                    x.xor(y),
                    match (a, b) {
                        (Val::Num(p), Val::Num(q)) => {
                            lin(p).zip(lin(q)).map(|(p, q)| Cond::Eq(p.sub(&q)))
                        }
                        _ => None,
                    },
                ),
            };
            Some(Val::Bits { negative, zero })
        }
        "not" => match ops.first()? {
            Val::Bits { negative, .. } => Some(Val::Bits {
                negative: negative.clone().not(),
                zero: None,
            }),
            _ => None,
        },
        "setp" if matches!(i.modifiers.first().map(String::as_str), Some("eq" | "ne")) => {
            let z = match (ops.first()?, ops.get(1)?) {
                (Val::Bits { zero: Some(z), .. }, _) if c(1) == Some(0) => z,
                (_, Val::Bits { zero: Some(z), .. }) if c(0) == Some(0) => z,
                _ => return None,
            };
            let p = if i.modifiers[0] == "eq" {
                z.clone()
            } else {
                z.clone().not()
            };
            combine(p, i.modifiers.get(1).map(String::as_str), ops.get(2))
        }
        "setp" if i.types.iter().any(|t| t.as_str().starts_with('s')) => {
            // (sign test, whether it reads "negative")
            let test = match (ops.first()?, ops.get(1)?, i.modifiers.first()?.as_str()) {
                (Val::Bits { negative: s, .. }, _, "lt") if c(1) == Some(0) => (s, true),
                (Val::Bits { negative: s, .. }, _, "le") if c(1) == Some(-1) => (s, true),
                (Val::Bits { negative: s, .. }, _, "ge") if c(1) == Some(0) => (s, false),
                (Val::Bits { negative: s, .. }, _, "gt") if c(1) == Some(-1) => (s, false),
                (_, Val::Bits { negative: s, .. }, "gt") if c(0) == Some(0) => (s, true),
                (_, Val::Bits { negative: s, .. }, "ge") if c(0) == Some(-1) => (s, true),
                (_, Val::Bits { negative: s, .. }, "le") if c(0) == Some(0) => (s, false),
                (_, Val::Bits { negative: s, .. }, "lt") if c(0) == Some(-1) => (s, false),
                _ => return None,
            };
            let p = if test.1 {
                test.0.clone()
            } else {
                test.0.clone().not()
            };
            combine(p, i.modifiers.get(1).map(String::as_str), ops.get(2))
        }
        _ => None,
    }
}

/// `setp`'s result `p`, combined with its optional predicate operand (`setp.cmp.bop`).
fn combine(p: Cond, bop: Option<&str>, q: Option<&Val>) -> Option<Val> {
    match (bop, q) {
        (None, _) => Some(Val::Pred(p)),
        (Some("and"), Some(Val::Pred(q))) => Some(Val::Pred(p.and(q.clone()))),
        (Some("or"), Some(Val::Pred(q))) => Some(Val::Pred(p.or(q.clone()))),
        (Some("xor"), Some(Val::Pred(q))) => Some(Val::Pred(p.xor(q.clone()))),
        _ => None,
    }
}

fn opt(p: Option<Poly>) -> Val {
    p.map_or(Val::Unknown, Val::Num)
}

/// `floor(e / m)`, read as a compiler's division by a constant where it is one: a shift of a
/// floor composes (`floor((floor(a/m) + c)/n) = floor((a + c·m)/(m·n))`), and
/// `floor(M·y / 2^k)` with `d = ceil(2^k / M)` and `M·d − 2^k ≤ 2^(k−32)` equals `floor(y / d)`
/// for every 32-bit `y` (Granlund and Montgomery's multiply-high division).
fn floor_div_magic(e: &LinExpr, m: i128) -> LinExpr {
    let (raw, m) = match (e.terms.len(), e.terms.iter().next()) {
        (1, Some((Atom::Floor(inner, m0), 1))) => (inner.add_const(e.constant * m0), m0 * m),
        _ => (e.clone(), m),
    };
    let k = m.trailing_zeros() as i128;
    let g = raw
        .terms
        .values()
        .fold(raw.constant, |g, c| num_integer::Integer::gcd(&g, c));
    if m.count_ones() == 1 && (32..=96).contains(&k) && g >= 2 {
        let d = (m + g - 1) / g;
        let err = g * d - m;
        if d >= 2 && err <= 1i128 << (k - 32) {
            let y = LinExpr {
                terms: raw.terms.iter().map(|(a, c)| (a.clone(), c / g)).collect(),
                constant: raw.constant / g,
            };
            return y.floor_div(d);
        }
    }
    raw.floor_div(m)
}

/// `max(x, y)` (`want_max`) or `min(x, y)` as a named value ([`crate::named`]); an argument
/// that is itself a named extremum of the same kind, plus a constant, lends its arguments, so
/// nested bounds stay one flat tree.
/// Whether a min, max or select of these would nest named values past [`named::MAX_DEPTH`].
fn too_deep(args: &[&LinExpr]) -> bool {
    args.iter().any(|e| named::depth(e) >= named::MAX_DEPTH)
}

fn extremum(want_max: bool, x: LinExpr, y: LinExpr) -> LinExpr {
    let unfold = |e: &LinExpr| -> Piecewise {
        let syms: Vec<(&Atom, &i128)> = e
            .terms
            .iter()
            .filter(|(a, _)| matches!(a, Atom::Var(v) if named::is_symbol(v)))
            .collect();
        if let [(Atom::Var(s), 1)] = syms.as_slice() {
            let rest = e.sub(&LinExpr::var(s));
            match named::definition(s) {
                Some(t @ Piecewise::Max(_)) if want_max => {
                    return t.map_monotone(&|l| l.add(&rest))
                }
                Some(t @ Piecewise::Min(_)) if !want_max => {
                    return t.map_monotone(&|l| l.add(&rest))
                }
                _ => {}
            }
        }
        Piecewise::Leaf(e.clone())
    };
    let t = Piecewise::extremum(want_max, unfold(&x), unfold(&y)).unwrap_or_else(|| {
        let v = vec![Piecewise::Leaf(x), Piecewise::Leaf(y)];
        if want_max {
            Piecewise::Max(v)
        } else {
            Piecewise::Min(v)
        }
    });
    named::name(t)
}

/// `x cmp y` as a condition (unsigned comparisons are taken on the mathematical integers).
fn compare(cmp: &str, x: &LinExpr, y: &LinExpr) -> Option<Cond> {
    let d = x.sub(y); // x - y
    Some(match cmp {
        "lt" | "lo" => Cond::Ge(d.scale(-1).add_const(-1)),
        "le" | "ls" => Cond::Ge(d.scale(-1)),
        "gt" | "hi" => Cond::Ge(d.add_const(-1)),
        "ge" | "hs" => Cond::Ge(d),
        "eq" => Cond::Eq(d),
        "ne" => Cond::Eq(d).not(),
        _ => return None,
    })
}

/// `x cmp y` on unsigned registers of `bits` bits. A register holds its value modulo 2^bits,
/// so a difference that went below zero (clang's range check `4 <= x && x < 676` becomes
/// `x - 4 <u 672`) is a huge unsigned number: against a constant `c` below 2^(bits-1), `x <u c`
/// is `0 <= x < c` and `x >u c` is `x > c or x < 0`, for any `x` in [-2^(bits-1), 2^bits).
/// Between two non-constant values the comparison is taken on the mathematical integers, as
/// both are then counters, sizes or indices that do not wrap.
fn compare_unsigned(cmp: &str, x: &LinExpr, y: &LinExpr, bits: u32) -> Option<Cond> {
    let half = 1i128 << (bits.min(127) - 1);
    let small = |e: &LinExpr| e.terms.is_empty() && (0..half).contains(&e.constant);
    let flipped = match cmp {
        "lt" | "lo" => "gt",
        "le" | "ls" => "ge",
        "gt" | "hi" => "lt",
        "ge" | "hs" => "le",
        other => other,
    };
    let (var, cmp) = match (small(x), small(y)) {
        (false, true) => (x, cmp),
        (true, false) => (y, flipped),
        _ => return compare(cmp, x, y),
    };
    let c = if std::ptr::eq(var, x) { y } else { x };
    let plain = compare(cmp, var, c)?;
    let non_negative = Cond::Ge(var.clone());
    Some(match cmp {
        "lt" | "lo" | "le" | "ls" => non_negative.and(plain),
        "gt" | "hi" | "ge" | "hs" => non_negative.not().or(plain),
        _ => plain,
    })
}

#[allow(dead_code)]
fn atom_is(a: &Atom, name: &str) -> bool {
    matches!(a, Atom::Var(v) if &**v == name)
}
