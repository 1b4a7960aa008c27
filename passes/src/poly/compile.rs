//! A QPoly compiled to a flat straight-line program over i64/i128 registers, for sweeps that
//! evaluate one count at millions of parameter points (ranking, DVFS sweeps). Every atom
//! (parameter, floor) is computed once; each piece is an integer polynomial over one common
//! denominator, so evaluation is exact until the final division.

use super::linexpr::{Atom, LinExpr};
use super::poly::common_denominator;
use super::qpoly::QPoly;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Op {
    /// reg = params[i]
    Param(usize),
    /// reg = Σ terms + c (terms is a range into `lin_terms`)
    Lin { start: u32, end: u32, c: i64 },
    /// reg = floor(reg[src] / m)
    FloorDiv { src: u32, m: i64 },
}

#[derive(Clone, Debug)]
struct CPiece {
    /// (register, is_equality): reg >= 0 or reg == 0
    guards: Vec<(u32, bool)>,
    /// (numerator coefficient, range into `mono_regs`)
    terms: Vec<(i128, u32, u32)>,
    den: i128,
}

/// The compiled form of a [`QPoly`]; evaluate with [`Compiled::eval`].
#[derive(Clone, Debug)]
pub struct Compiled {
    params: Vec<String>,
    ops: Vec<Op>,
    lin_terms: Vec<(u32, i64)>,
    mono_regs: Vec<u32>,
    pieces: Vec<CPiece>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompileError {
    #[error("coefficient {0} does not fit the compiled program's 64/128-bit registers")]
    Overflow(String),
}

struct Builder {
    params: Vec<String>,
    ops: Vec<Op>,
    lin_terms: Vec<(u32, i64)>,
    memo: BTreeMap<Atom, u32>,
    lin_memo: BTreeMap<LinExpr, u32>,
}

fn small(v: i128) -> Result<i64, CompileError> {
    i64::try_from(v).map_err(|_| CompileError::Overflow(v.to_string()))
}

fn big(v: &BigInt) -> Result<i128, CompileError> {
    v.to_i128()
        .ok_or_else(|| CompileError::Overflow(v.to_string()))
}

impl Builder {
    fn atom(&mut self, a: &Atom) -> Result<u32, CompileError> {
        if let Some(r) = self.memo.get(a) {
            return Ok(*r);
        }
        let op = match a {
            Atom::Var(v) => {
                let i = match self.params.iter().position(|p| p == v) {
                    Some(i) => i,
                    None => {
                        self.params.push(v.clone());
                        self.params.len() - 1
                    }
                };
                Op::Param(i)
            }
            Atom::Floor(e, m) => {
                let src = self.lin(e)?;
                Op::FloorDiv { src, m: small(*m)? }
            }
        };
        self.ops.push(op);
        let r = (self.ops.len() - 1) as u32;
        self.memo.insert(a.clone(), r);
        Ok(r)
    }

    fn lin(&mut self, e: &LinExpr) -> Result<u32, CompileError> {
        if let Some(r) = self.lin_memo.get(e) {
            return Ok(*r);
        }
        let mut terms = Vec::with_capacity(e.terms.len());
        for (a, c) in &e.terms {
            terms.push((self.atom(a)?, small(*c)?));
        }
        let start = self.lin_terms.len() as u32;
        self.lin_terms.extend(terms);
        let end = self.lin_terms.len() as u32;
        self.ops.push(Op::Lin {
            start,
            end,
            c: small(e.constant)?,
        });
        let r = (self.ops.len() - 1) as u32;
        self.lin_memo.insert(e.clone(), r);
        Ok(r)
    }
}

impl Compiled {
    /// Compile; `params` fixes the order of the values passed to `eval` (names that occur in
    /// the QPoly but not in `params` are appended, see [`Compiled::params`]).
    pub fn new(q: &QPoly, params: &[&str]) -> Result<Compiled, CompileError> {
        let mut b = Builder {
            params: params.iter().map(|s| s.to_string()).collect(),
            ops: Vec::new(),
            lin_terms: Vec::new(),
            memo: BTreeMap::new(),
            lin_memo: BTreeMap::new(),
        };
        let mut mono_regs = Vec::new();
        let mut pieces = Vec::new();
        for p in &q.pieces {
            let mut guards = Vec::new();
            for c in &p.guard.constraints {
                guards.push((b.lin(&c.expr)?, c.eq));
            }
            let d = common_denominator(&p.poly);
            let mut terms = Vec::new();
            for (m, c) in &p.poly.terms {
                let n = (c * BigRational::from_integer(d.clone())).to_integer();
                let start = mono_regs.len() as u32;
                for (a, k) in m {
                    let r = b.atom(a)?;
                    for _ in 0..*k {
                        mono_regs.push(r);
                    }
                }
                terms.push((big(&n)?, start, mono_regs.len() as u32));
            }
            pieces.push(CPiece {
                guards,
                terms,
                den: big(&d)?,
            });
        }
        Ok(Compiled {
            params: b.params,
            ops: b.ops,
            lin_terms: b.lin_terms,
            mono_regs,
            pieces,
        })
    }

    /// The parameter order `eval` expects.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// Number of registers `eval` needs in `regs`.
    pub fn registers(&self) -> usize {
        self.ops.len()
    }

    /// Evaluate at `vals` (in `params()` order); `regs` is scratch space reused across calls.
    pub fn eval(&self, vals: &[i64], regs: &mut Vec<i64>) -> f64 {
        if regs.len() != self.ops.len() {
            regs.clear();
            regs.resize(self.ops.len(), 0);
        }
        for (i, op) in self.ops.iter().enumerate() {
            let v = match *op {
                Op::Param(k) => vals.get(k).copied().unwrap_or(0),
                Op::Lin { start, end, c } => {
                    let mut acc = c;
                    for &(r, k) in &self.lin_terms[start as usize..end as usize] {
                        acc = acc.wrapping_add(k.wrapping_mul(regs[r as usize]));
                    }
                    acc
                }
                Op::FloorDiv { src, m } => regs[src as usize].div_euclid(m),
            };
            regs[i] = v;
        }
        let mut total = 0.0;
        for p in &self.pieces {
            let on = p.guards.iter().all(|&(r, eq)| {
                let v = regs[r as usize];
                if eq {
                    v == 0
                } else {
                    v >= 0
                }
            });
            if !on {
                continue;
            }
            let mut num: i128 = 0;
            for &(c, s, e) in &p.terms {
                let mut t = c;
                for &r in &self.mono_regs[s as usize..e as usize] {
                    t = t.wrapping_mul(regs[r as usize] as i128);
                }
                num = num.wrapping_add(t);
            }
            total += if p.den == 1 {
                num as f64
            } else {
                (num / p.den) as f64 + ((num % p.den) as f64 / p.den as f64)
            };
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::poly::{rat_to_f64, Poly};
    use crate::poly::qpoly::{Constraint, Guard};

    #[test]
    fn compiled_matches_exact_evaluation() {
        // (n^2 - n)/2 if n >= 2, plus floor((n + 15)/16)*m
        let n = Poly::var("n");
        let tri = n.mul(&n).sub(&n).scale(&crate::poly::poly::rat(1));
        let tri = tri.scale(&(crate::poly::poly::rat(1) / crate::poly::poly::rat(2)));
        let g = Guard {
            constraints: vec![Constraint {
                expr: LinExpr::var("n").add_const(-2),
                eq: false,
            }],
        };
        let mut q = QPoly::guarded(g, tri);
        let tiles =
            Poly::from_lin(&LinExpr::var("n").add_const(15).floor_div(16)).mul(&Poly::var("m"));
        q = q.add(&QPoly::from_poly(tiles));
        let c = Compiled::new(&q, &["n", "m"]).unwrap();
        let mut regs = Vec::new();
        for nv in -5..60i64 {
            for mv in [-2i64, 0, 3, 17] {
                let exact = q
                    .eval(&|v| match v {
                        "n" => Some(nv as i128),
                        "m" => Some(mv as i128),
                        _ => None,
                    })
                    .unwrap();
                assert_eq!(
                    c.eval(&[nv, mv], &mut regs),
                    rat_to_f64(&exact),
                    "n={nv} m={mv}"
                );
            }
        }
    }

    /// Counts the counter produces (pieces, floors of parameters, rational coefficients),
    /// compiled, against exact rational evaluation at random parameter points.
    mod random_points {
        use super::*;
        use crate::poly::isl::{Ctx, Set};
        use proptest::prelude::*;

        const SETS: &[&str] = &[
            "[n, m] -> { [i, j] : 0 <= j < i < n and j < m }",
            "[n, m] -> { [t, i] : 0 <= 16 t < n and 16 t <= i < 16 t + 16 and i < n and i < 3 m }",
            "[n, m] -> { [i, j] : 0 <= i < n and 0 <= 2 j <= i + m and exists e : i = 3 e + 1 }",
        ];

        fn compiled() -> Vec<(QPoly, Compiled)> {
            let ctx = Ctx::new();
            SETS.iter()
                .map(|s| {
                    let q = crate::poly::count(&Set::parse(&ctx, s).unwrap()).unwrap();
                    let c = Compiled::new(&q, &["n", "m"]).unwrap();
                    (q, c)
                })
                .collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]
            #[test]
            fn compiled_equals_exact(n in -50i64..5000, m in -50i64..5000) {
                thread_local! {
                    static PROGS: Vec<(QPoly, Compiled)> = compiled();
                }
                PROGS.with(|progs| {
                    let mut regs = Vec::new();
                    for (q, c) in progs {
                        let exact = q
                            .eval(&|v| match v {
                                "n" => Some(n as i128),
                                "m" => Some(m as i128),
                                _ => None,
                            })
                            .unwrap();
                        prop_assert_eq!(c.eval(&[n, m], &mut regs), rat_to_f64(&exact), "{}", q);
                    }
                    Ok(())
                })?;
            }
        }
    }
}
