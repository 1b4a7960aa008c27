//! Scalar semantics of PTX arithmetic on raw register bits. Why raw bits: a PTX register is
//! untyped storage (`.b32` moves reinterpret `.f32`), so every value is a `u64` and each
//! instruction's type says how to read and write it.

use half::{bf16, f16};

/// A PTX scalar type as the emulator needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Pred,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            Ty::B8 | Ty::U8 | Ty::S8 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
            Ty::B128 => 128,
            Ty::Pred => 1,
        }
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 | Ty::F32 | Ty::F64
        )
    }

    /// Mask of the type's bits inside a 64-bit register.
    pub fn mask(self) -> u64 {
        match self.bits() {
            b if b >= 64 => u64::MAX,
            b => (1u64 << b) - 1,
        }
    }

    /// The type's value as a sign- or zero-extended integer.
    pub fn int(self, v: u64) -> i128 {
        let b = self.bits().min(64);
        if self.signed() {
            let sh = 64 - b;
            (((v << sh) as i64) >> sh) as i128
        } else {
            (v & self.mask()) as i128
        }
    }

    /// Wrap an integer into the type's bits.
    pub fn wrap(self, v: i128) -> u64 {
        (v as u64) & self.mask()
    }

    /// Saturate an integer into the type's range.
    pub fn saturate(self, v: i128) -> u64 {
        let b = self.bits().min(64);
        let (lo, hi) = if self.signed() {
            (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
        } else {
            (0, (1i128 << b) - 1)
        };
        self.wrap(v.clamp(lo, hi))
    }

    /// Read a float-typed value (scalar f16/bf16/f32/f64) as f64.
    pub fn float(self, v: u64) -> f64 {
        match self {
            Ty::F16 | Ty::F16x2 => f16::from_bits(v as u16).to_f64(),
            Ty::Bf16 | Ty::Bf16x2 => bf16::from_bits(v as u16).to_f64(),
            Ty::F32 => f32::from_bits(v as u32) as f64,
            _ => f64::from_bits(v),
        }
    }

    /// Round an f64 into the float type's bits (round to nearest even).
    pub fn from_float(self, x: f64) -> u64 {
        match self {
            Ty::F16 | Ty::F16x2 => f16::from_f64(x).to_bits() as u64,
            Ty::Bf16 | Ty::Bf16x2 => bf16::from_f64(x).to_bits() as u64,
            Ty::F32 => (x as f32).to_bits() as u64,
            _ => x.to_bits(),
        }
    }
}

/// Float rounding modes of cvt and arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rnd {
    #[default]
    Rn,
    Rz,
    Rm,
    Rp,
}

/// Round a float to an integral value under a rounding mode.
pub fn round_int(x: f64, r: Rnd) -> f64 {
    match r {
        Rnd::Rn => {
            let f = x.floor();
            let d = x - f;
            if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
                f + 1.0
            } else {
                f
            }
        }
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    }
}

/// f64 -> f32 under a directed rounding mode.
pub fn f64_to_f32(x: f64, r: Rnd) -> f32 {
    let n = x as f32;
    if n.is_nan() || n.is_infinite() || (n as f64) == x {
        return n;
    }
    let up = (n as f64) < x;
    let toward = |inc: bool| {
        let b = n.to_bits();
        let pos = n > 0.0 || (n == 0.0 && inc);
        if n == 0.0 {
            let t = f32::from_bits(1);
            return if inc { t } else { -t };
        }
        f32::from_bits(if inc == pos { b + 1 } else { b - 1 })
    };
    match r {
        Rnd::Rn => n,
        Rnd::Rz => {
            if (x > 0.0) == up {
                toward(x < 0.0)
            } else {
                n
            }
        }
        Rnd::Rm => {
            if up {
                n
            } else {
                toward(false)
            }
        }
        Rnd::Rp => {
            if up {
                toward(true)
            } else {
                n
            }
        }
    }
}

/// Float -> integer conversion: NaN gives 0, out of range saturates (PTX cvt semantics).
pub fn float_to_int(x: f64, r: Rnd, dst: Ty) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let v = round_int(x, r);
    let b = dst.bits().min(64);
    let (lo, hi) = if dst.signed() {
        (-(2f64.powi(b as i32 - 1)), 2f64.powi(b as i32 - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(b as i32) - 1.0)
    };
    let c = v.clamp(lo, hi);
    if dst.signed() {
        dst.wrap(c as i64 as i128)
    } else {
        dst.wrap(c as u64 as i128)
    }
}

/// Integer -> float conversion of an already extended integer.
pub fn int_to_float(v: i128, r: Rnd, dst: Ty) -> u64 {
    match dst {
        Ty::F32 => {
            let x = v as f64;
            // i64 -> f64 may already round; exact enough for emulated sizes.
            f64_to_f32(x, r).to_bits() as u64
        }
        Ty::F64 => (v as f64).to_bits(),
        _ => dst.from_float(v as f64),
    }
}

/// Byte permute (`prmt.b32`, default mode).
pub fn prmt(a: u32, b: u32, sel: u32) -> u32 {
    let bytes = ((b as u64) << 32) | a as u64;
    let mut out = 0u32;
    for i in 0..4 {
        let s = (sel >> (4 * i)) & 0xf;
        let byte = ((bytes >> (8 * (s & 7))) & 0xff) as u32;
        let byte = if s & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        out |= byte << (8 * i);
    }
    out
}

/// `dp4a` (`two` false) and `dp2a` (`two` true): the sum of products of `a`'s packed bytes (or
/// 16-bit halves for `dp2a`) with `b`'s bytes, each extended as its type says, plus `c`; `dp2a`
/// takes `b`'s two low bytes, or its two high bytes with `.hi`. The result wraps to 32 bits
/// (PTX ISA, "Integer Arithmetic Instructions: dp4a, dp2a").
pub fn dot(two: bool, hi: bool, a_ty: Ty, b_ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let part = |x: u64, k: u32, bits: u32, signed: bool| {
        let v = (x >> (k * bits)) & ((1 << bits) - 1);
        if signed && v >> (bits - 1) == 1 {
            v as i128 - (1 << bits)
        } else {
            v as i128
        }
    };
    let sum: i128 = if two {
        let first = if hi { 2 } else { 0 };
        (0..2)
            .map(|k| part(a, k, 16, a_ty.signed()) * part(b, first + k, 8, b_ty.signed()))
            .sum()
    } else {
        (0..4)
            .map(|k| part(a, k, 8, a_ty.signed()) * part(b, k, 8, b_ty.signed()))
            .sum()
    };
    ((c as u32 as i128 + sum) as u64) & 0xffff_ffff
}

/// Bit-field extract: `len` bits of `a` from `pos`, sign-extended for signed types.
pub fn bfe(ty: Ty, a: u64, pos: u32, len: u32) -> u64 {
    let w = ty.bits();
    let pos = pos & 0xff;
    let len = len & 0xff;
    let a = a & ty.mask();
    let msb_fill = |p: u32| -> bool {
        if !ty.signed() || len == 0 {
            false
        } else {
            let p = p.min(w - 1);
            (a >> p) & 1 == 1
        }
    };
    let sbit = msb_fill(pos + len.max(1) - 1);
    let mut d = 0u64;
    for i in 0..w {
        let bit = if i < len && pos + i < w {
            (a >> (pos + i)) & 1 == 1
        } else {
            sbit
        };
        if bit {
            d |= 1 << i;
        }
    }
    d
}

/// Bit-field insert: `len` bits of `a` into `b` at `pos`.
pub fn bfi(ty: Ty, a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let w = ty.bits();
    let pos = pos & 0xff;
    let len = len & 0xff;
    let mut f = b;
    for i in 0..len {
        if pos + i >= w {
            break;
        }
        let bit = (a >> i) & 1;
        f = (f & !(1u64 << (pos + i))) | (bit << (pos + i));
    }
    f & ty.mask()
}

/// Three-input logic from an 8-bit truth table (`lop3.b32`).
pub fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0u64;
    for i in 0..8 {
        if lut >> i & 1 == 1 {
            let ta = if i & 4 != 0 { a } else { !a };
            let tb = if i & 2 != 0 { b } else { !b };
            let tc = if i & 1 != 0 { c } else { !c };
            r |= ta & tb & tc;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_extend_and_wrap() {
        assert_eq!(Ty::S32.int(0xffff_ffff), -1);
        assert_eq!(Ty::U32.int(0x1_ffff_ffff), 0xffff_ffff);
        assert_eq!(Ty::S16.wrap(-1), 0xffff);
        assert_eq!(Ty::S8.saturate(300), 127);
        assert_eq!(Ty::U8.saturate(-3), 0);
    }

    #[test]
    fn rounding() {
        assert_eq!(round_int(2.5, Rnd::Rn), 2.0);
        assert_eq!(round_int(3.5, Rnd::Rn), 4.0);
        assert_eq!(round_int(-2.5, Rnd::Rn), -2.0);
        assert_eq!(float_to_int(-3.7, Rnd::Rz, Ty::S32), Ty::S32.wrap(-3));
        assert_eq!(float_to_int(1e20, Rnd::Rz, Ty::S32), 0x7fff_ffff);
        assert_eq!(float_to_int(-5.0, Rnd::Rz, Ty::U32), 0);
        assert_eq!(float_to_int(f64::NAN, Rnd::Rn, Ty::S32), 0);
        let third = 1.0f64 / 3.0;
        assert!(f64_to_f32(third, Rnd::Rm) < f64_to_f32(third, Rnd::Rp));
        assert_eq!(f64_to_f32(1.0, Rnd::Rp), 1.0);
    }

    #[test]
    fn bit_ops() {
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x5140), 0x6622_5511);
        assert_eq!(bfe(Ty::U32, 0xf0, 4, 4), 0xf);
        assert_eq!(bfe(Ty::S32, 0xf0, 4, 4), 0xffff_ffff);
        assert_eq!(bfi(Ty::B32, 0x3, 0xff00, 4, 2), 0xff30);
        assert_eq!(lop3(0b1100, 0b1010, 0b1111, 0x80), 0b1000);
        assert_eq!(lop3(0xf0, 0xcc, 0xaa, 0x96), 0xf0 ^ 0xcc ^ 0xaa);
        assert_eq!(
            f16::from_f64(Ty::F16.float(Ty::F16.from_float(1.5))),
            f16::from_f32(1.5)
        );
    }
}
