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

/// `TYPE:GEN(args)` → bytes.
pub fn generate(spec: &str, env: &BTreeMap<String, i64>, seed: u64) -> Result<Vec<u8>, String> {
    let bad = |why: &str| format!("--buffer `{spec}`: {why}");
    let (ty, g) = spec
        .split_once(':')
        .ok_or_else(|| bad("expected TYPE:GEN"))?;
    let (fname, rest) = g.split_once('(').ok_or_else(|| bad("expected GEN(args)"))?;
    let inner = rest.strip_suffix(')').ok_or_else(|| bad("missing `)`"))?;
    if fname.trim() == "hex" {
        if ty.trim() != "u8" {
            return Err(bad("`hex` gives bytes: write `u8:hex(…)`"));
        }
        return from_hex(inner.trim()).ok_or_else(|| bad("not an even number of hex digits"));
    }
    let a: Vec<i64> = crate::workload::split_top(inner)
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| Expr::parse(s.trim()).and_then(|e| e.eval(env, Div::Floor)))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(&e))?;
    let arg = |i: usize| a.get(i).copied().ok_or_else(|| bad("too few arguments"));
    // refused before anything is allocated: `zeros(1 << 40)` is a typo, not a buffer
    let budget = kerncast_passes::budget::get().emu_bytes;
    if fname.trim() != "list" {
        let bytes = (arg(0)?.max(0) as u64).saturating_mul(8);
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
    let real = matches!(ty.trim(), "f32" | "f64");
    if real && fname.trim() == "rand" {
        // `f32:rand(n,0,1)` means reals in [0,1), not the integers 0 and 1
        let (lo, hi) = (arg(1)? as f64, arg(2)? as f64);
        let span = 1u64 << 31;
        let xs = (0..arg(0)?.max(0))
            .map(|_| lo + (hi - lo) * next(0, span as i64 - 1) as f64 / span as f64);
        return Ok(match ty.trim() {
            "f32" => xs.flat_map(|x| (x as f32).to_le_bytes()).collect(),
            _ => xs.flat_map(|x| x.to_le_bytes()).collect(),
        });
    }
    let vals: Vec<i64> = match fname.trim() {
        "zeros" => vec![0; arg(0)?.max(0) as usize],
        "fill" => vec![arg(1)?; arg(0)?.max(0) as usize],
        "ramp" => (0..arg(0)?.max(0))
            .map(|i| arg(1).unwrap_or(0) + i * arg(2).unwrap_or(1))
            .collect(),
        "rand" => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            (0..arg(0)?.max(0)).map(|_| next(lo, hi)).collect()
        }
        "cumsum" => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            let mut acc = 0;
            (0..arg(0)?.max(0))
                .map(|i| {
                    if i > 0 {
                        acc += next(lo, hi);
                    }
                    acc
                })
                .collect()
        }
        "list" => a.clone(),
        other => return Err(bad(&format!("unknown generator `{other}`"))),
    };
    let mut out = Vec::new();
    for v in vals {
        match ty.trim() {
            "i32" | "u32" => out.extend((v as i32).to_le_bytes()),
            "i64" | "u64" => out.extend(v.to_le_bytes()),
            "f32" => out.extend((v as f32).to_le_bytes()),
            "f64" => out.extend((v as f64).to_le_bytes()),
            "u8" | "i8" => out.push(v as u8),
            t => return Err(bad(&format!("unknown element type `{t}`"))),
        }
    }
    Ok(out)
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
}
