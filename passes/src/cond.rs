//! A boolean over affine comparisons (`e >= 0`, `e == 0`, and/or/not): what the affine
//! recovery knows of a predicate register, and the language of the guards, block domains, loop
//! exits and named values built on it.
//!
//! Why apart from `affine`: the passes that only speak about conditions (`named`, `piecewise`,
//! `slots`, `cond_set`, `domain_count`) would otherwise import the whole recovery, which in turn
//! uses the named values and the loop-exit proofs built on them.

use crate::poly::{Constraint, LinExpr};
use std::collections::BTreeSet;
use std::ops::Not;

/// Every conjunction of one term of `a` and one of `b` (disjoint terms stay disjoint); `None`
/// past `limit` terms.
pub(crate) fn conjoin(
    a: &[Vec<Constraint>],
    b: &[Vec<Constraint>],
    limit: usize,
) -> Option<Vec<Vec<Constraint>>> {
    if a.len() * b.len() > limit {
        return None;
    }
    Some(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| x.iter().chain(y).cloned().collect()))
            .collect(),
    )
}

/// A boolean over affine comparisons `e >= 0` / `e == 0`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cond {
    Ge(LinExpr),
    Eq(LinExpr),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    True,
}

/// Negation; a double negation cancels.
impl std::ops::Not for Cond {
    type Output = Cond;

    fn not(self) -> Cond {
        match self {
            Cond::Not(c) => *c,
            c => Cond::Not(Box::new(c)),
        }
    }
}

impl Cond {
    pub fn and(self, o: Cond) -> Cond {
        match (self, o) {
            (Cond::True, c) | (c, Cond::True) => c,
            (a, b) => Cond::And(Box::new(a), Box::new(b)),
        }
    }

    pub fn or(self, o: Cond) -> Cond {
        match (self, o) {
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (a, b) if a.is_false() => b,
            (a, b) if b.is_false() => a,
            (a, b) => Cond::Or(Box::new(a), Box::new(b)),
        }
    }

    /// Whether the formula has more than `limit` nodes. Iterative and stops at the limit, so
    /// it costs at most `limit` steps whatever the depth.
    pub fn size_exceeds(&self, limit: usize) -> bool {
        let mut stack = vec![self];
        let mut n = 0;
        while let Some(c) = stack.pop() {
            n += 1;
            if n > limit {
                return true;
            }
            match c {
                Cond::Not(x) => stack.push(x),
                Cond::And(a, b) | Cond::Or(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                Cond::Ge(_) | Cond::Eq(_) | Cond::True => {}
            }
        }
        false
    }

    pub fn is_false(&self) -> bool {
        matches!(self, Cond::Not(c) if **c == Cond::True)
    }

    /// Exclusive or (`xor.pred`), folded when one side is a constant.
    pub fn xor(self, o: Cond) -> Cond {
        match (self, o) {
            (Cond::True, c) | (c, Cond::True) => c.not(),
            (a, b) if a.is_false() => b,
            (a, b) if b.is_false() => a,
            (a, b) => a.clone().and(b.clone().not()).or(a.not().and(b)),
        }
    }

    /// The condition as a disjunction of conjunctions of constraints, negations pushed to the
    /// comparisons (`e != 0` is `e < 0` or `e > 0`); with `disjoint`, `a or b` is `a` or
    /// `(not a and b)`, so that no point lies in two terms. `None` past `limit` terms.
    pub fn dnf(&self, disjoint: bool, limit: usize) -> Option<Vec<Vec<Constraint>>> {
        self.dnf_signed(false, disjoint, limit)
    }

    fn dnf_signed(&self, neg: bool, disjoint: bool, limit: usize) -> Option<Vec<Vec<Constraint>>> {
        let ge = |expr: LinExpr| Constraint { expr, eq: false };
        let below = |e: &LinExpr| ge(e.scale(-1).add_const(-1));
        let terms = match (self, neg) {
            (Cond::True, false) => vec![Vec::new()],
            (Cond::True, true) => Vec::new(),
            (Cond::Ge(e), false) => vec![vec![ge(e.clone())]],
            (Cond::Ge(e), true) => vec![vec![below(e)]],
            (Cond::Eq(e), false) => vec![vec![Constraint {
                expr: e.clone(),
                eq: true,
            }]],
            (Cond::Eq(e), true) => vec![vec![below(e)], vec![ge(e.add_const(-1))]],
            (Cond::Not(x), n) => x.dnf_signed(!n, disjoint, limit)?,
            (Cond::And(a, b), false) | (Cond::Or(a, b), true) => conjoin(
                &a.dnf_signed(neg, disjoint, limit)?,
                &b.dnf_signed(neg, disjoint, limit)?,
                limit,
            )?,
            (Cond::Or(a, b), false) | (Cond::And(a, b), true) => {
                let mut out = a.dnf_signed(neg, disjoint, limit)?;
                let rest = b.dnf_signed(neg, disjoint, limit)?;
                if disjoint {
                    out.extend(conjoin(
                        &a.dnf_signed(!neg, disjoint, limit)?,
                        &rest,
                        limit,
                    )?);
                } else {
                    out.extend(rest);
                }
                out
            }
        };
        (terms.len() <= limit).then_some(terms)
    }

    /// isl syntax, negations pushed to the comparisons, and comparisons of constants (a
    /// launch's values bound into a symbolic guard) decided here: isl's reader builds a piecewise
    /// affine function for every comparison and checks every disjunction it joins, most of the
    /// time `bind` spent in isl.
    pub fn to_isl(&self) -> String {
        match self.isl(false) {
            Spelled::Known(true) => "true".into(),
            Spelled::Known(false) => "false".into(),
            Spelled::Text(t) => t,
        }
    }

    fn isl(&self, neg: bool) -> Spelled {
        let compared = |e: &LinExpr, holds: fn(i128) -> bool, text: String| {
            if e.is_constant() {
                Spelled::Known(holds(e.constant))
            } else {
                Spelled::Text(text)
            }
        };
        match (self, neg) {
            (Cond::True, n) => Spelled::Known(!n),
            (Cond::Ge(e), false) => compared(e, |c| c >= 0, format!("{} >= 0", isl_lin(e))),
            (Cond::Ge(e), true) => compared(e, |c| c < 0, format!("{} < 0", isl_lin(e))),
            (Cond::Eq(e), false) => compared(e, |c| c == 0, format!("{} = 0", isl_lin(e))),
            (Cond::Eq(e), true) => {
                compared(e, |c| c != 0, format!("({0} < 0 or {0} > 0)", isl_lin(e)))
            }
            (Cond::Not(c), n) => c.isl(!n),
            (Cond::And(a, b), false) | (Cond::Or(a, b), true) => match (a.isl(neg), b.isl(neg)) {
                (Spelled::Known(false), _) | (_, Spelled::Known(false)) => Spelled::Known(false),
                (Spelled::Known(true), x) | (x, Spelled::Known(true)) => x,
                (Spelled::Text(x), Spelled::Text(y)) => Spelled::Text(format!("({x} and {y})")),
            },
            (Cond::Or(a, b), false) | (Cond::And(a, b), true) => match (a.isl(neg), b.isl(neg)) {
                (Spelled::Known(true), _) | (_, Spelled::Known(true)) => Spelled::Known(true),
                (Spelled::Known(false), x) | (x, Spelled::Known(false)) => x,
                (Spelled::Text(x), Spelled::Text(y)) => Spelled::Text(format!("({x} or {y})")),
            },
        }
    }

    /// Substitute a symbol (a loop counter shifted to the previous iteration).
    pub fn subst(&self, name: &str, e: &LinExpr) -> Cond {
        match self {
            Cond::Ge(x) => Cond::Ge(x.subst(name, e)),
            Cond::Eq(x) => Cond::Eq(x.subst(name, e)),
            Cond::Not(c) => Cond::Not(Box::new(c.subst(name, e))),
            Cond::And(a, b) => Cond::And(Box::new(a.subst(name, e)), Box::new(b.subst(name, e))),
            Cond::Or(a, b) => Cond::Or(Box::new(a.subst(name, e)), Box::new(b.subst(name, e))),
            Cond::True => Cond::True,
        }
    }

    /// Truth at a point; `None` when a symbol has no value.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<bool> {
        Some(match self {
            Cond::Ge(x) => x.eval(env)? >= 0,
            Cond::Eq(x) => x.eval(env)? == 0,
            Cond::Not(c) => !c.eval(env)?,
            Cond::And(a, b) => a.eval(env)? && b.eval(env)?,
            Cond::Or(a, b) => a.eval(env)? || b.eval(env)?,
            Cond::True => true,
        })
    }

    pub fn vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Cond::Ge(x) | Cond::Eq(x) => x.vars(out),
            Cond::Not(c) => c.vars(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.vars(out);
                b.vars(out);
            }
            Cond::True => {}
        }
    }
}

/// A condition in isl syntax, or its truth where no comparison in it has a variable left.
enum Spelled {
    Known(bool),
    Text(String),
}

/// isl spelling of a quasi-affine expression (`floor(e/m)` is isl syntax too).
pub fn isl_lin(e: &LinExpr) -> String {
    format!("({e})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::isl::{Ctx, Set};

    fn c(v: i128) -> LinExpr {
        LinExpr::constant(v)
    }

    fn x() -> LinExpr {
        LinExpr::var("x")
    }

    /// Guards as binding leaves them: a launch's values make some comparisons constants.
    fn bound_guards() -> Vec<Cond> {
        vec![
            Cond::Ge(c(507)).and(Cond::Ge(x())).or(Cond::Eq(c(0)).not()),
            Cond::Ge(c(-1)).or(Cond::Ge(x().add_const(-3))).not(),
            Cond::Eq(c(3)).and(Cond::Ge(x())),
            Cond::Eq(c(3)).not().or(Cond::Ge(x())),
            Cond::Eq(x().add_const(2))
                .or(Cond::Ge(c(-4)).and(Cond::Eq(c(0)).not()))
                .and(Cond::Ge(c(0))),
            Cond::Eq(c(0))
                .not()
                .not()
                .and(Cond::Eq(x().floor_div(3)).not()),
        ]
    }

    #[test]
    fn comparisons_of_constants_are_decided_before_isl_reads_them() {
        let texts: Vec<String> = bound_guards().iter().map(Cond::to_isl).collect();
        assert_eq!(
            texts,
            [
                "(x) >= 0",
                "(x - 3) < 0",
                "false",
                "true",
                "(x + 2) = 0",
                "((floor(x/3)) < 0 or (floor(x/3)) > 0)",
            ]
        );
    }

    #[test]
    fn the_text_takes_the_points_the_condition_holds_at() {
        let ctx = Ctx::new();
        for cond in bound_guards() {
            let text = format!("{{ [x] : -8 <= x <= 8 and {} }}", cond.to_isl());
            let set = Set::parse(&ctx, &text).unwrap();
            let (n, d) = set.count_val().unwrap().to_rational().unwrap();
            let holds = (-8..=8)
                .filter(|v| cond.eval(&|_| Some(*v)).unwrap())
                .count();
            assert_eq!((n, d), (holds as i64, 1), "{text}");
        }
    }
}
