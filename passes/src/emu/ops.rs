//! Per-lane semantics of the value-computing instructions (everything except memory, control,
//! and the warp-collective shuffles and votes, which live in `exec`). Float arithmetic is done in
//! f64 and rounded once to the instruction's type (exact for f32 add/sub/mul/div/sqrt, whose f64
//! results round correctly); f32/f64 fused multiply-add uses the correctly rounded `mul_add`.

use super::alu::{self, Rnd, Ty};
use super::decode::{self, Cmp, DInst, Op};

const F_AND: u32 = decode::flag("and");
const F_CARRY: u32 = decode::flag("carry");
const F_CC: u32 = decode::flag("cc");
const F_FINITE: u32 = decode::flag("finite");
const F_HI: u32 = decode::flag("hi");
const F_INFINITE: u32 = decode::flag("infinite");
const F_L: u32 = decode::flag("l");
const F_NORMAL: u32 = decode::flag("normal");
const F_NOTANUMBER: u32 = decode::flag("notanumber");
const F_NUMBER: u32 = decode::flag("number");
const F_OR: u32 = decode::flag("or");
const F_SAT: u32 = decode::flag("sat");
const F_SHIFTAMT: u32 = decode::flag("shiftamt");
const F_WIDE: u32 = decode::flag("wide");
const F_WRAP: u32 = decode::flag("wrap");
const F_XOR: u32 = decode::flag("xor");

/// Result of one lane: the destination value and, for `setp p|q`, the second predicate.
pub type Out = (u64, Option<u64>);

fn packed(ty: Ty) -> bool {
    matches!(ty, Ty::F16x2 | Ty::Bf16x2)
}

/// Apply a float function to (each half of) the operands and round into `ty`.
fn fmap(ty: Ty, a: u64, b: u64, c: u64, f: impl Fn(f64, f64, f64) -> f64) -> u64 {
    if packed(ty) {
        let mut r = 0u64;
        for h in 0..2 {
            let sh = 16 * h;
            let g = |x: u64| ty.float((x >> sh) & 0xffff);
            r |= (ty.from_float(f(g(a), g(b), g(c))) & 0xffff) << sh;
        }
        r
    } else {
        ty.from_float(f(ty.float(a), ty.float(b), ty.float(c)))
    }
}

fn sat01(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        a.min(b)
    }
}

fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        a.max(b)
    }
}

fn compare(ty: Ty, cmp: Cmp, a: u64, b: u64) -> bool {
    if ty.is_float() {
        let (x, y) = (ty.float(a), ty.float(b));
        let nan = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => !nan && x == y,
            Cmp::Ne => !nan && x != y,
            Cmp::Lt => !nan && x < y,
            Cmp::Le => !nan && x <= y,
            Cmp::Gt => !nan && x > y,
            Cmp::Ge => !nan && x >= y,
            Cmp::Equ => nan || x == y,
            Cmp::Neu => nan || x != y,
            Cmp::Ltu => nan || x < y,
            Cmp::Leu => nan || x <= y,
            Cmp::Gtu => nan || x > y,
            Cmp::Geu => nan || x >= y,
            Cmp::Num => !nan,
            Cmp::Nan => nan,
        };
    }
    let (x, y) = (ty.int(a), ty.int(b));
    match cmp {
        Cmp::Eq | Cmp::Equ => x == y,
        Cmp::Ne | Cmp::Neu => x != y,
        Cmp::Lt | Cmp::Ltu => x < y,
        Cmp::Le | Cmp::Leu => x <= y,
        Cmp::Gt | Cmp::Gtu => x > y,
        Cmp::Ge | Cmp::Geu => x >= y,
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}

/// Combine a comparison with the optional predicate operand (`.and`/`.or`/`.xor`).
fn combine(i: &DInst, v: bool, c: Option<u64>) -> bool {
    let Some(c) = c else { return v };
    let c = c & 1 == 1;
    if i.has(F_AND) {
        v && c
    } else if i.has(F_OR) {
        v || c
    } else if i.has(F_XOR) {
        v ^ c
    } else {
        v
    }
}

/// Double-width type of `mul.wide` / `mad.wide`.
fn wide(ty: Ty) -> Ty {
    match ty {
        Ty::S16 => Ty::S32,
        Ty::U16 => Ty::U32,
        Ty::S32 => Ty::S64,
        _ => Ty::U64,
    }
}

fn int_mul(i: &DInst, ty: Ty, a: u64, b: u64) -> u64 {
    // two u64 make up to 128 bits, past i128's top: wrapped, the bits are still the product's
    let p = ty.int(a).wrapping_mul(ty.int(b));
    if i.has(F_HI) {
        ty.wrap(p >> ty.bits())
    } else if i.has(F_WIDE) {
        wide(ty).wrap(p)
    } else {
        ty.wrap(p)
    }
}

/// `add{.cc}`/`addc{.cc}`, `sub{.cc}`/`subc{.cc}`, `mad{.cc}.lo|hi`/`madc{.cc}.lo|hi` on the
/// unsigned bit patterns: the value, and the carry (for subtraction the borrow) out. A carry-in
/// (`addc`, `subc`, `madc`) is the last source.
fn with_carry(i: &DInst, s: &[u64]) -> Out {
    let bits = i.ty.bits();
    let m = i.ty.mask() as u128;
    let arg = |k: usize| s.get(k).copied().unwrap_or(0) as u128 & m;
    let (x, y, rest) = match i.op {
        // the low or high half of the product, then the addend
        Op::Mad => (int_mul(i, i.ty, s[0], s[1]) as u128 & m, arg(2), 3),
        _ => (arg(0), arg(1), 2),
    };
    let cin = if i.has(F_CARRY) {
        s.get(rest).copied().unwrap_or(0) as u128 & 1
    } else {
        0
    };
    if i.op == Op::Sub {
        let borrow = y + cin > x;
        let v = x.wrapping_sub(y + cin) & m;
        (v as u64, Some(borrow as u64))
    } else {
        let full = x + y + cin;
        ((full & m) as u64, Some((full >> bits) as u64 & 1))
    }
}

/// One lane of an instruction [`fast`] found: (type, sources a, b, c) to the value.
pub type LaneFn = fn(Ty, u64, u64, u64) -> u64;

/// The lane function of the commonest integer instructions (`add`, `sub`, `mul.lo`, `mul.wide`,
/// `mad.lo`, `mad.wide`, `and`, `or`, `xor`, `shl` without `.sat` or carries), whose value is
/// [`eval`]'s (tested against it for every type and any bits): a warp runs it on each lane
/// without [`eval`]'s decoding per lane, which cost more than the arithmetic. `None` for every
/// other instruction.
pub fn fast(i: &DInst) -> Option<LaneFn> {
    let ty = i.ty;
    if ty.is_float() || matches!(ty, Ty::Pred | Ty::B128) {
        return None;
    }
    let is_wide = match i.flags {
        0 => false,
        F_WIDE if matches!(i.op, Op::Mul | Op::Mad) => true,
        _ => return None,
    };
    // the low bits of a sum or product do not depend on how the operands extend
    let f: LaneFn = match (i.op, is_wide) {
        (Op::Add, false) => |t, a, b, _| a.wrapping_add(b) & t.mask(),
        (Op::Sub, false) => |t, a, b, _| a.wrapping_sub(b) & t.mask(),
        (Op::Mul, false) => |t, a, b, _| a.wrapping_mul(b) & t.mask(),
        (Op::Mad, false) => |t, a, b, c| a.wrapping_mul(b).wrapping_add(c) & t.mask(),
        (Op::Mul, true) => |t, a, b, _| wide(t).wrap(t.int(a).wrapping_mul(t.int(b))),
        (Op::Mad, true) => |t, a, b, c| {
            let w = wide(t);
            w.wrap(w.int(w.wrap(t.int(a).wrapping_mul(t.int(b)))) + w.int(c))
        },
        (Op::And, _) => |t, a, b, _| a & b & t.mask(),
        (Op::Or, _) => |t, a, b, _| (a | b) & t.mask(),
        (Op::Xor, _) => |t, a, b, _| (a ^ b) & t.mask(),
        (Op::Shl, _) => |t, a, b, _| {
            let n = b as u32;
            if n >= t.bits() {
                0
            } else {
                (a << n) & t.mask()
            }
        },
        _ => return None,
    };
    Some(f)
}

/// One lane of a `setp` with two sources (nothing to combine its result with): [`eval`]'s
/// first predicate.
pub fn setp(i: &DInst, a: u64, b: u64) -> u64 {
    compare(i.ty, i.cmp, a, b) as u64
}

/// Evaluate one lane. `s` holds the source values in operand order (predicates as 0/1).
pub fn eval(i: &DInst, s: &[u64]) -> Result<Out, String> {
    let ty = i.ty;
    let a = s.first().copied().unwrap_or(0);
    let b = s.get(1).copied().unwrap_or(0);
    let c = s.get(2).copied().unwrap_or(0);
    let f = ty.is_float();
    let sat = i.has(F_SAT);
    let fsat = |x: f64| if sat { sat01(x) } else { x };
    let bits = ty.bits();
    if !f && (i.has(F_CC) || i.has(F_CARRY)) && matches!(i.op, Op::Add | Op::Sub | Op::Mad) {
        return Ok(with_carry(i, s));
    }
    let v = match i.op {
        Op::Add | Op::Sub if f => {
            let neg = i.op == Op::Sub;
            fmap(ty, a, b, 0, |x, y, _| fsat(if neg { x - y } else { x + y }))
        }
        Op::Add | Op::Sub => {
            let (x, y) = (ty.int(a), ty.int(b));
            let r = if i.op == Op::Sub { x - y } else { x + y };
            if sat {
                ty.saturate(r)
            } else {
                ty.wrap(r)
            }
        }
        Op::Mul if f => fmap(ty, a, b, 0, |x, y, _| fsat(x * y)),
        Op::Mul => int_mul(i, ty, a, b),
        Op::Mad | Op::Fma if f => match ty {
            Ty::F32 => {
                let r = f32::from_bits(a as u32)
                    .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
                (if sat { sat01(r as f64) as f32 } else { r }).to_bits() as u64
            }
            Ty::F64 => {
                let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
                (if sat { sat01(r) } else { r }).to_bits()
            }
            _ => fmap(ty, a, b, c, |x, y, z| fsat(x.mul_add(y, z))),
        },
        Op::Mad => {
            let dt = if i.has(F_WIDE) { wide(ty) } else { ty };
            let p = int_mul(i, ty, a, b);
            let r = dt.int(p) + dt.int(c);
            if sat {
                dt.saturate(r)
            } else {
                dt.wrap(r)
            }
        }
        Op::Mul24 | Op::Mad24 => {
            let m = |x: u64| {
                let t = if ty.signed() { Ty::S32 } else { Ty::U32 };
                let x24 = x & 0xff_ffff;
                if t.signed() && x24 & 0x80_0000 != 0 {
                    x24 as i128 - (1 << 24)
                } else {
                    x24 as i128
                }
            };
            let p = m(a) * m(b);
            let p = if i.has(F_HI) { p >> 16 } else { p };
            let add = if i.op == Op::Mad24 { ty.int(c) } else { 0 };
            ty.wrap(p + add)
        }
        Op::Dp4a | Op::Dp2a => alu::dot(i.op == Op::Dp2a, i.has(F_HI), ty, i.ty2, a, b, c),
        Op::Sad => ty.wrap(ty.int(c) + (ty.int(a) - ty.int(b)).abs()),
        Op::Policy => 0,
        Op::Div if f => fmap(ty, a, b, 0, |x, y, _| x / y),
        Op::Div | Op::Rem => {
            let (x, y) = (ty.int(a), ty.int(b));
            if y == 0 {
                ty.mask()
            } else if i.op == Op::Div {
                ty.wrap(x / y)
            } else {
                ty.wrap(x % y)
            }
        }
        Op::Min | Op::Max if f => {
            let mx = i.op == Op::Max;
            fmap(
                ty,
                a,
                b,
                0,
                |x, y, _| if mx { fmax(x, y) } else { fmin(x, y) },
            )
        }
        Op::Min => ty.wrap(ty.int(a).min(ty.int(b))),
        Op::Max => ty.wrap(ty.int(a).max(ty.int(b))),
        Op::Abs if f => fmap(ty, a, 0, 0, |x, _, _| x.abs()),
        Op::Abs => ty.wrap(ty.int(a).abs()),
        Op::Neg if f => fmap(ty, a, 0, 0, |x, _, _| -x),
        Op::Neg => ty.wrap(-ty.int(a)),
        Op::And => a & b & ty.mask(),
        Op::Or => (a | b) & ty.mask(),
        Op::Xor => (a ^ b) & ty.mask(),
        Op::Not => !a & ty.mask(),
        Op::Cnot => (a & ty.mask() == 0) as u64,
        Op::Shl => {
            let n = b as u32;
            if n >= bits {
                0
            } else {
                (a << n) & ty.mask()
            }
        }
        Op::Shr => {
            let n = (b as u32).min(bits);
            if ty.signed() {
                ty.wrap(ty.int(a) >> n.min(bits - 1))
            } else if n >= bits {
                0
            } else {
                (a & ty.mask()) >> n
            }
        }
        Op::Shf => {
            // shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of b:a by c.
            let n = if i.has(F_WRAP) {
                (c as u32) & 31
            } else {
                (c as u32).min(32)
            };
            let v = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
            if i.has(F_L) {
                ((v << n) >> 32) & 0xffff_ffff
            } else {
                (v >> n) & 0xffff_ffff
            }
        }
        Op::Bfe => alu::bfe(ty, a, b as u32, c as u32),
        Op::Bfi => alu::bfi(ty, a, b, c as u32, s.get(3).copied().unwrap_or(0) as u32),
        Op::Popc => (a & ty.mask()).count_ones() as u64,
        Op::Clz => ((a & ty.mask()).leading_zeros() - (64 - bits)) as u64,
        Op::Bfind => {
            let x = a & ty.mask();
            let x = if ty.signed() && (x >> (bits - 1)) & 1 == 1 {
                !x & ty.mask()
            } else {
                x
            };
            if x == 0 {
                0xffff_ffff
            } else {
                let p = 63 - x.leading_zeros() as u64;
                if i.has(F_SHIFTAMT) {
                    bits as u64 - 1 - p
                } else {
                    p
                }
            }
        }
        Op::Brev => (a & ty.mask()).reverse_bits() >> (64 - bits),
        Op::Prmt => alu::prmt(a as u32, b as u32, c as u32) as u64,
        Op::Lop3 => alu::lop3(a, b, c, s.get(3).copied().unwrap_or(0) as u8) & ty.mask(),
        Op::Copysign => fmap(ty, a, b, 0, |x, y, _| y.copysign(x)),
        Op::Selp => {
            if c & 1 == 1 {
                a
            } else {
                b
            }
        }
        Op::Setp => {
            let r = compare(ty, i.cmp, a, b);
            let p = combine(i, r, s.get(2).copied());
            let q = combine(i, !r, s.get(2).copied());
            return Ok((p as u64, Some(q as u64)));
        }
        Op::Set => {
            let r = combine(i, compare(i.ty2, i.cmp, a, b), s.get(2).copied());
            if ty.is_float() {
                ty.from_float(if r { 1.0 } else { 0.0 })
            } else if r {
                ty.mask()
            } else {
                0
            }
        }
        Op::Rcp => fmap(ty, a, 0, 0, |x, _, _| 1.0 / x),
        Op::Sqrt => fmap(ty, a, 0, 0, |x, _, _| x.sqrt()),
        Op::Rsqrt => fmap(ty, a, 0, 0, |x, _, _| 1.0 / x.sqrt()),
        Op::Ex2 => fmap(ty, a, 0, 0, |x, _, _| x.exp2()),
        Op::Lg2 => fmap(ty, a, 0, 0, |x, _, _| x.log2()),
        Op::Sin => fmap(ty, a, 0, 0, |x, _, _| x.sin()),
        Op::Cos => fmap(ty, a, 0, 0, |x, _, _| x.cos()),
        Op::Tanh => fmap(ty, a, 0, 0, |x, _, _| x.tanh()),
        Op::Testp => {
            let x = ty.float(a);
            let r = if i.has(F_FINITE) {
                x.is_finite()
            } else if i.has(F_INFINITE) {
                x.is_infinite()
            } else if i.has(F_NUMBER) {
                !x.is_nan()
            } else if i.has(F_NOTANUMBER) {
                x.is_nan()
            } else if i.has(F_NORMAL) {
                x.is_normal()
            } else {
                x.is_subnormal()
            };
            r as u64
        }
        Op::Cvt => cvt(i, a)?,
        _ => return Err(format!("{:?} is not a per-lane value operation", i.op)),
    };
    Ok((v, None))
}

/// `cvt.{rnd}.{sat}.dst.src`.
fn cvt(i: &DInst, a: u64) -> Result<u64, String> {
    let (dt, st) = (i.ty, i.ty2);
    let sat = i.has(F_SAT);
    Ok(match (dt.is_float(), st.is_float()) {
        (false, false) => {
            let v = st.int(a);
            if sat {
                dt.saturate(v)
            } else {
                dt.wrap(v)
            }
        }
        (true, false) => int_to(st.int(a), i.rnd, dt),
        (false, true) => alu::float_to_int(st.float(a), i.irnd.unwrap_or(Rnd::Rz), dt),
        (true, true) => {
            let x = st.float(a);
            let x = match i.irnd {
                Some(r) => alu::round_int(x, r),
                None => x,
            };
            let x = if sat { sat01(x) } else { x };
            match dt {
                Ty::F32 if st == Ty::F64 && i.irnd.is_none() => {
                    alu::f64_to_f32(x, i.rnd).to_bits() as u64
                }
                _ => dt.from_float(x),
            }
        }
    })
}

fn int_to(v: i128, r: Rnd, dt: Ty) -> u64 {
    alu::int_to_float(v, r, dt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::decode::{self, Cmp, DInst, Op};
    use crate::stats::Space;

    fn di(op: Op, ty: Ty, mods: &[&str]) -> DInst {
        DInst {
            op,
            ty,
            ty2: ty,
            flags: decode::flags_of(&mods.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
            rnd: Rnd::Rn,
            irnd: None,
            cmp: Cmp::Lt,
            space: Space::Generic,
            dst: vec![],
            src: vec![],
            guard: None,
            target: 0,
            line: 1,
            text: String::new(),
            op_feat: None,
            mem: None,
            cta_barrier: false,
            always: false,
            refused: None,
        }
    }

    /// The fast lane functions give [`eval`]'s value, for every type they take, any bits in
    /// the registers and any shift.
    mod fast_lanes {
        use super::*;
        use proptest::prelude::*;

        const TYPES: [Ty; 11] = [
            Ty::U8,
            Ty::S8,
            Ty::U16,
            Ty::S16,
            Ty::U32,
            Ty::S32,
            Ty::U64,
            Ty::S64,
            Ty::B16,
            Ty::B32,
            Ty::B64,
        ];

        fn forms() -> Vec<(Op, &'static [&'static str])> {
            vec![
                (Op::Add, &[]),
                (Op::Sub, &[]),
                (Op::Mul, &[]),
                (Op::Mul, &["wide"]),
                (Op::Mad, &[]),
                (Op::Mad, &["wide"]),
                (Op::And, &[]),
                (Op::Or, &[]),
                (Op::Xor, &[]),
                (Op::Shl, &[]),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn give_what_eval_gives(
                form in 0usize..10,
                t in 0usize..11,
                a in any::<u64>(),
                b in prop_oneof![any::<u64>(), 0u64..70],
                c in any::<u64>(),
            ) {
                let (op, mods) = forms()[form];
                let ty = TYPES[t];
                let i = di(op, ty, mods);
                let f = fast(&i);
                prop_assert!(f.is_some());
                let want = eval(&i, &[a, b, c]).unwrap();
                prop_assert_eq!(want.1, None);
                prop_assert_eq!(f.unwrap()(ty, a, b, c), want.0);
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn a_setp_of_two_sources_gives_eval_s_first_predicate(
                t in 0usize..14,
                cmp in 0usize..14,
                a in any::<u64>(),
                b in prop_oneof![any::<u64>(), Just(0u64)],
            ) {
                let types = [Ty::U16, Ty::S16, Ty::U32, Ty::S32, Ty::U64, Ty::S64, Ty::B32,
                    Ty::B64, Ty::F32, Ty::F64, Ty::F16, Ty::U8, Ty::S8, Ty::B16];
                let cmps = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Equ,
                    Cmp::Neu, Cmp::Ltu, Cmp::Leu, Cmp::Gtu, Cmp::Geu, Cmp::Num, Cmp::Nan];
                let mut i = di(Op::Setp, types[t], &[]);
                i.cmp = cmps[cmp];
                prop_assert_eq!(setp(&i, a, b), eval(&i, &[a, b]).unwrap().0);
            }
        }

        #[test]
        fn others_are_left_to_eval() {
            assert!(fast(&di(Op::Add, Ty::S32, &["sat"])).is_none());
            assert!(fast(&di(Op::Add, Ty::U32, &["cc"])).is_none());
            assert!(fast(&di(Op::Mul, Ty::U32, &["hi"])).is_none());
            assert!(fast(&di(Op::Add, Ty::F32, &[])).is_none());
            assert!(fast(&di(Op::Shr, Ty::S32, &[])).is_none());
            assert!(fast(&di(Op::Add, Ty::Pred, &[])).is_none());
        }
    }

    #[test]
    fn integer_ops() {
        let neg1 = Ty::S32.wrap(-1);
        assert_eq!(eval(&di(Op::Add, Ty::S32, &[]), &[neg1, 3]).unwrap().0, 2);
        assert_eq!(
            eval(&di(Op::Mul, Ty::S32, &["wide"]), &[neg1, 5])
                .unwrap()
                .0,
            Ty::S64.wrap(-5)
        );
        assert_eq!(
            eval(&di(Op::Mul, Ty::U32, &["hi"]), &[0x8000_0000, 4])
                .unwrap()
                .0,
            2
        );
        assert_eq!(
            eval(&di(Op::Shr, Ty::S32, &[]), &[neg1, 40]).unwrap().0,
            neg1
        );
        assert_eq!(eval(&di(Op::Shl, Ty::B32, &[]), &[1, 33]).unwrap().0, 0);
        assert_eq!(eval(&di(Op::Clz, Ty::B32, &[]), &[1]).unwrap().0, 31);
        assert_eq!(
            eval(&di(Op::Brev, Ty::B32, &[]), &[1]).unwrap().0,
            0x8000_0000
        );
        assert_eq!(
            eval(&di(Op::Shf, Ty::B32, &["l", "wrap"]), &[0x8000_0000, 1, 1])
                .unwrap()
                .0,
            3
        );
        assert_eq!(
            eval(&di(Op::Rem, Ty::S32, &[]), &[Ty::S32.wrap(-7), 3])
                .unwrap()
                .0,
            neg1
        );
        let (p, q) = eval(&di(Op::Setp, Ty::S32, &[]), &[neg1, 0]).unwrap();
        assert_eq!((p, q), (1, Some(0)));
        let mut u = di(Op::Setp, Ty::U32, &[]);
        u.cmp = Cmp::Lt;
        assert_eq!(eval(&u, &[neg1, 0]).unwrap().0, 0);
    }

    #[test]
    fn float_ops_and_cvt() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(
            eval(&di(Op::Fma, Ty::F32, &["rn"]), &[f(2.0), f(3.0), f(1.0)])
                .unwrap()
                .0,
            f(7.0)
        );
        assert_eq!(
            eval(&di(Op::Min, Ty::F32, &[]), &[f(f32::NAN), f(1.0)])
                .unwrap()
                .0,
            f(1.0)
        );
        let mut c = di(Op::Cvt, Ty::S32, &["rzi"]);
        c.ty2 = Ty::F32;
        c.irnd = Some(Rnd::Rz);
        assert_eq!(eval(&c, &[f(-3.7)]).unwrap().0, Ty::S32.wrap(-3));
        let mut h = di(Op::Cvt, Ty::F16, &["rn"]);
        h.ty2 = Ty::F32;
        assert_eq!(eval(&h, &[f(1.5)]).unwrap().0, 0x3e00);
        let h2 = eval(&di(Op::Add, Ty::F16x2, &[]), &[0x3c00_3c00, 0x3e00_4000])
            .unwrap()
            .0;
        assert_eq!(h2, 0x4100_4200);
    }
}
