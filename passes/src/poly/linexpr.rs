//! Quasi-affine expressions: integer linear combinations of atoms, where an atom is a named
//! variable or `floor(e/m)` of another quasi-affine expression. Floors are kept in a canonical
//! form (every coefficient inside reduced modulo `m`, integral parts pulled out, common factors
//! cancelled), so that equal expressions compare equal and substitution `x := m·q + r` turns
//! `floor((x + c)/m)` into `q + floor((r + c)/m)` by normalisation alone.

use num_integer::Integer;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A variable or a floor of a quasi-affine expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    Var(std::sync::Arc<str>),
    /// `floor(e / m)` with `m >= 2`, in canonical form.
    Floor(std::sync::Arc<LinExpr>, i128),
}

/// `Σ cᵢ·atomᵢ + constant`, integer coefficients, no zero coefficients stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinExpr {
    pub terms: BTreeMap<Atom, i128>,
    pub constant: i128,
}

impl LinExpr {
    pub fn constant(c: i128) -> LinExpr {
        LinExpr {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub fn var(name: &str) -> LinExpr {
        LinExpr::atom(Atom::Var(name.into()))
    }

    pub fn atom(a: Atom) -> LinExpr {
        let mut terms = BTreeMap::new();
        terms.insert(a, 1);
        LinExpr { terms, constant: 0 }
    }

    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn add_term(&mut self, a: Atom, c: i128) {
        if c == 0 {
            return;
        }
        let e = self.terms.entry(a).or_insert(0);
        *e += c;
        if *e == 0 {
            // re-find the key to remove it (the entry borrow ended)
            let k = self
                .terms
                .iter()
                .find(|(_, v)| **v == 0)
                .map(|(k, _)| k.clone());
            if let Some(k) = k {
                self.terms.remove(&k);
            }
        }
    }

    pub fn add(&self, o: &LinExpr) -> LinExpr {
        let mut r = self.clone();
        for (a, c) in &o.terms {
            r.add_term(a.clone(), *c);
        }
        r.constant += o.constant;
        r
    }

    pub fn scale(&self, k: i128) -> LinExpr {
        if k == 0 {
            return LinExpr::default();
        }
        LinExpr {
            terms: self.terms.iter().map(|(a, c)| (a.clone(), c * k)).collect(),
            constant: self.constant * k,
        }
    }

    pub fn sub(&self, o: &LinExpr) -> LinExpr {
        self.add(&o.scale(-1))
    }

    pub fn add_const(&self, c: i128) -> LinExpr {
        let mut r = self.clone();
        r.constant += c;
        r
    }

    /// Canonical `floor(self / m)` for `m >= 1`.
    pub fn floor_div(&self, m: i128) -> LinExpr {
        assert!(m >= 1, "floor_div by {m}");
        if m == 1 {
            return self.clone();
        }
        let mut outside = LinExpr::default();
        let mut inside = LinExpr::default();
        for (a, c) in &self.terms {
            let (q, r) = (c.div_euclid(m), c.rem_euclid(m));
            outside.add_term(a.clone(), q);
            inside.add_term(a.clone(), r);
        }
        outside.constant = self.constant.div_euclid(m);
        inside.constant = self.constant.rem_euclid(m);
        if inside.terms.is_empty() {
            // 0 <= constant < m
            return outside;
        }
        // cancel a common factor g of the inside coefficients and m:
        // floor((g·e + c)/(g·m')) = floor((e + floor(c/g))/m')
        let mut g = m;
        for c in inside.terms.values() {
            g = g.gcd(c);
        }
        let mut m2 = m;
        if g > 1 {
            for c in inside.terms.values_mut() {
                *c /= g;
            }
            inside.constant = inside.constant.div_euclid(g);
            m2 = m / g;
        }
        if m2 == 1 {
            return outside.add(&inside);
        }
        // a floor inside a floor: floor((floor(f/a) + r)/m) = floor((f + a·r)/(a·m)) for
        // integral r, so `floor((floor((n + 31)/32) + 7)/8)` reads `floor((n + 255)/256)`
        let nested = inside.terms.iter().find_map(|(atom, c)| match atom {
            Atom::Floor(f, a) if *c == 1 => Some((atom.clone(), (**f).clone(), *a)),
            _ => None,
        });
        if let Some((atom, f, a)) = nested {
            let mut rest = inside;
            rest.terms.remove(&atom);
            return outside.add(&f.add(&rest.scale(a)).floor_div(a * m2));
        }
        outside.add_term(Atom::Floor(std::sync::Arc::new(inside), m2), 1);
        outside
    }

    /// The ceiling, as `floor((self + m - 1)/m)` (reads better than `-floor(-self/m)`).
    pub fn ceil_div(&self, m: i128) -> LinExpr {
        self.add_const(m - 1).floor_div(m)
    }

    /// Whether `name` occurs, directly or inside a floor.
    pub fn involves(&self, name: &str) -> bool {
        self.terms.keys().any(|a| a.involves(name))
    }

    /// Substitute `name := e` everywhere, re-normalising floors.
    pub fn subst(&self, name: &str, e: &LinExpr) -> LinExpr {
        let mut r = LinExpr::constant(self.constant);
        for (a, c) in &self.terms {
            r = r.add(&a.subst(name, e).scale(*c));
        }
        r
    }

    /// Evaluate with integer values for the variables; `None` if one is missing.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        let mut v = self.constant;
        for (a, c) in &self.terms {
            v += c * a.eval(env)?;
        }
        Some(v)
    }

    /// Every variable name that occurs.
    pub fn vars(&self, out: &mut BTreeSet<String>) {
        for a in self.terms.keys() {
            a.vars(out);
        }
    }

    /// The modulus `M` such that substituting `name := M·q + r` makes every floor affine in `q`:
    /// the lcm over floors that involve `name` of the product of denominators on the way down.
    pub fn split_modulus(&self, name: &str) -> i128 {
        let mut m = 1i128;
        for a in self.terms.keys() {
            m = m.lcm(&a.split_modulus(name));
        }
        m
    }
}

impl Atom {
    pub fn involves(&self, name: &str) -> bool {
        match self {
            Atom::Var(v) => &**v == name,
            Atom::Floor(e, _) => e.involves(name),
        }
    }

    pub fn subst(&self, name: &str, e: &LinExpr) -> LinExpr {
        match self {
            Atom::Var(v) if &**v == name => e.clone(),
            Atom::Var(_) => LinExpr::atom(self.clone()),
            Atom::Floor(inner, m) => {
                if inner.involves(name) {
                    inner.subst(name, e).floor_div(*m)
                } else {
                    LinExpr::atom(self.clone())
                }
            }
        }
    }

    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        match self {
            Atom::Var(v) => env(v),
            Atom::Floor(e, m) => Some(e.eval(env)?.div_euclid(*m)),
        }
    }

    pub fn vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Atom::Var(v) => {
                out.insert(v.to_string());
            }
            Atom::Floor(e, _) => e.vars(out),
        }
    }

    /// See [`LinExpr::split_modulus`]. For `floor((k·name + rest)/m)` with `name` in no inner
    /// floor, `M = m / gcd(k, m)` suffices: `k·M` is a multiple of `m`, so `name := M·q + r`
    /// leaves `(k·M/m)·q + floor((k·r + rest)/m)` (a grid-stride step of 256 threads inside a
    /// floor by 65536 splits 256 ways, not 65536).
    pub fn split_modulus(&self, name: &str) -> i128 {
        match self {
            Atom::Var(_) => 1,
            Atom::Floor(e, m) => {
                let nested = e
                    .terms
                    .keys()
                    .any(|a| matches!(a, Atom::Floor(..)) && a.involves(name));
                if nested {
                    m * e.split_modulus(name)
                } else if let Some(k) = e.terms.get(&Atom::Var(name.into())) {
                    m / k.gcd(m)
                } else {
                    1
                }
            }
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Var(v) => f.write_str(v),
            Atom::Floor(e, m) => {
                if e.terms.len() == 1 && e.constant == 0 && e.terms.values().all(|c| *c == 1) {
                    write!(f, "floor({e}/{m})")
                } else {
                    write!(f, "floor(({e})/{m})")
                }
            }
        }
    }
}

impl fmt::Display for LinExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (a, c) in &self.terms {
            let (neg, mag) = (*c < 0, c.abs());
            match (first, neg) {
                (true, true) => f.write_str("-")?,
                (true, false) => {}
                (false, true) => f.write_str(" - ")?,
                (false, false) => f.write_str(" + ")?,
            }
            if mag != 1 {
                write!(f, "{mag}*")?;
            }
            write!(f, "{a}")?;
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)?;
        } else if self.constant > 0 {
            write!(f, " + {}", self.constant)?;
        } else if self.constant < 0 {
            write!(f, " - {}", -self.constant)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(n: i128) -> impl Fn(&str) -> Option<i128> {
        move |v| (v == "n").then_some(n)
    }

    #[test]
    fn ceil_prints_and_evaluates() {
        let e = LinExpr::var("n").add_const(15).floor_div(16);
        assert_eq!(e.to_string(), "floor((n + 15)/16)");
        for n in -40..40 {
            assert_eq!(e.eval(&env(n)), Some((n + 15).div_euclid(16)));
            let c = LinExpr::var("n").ceil_div(16);
            assert_eq!(c.eval(&env(n)), Some(-((-n).div_euclid(16))));
        }
    }

    #[test]
    fn residue_substitution_makes_floor_affine() {
        // floor((x + 3)/4) with x := 4q + 1  ->  q + 1
        let e = LinExpr::var("x").add_const(3).floor_div(4);
        assert_eq!(e.split_modulus("x"), 4);
        let s = LinExpr::var("q").scale(4).add_const(1);
        let r = e.subst("x", &s);
        assert_eq!(r, LinExpr::var("q").add_const(1));
        // nested: floor((x + 2·floor(x/4))/3) needs modulus 12
        let inner = LinExpr::var("x").floor_div(4).scale(2);
        let outer = LinExpr::var("x").add(&inner).floor_div(3);
        assert_eq!(outer.split_modulus("x"), 12);
        for r in 0..12 {
            let s = LinExpr::var("q").scale(12).add_const(r);
            assert!(!outer
                .subst("x", &s)
                .terms
                .keys()
                .any(|a| matches!(a, Atom::Floor(..))));
        }
    }

    #[test]
    fn floor_of_floor_folds() {
        let warps = LinExpr::var("n").ceil_div(32);
        let e = warps.add_const(7).floor_div(8);
        assert_eq!(e.to_string(), "floor((n + 255)/256)");
        for n in -600i128..600 {
            let direct = (n + 31).div_euclid(32) + 7;
            assert_eq!(e.eval(&env(n)), Some(direct.div_euclid(8)), "n = {n}");
        }
    }

    #[test]
    fn common_factor_cancels() {
        let e = LinExpr::var("n").scale(2).add_const(3).floor_div(4);
        // floor((2n+3)/4) = floor((n+1)/2)
        assert_eq!(e.to_string(), "floor((n + 1)/2)");
    }
}
