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
    /// reg = floor(reg[src] / 2^k): an arithmetic shift, since tile sizes are mostly powers
    /// of two and a 64-bit division costs tens of cycles
    FloorShift { src: u32, k: u32 },
}

#[derive(Clone, Debug)]
struct CPiece {
    /// (register, is_equality): reg >= 0 or reg == 0
    guards: Vec<(u32, bool)>,
    /// the guards as bits of `Compiled::conds` (when there are at most 64 distinct ones)
    mask: u64,
    /// (numerator coefficient, range into `mono_regs`)
    terms: Vec<(i128, u32, u32)>,
    den: i128,
    /// the numerator in Horner form, a range into `horner` (None: a coefficient needs 128 bits)
    horner: Option<(u32, u32)>,
}

/// One step of a piece's numerator in multivariate Horner form, on a small stack: counts
/// such as Σ_r 16·x·y·z·floor((n + r)/16) share most factors, and factoring them out once
/// saves most of the multiplications.
#[derive(Clone, Copy, Debug)]
enum HOp {
    /// push a coefficient
    Const(i64),
    /// top *= reg
    Mul(u32),
    /// pop b; top += b
    Add,
}

/// Horner code for Σ c·Π regs (each monomial's registers, with repetition for powers).
fn horner(terms: &[(i64, Vec<u32>)], out: &mut Vec<HOp>) {
    let mut freq: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, m) in terms {
        let mut seen: Vec<u32> = m.clone();
        seen.dedup();
        for r in seen {
            *freq.entry(r).or_default() += 1;
        }
    }
    // the register shared by the most monomials (ties: the lowest, for a stable program)
    let best = freq
        .iter()
        .max_by_key(|(r, n)| (**n, std::cmp::Reverse(**r)))
        .filter(|(_, n)| **n >= 2)
        .map(|(r, _)| *r);
    let Some(r) = best else {
        for (i, (c, m)) in terms.iter().enumerate() {
            out.push(HOp::Const(*c));
            out.extend(m.iter().map(|&x| HOp::Mul(x)));
            if i > 0 {
                out.push(HOp::Add);
            }
        }
        if terms.is_empty() {
            out.push(HOp::Const(0));
        }
        return;
    };
    let (mut with, mut rest) = (Vec::new(), Vec::new());
    for (c, m) in terms {
        match m.iter().position(|&x| x == r) {
            Some(i) => {
                let mut q = m.clone();
                q.remove(i);
                with.push((*c, q));
            }
            None => rest.push((*c, m.clone())),
        }
    }
    horner(&with, out);
    out.push(HOp::Mul(r));
    if !rest.is_empty() {
        horner(&rest, out);
        out.push(HOp::Add);
    }
}

fn holds(v: i64, eq: bool) -> bool {
    if eq {
        v == 0
    } else {
        v >= 0
    }
}

/// The stack depth Horner code needs.
fn depth(code: &[HOp]) -> usize {
    let (mut d, mut max) = (0usize, 0usize);
    for op in code {
        match op {
            HOp::Const(_) => d += 1,
            HOp::Mul(_) => {}
            HOp::Add => d -= 1,
        }
        max = max.max(d);
    }
    max
}

/// Evaluate Horner code in checked 64-bit arithmetic; None on overflow. `stack` holds at
/// least `depth(code)` slots.
fn run_horner(code: &[HOp], regs: &[i64], stack: &mut [i64]) -> Option<i64> {
    let mut top = 0usize;
    for op in code {
        match *op {
            HOp::Const(c) => {
                stack[top] = c;
                top += 1;
            }
            HOp::Mul(r) => stack[top - 1] = stack[top - 1].checked_mul(regs[r as usize])?,
            HOp::Add => {
                top -= 1;
                stack[top - 1] = stack[top - 1].checked_add(stack[top])?;
            }
        }
    }
    Some(stack[0])
}

/// The compiled form of a [`QPoly`]; evaluate with [`Compiled::eval`].
#[derive(Clone, Debug)]
pub struct Compiled {
    params: Vec<String>,
    ops: Vec<Op>,
    lin_terms: Vec<(u32, i64)>,
    mono_regs: Vec<u32>,
    pieces: Vec<CPiece>,
    horner: Vec<HOp>,
    /// the deepest Horner stack of any piece; `eval` keeps it after the registers
    stack_depth: usize,
    /// every distinct guard once, so that a test shared by many pieces runs once per point
    /// (empty when there are more than 64: then each piece tests its own)
    conds: Vec<(u32, bool)>,
    /// `Σ coeff · Π factor` (the QPoly's unexpanded products), each factor a program of its own
    /// whose registers follow this program's
    products: Vec<(f64, Vec<Compiled>)>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompileError {
    #[error("coefficient {0} does not fit the compiled program's 64/128-bit registers")]
    Overflow(String),
    #[error("a piece's guard is missing from the compiled program's guard list")]
    GuardMissing,
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
                let i = match self.params.iter().position(|p| **p == **v) {
                    Some(i) => i,
                    None => {
                        self.params.push(v.to_string());
                        self.params.len() - 1
                    }
                };
                Op::Param(i)
            }
            Atom::Floor(e, m) => {
                let src = self.lin(e)?;
                let m = small(*m)?;
                if m > 0 && m & (m - 1) == 0 {
                    Op::FloorShift {
                        src,
                        k: m.trailing_zeros(),
                    }
                } else {
                    Op::FloorDiv { src, m }
                }
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
        // every part of a product evaluates with the same parameter order
        let mut names: Vec<String> = params.iter().map(|s| s.to_string()).collect();
        for n in q.params() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut products = Vec::new();
        for p in q.products.iter() {
            let factors = p
                .factors
                .iter()
                .map(|f| Compiled::new(f, &name_refs))
                .collect::<Result<Vec<_>, _>>()?;
            products.push((super::poly::rat_to_f64(&p.coeff), factors));
        }
        let mut b = Builder {
            params: names.clone(),
            ops: Vec::new(),
            lin_terms: Vec::new(),
            memo: BTreeMap::new(),
            lin_memo: BTreeMap::new(),
        };
        let mut mono_regs = Vec::new();
        let mut pieces = Vec::new();
        let mut horner_code = Vec::new();
        // Pieces under the same guard (sums of counts often repeat one) are evaluated once.
        let mut by_guard: Vec<(Vec<(LinExpr, bool)>, super::poly::Poly)> = Vec::new();
        for p in q.pieces.iter() {
            let mut key: Vec<(LinExpr, bool)> = p
                .guard
                .constraints
                .iter()
                .map(|c| (c.expr.clone(), c.eq))
                .collect();
            key.sort();
            key.dedup();
            match by_guard.iter_mut().find(|(k, _)| *k == key) {
                Some((_, poly)) => *poly = poly.add(&p.poly),
                None => by_guard.push((key, p.poly.clone())),
            }
        }
        for (key, poly) in &by_guard {
            let mut guards = Vec::new();
            for (e, eq) in key {
                guards.push((b.lin(e)?, *eq));
            }
            let poly = super::poly::hermite_simplify(poly);
            let d = common_denominator(&poly);
            let mut terms = Vec::new();
            for (m, c) in &poly.terms {
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
            let small_terms: Option<Vec<(i64, Vec<u32>)>> = terms
                .iter()
                .map(|&(c, s, e)| {
                    let c = i64::try_from(c).ok()?;
                    let mut m = mono_regs[s as usize..e as usize].to_vec();
                    m.sort_unstable();
                    Some((c, m))
                })
                .collect();
            let horner_range = small_terms.map(|t| {
                let start = horner_code.len() as u32;
                horner(&t, &mut horner_code);
                (start, horner_code.len() as u32)
            });
            pieces.push(CPiece {
                guards,
                mask: 0,
                terms,
                den: big(&d)?,
                horner: horner_range,
            });
        }
        let mut conds: Vec<(u32, bool)> = pieces
            .iter()
            .flat_map(|p: &CPiece| p.guards.iter().copied())
            .collect();
        conds.sort_unstable();
        conds.dedup();
        if conds.len() <= 64 {
            // Every guard of a piece is in `conds`, collected from the pieces' guards above;
            // skipping a bit instead would widen the piece silently, so a miss is an error.
            for p in &mut pieces {
                let mut mask = 0u64;
                for g in &p.guards {
                    let bit = conds
                        .binary_search(g)
                        .map_err(|_| CompileError::GuardMissing)?;
                    mask |= 1 << bit;
                }
                p.mask = mask;
            }
        } else {
            conds.clear();
        }
        Ok(Compiled {
            conds,
            params: b.params,
            ops: b.ops,
            lin_terms: b.lin_terms,
            mono_regs,
            stack_depth: pieces
                .iter()
                .filter_map(|p: &CPiece| p.horner)
                .map(|(s, e)| depth(&horner_code[s as usize..e as usize]))
                .max()
                .unwrap_or(0),
            pieces,
            horner: horner_code,
            products,
        })
    }

    /// The parameter order `eval` expects.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// Number of registers `eval` needs in `regs` (the program's, the Horner stack, then the
    /// factors' of each product).
    pub fn registers(&self) -> usize {
        self.ops.len()
            + self.stack_depth
            + self
                .products
                .iter()
                .flat_map(|(_, fs)| fs.iter().map(Compiled::registers))
                .sum::<usize>()
    }

    /// Evaluate at `vals` (in `params()` order); `regs` is scratch space reused across calls.
    pub fn eval(&self, vals: &[i64], regs: &mut Vec<i64>) -> f64 {
        if regs.len() != self.registers() {
            regs.clear();
            regs.resize(self.registers(), 0);
        }
        self.eval_in(vals, regs)
    }

    fn eval_in(&self, vals: &[i64], regs: &mut [i64]) -> f64 {
        let (own, mut rest) = regs.split_at_mut(self.ops.len() + self.stack_depth);
        let mut total = self.eval_flat(vals, own);
        for (coeff, factors) in self.products.iter() {
            let mut v = *coeff;
            for f in factors {
                let (mine, tail) = rest.split_at_mut(f.registers());
                v *= f.eval_in(vals, mine);
                rest = tail;
            }
            total += v;
        }
        total
    }

    fn eval_flat(&self, vals: &[i64], regs: &mut [i64]) -> f64 {
        let (regs, stack) = regs.split_at_mut(self.ops.len());
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
                Op::FloorShift { src, k } => regs[src as usize] >> k,
            };
            regs[i] = v;
        }
        let held = self
            .conds
            .iter()
            .enumerate()
            .fold(0u64, |m, (i, &(r, eq))| {
                m | (holds(regs[r as usize], eq) as u64) << i
            });
        let mut total = 0.0;
        for p in self.pieces.iter() {
            let on = if self.conds.is_empty() {
                p.guards.iter().all(|&(r, eq)| holds(regs[r as usize], eq))
            } else {
                held & p.mask == p.mask
            };
            if !on {
                continue;
            }
            // 128-bit multiply and divide are software routines on x86-64; typical counts fit
            // in 64 bits, where the Horner code runs several times faster.
            let small = p
                .horner
                .and_then(|(s, e)| run_horner(&self.horner[s as usize..e as usize], regs, stack));
            total += match small {
                Some(num) => ratio_i64(num, p.den),
                None => ratio_i128(self.piece_i128(p, regs), p.den),
            };
        }
        total
    }

    fn piece_i128(&self, p: &CPiece, regs: &[i64]) -> i128 {
        let mut num: i128 = 0;
        for &(c, s, e) in &p.terms {
            let mut t = c;
            for &r in &self.mono_regs[s as usize..e as usize] {
                t = t.wrapping_mul(regs[r as usize] as i128);
            }
            num = num.wrapping_add(t);
        }
        num
    }
}

/// `num / den` as the nearest f64 when the quotient is exact or both fit in f64's 53-bit
/// mantissa (one correctly rounded division); otherwise as the 128-bit path does.
fn ratio_i64(num: i64, den: i128) -> f64 {
    const EXACT: i64 = 1 << 53;
    match i64::try_from(den) {
        Ok(1) => num as f64,
        Ok(d) if num % d == 0 => (num / d) as f64,
        Ok(d) if num.unsigned_abs() < EXACT as u64 && d.unsigned_abs() < EXACT as u64 => {
            num as f64 / d as f64
        }
        _ => ratio_i128(num as i128, den),
    }
}

fn ratio_i128(num: i128, den: i128) -> f64 {
    if den == 1 {
        num as f64
    } else {
        (num / den) as f64 + ((num % den) as f64 / den as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::constraint::Constraint;
    use crate::poly::poly::{rat_to_f64, Poly};
    use crate::poly::qpoly::Guard;

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

    #[test]
    fn horner_falls_back_to_128_bits_on_overflow() {
        // 3*x^5 + 7*x^2*y overflows 64 bits at x = 10^5 but fits 128
        let x = Poly::var("x");
        let x2 = x.mul(&x);
        let p = x2
            .mul(&x2)
            .mul(&x)
            .scale(&crate::poly::poly::rat(3))
            .add(&x2.mul(&Poly::var("y")).scale(&crate::poly::poly::rat(7)));
        let q = QPoly::from_poly(p);
        let c = Compiled::new(&q, &["x", "y"]).unwrap();
        let mut regs = Vec::new();
        for (xv, yv) in [(2i64, 3i64), (100_000, 5), (-100_000, -9), (3_000_000, 1)] {
            let exact = q
                .eval(&|v| match v {
                    "x" => Some(xv as i128),
                    "y" => Some(yv as i128),
                    _ => None,
                })
                .unwrap();
            assert_eq!(c.eval(&[xv, yv], &mut regs), rat_to_f64(&exact), "x={xv}");
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
