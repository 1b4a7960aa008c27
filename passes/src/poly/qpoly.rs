//! Piecewise quasi-polynomials: `Σ [guardᵢ] · polyᵢ` where a guard is a conjunction of
//! quasi-affine constraints over the parameters. The counter produces disjoint pieces, so
//! evaluation picks at most one; the algebra (add, mul, substitution) is valid without
//! disjointness because the value is defined as the sum over every piece whose guard holds.

use super::linexpr::LinExpr;
use super::poly::{rat_to_f64, Poly, Rat};
use num_traits::Zero;
use serde::{Serialize, Serializer};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One constraint `expr >= 0` or `expr == 0`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Constraint {
    pub expr: LinExpr,
    pub eq: bool,
}

impl Constraint {
    pub fn holds(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<bool> {
        let v = self.expr.eval(env)?;
        Some(if self.eq { v == 0 } else { v >= 0 })
    }
}

/// A conjunction of constraints (empty = always true).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Guard {
    pub constraints: Vec<Constraint>,
}

impl Guard {
    pub fn always() -> Guard {
        Guard::default()
    }

    pub fn and(&self, o: &Guard) -> Guard {
        let mut c: BTreeSet<Constraint> = self.constraints.iter().cloned().collect();
        c.extend(o.constraints.iter().cloned());
        Guard {
            constraints: c.into_iter().collect(),
        }
    }

    pub fn holds(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<bool> {
        for c in &self.constraints {
            if !c.holds(env)? {
                return Some(false);
            }
        }
        Some(true)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Piece {
    pub guard: Guard,
    pub poly: Poly,
}

/// A piecewise quasi-polynomial in named parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct QPoly {
    pub pieces: Vec<Piece>,
}

impl QPoly {
    pub fn zero() -> QPoly {
        QPoly::default()
    }

    pub fn from_poly(p: Poly) -> QPoly {
        QPoly::guarded(Guard::always(), p)
    }

    pub fn constant(c: i128) -> QPoly {
        QPoly::from_poly(Poly::constant(super::poly::rat(c)))
    }

    pub fn guarded(guard: Guard, poly: Poly) -> QPoly {
        let mut q = QPoly::zero();
        q.push(guard, poly);
        q
    }

    pub fn is_zero(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Add a piece, merging with an identical guard.
    pub fn push(&mut self, guard: Guard, poly: Poly) {
        if poly.is_zero() {
            return;
        }
        if let Some(i) = self.pieces.iter().position(|p| p.guard == guard) {
            let s = self.pieces[i].poly.add(&poly);
            if s.is_zero() {
                self.pieces.remove(i);
            } else {
                self.pieces[i].poly = s;
            }
        } else {
            self.pieces.push(Piece { guard, poly });
        }
    }

    pub fn add(&self, o: &QPoly) -> QPoly {
        let mut r = self.clone();
        for p in &o.pieces {
            r.push(p.guard.clone(), p.poly.clone());
        }
        r
    }

    pub fn scale(&self, k: &Rat) -> QPoly {
        let mut r = QPoly::zero();
        for p in &self.pieces {
            r.push(p.guard.clone(), p.poly.scale(k));
        }
        r
    }

    pub fn mul(&self, o: &QPoly) -> QPoly {
        let mut r = QPoly::zero();
        for a in &self.pieces {
            for b in &o.pieces {
                r.push(a.guard.and(&b.guard), a.poly.mul(&b.poly));
            }
        }
        r
    }

    pub fn mul_poly(&self, p: &Poly) -> QPoly {
        let mut r = QPoly::zero();
        for a in &self.pieces {
            r.push(a.guard.clone(), a.poly.mul(p));
        }
        r
    }

    /// Substitute a quasi-affine expression for a parameter, e.g. `nctaid_x := floor((n + 15)/16)`.
    pub fn subst(&self, name: &str, e: &LinExpr) -> QPoly {
        let mut r = QPoly::zero();
        for p in &self.pieces {
            let guard = Guard {
                constraints: p
                    .guard
                    .constraints
                    .iter()
                    .map(|c| Constraint {
                        expr: c.expr.subst(name, e),
                        eq: c.eq,
                    })
                    .collect(),
            };
            r.push(guard, p.poly.subst(name, e));
        }
        r
    }

    /// Exact value at integer parameter values; `None` when a parameter has no value.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<Rat> {
        let mut acc = Rat::zero();
        for p in &self.pieces {
            if p.guard.holds(env)? {
                acc += p.poly.eval(env)?;
            }
        }
        Some(acc)
    }

    /// Exact value with parameters from a map.
    pub fn eval_map(&self, vals: &BTreeMap<String, i128>) -> Option<Rat> {
        self.eval(&|v| vals.get(v).copied())
    }

    pub fn eval_f64(&self, vals: &BTreeMap<String, i128>) -> Option<f64> {
        self.eval_map(vals).map(|r| rat_to_f64(&r))
    }

    /// Every parameter name that occurs.
    pub fn params(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for p in &self.pieces {
            p.poly.vars(&mut out);
            for c in &p.guard.constraints {
                c.expr.vars(&mut out);
            }
        }
        out
    }

    /// Highest total degree over the pieces.
    pub fn degree(&self) -> u32 {
        self.pieces
            .iter()
            .map(|p| p.poly.degree())
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Display for Constraint {
    /// `n >= m + 1` rather than `n - m - 1 >= 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lhs = LinExpr::default();
        let mut rhs = LinExpr::constant(-self.expr.constant);
        for (a, c) in &self.expr.terms {
            if *c > 0 {
                lhs.add_term(a.clone(), *c);
            } else {
                rhs.add_term(a.clone(), -c);
            }
        }
        if lhs.terms.is_empty() {
            // 0 >= rhs  ->  rhs <= 0
            return write!(f, "{rhs} {} 0", if self.eq { "=" } else { "<=" });
        }
        write!(f, "{lhs} {} {rhs}", if self.eq { "=" } else { ">=" })
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.constraints.is_empty() {
            return f.write_str("true");
        }
        for (i, c) in self.constraints.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// `0`, `n^2`, or `n^2 if n >= 1; 0 otherwise`-style pieces joined by `; `.
impl fmt::Display for QPoly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pieces.is_empty() {
            return f.write_str("0");
        }
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            if p.guard.constraints.is_empty() {
                write!(f, "{}", p.poly)?;
            } else {
                write!(f, "{} if {}", p.poly, p.guard)?;
            }
        }
        Ok(())
    }
}

impl Serialize for QPoly {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::poly::rat;

    #[test]
    fn substitution_of_launch_sizes() {
        // threads = nctaid * 16 with nctaid := ceil(n/16)
        let q = QPoly::from_poly(Poly::var("nctaid").scale(&rat(16)));
        let b = q.subst("nctaid", &LinExpr::var("n").ceil_div(16));
        assert_eq!(b.to_string(), "16*floor((n + 15)/16)");
        let mut m = BTreeMap::new();
        m.insert("n".to_string(), 100);
        assert_eq!(b.eval_map(&m), Some(rat(112)));
    }

    #[test]
    fn guards_select_pieces() {
        let g = Guard {
            constraints: vec![Constraint {
                expr: LinExpr::var("n").add_const(-1),
                eq: false,
            }],
        };
        let q = QPoly::guarded(g, Poly::var("n").mul(&Poly::var("n")));
        assert_eq!(q.to_string(), "n^2 if n >= 1");
        let e = |n: i128| q.eval(&move |_| Some(n)).unwrap();
        assert_eq!(e(5), rat(25));
        assert_eq!(e(0), rat(0));
    }
}
