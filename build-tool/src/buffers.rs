//! Buffer contents for the emulator, `TYPE:GEN(args)` (`i32:cumsum(rows+1,8,24)`): what
//! `kerncast emulate --buffer` and `kerncast predict --buffer` run a kernel on instead of zeros,
//! so that a kernel whose work depends on its data (a CSR row's length, a histogram's bins) is
//! counted on data like the real one. Arguments are integer expressions over the workload's
//! parameters, so the data scales with the sizes the emulator samples.

use crate::workload::{Div, Expr};
use std::collections::BTreeMap;

/// The spec of a buffer holding `bytes` as they are: `u8:hex(…)`, two digits a byte (the
/// data the host code writes into a buffer, [`crate::host_workloads`]).
pub fn hex_spec(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(8 + 2 * bytes.len());
    s.push_str("u8:hex(");
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s.push(')');
    s
}

fn from_hex(digits: &str) -> Option<Vec<u8>> {
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A generator's argument: an integer expression over the workload's parameters, or a real
/// written as a number (`-0.5`, `1e-3`).
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    fn parse(s: &str, env: &BTreeMap<String, i64>) -> Result<Num, String> {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Num::Int(i));
        }
        let numeric = s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.'));
        if let (true, Ok(x)) = (numeric, s.parse::<f64>()) {
            return Ok(Num::Real(x));
        }
        Expr::parse(s)
            .and_then(|e| e.eval(env, Div::Floor))
            .map(Num::Int)
    }

    fn real(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(x) => x,
        }
    }
}

/// A number as a generator's argument, an integer where it is one.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:?}")
    }
}

/// The spec of elements the host reading described ([`kerncast_host::drawn`]): zeros as
/// `zeros`, a ramp as `ramp`, values spread over a range as `rand` (`randint` for integers), a
/// few values as `pick`.
pub fn drawn_spec(d: &kerncast_host::drawn::Drawn) -> String {
    use kerncast_host::drawn::Draw;
    let n = d.count;
    let generator = match &d.draw {
        _ if d.is_zeros() => format!("zeros({n})"),
        Draw::Ramp { start, step, .. } => format!("ramp({n}, {}, {})", num(*start), num(*step)),
        Draw::Uniform {
            lo,
            hi,
            integral: true,
        } => format!("randint({n}, {}, {})", num(*lo), num(*hi)),
        Draw::Uniform { lo, hi, .. } => format!("rand({n}, {}, {})", num(*lo), num(*hi)),
        Draw::Choice(v) => {
            let v: Vec<String> = v.iter().map(|x| num(*x)).collect();
            format!("pick({n}, {})", v.join(", "))
        }
    };
    format!("{}:{generator}", d.elem.name())
}

/// The bytes of a `zeros` spec (`f32:zeros(n)`), which the emulator maps rather than
/// writes; `None` for another generator.
pub fn zeros_bytes(spec: &str, env: &BTreeMap<String, i64>) -> Result<Option<u64>, String> {
    let Some((ty, g)) = spec.split_once(':') else {
        return Ok(None);
    };
    let Some(inner) = g
        .trim()
        .strip_prefix("zeros(")
        .and_then(|r| r.strip_suffix(')'))
    else {
        return Ok(None);
    };
    let elem: u64 = match ty.trim() {
        "i8" | "u8" => 1,
        "i16" | "u16" => 2,
        "i32" | "u32" | "f32" => 4,
        "i64" | "u64" | "f64" => 8,
        t => return Err(format!("--buffer `{spec}`: unknown element type `{t}`")),
    };
    let n = Expr::parse(inner.trim())
        .and_then(|e| e.eval(env, Div::Floor))
        .map_err(|e| format!("--buffer `{spec}`: {e}"))?;
    Ok(Some(elem.saturating_mul(n.max(0) as u64)))
}

/// `TYPE:GEN(args)` → bytes.
pub fn generate(spec: &str, env: &BTreeMap<String, i64>, seed: u64) -> Result<Vec<u8>, String> {
    let bad = |why: &str| format!("--buffer `{spec}`: {why}");
    let (ty, g) = spec
        .split_once(':')
        .ok_or_else(|| bad("expected TYPE:GEN"))?;
    let (fname, rest) = g.split_once('(').ok_or_else(|| bad("expected GEN(args)"))?;
    let inner = rest.strip_suffix(')').ok_or_else(|| bad("missing `)`"))?;
    let (ty, fname) = (ty.trim(), fname.trim());
    if fname == "hex" {
        if ty != "u8" {
            return Err(bad("`hex` gives bytes: write `u8:hex(…)`"));
        }
        return from_hex(inner.trim()).ok_or_else(|| bad("not an even number of hex digits"));
    }
    let a: Vec<Num> = crate::workload::split_top(inner)
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| Num::parse(s.trim(), env))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(&e))?;
    let real = matches!(ty, "f32" | "f64");
    let num = |i: usize| a.get(i).copied().ok_or_else(|| bad("too few arguments"));
    let arg = |i: usize| match num(i)? {
        Num::Int(v) => Ok(v),
        Num::Real(_) if real => Err(bad("a real number where an integer belongs")),
        Num::Real(_) => Err(bad("a real number for integer elements")),
    };
    let count = || arg(0).map(|n| n.max(0));
    // refused before anything is allocated: `zeros(1 << 40)` is a typo, not a buffer
    let budget = kerncast_passes::budget::get().emu_bytes;
    if fname != "list" {
        let bytes = (count()? as u64).saturating_mul(8);
        kerncast_passes::emu::check_bytes("buffer", bytes, budget)
            .map_err(|e| bad(&e.to_string()))?;
    }
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = |lo: i64, hi: i64| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // in i128: `rand(n, -2^63, 2^63 - 1)` spans more than an i64
        let span = (hi as i128 - lo as i128 + 1).max(1) as u128;
        (lo as i128 + ((rng >> 33) as u128 % span) as i128) as i64
    };
    if real {
        let xs: Vec<f64> = match fname {
            "zeros" => vec![0.0; count()? as usize],
            "fill" => vec![num(1)?.real(); count()? as usize],
            "ramp" => {
                let (start, step) = (num(1)?.real(), num(2).map_or(1.0, Num::real));
                (0..count()?).map(|i| start + step * i as f64).collect()
            }
            // `f32:rand(n,0,1)` means reals in [0,1), not the integers 0 and 1
            "rand" => {
                let (lo, hi) = (num(1)?.real(), num(2)?.real());
                let span = 1u64 << 31;
                (0..count()?)
                    .map(|_| lo + (hi - lo) * next(0, span as i64 - 1) as f64 / span as f64)
                    .collect()
            }
            "randint" => {
                let (lo, hi) = (arg(1)?, arg(2)?);
                (0..count()?).map(|_| next(lo, hi) as f64).collect()
            }
            "pick" => {
                let from: Vec<f64> = a.iter().skip(1).map(|x| x.real()).collect();
                if from.is_empty() {
                    return Err(bad("`pick` needs values to pick from"));
                }
                let last = from.len() as i64 - 1;
                (0..count()?)
                    .map(|_| from[next(0, last) as usize])
                    .collect()
            }
            "list" => a.iter().map(|x| x.real()).collect(),
            "cumsum" => integers(fname, &a, &arg, &mut next)
                .map_err(|e| bad(&e))?
                .into_iter()
                .map(|v| v as f64)
                .collect(),
            other => return Err(bad(&format!("unknown generator `{other}`"))),
        };
        return Ok(match ty {
            "f32" => xs.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect(),
            _ => xs.iter().flat_map(|x| x.to_le_bytes()).collect(),
        });
    }
    let vals = integers(fname, &a, &arg, &mut next).map_err(|e| bad(&e))?;
    let mut out = Vec::new();
    for v in vals {
        match ty {
            "i32" | "u32" => out.extend((v as i32).to_le_bytes()),
            "i64" | "u64" => out.extend(v.to_le_bytes()),
            "i16" | "u16" => out.extend((v as i16).to_le_bytes()),
            "u8" | "i8" => out.push(v as u8),
            t => return Err(bad(&format!("unknown element type `{t}`"))),
        }
    }
    Ok(out)
}

/// The values of an integer generator.
fn integers(
    fname: &str,
    a: &[Num],
    arg: &dyn Fn(usize) -> Result<i64, String>,
    next: &mut dyn FnMut(i64, i64) -> i64,
) -> Result<Vec<i64>, String> {
    let count = arg(0)?.max(0);
    Ok(match fname {
        "zeros" => vec![0; count as usize],
        "fill" => vec![arg(1)?; count as usize],
        "ramp" => (0..count)
            .map(|i| arg(1).unwrap_or(0) + i * arg(2).unwrap_or(1))
            .collect(),
        "rand" | "randint" => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            (0..count).map(|_| next(lo, hi)).collect()
        }
        "cumsum" => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            let mut acc = 0;
            (0..count)
                .map(|i| {
                    if i > 0 {
                        acc += next(lo, hi);
                    }
                    acc
                })
                .collect()
        }
        "pick" => {
            let from: Vec<i64> = (1..a.len()).map(arg).collect::<Result<_, _>>()?;
            if from.is_empty() {
                return Err("`pick` needs values to pick from".into());
            }
            let last = from.len() as i64 - 1;
            (0..count).map(|_| from[next(0, last) as usize]).collect()
        }
        "list" => (0..a.len()).map(arg).collect::<Result<_, _>>()?,
        other => return Err(format!("unknown generator `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators() {
        let env = BTreeMap::from([("n".to_string(), 4i64)]);
        let ramp = generate("i32:ramp(n, 10, 2)", &env, 1).unwrap();
        assert_eq!(ramp.len(), 16);
        assert_eq!(
            i32::from_le_bytes([ramp[12], ramp[13], ramp[14], ramp[15]]),
            16
        );
        let cs = generate("i32:cumsum(n+1, 1, 3)", &env, 7).unwrap();
        let v: Vec<i32> = cs
            .chunks(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(v[0], 0);
        assert!(v.windows(2).all(|w| (1..=3).contains(&(w[1] - w[0]))));
        assert!(generate("q32:zeros(2)", &env, 1).is_err());
        assert!(generate("i32:bogus(2)", &env, 1).is_err());
    }

    /// The host's bytes go to the emulator as they are, two hex digits a byte.
    #[test]
    fn bytes_written_as_hex_come_back_as_they_were() {
        let bytes = vec![0u8, 3, 0xe0, 0x3f, 255];
        let spec = hex_spec(&bytes);
        assert_eq!(spec, "u8:hex(0003e03fff)");
        assert_eq!(generate(&spec, &BTreeMap::new(), 9).unwrap(), bytes);
        assert!(generate("u8:hex(123)", &BTreeMap::new(), 1).is_err());
        assert!(generate("i32:hex(00)", &BTreeMap::new(), 1).is_err());
    }

    #[test]
    fn a_real_buffer_draws_reals() {
        let env = BTreeMap::new();
        let v: Vec<f32> = generate("f32:rand(1000, 0, 1)", &env, 3)
            .unwrap()
            .chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert!(v.iter().all(|x| (0.0..1.0).contains(x)));
        let below = v.iter().filter(|x| **x < 0.5).count();
        assert!((400..600).contains(&below), "{below} of 1000 below 0.5");
        assert!(v.iter().any(|x| x.fract() != 0.0));
    }

    /// A `zeros` buffer is sized for the emulator to map, not generated; others are not.
    #[test]
    fn zeros_are_sized_not_generated() {
        let env = BTreeMap::from([("n".to_string(), 1i64 << 30)]);
        assert_eq!(zeros_bytes("f64:zeros(n)", &env), Ok(Some(8 << 30)));
        assert_eq!(zeros_bytes("u8:zeros(3)", &env), Ok(Some(3)));
        assert_eq!(zeros_bytes("i32:rand(4, 0, 1)", &env), Ok(None));
        assert!(zeros_bytes("q8:zeros(4)", &env).is_err());
    }

    /// The host reading's described elements come back as the emulator's data: a ramp exact,
    /// integers over a range in it, a few values as often as sampled, reals as reals.
    #[test]
    fn described_elements_generate_like_the_hosts() {
        use kerncast_host::drawn::{Draw, Drawn, Elem};
        let env = BTreeMap::new();
        let of = |elem, draw| Drawn {
            elem,
            count: 1000,
            draw,
            origin: "the fill loop at main.cu:9".into(),
        };
        let f32s = |b: Vec<u8>| -> Vec<f32> {
            b.chunks(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let ramp = of(
            Elem::F32,
            Draw::Ramp {
                start: 0.5,
                step: 2.0,
                ints: false,
            },
        );
        assert_eq!(drawn_spec(&ramp), "f32:ramp(1000, 0.5, 2)");
        let v = f32s(generate(&drawn_spec(&ramp), &env, 1).unwrap());
        assert_eq!((v.len(), v[999]), (1000, 1998.5));
        let ints = of(
            Elem::F32,
            Draw::Uniform {
                lo: 3.0,
                hi: 40.0,
                integral: true,
            },
        );
        let v = f32s(generate(&drawn_spec(&ints), &env, 1).unwrap());
        assert!(v
            .iter()
            .all(|x| x.fract() == 0.0 && (3.0..=40.0).contains(x)));
        assert!(v.contains(&3.0) && v.contains(&40.0));
        let reals = of(
            Elem::F64,
            Draw::Uniform {
                lo: -0.25,
                hi: 0.75,
                integral: false,
            },
        );
        assert_eq!(drawn_spec(&reals), "f64:rand(1000, -0.25, 0.75)");
        let v: Vec<f64> = generate(&drawn_spec(&reals), &env, 1)
            .unwrap()
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(v.iter().all(|x| (-0.25..0.75).contains(x)));
        assert!(v.iter().any(|x| *x < 0.0) && v.iter().any(|x| x.fract() != 0.0));
        let pick = of(Elem::U8, Draw::Choice(vec![65.0, 65.0, 65.0, 84.0]));
        let v = generate(&drawn_spec(&pick), &env, 1).unwrap();
        let a = v.iter().filter(|b| **b == 65).count();
        assert_eq!(a + v.iter().filter(|b| **b == 84).count(), 1000);
        assert!(
            (650..850).contains(&a),
            "{a} of 1000 are the value sampled 3 times in 4"
        );
        assert!(generate("i32:pick(4)", &env, 1).is_err());
        assert!(generate("i32:rand(4, 0.5, 2)", &env, 1).is_err());
    }
}
