//! Integer values that are a min, max or select of quasi-affine expressions.
//!
//! Compilers fold guards and bounds into them: clang turns `row < n && col < n` into
//! `max(row, col) < n`, a band loop runs from `max(0, i - w)` to `min(n - 1, i + w)`. Such a
//! value is not affine, but a comparison against it is an exact boolean over affine comparisons
//! (`max(a, b) >= 0` ⇔ `a >= 0 or b >= 0`), which is all a guard or an exit test needs. The value
//! is kept as a tree with affine leaves; arithmetic that commutes with min and max (adding
//! anything, scaling, a monotone floor) is pushed down to the leaves, so nested forms stay
//! exact. Trees past [`MAX_LEAVES`] are given up (the caller treats the value as unknown), which
//! bounds the size of the conditions they produce.

use crate::affine::Cond;
use crate::poly::LinExpr;

/// Most leaves a tree may have; sums of trees multiply their leaf counts. Eight keeps nested
/// guards exact and stops at the remainder arithmetic of unrolled loops with min/max bounds,
/// whose conditions of 16 and more leaves made counting run past its deadline (such a loop is
/// then an explicit trip-count assumption).
pub const MAX_LEAVES: usize = 8;

#[derive(Clone, Debug, PartialEq)]
pub enum Piecewise {
    Leaf(LinExpr),
    Max(Vec<Piecewise>),
    Min(Vec<Piecewise>),
    /// `c ? a : b` (`selp`).
    Select(Box<Cond>, Box<Piecewise>, Box<Piecewise>),
}

impl Piecewise {
    pub fn leaves(&self) -> usize {
        match self {
            Piecewise::Leaf(_) => 1,
            Piecewise::Max(v) | Piecewise::Min(v) => v.iter().map(|t| t.leaves()).sum(),
            Piecewise::Select(_, a, b) => a.leaves() + b.leaves(),
        }
    }

    pub fn as_leaf(&self) -> Option<&LinExpr> {
        match self {
            Piecewise::Leaf(e) => Some(e),
            _ => None,
        }
    }

    /// `f` applied to every leaf; valid for any `f` that is non-decreasing (min and max commute
    /// with it) — selects commute with every `f`.
    fn map_monotone(&self, f: &dyn Fn(&LinExpr) -> LinExpr) -> Piecewise {
        match self {
            Piecewise::Leaf(e) => Piecewise::Leaf(f(e)),
            Piecewise::Max(v) => Piecewise::Max(v.iter().map(|t| t.map_monotone(f)).collect()),
            Piecewise::Min(v) => Piecewise::Min(v.iter().map(|t| t.map_monotone(f)).collect()),
            Piecewise::Select(c, a, b) => Piecewise::Select(
                c.clone(),
                Box::new(a.map_monotone(f)),
                Box::new(b.map_monotone(f)),
            ),
        }
    }

    /// `-self`: min and max swap.
    pub fn neg(&self) -> Piecewise {
        match self {
            Piecewise::Leaf(e) => Piecewise::Leaf(e.scale(-1)),
            Piecewise::Max(v) => Piecewise::Min(v.iter().map(|t| t.neg()).collect()),
            Piecewise::Min(v) => Piecewise::Max(v.iter().map(|t| t.neg()).collect()),
            Piecewise::Select(c, a, b) => {
                Piecewise::Select(c.clone(), Box::new(a.neg()), Box::new(b.neg()))
            }
        }
    }

    pub fn scale(&self, k: i128) -> Piecewise {
        if k < 0 {
            return self.neg().scale(-k);
        }
        self.map_monotone(&|e| e.scale(k))
    }

    /// `floor(self / m)` for `m >= 1` (floor is non-decreasing).
    pub fn floor_div(&self, m: i128) -> Piecewise {
        self.map_monotone(&|e| e.floor_div(m))
    }

    /// `self + o`; `None` past [`MAX_LEAVES`].
    pub fn add(&self, o: &Piecewise) -> Option<Piecewise> {
        if self.leaves() * o.leaves() > MAX_LEAVES {
            return None;
        }
        Some(self.add_unbounded(o))
    }

    fn add_unbounded(&self, o: &Piecewise) -> Piecewise {
        match (self, o) {
            (Piecewise::Leaf(x), _) => o.map_monotone(&|e| e.add(x)),
            // max(a, b) + o = max(a + o, b + o), whatever o is
            (Piecewise::Max(v), _) => {
                Piecewise::Max(v.iter().map(|t| t.add_unbounded(o)).collect())
            }
            (Piecewise::Min(v), _) => {
                Piecewise::Min(v.iter().map(|t| t.add_unbounded(o)).collect())
            }
            (Piecewise::Select(c, a, b), _) => Piecewise::Select(
                c.clone(),
                Box::new(a.add_unbounded(o)),
                Box::new(b.add_unbounded(o)),
            ),
        }
    }

    pub fn sub(&self, o: &Piecewise) -> Option<Piecewise> {
        self.add(&o.neg())
    }

    /// `max(a, b)` (`want_max`) or `min(a, b)`, flattening nested nodes of the same kind;
    /// `None` past [`MAX_LEAVES`].
    pub fn extremum(want_max: bool, a: Piecewise, b: Piecewise) -> Option<Piecewise> {
        if a.leaves() + b.leaves() > MAX_LEAVES {
            return None;
        }
        // leaves a constant apart: the larger (smaller) one
        if let (Some(x), Some(y)) = (a.as_leaf(), b.as_leaf()) {
            let d = x.sub(y);
            if d.is_constant() {
                return Some(if (d.constant >= 0) == want_max { a } else { b });
            }
        }
        let mut parts = Vec::new();
        for t in [a, b] {
            match (want_max, t) {
                (true, Piecewise::Max(v)) | (false, Piecewise::Min(v)) => parts.extend(v),
                (_, t) => parts.push(t),
            }
        }
        Some(if want_max {
            Piecewise::Max(parts)
        } else {
            Piecewise::Min(parts)
        })
    }

    /// `self >= 0` as a boolean over affine comparisons.
    pub fn ge0(&self) -> Cond {
        match self {
            Piecewise::Leaf(e) => Cond::Ge(e.clone()),
            Piecewise::Max(v) => v
                .iter()
                .map(|t| t.ge0())
                .reduce(Cond::or)
                .unwrap_or(Cond::True),
            Piecewise::Min(v) => v
                .iter()
                .map(|t| t.ge0())
                .reduce(Cond::and)
                .unwrap_or(Cond::True),
            Piecewise::Select(c, a, b) => {
                let c = c.as_ref().clone();
                c.clone().and(a.ge0()).or(c.not().and(b.ge0()))
            }
        }
    }

    /// `self == 0`.
    pub fn eq0(&self) -> Cond {
        match self {
            Piecewise::Leaf(e) => Cond::Eq(e.clone()),
            _ => self.ge0().and(self.neg().ge0()),
        }
    }

    /// Value at a point; `None` when a symbol has no value.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        match self {
            Piecewise::Leaf(e) => e.eval(env),
            Piecewise::Max(v) => v
                .iter()
                .map(|t| t.eval(env))
                .try_fold(i128::MIN, |m, x| x.map(|x| m.max(x))),
            Piecewise::Min(v) => v
                .iter()
                .map(|t| t.eval(env))
                .try_fold(i128::MAX, |m, x| x.map(|x| m.min(x))),
            Piecewise::Select(c, a, b) => {
                if c.eval(env)? {
                    a.eval(env)
                } else {
                    b.eval(env)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(v: &str, c: i128) -> Piecewise {
        Piecewise::Leaf(LinExpr::var(v).add_const(c))
    }

    /// Every tree's comparisons agree with evaluating the tree, over a grid of points.
    fn agrees(t: &Piecewise) {
        for x in -6..=6 {
            for y in -6..=6 {
                let env = |s: &str| match s {
                    "x" => Some(x),
                    "y" => Some(y),
                    _ => None,
                };
                let v = t.eval(&env).expect("bound");
                assert_eq!(t.ge0().eval(&env), Some(v >= 0), "{t:?} >= 0 at {x},{y}");
                assert_eq!(t.eq0().eval(&env), Some(v == 0), "{t:?} == 0 at {x},{y}");
            }
        }
    }

    #[test]
    fn comparisons_of_nested_min_max_select_are_exact() {
        let mx = Piecewise::extremum(true, leaf("x", 0), leaf("y", -2)).unwrap();
        let mn = Piecewise::extremum(false, leaf("x", 3), Piecewise::Leaf(LinExpr::constant(1)))
            .unwrap();
        let sel = Piecewise::Select(
            Box::new(Cond::Ge(LinExpr::var("y"))),
            Box::new(leaf("x", 1)),
            Box::new(leaf("y", 0).neg()),
        );
        let sum = mx.add(&mn.neg()).unwrap();
        let floor = sum.floor_div(3);
        let rem = mx.add(&mx.floor_div(3).scale(-3)).unwrap();
        for t in [&mx, &mn, &sel, &sum, &floor, &rem, &sel.add(&mx).unwrap()] {
            agrees(t);
        }
        // max(x, y - 2) >= 0 is the disjunction of its arguments' comparisons
        assert_eq!(
            mx.ge0(),
            Cond::Ge(LinExpr::var("x")).or(Cond::Ge(LinExpr::var("y").add_const(-2)))
        );
    }

    #[test]
    fn trees_past_the_leaf_budget_are_given_up() {
        let mut t = leaf("x", 0);
        for i in 0..4 {
            t = Piecewise::extremum(true, t, leaf("y", i)).unwrap();
        }
        assert_eq!(t.leaves(), 5);
        assert!(t.add(&t).is_none());
        assert!(t.add(&leaf("y", 1)).is_some());
    }
}
