//! The distributions of `<random>` as libstdc++ computes them (`bits/uniform_int_dist.h`,
//! `bits/random.h`, `bits/random.tcc`): Lemire's bounded integers for
//! `uniform_int_distribution` (the division method where the engine's range is not 2^32 or
//! 2^64), `generate_canonical` for the real ones, Marsaglia's polar method with its saved
//! second value for `normal_distribution`.

use super::engine::{mask, Engine};
use crate::interp::value::Value;

/// An integer type as a distribution's result: its bits and signedness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntTy {
    pub bits: u32,
    pub signed: bool,
}

impl IntTy {
    pub(super) fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// A value as this type holds it (C's conversion: modulo 2^bits).
    fn wrap(self, v: i128) -> i128 {
        let m = v & ((1i128 << self.bits) - 1);
        if self.signed && m >= 1i128 << (self.bits - 1) {
            m - (1i128 << self.bits)
        } else {
            m
        }
    }
}

/// A floating result type: `float` or `double` (`long double` is not modelled).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RealTy {
    F32,
    F64,
}

#[derive(Clone, Debug)]
pub enum Dist {
    UniformInt {
        ty: IntTy,
        a: i128,
        b: i128,
    },
    UniformReal {
        ty: RealTy,
        a: f64,
        b: f64,
    },
    Normal {
        ty: RealTy,
        mean: f64,
        stddev: f64,
        saved: Option<f64>,
    },
    Bernoulli {
        p: f64,
    },
    Exponential {
        ty: RealTy,
        lambda: f64,
    },
}

/// How many numbers one call may draw before kerncast gives up on it (a rejection loop that
/// never ends, `discard` of more than any program draws).
pub(super) const DRAWS_MAX: u64 = 1 << 24;

/// The draws a call makes, bounded by [`DRAWS_MAX`].
struct Source<'a> {
    engine: &'a mut Engine,
    left: u64,
}

impl Source<'_> {
    fn next(&mut self) -> Option<u64> {
        self.left = self.left.checked_sub(1)?;
        Some(self.engine.next())
    }
}

/// libstdc++'s `_S_nd`: Lemire's nearly divisionless bounded integer in `[0, range)`, for an
/// engine whose range is `2^digits`.
fn lemire(src: &mut Source<'_>, range: u64, digits: u32) -> Option<u64> {
    let low_mask = mask(digits) as u128;
    let mut product = u128::from(src.next()?) * u128::from(range);
    let mut low = (product & low_mask) as u64;
    if low < range {
        let threshold = (range.wrapping_neg() & mask(digits)) % range;
        while low < threshold {
            product = u128::from(src.next()?) * u128::from(range);
            low = (product & low_mask) as u64;
        }
    }
    Some((product >> digits) as u64)
}

/// libstdc++'s `uniform_int_distribution::operator()` over an engine whose `result_type` is
/// 64 bits wide (every engine of the standard's typedefs on LP64), offset from `a`.
fn uniform_int(src: &mut Source<'_>, urange: u64) -> Option<u64> {
    let (min, max) = (src.engine.min(), src.engine.max());
    let urngrange = max - min;
    if urngrange > urange {
        let uerange = urange + 1;
        if urngrange == u64::MAX {
            lemire(src, uerange, 64)
        } else if urngrange == u64::from(u32::MAX) {
            lemire(src, uerange, 32)
        } else {
            let scaling = urngrange / uerange;
            let past = uerange * scaling;
            loop {
                let r = src.next()? - min;
                if r < past {
                    return Some(r / scaling);
                }
            }
        }
    } else if urngrange < urange {
        // upscaling: a high part from a recursive draw, a low one from the engine
        let uerngrange = urngrange + 1;
        loop {
            let tmp = uerngrange.wrapping_mul(uniform_int(src, urange / uerngrange)?);
            let r = tmp.wrapping_add(src.next()? - min);
            if !(r > urange || r < tmp) {
                return Some(r);
            }
        }
    } else {
        Some(src.next()? - min)
    }
}

/// A floating type as the library computes in it: every operation rounds to the type.
trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    const DIGITS: u32;
    fn of(v: f64) -> Self;
    fn of_u64(v: u64) -> Self;
    fn f64(self) -> f64;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    /// The largest value below 1 (`nextafter(1, 0)`).
    fn below_one() -> Self;
}

impl Real for f32 {
    const DIGITS: u32 = 24;
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn of_u64(v: u64) -> f32 {
        v as f32
    }
    fn f64(self) -> f64 {
        f64::from(self)
    }
    fn ln(self) -> f32 {
        f32::ln(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn below_one() -> f32 {
        f32::from_bits(1f32.to_bits() - 1)
    }
}

impl Real for f64 {
    const DIGITS: u32 = 53;
    fn of(v: f64) -> f64 {
        v
    }
    fn of_u64(v: u64) -> f64 {
        v as f64
    }
    fn f64(self) -> f64 {
        self
    }
    fn ln(self) -> f64 {
        f64::ln(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn below_one() -> f64 {
        f64::from_bits(1f64.to_bits() - 1)
    }
}

/// ⌊log2(range)⌋ of an engine's range `max - min + 1` (libstdc++ takes `log(r) / log(2)`).
fn log2_range(engine: &Engine) -> u64 {
    let span = engine.max() - engine.min();
    match span.checked_add(1) {
        None => 64,
        Some(r) => u64::from(63 - r.leading_zeros()),
    }
}

/// libstdc++'s `generate_canonical<RealType, digits>`: a real in `[0, 1)` from as many draws
/// as its mantissa needs.
fn canonical<T: Real>(src: &mut Source<'_>) -> Option<T> {
    let min = src.engine.min();
    // the range as libstdc++ keeps it, in a long double: exact, at most 2^64
    let r = (src.engine.max() - min) as f64 + 1.0;
    let log2r = log2_range(src.engine).max(1);
    let m = u64::from(T::DIGITS).div_ceil(log2r).max(1);
    let (mut sum, mut tmp) = (T::of(0.0), T::of(1.0));
    for _ in 0..m {
        sum = sum + T::of_u64(src.next()? - min) * tmp;
        // `tmp *= r` is computed in long double; its products here are powers of two or
        // fit 64 bits, so one rounding to the type gives the same
        tmp = T::of(tmp.f64() * r);
    }
    let ret = sum / tmp;
    Some(if ret >= T::of(1.0) {
        T::below_one()
    } else {
        ret
    })
}

fn uniform_real<T: Real>(src: &mut Source<'_>, a: f64, b: f64) -> Option<f64> {
    let (a, b) = (T::of(a), T::of(b));
    Some((canonical::<T>(src)? * (b - a) + a).f64())
}

/// Marsaglia's polar method as libstdc++ writes it: two normal values per accepted pair, the
/// second saved for the next call.
fn normal<T: Real>(src: &mut Source<'_>, saved: &mut Option<f64>) -> Option<f64> {
    if let Some(z) = saved.take() {
        return Some(z);
    }
    let (one, two) = (T::of(1.0), T::of(2.0));
    let (x, y, r2) = loop {
        let x = two * canonical::<T>(src)? - one;
        let y = two * canonical::<T>(src)? - one;
        let r2 = x * x + y * y;
        if !(r2 > one || r2 == T::of(0.0)) {
            break (x, y, r2);
        }
    };
    let mult = (T::of(-2.0) * r2.ln() / r2).sqrt();
    *saved = Some((x * mult).f64());
    Some((y * mult).f64())
}

fn exponential<T: Real>(src: &mut Source<'_>, lambda: f64) -> Option<f64> {
    let u = canonical::<T>(src)?;
    let v = (T::of(1.0) - u).ln();
    Some((T::of(0.0) - v / T::of(lambda)).f64())
}

/// `z * stddev + mean` in the distribution's type.
fn scaled<T: Real>(z: f64, mean: f64, stddev: f64) -> f64 {
    (T::of(z) * T::of(stddev) + T::of(mean)).f64()
}

impl Dist {
    /// One number drawn with `engine`, as the distribution's result type gives it; `None`
    /// where the draws run past [`DRAWS_MAX`].
    pub fn draw(&mut self, engine: &mut Engine) -> Option<Value> {
        let src = &mut Source {
            engine,
            left: DRAWS_MAX,
        };
        match self {
            Dist::UniformInt { ty, a, b } => {
                let urange = (*b as u64).wrapping_sub(*a as u64);
                let r = uniform_int(src, urange)?;
                Some(Value::Int(ty.wrap(i128::from(r) + *a)))
            }
            Dist::UniformReal { ty, a, b } => Some(Value::Float(match ty {
                RealTy::F32 => uniform_real::<f32>(src, *a, *b)?,
                RealTy::F64 => uniform_real::<f64>(src, *a, *b)?,
            })),
            Dist::Normal {
                ty,
                mean,
                stddev,
                saved,
            } => Some(Value::Float(match ty {
                RealTy::F32 => scaled::<f32>(normal::<f32>(src, saved)?, *mean, *stddev),
                RealTy::F64 => scaled::<f64>(normal::<f64>(src, saved)?, *mean, *stddev),
            })),
            Dist::Bernoulli { p } => Some(Value::Int(i128::from(canonical::<f64>(src)? < *p))),
            Dist::Exponential { ty, lambda } => Some(Value::Float(match ty {
                RealTy::F32 => exponential::<f32>(src, *lambda)?,
                RealTy::F64 => exponential::<f64>(src, *lambda)?,
            })),
        }
    }

    /// `reset()`: the distribution forgets the value it saved.
    pub fn reset(&mut self) {
        if let Dist::Normal { saved, .. } = self {
            *saved = None;
        }
    }
}
