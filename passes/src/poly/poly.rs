//! Polynomials with exact rational coefficients over quasi-affine atoms (variables and floors),
//! and the one summation rule the counter needs: Σ_{x=l}^{u} P(x) by Faulhaber's formula.

use super::linexpr::{Atom, LinExpr};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub type Rat = BigRational;

/// The outcome of evaluating in machine integers.
enum Small {
    Exact(Rat),
    /// A variable has no value.
    Missing,
    /// An intermediate left `i128`: evaluate again in big rationals.
    Overflow,
}

/// A monomial: atoms with positive exponents, sorted by atom.
pub type Mono = Vec<(Atom, u32)>;

/// `Σ coeff · monomial`, no zero coefficients stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Poly {
    pub terms: BTreeMap<Mono, Rat>,
}

/// `a · b`. Most coefficients are integers, whose product needs none of the gcds `Ratio`'s
/// product takes to stay in lowest terms (which cost more than the product).
fn mul_rat(a: &Rat, b: &Rat) -> Rat {
    if a.is_integer() && b.is_integer() {
        Rat::from_integer(a.numer() * b.numer())
    } else {
        a * b
    }
}

/// `x += c`, without the gcd where both are integers (see [`mul_rat`]).
fn add_rat(x: &mut Rat, c: Rat) {
    if x.is_integer() && c.is_integer() {
        *x = Rat::from_integer(x.numer() + c.numer());
    } else {
        *x += c;
    }
}

pub fn rat(n: i128) -> Rat {
    Rat::from_integer(BigInt::from(n))
}

fn mono_mul(a: &Mono, b: &Mono) -> Mono {
    // both sorted by atom: merge
    let mut m = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                m.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                m.push(b[j].clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                m.push((a[i].0.clone(), a[i].1 + b[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    m.extend_from_slice(&a[i..]);
    m.extend_from_slice(&b[j..]);
    m
}

impl Poly {
    pub fn zero() -> Poly {
        Poly::default()
    }

    pub fn constant(c: Rat) -> Poly {
        let mut p = Poly::zero();
        p.add_term(Vec::new(), c);
        p
    }

    pub fn one() -> Poly {
        Poly::constant(Rat::one())
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The polynomial without its constant term, and that term; `None` where it is not an
    /// integer of 128 bits.
    pub fn split_constant(&self) -> Option<(Poly, i128)> {
        let mut rest = self.clone();
        let offset = match rest.terms.remove(&Vec::new()) {
            None => 0,
            Some(c) if c.is_integer() => i128::try_from(c.to_integer()).ok()?,
            Some(_) => return None,
        };
        Some((rest, offset))
    }

    /// The constant value, when the polynomial has no variable part.
    pub fn as_constant(&self) -> Option<Rat> {
        match self.terms.len() {
            0 => Some(Rat::zero()),
            1 => self.terms.get(&Vec::new()).cloned(),
            _ => None,
        }
    }

    pub fn var(name: &str) -> Poly {
        Poly::from_lin(&LinExpr::var(name))
    }

    pub fn from_lin(e: &LinExpr) -> Poly {
        let mut p = Poly::constant(rat(e.constant));
        for (a, c) in &e.terms {
            p.add_term(vec![(a.clone(), 1)], rat(*c));
        }
        p
    }

    pub fn add_term(&mut self, m: Mono, c: Rat) {
        if c.is_zero() {
            return;
        }
        match self.terms.entry(m) {
            Entry::Vacant(v) => {
                v.insert(c);
            }
            Entry::Occupied(mut o) => {
                add_rat(o.get_mut(), c);
                if o.get().is_zero() {
                    o.remove();
                }
            }
        }
    }

    pub fn add(&self, o: &Poly) -> Poly {
        let mut r = self.clone();
        for (m, c) in &o.terms {
            r.add_term(m.clone(), c.clone());
        }
        r
    }

    /// `self += o`, taking `o`'s terms: a sum built term by term this way copies nothing, where
    /// `r = r.add(&t)` copies the whole sum at every step.
    pub fn absorb(&mut self, o: Poly) {
        for (m, c) in o.terms {
            self.add_term(m, c);
        }
    }

    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.scale(&-Rat::one()))
    }

    pub fn scale(&self, k: &Rat) -> Poly {
        if k.is_zero() {
            return Poly::zero();
        }
        Poly {
            terms: self.terms.iter().map(|(m, c)| (m.clone(), c * k)).collect(),
        }
    }

    pub fn mul(&self, o: &Poly) -> Poly {
        let mut r = Poly::zero();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &o.terms {
                r.add_term(mono_mul(ma, mb), mul_rat(ca, cb));
            }
        }
        r
    }

    pub fn pow(&self, k: u32) -> Poly {
        let mut r = Poly::one();
        for _ in 0..k {
            r = r.mul(self);
        }
        r
    }

    pub fn involves(&self, name: &str) -> bool {
        self.terms
            .keys()
            .any(|m| m.iter().any(|(a, _)| a.involves(name)))
    }

    /// Substitute `name := e` in every atom (floors re-normalised).
    pub fn subst(&self, name: &str, e: &LinExpr) -> Poly {
        if !self.involves(name) {
            return self.clone();
        }
        let mut r = Poly::zero();
        for (m, c) in &self.terms {
            let mut t = Poly::constant(c.clone());
            for (a, k) in m {
                let pa = if a.involves(name) {
                    Poly::from_lin(&a.subst(name, e))
                } else {
                    Poly {
                        terms: [(vec![(a.clone(), 1)], Rat::one())].into_iter().collect(),
                    }
                };
                t = t.mul(&pa.pow(*k));
            }
            r.absorb(t);
        }
        r
    }

    /// Compose with polynomial values for a variable that occurs only as a plain variable (not
    /// inside floors): `name := q`.
    pub fn compose_var(&self, name: &str, q: &Poly) -> Poly {
        let mut r = Poly::zero();
        for (m, c) in &self.terms {
            let mut t = Poly::constant(c.clone());
            for (a, k) in m {
                match a {
                    Atom::Var(v) if &**v == name => t = t.mul(&q.pow(*k)),
                    _ => {
                        t = t.mul(&Poly {
                            terms: [(vec![(a.clone(), *k)], Rat::one())].into_iter().collect(),
                        })
                    }
                }
            }
            r.absorb(t);
        }
        r
    }

    /// The largest floor-modulus needed to make `name` appear only outside floors.
    pub fn split_modulus(&self, name: &str) -> i128 {
        use num_integer::Integer;
        let mut m = 1i128;
        for mono in self.terms.keys() {
            for (a, _) in mono {
                m = m.lcm(&a.split_modulus(name));
            }
        }
        m
    }

    /// Whether `name` occurs inside a floor.
    pub fn has_floor_in(&self, name: &str) -> bool {
        self.terms.keys().any(|m| {
            m.iter()
                .any(|(a, _)| matches!(a, Atom::Floor(..)) && a.involves(name))
        })
    }

    /// `Σ_{name=l}^{u} self` for `l <= u + 1`; `name` must not occur inside a floor.
    pub fn sum_range(&self, name: &str, l: &LinExpr, u: &LinExpr) -> Poly {
        // self = Σ_k c_k · name^k
        let mut by_deg: BTreeMap<u32, Poly> = BTreeMap::new();
        for (m, c) in &self.terms {
            let mut k = 0;
            let mut rest: Mono = Vec::new();
            for (a, e) in m {
                match a {
                    Atom::Var(v) if &**v == name => k = *e,
                    _ => rest.push((a.clone(), *e)),
                }
            }
            by_deg.entry(k).or_default().add_term(rest, c.clone());
        }
        let pu = Poly::from_lin(u);
        let pl1 = Poly::from_lin(&l.add_const(-1));
        let mut r = Poly::zero();
        for (k, c) in by_deg {
            let s = faulhaber(k);
            let diff = s.compose_var("n", &pu).sub(&s.compose_var("n", &pl1));
            r.absorb(c.mul(&diff));
        }
        r
    }

    /// Replace the atom `atom` (a floor, say) by `e` everywhere.
    pub fn subst_atom(&self, atom: &Atom, e: &LinExpr) -> Poly {
        let pe = Poly::from_lin(e);
        let mut r = Poly::zero();
        for (m, c) in &self.terms {
            let mut t = Poly::constant(c.clone());
            for (a, k) in m {
                let f = if a == atom {
                    pe.clone()
                } else {
                    Poly::from_lin(&LinExpr::atom(a.clone()))
                };
                for _ in 0..*k {
                    t = t.mul(&f);
                }
            }
            r.absorb(t);
        }
        r
    }

    /// Whether [`Poly::sum_range_floors`] can sum over `name`: inside floors `name` occurs only
    /// as `floor((±name + e)/m)` (canonically, coefficient 1 or m − 1), at most one such floor
    /// per monomial, to the first power, with no other factor involving `name`.
    pub fn floors_summable(&self, name: &str) -> bool {
        self.terms.keys().all(|m| {
            let inside: Vec<&(Atom, u32)> = m
                .iter()
                .filter(|(a, _)| matches!(a, Atom::Floor(..)) && a.involves(name))
                .collect();
            match inside.as_slice() {
                [] => true,
                [(Atom::Floor(e, md), 1)] => {
                    let bare = m
                        .iter()
                        .any(|(a, _)| matches!(a, Atom::Var(v) if &**v == name));
                    let c = e.terms.get(&Atom::Var(name.into())).copied().unwrap_or(0);
                    let nested = e
                        .terms
                        .keys()
                        .any(|a| matches!(a, Atom::Floor(..)) && a.involves(name));
                    !bare && !nested && (c == 1 || c == md - 1)
                }
                _ => false,
            }
        })
    }

    /// `Σ_{name=l}^{u} self` for `l <= u + 1`, where [`Poly::floors_summable`] holds. A floor of
    /// `name` is summed without splitting `name` into residue classes, through
    /// G(N) = Σ_{y=0}^{N-1} floor(y/m) = m·q(q − 1)/2 + q·(N − m·q) with q = floor(N/m) (G(N+1) −
    /// G(N) = floor(N/m) for every integer N, so Σ_{x=l}^{u} floor((x + e)/m) = G(u + e + 1) −
    /// G(l + e)); a grid-stride loop over 65536 threads would otherwise split 65536 ways.
    pub fn sum_range_floors(&self, name: &str, l: &LinExpr, u: &LinExpr) -> Poly {
        let x = Atom::Var(name.into());
        let mut plain = Poly::zero();
        let mut r = Poly::zero();
        for (m, c) in &self.terms {
            let Some(i) = m
                .iter()
                .position(|(a, _)| matches!(a, Atom::Floor(..)) && a.involves(name))
            else {
                plain.add_term(m.clone(), c.clone());
                continue;
            };
            let Atom::Floor(e, md) = &m[i].0 else {
                unreachable!("position found a floor")
            };
            let mut cof_mono = m.clone();
            cof_mono.remove(i);
            let mut cof = Poly::zero();
            cof.add_term(cof_mono, c.clone());
            let k = e.terms.get(&x).copied().unwrap_or(0);
            let rest = e.sub(&LinExpr::var(name).scale(k));
            let s = if k == 1 {
                floor_prefix_sum(&u.add(&rest).add_const(1), *md)
                    .sub(&floor_prefix_sum(&l.add(&rest), *md))
            } else {
                // floor(((m − 1)x + e)/m) = x + floor((e − x)/m); y = e − x runs from e − u to e − l
                Poly::var(name)
                    .sum_range(name, l, u)
                    .add(&floor_prefix_sum(&rest.sub(l).add_const(1), *md))
                    .sub(&floor_prefix_sum(&rest.sub(u), *md))
            };
            r.absorb(cof.mul(&s));
        }
        r.add(&plain.sum_range(name, l, u))
    }

    /// Exact value; `None` when a variable has no value.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<Rat> {
        match self.eval_small(env) {
            Small::Exact(v) => Some(v),
            Small::Missing => None,
            Small::Overflow => self.eval_big(env),
        }
    }

    /// [`Poly::eval`] in machine integers: a warp walk evaluates an address polynomial for every
    /// lane of every visited point, and big-rational arithmetic made that walk the bulk of a
    /// launch's binding. The sum is kept as one fraction `num / den` over the coefficients'
    /// denominators; any overflow hands the evaluation to exact big rationals.
    fn eval_small(&self, env: &dyn Fn(&str) -> Option<i128>) -> Small {
        let (mut num, mut den) = (0i128, 1i128);
        for (m, c) in &self.terms {
            let (Some(cn), Some(cd)) = (c.numer().to_i128(), c.denom().to_i128()) else {
                return Small::Overflow;
            };
            let mut t = cn;
            for (a, k) in m {
                let Some(v) = a.eval(env) else {
                    return Small::Missing;
                };
                for _ in 0..*k {
                    let Some(p) = t.checked_mul(v) else {
                        return Small::Overflow;
                    };
                    t = p;
                }
            }
            let sum = if cd == den {
                num.checked_add(t)
            } else {
                let scaled = num.checked_mul(cd);
                den = match den.checked_mul(cd) {
                    Some(d) => d,
                    None => return Small::Overflow,
                };
                scaled.and_then(|n| t.checked_mul(den / cd).and_then(|t| n.checked_add(t)))
            };
            let Some(sum) = sum else {
                return Small::Overflow;
            };
            num = sum;
        }
        Small::Exact(if den == 1 {
            Rat::from_integer(BigInt::from(num))
        } else {
            Rat::new(BigInt::from(num), BigInt::from(den))
        })
    }

    fn eval_big(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<Rat> {
        let mut acc = Rat::zero();
        for (m, c) in &self.terms {
            let mut t = c.clone();
            for (a, k) in m {
                let v = rat(a.eval(env)?);
                for _ in 0..*k {
                    t *= &v;
                }
            }
            acc += t;
        }
        Some(acc)
    }

    pub fn degree(&self) -> u32 {
        self.terms
            .keys()
            .map(|m| m.iter().map(|(_, k)| k).sum())
            .max()
            .unwrap_or(0)
    }

    pub fn vars(&self, out: &mut BTreeSet<String>) {
        for m in self.terms.keys() {
            for (a, _) in m {
                a.vars(out);
            }
        }
    }
}

/// Bernoulli numbers B_0..B_k with B_1 = +1/2.
fn bernoulli(k: usize) -> Vec<Rat> {
    let mut b: Vec<Rat> = Vec::with_capacity(k + 1);
    for m in 0..=k {
        // Σ_{j=0}^{m} C(m+1, j) B_j = m + 1 (the B_1 = +1/2 convention)
        let mut s = Rat::zero();
        for (j, bj) in b.iter().enumerate() {
            s += rat(binom(m as u32 + 1, j as u32)) * bj;
        }
        let bm = (rat(m as i128 + 1) - s) / rat(m as i128 + 1);
        b.push(bm);
    }
    b
}

fn binom(n: u32, k: u32) -> i128 {
    let mut r: i128 = 1;
    for i in 0..k {
        r = r * (n - i) as i128 / (i + 1) as i128;
    }
    r
}

/// `S_k(n) = Σ_{x=1}^{n} x^k` as a polynomial in the variable `n`. As a polynomial,
/// `S_k(n) − S_k(n − 1) = n^k` for every integer n, so `S_k(u) − S_k(l − 1)` sums any range.
pub fn faulhaber(k: u32) -> Poly {
    thread_local! {
        static CACHE: std::cell::RefCell<BTreeMap<u32, Poly>> = Default::default();
    }
    if let Some(p) = CACHE.with(|c| c.borrow().get(&k).cloned()) {
        return p;
    }
    let b = bernoulli(k as usize);
    let mut p = Poly::zero();
    let kk = k + 1;
    for (j, bj) in b.iter().enumerate() {
        let c = rat(binom(kk, j as u32)) * bj / rat(kk as i128);
        let e = kk - j as u32;
        let m = if e == 0 {
            Vec::new()
        } else {
            vec![(Atom::Var("n".into()), e)]
        };
        p.add_term(m, c);
    }
    CACHE.with(|c| c.borrow_mut().insert(k, p.clone()));
    p
}

/// Least common multiple of the coefficient denominators.
pub fn common_denominator(p: &Poly) -> BigInt {
    use num_integer::Integer;
    let mut d = BigInt::one();
    for c in p.terms.values() {
        d = d.lcm(c.denom());
    }
    d
}

fn fmt_mono(f: &mut fmt::Formatter<'_>, m: &Mono) -> fmt::Result {
    for (i, (a, k)) in m.iter().enumerate() {
        if i > 0 {
            f.write_str("*")?;
        }
        write!(f, "{a}")?;
        if *k > 1 {
            write!(f, "^{k}")?;
        }
    }
    Ok(())
}

/// Prints as `(n^2 - n)/2`: integer coefficients over one common denominator, higher degree
/// first.
impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        let d = common_denominator(self);
        let mut order: Vec<(&Mono, &Rat)> = self.terms.iter().collect();
        order.sort_by(|a, b| {
            let da: u32 = a.0.iter().map(|(_, k)| k).sum();
            let db: u32 = b.0.iter().map(|(_, k)| k).sum();
            db.cmp(&da).then(a.0.cmp(b.0))
        });
        let many = order.len() > 1;
        let wrap = !d.is_one() && many;
        if wrap {
            f.write_str("(")?;
        }
        for (i, (m, c)) in order.iter().enumerate() {
            let n = (*c * Rat::from_integer(d.clone())).to_integer();
            let neg = n.is_negative();
            let mag = n.abs();
            match (i == 0, neg) {
                (true, true) => f.write_str("-")?,
                (true, false) => {}
                (false, true) => f.write_str(" - ")?,
                (false, false) => f.write_str(" + ")?,
            }
            if m.is_empty() {
                write!(f, "{mag}")?;
            } else {
                if !mag.is_one() {
                    write!(f, "{mag}*")?;
                }
                fmt_mono(f, m)?;
            }
        }
        if wrap {
            f.write_str(")")?;
        }
        if !d.is_one() {
            write!(f, "/{d}")?;
        }
        Ok(())
    }
}

/// Apply Hermite's identity Σ_{r=0}^{m-1} floor((x + r)/m) = x (integer x) wherever a
/// polynomial holds all m residues of one floor with the same coefficient and cofactor.
/// Summing a tiled loop that the compiler unrolled m times produces exactly such runs
/// (`16·floor(n/16) + 16·floor((n + 1)/16) + …`); collapsing them makes the count shorter to
/// print and cheaper to evaluate, and the result is equal at every integer point.
pub fn hermite_simplify(p: &Poly) -> Poly {
    let mut p = p.clone();
    while let Some((members, replacement)) = hermite_run(&p) {
        for m in members {
            p.terms.remove(&m);
        }
        p = p.add(&replacement);
    }
    p
}

/// One complete run of residues in `p`: the monomials to remove and what replaces them.
fn hermite_run(p: &Poly) -> Option<(Vec<Mono>, Poly)> {
    // key: (coefficient, cofactor monomial, floor numerator without its constant, modulus)
    type Key = (Rat, Mono, LinExpr, i128);
    let mut runs: BTreeMap<Key, BTreeMap<i128, Mono>> = BTreeMap::new();
    for (m, c) in &p.terms {
        for (i, (a, k)) in m.iter().enumerate() {
            let Atom::Floor(e, md) = a else { continue };
            let mut cof = m.clone();
            if *k == 1 {
                cof.remove(i);
            } else {
                cof[i].1 -= 1;
            }
            let mut base = (**e).clone();
            let r = base.constant;
            base.constant = 0;
            let key = (c.clone(), cof, base, *md);
            let run = runs.entry(key.clone()).or_default();
            run.insert(r, m.clone());
            // canonical floors keep their constant in 0..m, so m entries are all residues
            if run.len() as i128 == *md {
                let members = runs.remove(&key)?.into_values().collect();
                let (c, cof, base, _) = key;
                let mut replacement = Poly::zero();
                replacement.add_term(cof, c);
                return Some((members, replacement.mul(&Poly::from_lin(&base))));
            }
        }
    }
    None
}

/// G(N) = Σ_{y=0}^{N-1} floor(y/m), for every integer N: m·q(q − 1)/2 + q·(N − m·q), q = floor(N/m).
fn floor_prefix_sum(n: &LinExpr, m: i128) -> Poly {
    let q = Poly::from_lin(&n.floor_div(m));
    let half_m = Rat::new(BigInt::from(m), BigInt::from(2));
    q.mul(&q.sub(&Poly::one()))
        .scale(&half_m)
        .add(&q.mul(&Poly::from_lin(n).sub(&q.scale(&rat(m)))))
}

/// A rational as f64 (for bound numbers).
pub fn rat_to_f64(r: &Rat) -> f64 {
    r.to_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The machine-integer evaluation gives the big-rational one's value: with fractional
    /// coefficients over several denominators, with a missing variable, and past `i128`, where
    /// it hands over instead of wrapping.
    #[test]
    fn machine_integer_evaluation_agrees_with_big_rationals() {
        let x = Poly::var("x");
        let floor = Poly::from_lin(&LinExpr::var("y").add_const(3).floor_div(4));
        let cases = [
            x.mul(&x)
                .scale(&Rat::new(1.into(), 2.into()))
                .add(&x.scale(&Rat::new(1.into(), 2.into()))),
            x.mul(&floor)
                .scale(&Rat::new((-5).into(), 3.into()))
                .add(&Poly::constant(Rat::new(7.into(), 6.into())))
                .add(&x.scale(&Rat::new(1.into(), 4.into()))),
            x.mul(&x).mul(&x).mul(&x).scale(&rat(3)),
            Poly::constant(rat(-9)),
        ];
        for p in &cases {
            for (xv, yv) in [(0i128, 0i128), (7, -13), (-4, 1001), (1 << 40, 5)] {
                let env = |v: &str| match v {
                    "x" => Some(xv),
                    "y" => Some(yv),
                    _ => None,
                };
                let fast = p.eval(&env);
                assert_eq!(fast, p.eval_big(&env), "{p} at x={xv} y={yv}");
                if xv == 1 << 40 && p.degree() == 4 {
                    // 3·2^160 does not fit: the value comes from the big-rational path
                    assert!(matches!(p.eval_small(&env), Small::Overflow));
                    assert_eq!(fast.unwrap(), Rat::from_integer(BigInt::from(3) << 160));
                }
            }
        }
        let missing = x.add(&Poly::var("z"));
        assert!(matches!(
            missing.eval_small(&|v| (v == "x").then_some(1)),
            Small::Missing
        ));
        assert_eq!(missing.eval(&|v| (v == "x").then_some(1)), None);
    }

    /// Σ_{x=l}^{u} of floors of ±x (times a cofactor and beside plain terms) equals the sum
    /// term by term, for bounds of either sign, empty ranges and several moduli.
    #[test]
    fn floor_sums_match_brute_force() {
        let x = LinExpr::var("x");
        let y = Poly::var("y");
        for m in [2i128, 3, 4, 7, 16] {
            for e in [-9i128, -1, 0, 5] {
                // 3·y·floor((x + e)/m) + 2·floor((e − x)/m) + x² − 4
                let p = Poly::from_lin(&x.add_const(e).floor_div(m))
                    .mul(&y)
                    .scale(&rat(3))
                    .add(&Poly::from_lin(&x.scale(-1).add_const(e).floor_div(m)).scale(&rat(2)))
                    .add(&Poly::var("x").mul(&Poly::var("x")))
                    .sub(&Poly::constant(rat(4)));
                assert!(p.floors_summable("x"));
                let s = p.sum_range_floors("x", &LinExpr::var("l"), &LinExpr::var("u"));
                for (l, u) in [(-7i128, 5i128), (0, 0), (3, 2), (-20, -11), (1, 40)] {
                    let env = |v: &str| match v {
                        "l" => Some(l),
                        "u" => Some(u),
                        "y" => Some(5),
                        _ => None,
                    };
                    let want: Rat = (l..=u)
                        .map(|xv| {
                            p.eval(&|v: &str| if v == "x" { Some(xv) } else { env(v) })
                                .unwrap()
                        })
                        .sum();
                    assert_eq!(s.eval(&env).unwrap(), want, "m={m} e={e} l={l} u={u}");
                }
            }
        }
        // x inside a floor with another coefficient, or times x, is not summable this way
        assert!(!Poly::from_lin(&x.scale(2).floor_div(5)).floors_summable("x"));
        assert!(!Poly::from_lin(&x.floor_div(4))
            .mul(&Poly::var("x"))
            .floors_summable("x"));
    }

    #[test]
    fn hermite_collapses_full_residue_runs_only() {
        let n = LinExpr::var("n");
        let x = Poly::var("x");
        // 16·x·Σ_{r<16} floor((n + r)/16) + floor(n/16)·Σ_{r<16} floor((n + r)/16)
        // + 5·Σ_{r<3} floor((2n + r)/4) (incomplete: stays)
        let mut p = Poly::zero();
        for r in 0..16 {
            let f = Poly::from_lin(&n.add_const(r).floor_div(16));
            p = p.add(&f.mul(&x).scale(&rat(16)));
            p = p.add(&f.mul(&Poly::from_lin(&n.floor_div(16))));
        }
        for r in 0..3 {
            p = p.add(&Poly::from_lin(&n.scale(2).add_const(r).floor_div(4)).scale(&rat(5)));
        }
        let s = hermite_simplify(&p);
        let want = x
            .mul(&Poly::var("n"))
            .scale(&rat(16))
            .add(&Poly::from_lin(&n.floor_div(16)).mul(&Poly::var("n")));
        let rest: Poly = (0..3).fold(Poly::zero(), |acc, r| {
            acc.add(&Poly::from_lin(&n.scale(2).add_const(r).floor_div(4)).scale(&rat(5)))
        });
        assert_eq!(s, want.add(&rest));
        for nv in -40..40i128 {
            for xv in [-3i128, 0, 7] {
                let env = |v: &str| match v {
                    "n" => Some(nv),
                    "x" => Some(xv),
                    _ => None,
                };
                assert_eq!(p.eval(&env), s.eval(&env), "n={nv} x={xv}");
            }
        }
    }

    #[test]
    fn faulhaber_matches_direct_sums() {
        for k in 0..7u32 {
            let s = faulhaber(k);
            for n in -6i128..12 {
                let direct: i128 = if n >= 0 {
                    (1..=n).map(|x| x.pow(k)).sum()
                } else {
                    // S_k(n) for negative n: -(Σ_{x=n+1}^{0} x^k)
                    -((n + 1)..=0).map(|x| x.pow(k)).sum::<i128>()
                };
                let v = s.eval(&|v| (v == "n").then_some(n)).unwrap();
                assert_eq!(v, rat(direct), "k={k} n={n}");
            }
        }
    }

    #[test]
    fn triangle_sum_prints() {
        // Σ_{i=0}^{n-1} Σ_{j=0}^{i-1} 1 = n(n-1)/2
        let inner =
            Poly::one().sum_range("j", &LinExpr::constant(0), &LinExpr::var("i").add_const(-1));
        let outer = inner.sum_range("i", &LinExpr::constant(0), &LinExpr::var("n").add_const(-1));
        assert_eq!(outer.to_string(), "(n^2 - n)/2");
        assert_eq!(outer.eval(&|_| Some(13)).unwrap(), rat(78));
    }
}
