//! C++ `<random>` as libstdc++ (the library CUDA host programs on Linux link) computes it: a
//! seeded engine gives the same numbers on every run, so a size or a buffer's contents drawn
//! from it are as known as constants.
//!
//! The engines are fixed by the standard (`mersenne_twister_engine`, of which `std::mt19937`
//! and `std::mt19937_64` are instances, and `linear_congruential_engine`: `std::minstd_rand0`,
//! libstdc++'s `std::default_random_engine`, and `std::minstd_rand`); their parameters are read
//! from the type's template arguments as clang spells them. The distributions' algorithms are
//! the library's choice; these are libstdc++'s (`bits/uniform_int_dist.h`, `bits/random.h`,
//! `bits/random.tcc`): Lemire's bounded integers for `uniform_int_distribution` (the division
//! method where the engine's range is not 2^32 or 2^64), `generate_canonical` for the real
//! ones, Marsaglia's polar method with its saved second value for `normal_distribution`.
//! An engine seeded from what kerncast does not know (`std::random_device`, a `seed_seq`) is
//! unknown, and so is every number drawn from it.
mod dist;
mod engine;

use super::access::Arg;
use super::state::Interp;
use super::value::{Handle, Value};
use crate::heap;
use dist::{Dist, IntTy, RealTy};
use engine::{discard, Engine, Lcg, Twister, LCG_DEFAULT_SEED, TWISTER_DEFAULT_SEED};
use std::cell::RefCell;
use std::rc::Rc;

/// An engine or a distribution object of `<random>`.
#[derive(Clone, Debug)]
pub enum Random {
    Engine(Engine),
    Dist(Dist),
    /// An engine that drew where kerncast did not follow it (on one side of a condition it
    /// cannot decide, more than [`DRAWS_MAX`] at once): what it gives is unknown until the
    /// program seeds it again.
    Forgotten(Engine),
    /// A distribution that may have saved a value kerncast did not follow
    /// (`normal_distribution` drawn where it could not follow): every draw from it is unknown,
    /// and so is the engine it draws with.
    Lost,
}

/// The template arguments of a type as clang spells it: `std::x<unsigned long, 32, 624>` →
/// `["unsigned long", "32", "624"]`; `x<>` → `[]`.
fn template_args(ty: &str) -> Option<Vec<&str>> {
    let open = ty.find('<')?;
    let inner = ty[open + 1..].strip_suffix('>')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    Some(inner.split(',').map(str::trim).collect())
}

fn int_ty(spelling: &str) -> Option<IntTy> {
    let (bits, signed) = match spelling {
        "short" | "short int" | "int16_t" => (16, true),
        "unsigned short" | "unsigned short int" | "uint16_t" => (16, false),
        "int" | "int32_t" => (32, true),
        "unsigned int" | "unsigned" | "uint32_t" => (32, false),
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "ptrdiff_t"
        | "ssize_t" => (64, true),
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t" => (64, false),
        _ => return None,
    };
    Some(IntTy { bits, signed })
}

fn real_ty(spelling: &str) -> Option<RealTy> {
    match spelling {
        "float" => Some(RealTy::F32),
        "double" => Some(RealTy::F64),
        _ => None,
    }
}

/// The result type named by a distribution's first template argument, or its default.
fn result_ty<T>(ty: &str, default: T, parse: fn(&str) -> Option<T>) -> Option<T> {
    match template_args(ty)?.first() {
        None => Some(default),
        Some(s) => parse(s),
    }
}

/// A new object of the `<random>` class `class` (its last name) of type `ty`, constructed
/// from `args`; `None` where the class is not one of those modelled, an unknown value where
/// an argument is.
pub(super) fn construct(class: &str, ty: &str, args: &[Value]) -> Option<Value> {
    let handle = |r: Random| Value::Handle(heap::shared(Handle::Random(Box::new(r))));
    let unknown_arg = args.iter().find(|a| matches!(a, Value::Unknown(_)));
    match class {
        "mersenne_twister_engine" | "linear_congruential_engine" => {
            let params: Vec<u64> = template_args(ty)?
                .iter()
                .skip(1)
                .map(|s| s.parse().ok())
                .collect::<Option<_>>()?;
            let mut engine = if class == "linear_congruential_engine" {
                Engine::Lcg(Lcg::new(&params)?)
            } else {
                Engine::Twister(Twister::new(&params)?)
            };
            match args {
                [] => {}
                [Value::Handle(h)] => return Some(Value::Handle(heap::shared(h.borrow().clone()))),
                [v] => match v.as_int() {
                    Some(s) => engine.seed(s as u64),
                    None => {
                        return Some(Value::unknown(
                            "a random number engine seeded from what kerncast does not know",
                        ))
                    }
                },
                _ => return None,
            }
            Some(handle(Random::Engine(engine)))
        }
        c if c.ends_with("_distribution") && unknown_arg.is_some() => Some(Value::unknown(
            "a random number distribution of parameters kerncast does not know",
        )),
        "uniform_int_distribution" => {
            let ty = result_ty(
                ty,
                IntTy {
                    bits: 32,
                    signed: true,
                },
                int_ty,
            )?;
            let a = args.first().map_or(Some(0), Value::as_int)?;
            let b = args.get(1).map_or(Some(ty.max()), Value::as_int)?;
            Some(handle(Random::Dist(Dist::UniformInt { ty, a, b })))
        }
        "uniform_real_distribution" | "normal_distribution" | "exponential_distribution" => {
            let ty = result_ty(ty, RealTy::F64, real_ty)?;
            let real = |i: usize, default: f64| match args.get(i) {
                None => Some(default),
                Some(v) => v.as_f64(),
            };
            let dist = match class {
                "uniform_real_distribution" => Dist::UniformReal {
                    ty,
                    a: real(0, 0.0)?,
                    b: real(1, 1.0)?,
                },
                "normal_distribution" => Dist::Normal {
                    ty,
                    mean: real(0, 0.0)?,
                    stddev: real(1, 1.0)?,
                    saved: None,
                },
                _ => Dist::Exponential {
                    ty,
                    lambda: real(0, 1.0)?,
                },
            };
            Some(handle(Random::Dist(dist)))
        }
        "bernoulli_distribution" => {
            let p = args.first().map_or(Some(0.5), Value::as_f64)?;
            Some(handle(Random::Dist(Dist::Bernoulli { p })))
        }
        _ => None,
    }
}

/// Whether a call is a method of a `<random>` distribution that leaves its object as it was
/// although C++ does not declare it `const`: drawing from a distribution that saves nothing
/// between draws (all but `normal_distribution`), so a draw kerncast did not follow forgets
/// the engine but not the distribution's parameters.
pub(super) fn leaves_object(callee: &crate::ast::Callee) -> bool {
    let crate::ast::Callee::Method { name, system, .. } = callee else {
        return false;
    };
    let Some((class, method)) = name.rsplit_once("::") else {
        return false;
    };
    let class = class.rsplit("::").next().unwrap_or(class);
    *system
        && method == "operator()"
        && matches!(
            class,
            "uniform_int_distribution"
                | "uniform_real_distribution"
                | "bernoulli_distribution"
                | "exponential_distribution"
        )
}

/// Forgets a `<random>` object that a call or loop kerncast did not follow may have changed,
/// in place, so that every copy of the value sees it: an engine keeps its type, for a seed to
/// make it known again. Returns whether `v` is one.
pub(super) fn forget_in_place(v: &Value) -> bool {
    let Value::Handle(h) = v else { return false };
    let mut hb = h.borrow_mut();
    let Handle::Random(r) = &mut *hb else {
        return false;
    };
    **r = match &**r {
        Random::Engine(e) | Random::Forgotten(e) => Random::Forgotten(e.clone()),
        Random::Dist(_) | Random::Lost => Random::Lost,
    };
    true
}

fn random_number() -> Value {
    Value::unknown("a random number")
}

/// The engine an argument holds, where it is one kerncast follows.
fn engine_of(a: Option<&Arg>) -> Option<Rc<RefCell<Handle>>> {
    match a?.value() {
        Value::Handle(h) if matches!(&*h.borrow(), Handle::Random(r) if !matches!(**r, Random::Dist(_))) => {
            Some(h)
        }
        _ => None,
    }
}

fn forget(h: &RefCell<Handle>) {
    let mut hb = h.borrow_mut();
    if let Handle::Random(r) = &mut *hb {
        if let Random::Engine(e) = &**r {
            **r = Random::Forgotten(e.clone());
        }
    }
}

impl Interp<'_> {
    /// A method `m` of the engine or distribution `h`.
    pub(super) fn random_method(
        &mut self,
        m: &str,
        h: &Rc<RefCell<Handle>>,
        args: &[Arg],
    ) -> Value {
        let follows = self.follows_random();
        let arg_int = |i: usize| args.get(i).and_then(|a| a.value().as_int());
        let mut hb = h.borrow_mut();
        let Handle::Random(r) = &mut *hb else {
            return random_number();
        };
        match (&mut **r, m) {
            (Random::Engine(e), "min") => Value::Int(i128::from(e.min())),
            (Random::Engine(e), "max") => Value::Int(i128::from(e.max())),
            (Random::Engine(e), "operator()") if follows => Value::Int(i128::from(e.next())),
            (_, "seed") => {
                // a seed kerncast knows makes a forgotten engine known again
                let seeded = match (args.first(), arg_int(0)) {
                    (None, _) => Some(None),
                    (Some(_), Some(s)) => Some(Some(s as u64)),
                    (Some(_), None) => None,
                };
                match (&mut **r, seeded) {
                    (Random::Engine(e) | Random::Forgotten(e), Some(s)) if follows => {
                        let mut e = e.clone();
                        e.seed(s.unwrap_or(match e {
                            Engine::Twister(_) => TWISTER_DEFAULT_SEED,
                            Engine::Lcg(_) => LCG_DEFAULT_SEED,
                        }));
                        **r = Random::Engine(e);
                    }
                    (Random::Dist(_), _) => {}
                    _ => {
                        drop(hb);
                        forget(h);
                    }
                }
                Value::Void
            }
            (Random::Engine(e), "discard") => {
                let done = arg_int(0)
                    .filter(|_| follows)
                    .and_then(|z| discard(e, u64::try_from(z).ok()?));
                if done.is_none() {
                    drop(hb);
                    forget(h);
                }
                Value::Void
            }
            (Random::Dist(d), "reset") => {
                d.reset();
                Value::Void
            }
            (Random::Dist(d), "operator()") if args.len() == 1 => {
                let drawn = engine_of(args.first()).and_then(|eh| {
                    let mut eb = eh.borrow_mut();
                    let v = match &mut *eb {
                        Handle::Random(er) => match &mut **er {
                            Random::Engine(engine) if follows => d.draw(engine),
                            _ => None,
                        },
                        _ => None,
                    };
                    drop(eb);
                    if v.is_none() {
                        forget(&eh);
                    }
                    v
                });
                match drawn {
                    Some(v) => v,
                    None => {
                        // a normal distribution may now hold a saved value kerncast does not
                        // know, which its next draw would give
                        if matches!(d, Dist::Normal { .. }) {
                            **r = Random::Lost;
                        }
                        random_number()
                    }
                }
            }
            (Random::Lost, "operator()") => {
                if let Some(eh) = engine_of(args.first()) {
                    forget(&eh);
                }
                random_number()
            }
            (Random::Engine(_), "operator()") => {
                drop(hb);
                forget(h);
                random_number()
            }
            _ => random_number(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(ty: &str, args: &[Value]) -> Engine {
        let class = ty.split('<').next().unwrap().trim_start_matches("std::");
        match construct(class, ty, args) {
            Some(Value::Handle(h)) => match &*h.borrow() {
                Handle::Random(r) => match &**r {
                    Random::Engine(e) => e.clone(),
                    _ => panic!("not an engine"),
                },
                _ => panic!("not random"),
            },
            v => panic!("{v:?}"),
        }
    }

    const MT19937: &str = "std::mersenne_twister_engine<unsigned long, 32, 624, 397, 31, 2567483615, 11, 4294967295, 7, 2636928640, 15, 4022730752, 18, 1812433253>";
    const MT19937_64: &str = "std::mersenne_twister_engine<unsigned long, 64, 312, 156, 31, 13043109905998158313, 29, 6148914691236517205, 17, 8202884508482404352, 37, 18444473444759240704, 43, 6364136223846793005>";

    /// The standard's check values ([rand.predef]): the 10000th number of a
    /// default-constructed engine.
    #[test]
    fn the_predefined_engines_give_the_standards_10000th_numbers() {
        let cases = [
            (MT19937, 4123659995u64),
            (MT19937_64, 9981545732273789042),
            (
                "std::linear_congruential_engine<unsigned long, 16807, 0, 2147483647>",
                1043618065,
            ),
            (
                "std::linear_congruential_engine<unsigned long, 48271, 0, 2147483647>",
                399268537,
            ),
        ];
        for (ty, want) in cases {
            let mut e = engine(ty, &[]);
            discard(&mut e, 9999).unwrap();
            assert_eq!(e.next(), want, "{ty}");
        }
    }

    /// A negative seed is converted to the engine's unsigned type, as C++ converts it.
    #[test]
    fn a_negative_seed_is_taken_modulo_the_word() {
        let mut a = engine(MT19937, &[Value::Int(-278642091)]);
        let mut b = engine(MT19937, &[Value::Int((1i128 << 32) - 278642091)]);
        assert_eq!(a.next(), b.next());
    }

    #[test]
    fn an_unknown_seed_gives_an_unknown_engine() {
        let v = construct(
            "mersenne_twister_engine",
            MT19937,
            &[Value::unknown("a random number")],
        );
        assert!(matches!(v, Some(Value::Unknown(_))), "{v:?}");
    }

    /// Every draw of a bounded integer lies in its range, over ranges that take each of
    /// libstdc++'s paths: Lemire on 32 and 64 bits, division, and upscaling.
    #[test]
    fn bounded_integers_stay_in_their_range() {
        let minstd = "std::linear_congruential_engine<unsigned long, 48271, 0, 2147483647>";
        for ty in [MT19937, MT19937_64, minstd] {
            let mut e = engine(ty, &[Value::Int(7)]);
            for (a, b) in [(0i128, 0i128), (-5, 5), (1, 1000), (0, 1 << 40), (3, 4)] {
                let mut d = Dist::UniformInt {
                    ty: IntTy {
                        bits: 64,
                        signed: true,
                    },
                    a,
                    b,
                };
                for _ in 0..200 {
                    let v = d.draw(&mut e).unwrap().as_int().unwrap();
                    assert!((a..=b).contains(&v), "{ty} {a}..={b}: {v}");
                }
            }
        }
    }
}
