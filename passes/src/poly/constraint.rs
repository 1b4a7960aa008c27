//! One quasi-affine constraint, `expr >= 0` or `expr == 0`: the atom of a piecewise
//! quasi-polynomial's guards (`qpoly`) and of the systems Fourier–Motzkin refutes (`fm`).
//!
//! Why a module of its own: `qpoly` prunes its pieces with `fm`, and `fm` reads constraints;
//! with the type in `qpoly` the two imported each other.

use super::linexpr::LinExpr;
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
