//! Exact counting of small systems without isl: the nested summation of `count` with bounds
//! read off the constraints directly, for the shapes GPU domains mostly have (a launch box, a
//! guard through a global index `a·ctaid + tid < n`, a loop counter with unit steps).
//!
//! isl answers these through parametric integer programming and cell refinement, milliseconds
//! each, and a kernel asks for dozens. Here a variable is eliminated only when every coefficient
//! it has is ±1 (or, for the last one, when no other variable is left beside it), so its bounds
//! are integer expressions and no floor of a remaining variable ever arises:
//! Σ_{x ∈ S} P = Σ over (lower bound L_i chosen as the largest, upper bound U_j as the
//! smallest, L_i ≤ U_j) of Σ_{x=L_i}^{U_j} P, ties broken by index so the cells are disjoint.
//! An existentially quantified variable (a thread projected out of a warp count) is eliminated
//! by Fourier–Motzkin, exact over the integers for unit coefficients: some integer t lies in
//! every [l_i, u_j] exactly when l_i ≤ u_j for all i, j.
//!
//! Anything else (a floor of a variable, an equality with a non-unit coefficient, too many
//! cells) is `None`, and the caller counts with isl. Cells are not tested for emptiness beyond
//! constant comparisons, so a result may carry pieces whose guards never hold; they add 0.

use super::constraint::Constraint;
use super::linexpr::{Atom, LinExpr};
use super::poly::Poly;
use super::qpoly::{Guard, QPoly};

/// Pieces one count may produce before it is left to isl.
const MAX_PIECES: usize = 512;

/// `Σ_{x ∈ S} summand` over the integer points of the conjunction `constraints` in `vars`
/// (every other name a parameter), or `None` when the system is not of the supported shape.
pub fn sum(vars: &[String], constraints: &[Constraint], summand: &Poly) -> Option<QPoly> {
    let mut out = QPoly::zero();
    let mut pieces = 0;
    level(
        vars,
        constraints.to_vec(),
        summand.clone(),
        &mut out,
        &mut pieces,
    )?;
    Some(out)
}

/// The constraints of `∃ x: constraints` on the other names, by Fourier–Motzkin; `None` unless
/// every coefficient of `x` is ±1 and `x` is inside no floor.
pub fn project(x: &str, constraints: &[Constraint]) -> Option<Vec<Constraint>> {
    let cons = simplify(constraints.to_vec())?;
    if cons.iter().any(|c| in_floor(&c.expr, x)) {
        return None;
    }
    if let Some((i, e)) = unit_equality(&cons, x) {
        let mut rest = cons;
        rest.remove(i);
        return simplify(rest.iter().map(|c| subst(c, x, &e)).collect());
    }
    let (lowers, uppers, rest) = bounds(&cons, x)?;
    let mut out = rest;
    for l in &lowers {
        for u in &uppers {
            out.push(Constraint {
                expr: u.sub(l),
                eq: false,
            });
        }
    }
    simplify(out)
}

fn level(
    vars: &[String],
    cons: Vec<Constraint>,
    summand: Poly,
    out: &mut QPoly,
    pieces: &mut usize,
) -> Option<()> {
    // a contradiction: the cell is empty
    let Some(cons) = simplify(cons) else {
        return Some(());
    };
    if summand.is_zero() {
        return Some(());
    }
    if vars.is_empty() {
        *pieces += 1;
        if *pieces > MAX_PIECES {
            return None;
        }
        out.push(Guard { constraints: cons }, summand);
        return Some(());
    }
    let k = pick(vars, &cons, &summand)?;
    let x = vars[k].clone();
    let rest_vars: Vec<String> = vars
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != k)
        .map(|(_, v)| v.clone())
        .collect();
    if let Some((i, e)) = unit_equality(&cons, &x) {
        let mut rest = cons;
        rest.remove(i);
        let rest: Vec<Constraint> = rest.iter().map(|c| subst(c, &x, &e)).collect();
        return level(&rest_vars, rest, summand.subst(&x, &e), out, pieces);
    }
    let (lowers, uppers, rest) = bounds(&cons, &x)?;
    if lowers.is_empty() || uppers.is_empty() {
        return None; // unbounded: isl reports it
    }
    for (i, l) in lowers.iter().enumerate() {
        for (j, u) in uppers.iter().enumerate() {
            let mut cell = rest.clone();
            // L_i is the largest lower bound (strictly larger than those before it) …
            for (k2, l2) in lowers.iter().enumerate() {
                if k2 != i {
                    let strict = if k2 < i { 1 } else { 0 };
                    cell.push(ge(l.sub(l2).add_const(-strict)));
                }
            }
            // … U_j the smallest upper bound, and the interval is not empty
            for (k2, u2) in uppers.iter().enumerate() {
                if k2 != j {
                    let strict = if k2 < j { 1 } else { 0 };
                    cell.push(ge(u2.sub(u).add_const(-strict)));
                }
            }
            cell.push(ge(u.sub(l)));
            let next = if summand.floors_summable(&x) {
                summand.sum_range_floors(&x, l, u)
            } else {
                summand.sum_range(&x, l, u)
            };
            level(&rest_vars, cell, next, out, pieces)?;
        }
    }
    Some(())
}

fn ge(expr: LinExpr) -> Constraint {
    Constraint { expr, eq: false }
}

/// The variable to eliminate next, innermost first: one inside no floor of the constraints (nor
/// of the summand, unless summable there) whose bounds, in canonical form, have no floor of
/// another remaining variable. A coefficient that is not ±1 is fine where the other terms are
/// its multiples: floor((n − 256c − 1)/32) is −8c + floor((n − 1)/32).
fn pick(vars: &[String], cons: &[Constraint], summand: &Poly) -> Option<usize> {
    (0..vars.len()).rev().find(|&k| {
        let x = &vars[k];
        if cons.iter().any(|c| in_floor(&c.expr, x))
            || (summand.has_floor_in(x) && !summand.floors_summable(x))
        {
            return false;
        }
        if unit_equality(cons, x).is_some() {
            return true;
        }
        let Some((lowers, uppers, _)) = bounds(cons, x) else {
            return false;
        };
        lowers
            .iter()
            .chain(&uppers)
            .all(|b| vars.iter().all(|v| v == x || !in_floor(b, v)))
    })
}

fn coef(e: &LinExpr, x: &str) -> i128 {
    e.terms.get(&Atom::Var(x.into())).copied().unwrap_or(0)
}

fn in_floor(e: &LinExpr, x: &str) -> bool {
    e.terms
        .keys()
        .any(|a| matches!(a, Atom::Floor(..)) && a.involves(x))
}

/// An equality `±x + r = 0`: its index and `x`'s value.
fn unit_equality(cons: &[Constraint], x: &str) -> Option<(usize, LinExpr)> {
    cons.iter().enumerate().find_map(|(i, c)| {
        let a = coef(&c.expr, x);
        if !c.eq || (a != 1 && a != -1) || in_floor(&c.expr, x) {
            return None;
        }
        // a·x + r = 0  ⇔  x = −r/a = −a·r for a = ±1
        let r = c.expr.sub(&LinExpr::var(x).scale(a));
        Some((i, r.scale(-a)))
    })
}

fn subst(c: &Constraint, x: &str, e: &LinExpr) -> Constraint {
    Constraint {
        expr: c.expr.subst(x, e),
        eq: c.eq,
    }
}

/// Lower and upper bounds of `x` (`a·x + r >= 0` gives `x >= ceil(−r/a)` for a > 0 and
/// `x <= floor(r/−a)` for a < 0), and the constraints without `x`; `None` when `x` is in an
/// equality (not of unit coefficient) or inside a floor.
type Bounds = (Vec<LinExpr>, Vec<LinExpr>, Vec<Constraint>);

fn bounds(cons: &[Constraint], x: &str) -> Option<Bounds> {
    let (mut lowers, mut uppers, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for c in cons {
        if in_floor(&c.expr, x) {
            return None;
        }
        let a = coef(&c.expr, x);
        if a == 0 {
            rest.push(c.clone());
            continue;
        }
        if c.eq {
            return None;
        }
        let r = c.expr.sub(&LinExpr::var(x).scale(a));
        let b = if a > 0 {
            r.scale(-1).ceil_div(a)
        } else {
            r.floor_div(-a)
        };
        let side = if a > 0 { &mut lowers } else { &mut uppers };
        if !side.contains(&b) {
            side.push(b);
        }
    }
    Some((lowers, uppers, rest))
}

/// Drop constraints that always hold, deduplicate; `None` when one never holds (a constant
/// one, or a pair `e >= 0`, `−e − k >= 0` with k > 0, or `e = 0` with `e >= 1`).
fn simplify(cons: Vec<Constraint>) -> Option<Vec<Constraint>> {
    let mut out: Vec<Constraint> = Vec::with_capacity(cons.len());
    for c in cons {
        if c.expr.terms.is_empty() {
            let holds = if c.eq {
                c.expr.constant == 0
            } else {
                c.expr.constant >= 0
            };
            if !holds {
                return None;
            }
            continue;
        }
        if !out.contains(&c) {
            out.push(c);
        }
    }
    for (i, a) in out.iter().enumerate() {
        for b in &out[i + 1..] {
            let s = a.expr.add(&b.expr);
            if s.terms.is_empty() {
                // a + b = k: with both >= 0 (or = 0), k must be >= 0 (= 0)
                let k = s.constant;
                let contradiction = match (a.eq, b.eq) {
                    (false, false) => k < 0,
                    _ => k != 0 && (a.eq && b.eq || k < 0),
                };
                if contradiction {
                    return None;
                }
            }
        }
    }
    out.sort();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::isl::{Ctx, DimType, Set};
    use crate::poly::poly::rat;

    /// The native count of `text` (isl syntax, conjunctions only) against isl's exact count at
    /// fixed parameters.
    fn check(vars: &[&str], cons: &[(&str, bool)], set_text: &str, points: &[&[i64]]) {
        let parse = |s: &str| -> LinExpr {
            // tiny parser for `k*name` sums with integer constants, enough for these tests
            let mut e = LinExpr::default();
            for term in s
                .replace(' ', "")
                .replace('-', "+-")
                .split('+')
                .filter(|t| !t.is_empty())
            {
                let t = term.trim();
                match t.split_once('*') {
                    Some((k, v)) => {
                        e.add_term(Atom::Var(v.trim().into()), k.trim().parse().unwrap())
                    }
                    None => match t.parse::<i128>() {
                        Ok(k) => e.constant += k,
                        Err(_) => {
                            let (neg, v) = t.strip_prefix('-').map_or((false, t), |v| (true, v));
                            e.add_term(Atom::Var(v.into()), if neg { -1 } else { 1 });
                        }
                    },
                }
            }
            e
        };
        let cons: Vec<Constraint> = cons
            .iter()
            .map(|(s, eq)| Constraint {
                expr: parse(s),
                eq: *eq,
            })
            .collect();
        let vars: Vec<String> = vars.iter().map(|s| s.to_string()).collect();
        let q = sum(&vars, &cons, &Poly::one()).expect("native");
        let ctx = Ctx::new();
        let set = Set::parse(&ctx, set_text).unwrap();
        let params = set.param_names().unwrap();
        for p in points {
            let mut fixed = set.clone();
            for (k, v) in p.iter().enumerate() {
                fixed = fixed.fix_si(DimType::isl_dim_param, k, *v).unwrap();
            }
            let (n, _) = fixed.count_val().unwrap().to_rational().unwrap();
            let got = q
                .eval(&|name| params.iter().position(|x| x == name).map(|k| p[k] as i128))
                .unwrap();
            assert_eq!(got, rat(n as i128), "{set_text} at {p:?}: {q}");
        }
    }

    #[test]
    fn global_index_guard() {
        // 0 <= c < N, 0 <= t < 256, 256 c + t < n
        check(
            &["c", "t"],
            &[
                ("c", false),
                ("N - c - 1", false),
                ("t", false),
                ("255 - t", false),
                ("n - 256*c - t - 1", false),
            ],
            "[N, n] -> { [c, t] : 0 <= c < N and 0 <= t < 256 and 256 c + t < n }",
            &[
                &[1, 0],
                &[1, 1],
                &[4, 255],
                &[4, 256],
                &[4, 1000],
                &[4, 1024],
                &[4, 5000],
                &[0, 7],
                &[3, -4],
            ],
        );
    }

    #[test]
    fn triangle_and_unit_equality() {
        check(
            &["i", "j"],
            &[("j", false), ("i - j - 1", false), ("n - i - 1", false)],
            "[n] -> { [i, j] : 0 <= j < i < n }",
            &[&[-3], &[0], &[1], &[2], &[13], &[100]],
        );
        // k = 0 or k = i: equalities substitute
        check(
            &["i", "k"],
            &[("i", false), ("n - i - 1", false), ("k - i", true)],
            "[n] -> { [i, k] : 0 <= i < n and k = i }",
            &[&[-1], &[0], &[5]],
        );
    }

    #[test]
    fn non_unit_coefficients_of_the_last_variable() {
        // 0 <= 3 k <= n: the last variable may have any coefficient
        check(
            &["k"],
            &[("3*k", false), ("n - 3*k", false)],
            "[n] -> { [k] : 0 <= 3 k <= n }",
            &[&[-1], &[0], &[1], &[2], &[3], &[10]],
        );
    }

    #[test]
    fn projection_is_exact_for_unit_coefficients() {
        // warps of 32 lanes with a thread below n: ∃ t: 0 <= t < 256, 32 w <= t <= 32 w + 31,
        // 256 c + t < n
        let t = LinExpr::var("t");
        let (w, c, n) = (LinExpr::var("w"), LinExpr::var("c"), LinExpr::var("n"));
        let cons = vec![
            ge(t.clone()),
            ge(t.scale(-1).add_const(255)),
            ge(t.sub(&w.scale(32))),
            ge(w.scale(32).add_const(31).sub(&t)),
            ge(n.sub(&c.scale(256)).sub(&t).add_const(-1)),
            ge(c.clone()),
            ge(LinExpr::var("N").sub(&c).add_const(-1)),
            ge(w.clone()),
            ge(w.scale(-1).add_const(7)),
        ];
        let projected = project("t", &cons).unwrap();
        let q = sum(&["c".into(), "w".into()], &projected, &Poly::one()).unwrap();
        for (nv, nn) in [
            (1i128, 0i128),
            (1, 1),
            (2, 33),
            (4, 256),
            (4, 300),
            (4, 2000),
        ] {
            let brute = (0..nv)
                .flat_map(|cv| (0..8).map(move |wv| (cv, wv)))
                .filter(|(cv, wv)| (0..256).any(|tv| tv / 32 == *wv && 256 * cv + tv < nn))
                .count();
            let got = q
                .eval(&|v| match v {
                    "N" => Some(nv),
                    "n" => Some(nn),
                    _ => None,
                })
                .unwrap();
            assert_eq!(got, rat(brute as i128), "N={nv} n={nn}");
        }
    }

    /// A parity test `t − 2·floor(t/2) − 1 = 0` names `t` inside a floor: projecting `t` out
    /// by substitution would define it by itself.
    #[test]
    fn a_variable_inside_a_floor_is_not_projected() {
        let t = LinExpr::var("t");
        let parity = Constraint {
            expr: t.sub(&t.floor_div(2).scale(2)).add_const(-1),
            eq: true,
        };
        assert!(project("t", &[parity, ge(t.clone()), ge(t.scale(-1).add_const(9))]).is_none());
    }

    #[test]
    fn floors_of_variables_are_left_to_isl() {
        let i = LinExpr::var("i");
        let parity = Constraint {
            expr: i.sub(&i.floor_div(2).scale(2)),
            eq: true,
        };
        assert!(sum(&["i".into()], &[parity, ge(i.clone())], &Poly::one()).is_none());
    }
}
