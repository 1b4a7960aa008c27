//! Values a host fill loop draws, described instead of listed: `z[i] = rand() % N` over a
//! million elements, `a[i] = i`, `x[i] = (float)rand() / RAND_MAX`.
//!
//! Why: a kernel whose work depends on its data (a binary search's keys, a histogram's bins, a
//! sort's input) run on zeros takes one path for every thread, and comes out many times too
//! fast. The host reading follows an allocation's bytes only up to 64 KiB, and a fill loop of
//! a million iterations spends the allowance of a loop that launches nothing. A fill loop is
//! therefore run for [`SAMPLES`] iterations as written, and the values they stored are
//! described: a ramp where they are exactly one (its every element known), else values like
//! them (drawn from the same few values, or uniformly between the smallest and the largest,
//! as integers where all were). The emulator then runs on elements drawn that way, and the
//! report says the data is an estimate and where it comes from.

use serde::{Deserialize, Serialize};

/// How many iterations of a fill loop run as written before its values are described.
pub const SAMPLES: usize = 256;

/// At most this many distinct values among the samples are taken to be all the loop draws
/// from (`seq[rand() % 4]`, `rand() % 16`); more, and the values are taken to span a range.
const CHOICES_MAX: usize = SAMPLES / 8;

/// One element of a buffer as C stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Elem {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Elem {
    /// The element of this width and kind, where a buffer spec has one.
    pub fn of(bits: u8, float: bool, signed: bool) -> Option<Elem> {
        Some(match (float, bits, signed) {
            (true, 32, _) => Elem::F32,
            (true, 64, _) => Elem::F64,
            (false, 8, true) => Elem::I8,
            (false, 8, false) => Elem::U8,
            (false, 16, true) => Elem::I16,
            (false, 16, false) => Elem::U16,
            (false, 32, true) => Elem::I32,
            (false, 32, false) => Elem::U32,
            (false, 64, true) => Elem::I64,
            (false, 64, false) => Elem::U64,
            _ => return None,
        })
    }

    pub fn bytes(self) -> u64 {
        match self {
            Elem::I8 | Elem::U8 => 1,
            Elem::I16 | Elem::U16 => 2,
            Elem::I32 | Elem::U32 | Elem::F32 => 4,
            Elem::I64 | Elem::U64 | Elem::F64 => 8,
        }
    }

    /// Its name in a buffer spec (`i32`, `f64`).
    pub fn name(self) -> &'static str {
        match self {
            Elem::I8 => "i8",
            Elem::U8 => "u8",
            Elem::I16 => "i16",
            Elem::U16 => "u16",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
            Elem::I64 => "i64",
            Elem::U64 => "u64",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }
}

/// What the elements of a run are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Draw {
    /// Element `k` is `start + step * k`: exactly what the loop stores (`a[i] = i`, and a
    /// single value with step 0). `ints`: the values are C integers.
    Ramp { start: f64, step: f64, ints: bool },
    /// Values between `lo` and `hi`, integers where `integral`, as the samples spread.
    Uniform { lo: f64, hi: f64, integral: bool },
    /// Each element one of these values, as often as it came among the samples.
    Choice(Vec<f64>),
}

impl Draw {
    /// Describes what [`SAMPLES`] iterations of a loop stored, in order (`None` where a value
    /// is not a number): a ramp when they are one, else (`random`: the loop draws random
    /// numbers) values like them; `None` when they are neither.
    pub fn of_samples(samples: &[Option<f64>], ints: bool, random: bool) -> Option<Draw> {
        let xs: Vec<f64> = samples.iter().copied().collect::<Option<_>>()?;
        if xs.len() < 2 || xs.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let (start, step) = (xs[0], xs[1] - xs[0]);
        if xs
            .iter()
            .enumerate()
            .all(|(k, x)| start + step * k as f64 == *x)
        {
            return Some(Draw::Ramp { start, step, ints });
        }
        if !random {
            return None;
        }
        let mut distinct = xs.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        if distinct.len() <= CHOICES_MAX {
            let mut all = xs;
            all.sort_by(f64::total_cmp);
            return Some(Draw::Choice(all));
        }
        Some(Draw::Uniform {
            lo: distinct[0],
            hi: distinct[distinct.len() - 1],
            integral: xs.iter().all(|x| x.fract() == 0.0),
        })
    }

    /// Element `k`'s value where the draw gives it exactly (a ramp's), as an integer where the
    /// values are C integers.
    pub fn exact(&self, k: i64) -> Option<Exact> {
        let Draw::Ramp { start, step, ints } = self else {
            return None;
        };
        Some(match ints {
            true => Exact::Int(*start as i128 + *step as i128 * k as i128),
            false => Exact::Float(start + step * k as f64),
        })
    }
}

/// An element's value as a ramp gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exact {
    Int(i128),
    Float(f64),
}

/// The elements a device allocation holds from its start: `count` elements of `elem` as
/// `draw` describes them, and where the host drew them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drawn {
    pub elem: Elem,
    pub count: u64,
    pub draw: Draw,
    /// The loop (or the `cudaMemset`) they come from, as the report names it.
    pub origin: String,
}

impl Drawn {
    /// Whether every element is known exactly (a ramp), not only alike.
    pub fn is_exact(&self) -> bool {
        matches!(self.draw, Draw::Ramp { .. })
    }

    /// Whether every element is zero (a `cudaMemset` to 0).
    pub fn is_zeros(&self) -> bool {
        matches!(self.draw, Draw::Ramp { start, step, .. } if start == 0.0 && step == 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(xs: impl IntoIterator<Item = f64>) -> Vec<Option<f64>> {
        xs.into_iter().map(Some).collect()
    }

    #[test]
    fn a_loop_that_stores_its_counter_is_a_ramp_known_everywhere() {
        let d = Draw::of_samples(&some((0..256).map(|i| 10.0 + 2.0 * i as f64)), true, false);
        assert_eq!(
            d,
            Some(Draw::Ramp {
                start: 10.0,
                step: 2.0,
                ints: true
            })
        );
        assert_eq!(d.unwrap().exact(1_000_000), Some(Exact::Int(2_000_010)));
    }

    #[test]
    fn few_values_drawn_at_random_are_drawn_again_as_often() {
        let xs = some((0..256).map(|i| [65.0, 67.0, 71.0, 84.0][i % 4]));
        let Some(Draw::Choice(v)) = Draw::of_samples(&xs, true, true) else {
            panic!("not a choice");
        };
        assert_eq!(v.len(), 256);
        assert_eq!(v.iter().filter(|x| **x == 71.0).count(), 64);
    }

    #[test]
    fn many_values_drawn_at_random_span_their_range() {
        // a multiplicative hash spreads them over 0..1000
        let ints = some((0..256u64).map(|i| ((i * 2_654_435_761) % 1000) as f64));
        match Draw::of_samples(&ints, true, true) {
            Some(Draw::Uniform { lo, hi, integral }) => {
                assert!(lo < 20.0 && hi > 980.0 && integral, "{lo} {hi}");
            }
            d => panic!("{d:?}"),
        }
        let reals: Vec<_> = ints.iter().map(|x| x.map(|x| x / 1000.0)).collect();
        assert!(matches!(
            Draw::of_samples(&reals, false, true),
            Some(Draw::Uniform {
                integral: false,
                ..
            })
        ));
    }

    #[test]
    fn values_neither_a_ramp_nor_random_or_not_all_known_are_not_described() {
        let squares = some((0..256).map(|i| (i * i) as f64));
        assert_eq!(Draw::of_samples(&squares, true, false), None);
        let mut xs = some((0..256).map(f64::from));
        xs[9] = None;
        assert_eq!(Draw::of_samples(&xs, true, true), None);
    }
}
