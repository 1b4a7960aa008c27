//! Integer values that are a min, max or select of quasi-affine expressions.
//!
//! Compilers fold guards and bounds into them: clang turns `row < n && col < n` into
//! `max(row, col) < n`, a band loop runs from `max(0, i - w)` to `min(n - 1, i + w)`. Such a
//! value is not affine, but a comparison against it is an exact boolean over affine comparisons
//! (`max(a, b) >= 0` ⇔ `a >= 0 or b >= 0`), and it splits into disjoint cases on each of which
//! it is affine ([`Piecewise::cases`]). Affine recovery names every such value by a symbol
//! whose definition is its tree ([`crate::named`]), so that arithmetic on it stays affine; the
//! tree is what the symbol is put back as. Arithmetic that commutes with min and max (adding
//! anything, scaling, a monotone floor) can be pushed down to the leaves. Trees past
//! [`MAX_LEAVES`] are not built (an argument is then kept as a symbol rather than inlined).

use crate::cond::Cond;
use crate::poly::LinExpr;
use std::ops::Not;

/// Most leaves a tree may have; sums of trees multiply their leaf counts, so a bound keeps the
/// conditions a tree expands into small.
pub const MAX_LEAVES: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    pub fn map_monotone(&self, f: &dyn Fn(&LinExpr) -> LinExpr) -> Piecewise {
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

    /// `self + o` whatever its size.
    pub fn add_unbounded(&self, o: &Piecewise) -> Piecewise {
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

    /// Every symbol that occurs, in leaves and selection conditions.
    pub fn vars(&self, out: &mut std::collections::BTreeSet<String>) {
        match self {
            Piecewise::Leaf(e) => e.vars(out),
            Piecewise::Max(v) | Piecewise::Min(v) => v.iter().for_each(|t| t.vars(out)),
            Piecewise::Select(c, a, b) => {
                c.vars(out);
                a.vars(out);
                b.vars(out);
            }
        }
    }

    /// The same tree with `leaf` applied to every leaf and `cond` to every selection condition
    /// (a substitution, which keeps the tree's meaning point by point).
    pub fn map(
        &self,
        leaf: &dyn Fn(&LinExpr) -> LinExpr,
        cond: &dyn Fn(&Cond) -> Cond,
    ) -> Piecewise {
        match self {
            Piecewise::Leaf(e) => Piecewise::Leaf(leaf(e)),
            Piecewise::Max(v) => Piecewise::Max(v.iter().map(|t| t.map(leaf, cond)).collect()),
            Piecewise::Min(v) => Piecewise::Min(v.iter().map(|t| t.map(leaf, cond)).collect()),
            Piecewise::Select(c, a, b) => Piecewise::Select(
                Box::new(cond(c)),
                Box::new(a.map(leaf, cond)),
                Box::new(b.map(leaf, cond)),
            ),
        }
    }

    /// The tree as disjoint conditions that cover every point, each with the affine value the
    /// tree takes where it holds. Ties of a min or max go to the first of the equal arguments.
    pub fn cases(&self) -> Vec<(Cond, LinExpr)> {
        match self {
            Piecewise::Leaf(e) => vec![(Cond::True, e.clone())],
            Piecewise::Select(c, a, b) => {
                let on = |c: Cond, t: &Piecewise| {
                    t.cases()
                        .into_iter()
                        .map(move |(g, v)| (c.clone().and(g), v))
                };
                let mut out: Vec<(Cond, LinExpr)> = on(c.as_ref().clone(), a).collect();
                out.extend(on(c.as_ref().clone().not(), b));
                out
            }
            Piecewise::Max(v) | Piecewise::Min(v) => {
                let want_max = matches!(self, Piecewise::Max(_));
                let mut out = Vec::new();
                for (i, child) in v.iter().enumerate() {
                    for (mut g, x) in child.cases() {
                        for (j, other) in v.iter().enumerate().filter(|(j, _)| *j != i) {
                            // x wins over `other`: strictly against earlier arguments
                            let strict = i128::from(j < i);
                            let d = if want_max {
                                other
                                    .neg()
                                    .add_unbounded(&Piecewise::Leaf(x.add_const(-strict)))
                            } else {
                                other
                                    .add_unbounded(&Piecewise::Leaf(x.scale(-1).add_const(-strict)))
                            };
                            g = g.and(d.ge0());
                        }
                        out.push((g, x));
                    }
                }
                out
            }
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

    /// Every tree's comparisons and cases agree with evaluating the tree, over a grid of points.
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
                // exactly one case holds, with the tree's value
                let held: Vec<i128> = t
                    .cases()
                    .iter()
                    .filter(|(g, _)| g.eval(&env) == Some(true))
                    .map(|(_, e)| e.eval(&env).expect("bound"))
                    .collect();
                assert_eq!(held, vec![v], "cases of {t:?} at {x},{y}");
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
        let ties = Piecewise::Max(vec![leaf("x", 0), leaf("y", 0), leaf("x", 0)]);
        for t in [
            &mx,
            &mn,
            &sel,
            &sum,
            &floor,
            &rem,
            &sel.add(&mx).unwrap(),
            &ties,
        ] {
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
