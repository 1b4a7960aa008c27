//! A quick proof that a conjunction of integer constraints has no solution: Fourier–Motzkin
//! elimination, each derived inequality tightened to integers (`2x + 3 >= 0` becomes
//! `x + 1 >= 0`), which is sound because every variable is an integer.
//!
//! Loop-exit proofs ask isl dozens of emptiness questions per kernel, most of them about small
//! contradictions (`k = F − 1` and `k <= F − 2`), and isl's answer costs a millisecond (a
//! context, parsed atoms, a tableau). A contradiction found here is a proof; no contradiction
//! proves nothing (Fourier–Motzkin is exact over the rationals only), and the caller asks isl.

use super::constraint::Constraint;
use super::linexpr::{Atom, LinExpr};
use num_integer::Integer;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Inequalities a system may grow to before the attempt is given up.
const MAX_ROWS: usize = 400;

/// `Σ a_j·x_j + c >= 0` (or `== 0`) over the variables numbered in the system.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    a: Vec<i128>,
    c: i128,
}

/// Whether the conjunction is shown to have no integer solution (every name a variable). A
/// floor `floor(e/m)` becomes a variable `f` of its own with `m·f <= e <= m·f + m − 1` (one
/// value per point, so emptiness is unchanged). `false` means not shown: an overflow, or a
/// system that grows past [`MAX_ROWS`], gives up too.
pub fn infeasible(constraints: &[Constraint]) -> bool {
    System::new(constraints).infeasible()
}

/// A conjunction in rows, to be extended by several alternatives (the disjunctive terms of one
/// question share its launch box) without converting the shared part again.
#[derive(Clone, Default)]
pub struct System {
    index: FxHashMap<Arc<str>, usize>,
    floors: Vec<(Atom, LinExpr, i128)>,
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
}

impl System {
    pub fn new(constraints: &[Constraint]) -> System {
        let mut s = System::default();
        s.add(constraints);
        s
    }

    /// This system with `constraints` added.
    pub fn with(&self, constraints: &[Constraint]) -> System {
        let mut s = self.clone();
        s.add(constraints);
        s
    }

    fn add(&mut self, constraints: &[Constraint]) {
        for c in constraints {
            let known = self.floors.len();
            let e = if c.expr.terms.keys().any(|a| matches!(a, Atom::Floor(..))) {
                lift(&c.expr, &mut self.floors)
            } else {
                c.expr.clone()
            };
            let r = self.row(&e);
            if c.eq {
                self.eqs.push(r);
            } else {
                self.ineqs.push(r);
            }
            for i in known..self.floors.len() {
                let (_, inner, m) = self.floors[i].clone();
                let f = LinExpr::var(&floor_name(i)).scale(m);
                let lo = self.row(&inner.sub(&f));
                let hi = self.row(&f.add_const(m - 1).sub(&inner));
                self.ineqs.extend([lo, hi]);
            }
        }
    }

    /// `e` as a row, numbering its new variables (rows are padded when solved).
    fn row(&mut self, e: &LinExpr) -> Row {
        let mut a = vec![0; self.index.len()];
        for (atom, k) in &e.terms {
            if let Atom::Var(v) = atom {
                let n = self.index.len();
                let j = *self.index.entry(v.clone()).or_insert(n);
                if j >= a.len() {
                    a.resize(j + 1, 0);
                }
                a[j] = *k;
            }
        }
        Row { a, c: e.constant }
    }

    /// Whether a contradiction is derived (see [`infeasible`]).
    pub fn infeasible(mut self) -> bool {
        let n = self.index.len();
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.a.resize(n, 0);
        }
        contradiction(self.eqs, self.ineqs).unwrap_or(false)
    }
}

fn floor_name(i: usize) -> String {
    format!("floor#{i}")
}

/// `e` with every floor replaced by its variable, recorded in `floors` as (the floor, its
/// lifted numerator, its modulus), innermost first.
fn lift(e: &LinExpr, floors: &mut Vec<(Atom, LinExpr, i128)>) -> LinExpr {
    let mut out = LinExpr::constant(e.constant);
    for (a, k) in &e.terms {
        let v = match a {
            Atom::Var(_) => a.clone(),
            Atom::Floor(inner, m) => {
                let i = match floors.iter().position(|(f, ..)| f == a) {
                    Some(i) => i,
                    None => {
                        let inner = lift(inner, floors);
                        floors.push((a.clone(), inner, *m));
                        floors.len() - 1
                    }
                };
                Atom::Var(floor_name(i).into())
            }
        };
        out.add_term(v, *k);
    }
    out
}

/// `Some(true)` when a contradiction is derived, `None` on overflow.
fn contradiction(mut eqs: Vec<Row>, mut ineqs: Vec<Row>) -> Option<bool> {
    // each equality eliminates one variable from everything else
    while let Some(eq) = eqs.pop() {
        let g = content(&eq.a);
        if g == 0 {
            if eq.c != 0 {
                return Some(true);
            }
            continue;
        }
        if eq.c % g != 0 {
            return Some(true); // no integer solution
        }
        let eq = Row {
            a: eq.a.iter().map(|x| x / g).collect(),
            c: eq.c / g,
        };
        let j = (0..eq.a.len())
            .filter(|&j| eq.a[j] != 0)
            .min_by_key(|&j| eq.a[j].abs())?;
        for r in eqs.iter_mut().chain(ineqs.iter_mut()) {
            *r = eliminate_with_equality(r, &eq, j)?;
        }
    }
    let vars = ineqs.first().map_or(0, |r| r.a.len());
    let mut left: Vec<usize> = (0..vars).collect();
    loop {
        ineqs = match normalise(ineqs) {
            Some(rows) => rows,
            None => return Some(true),
        };
        if ineqs.is_empty() || left.is_empty() {
            return Some(false);
        }
        // the variable whose elimination adds the fewest rows
        let (pos, &j) = left.iter().enumerate().min_by_key(|(_, &j)| {
            let up = ineqs.iter().filter(|r| r.a[j] > 0).count();
            let down = ineqs.iter().filter(|r| r.a[j] < 0).count();
            up * down
        })?;
        left.swap_remove(pos);
        let (lower, upper): (Vec<&Row>, Vec<&Row>) = (
            ineqs.iter().filter(|r| r.a[j] > 0).collect(),
            ineqs.iter().filter(|r| r.a[j] < 0).collect(),
        );
        if lower.len() * upper.len() > MAX_ROWS {
            return Some(false);
        }
        let mut next: Vec<Row> = ineqs.iter().filter(|r| r.a[j] == 0).cloned().collect();
        for l in &lower {
            for u in &upper {
                // |u_j|·l + l_j·u has no x_j
                next.push(combine(l, -u.a[j], u, l.a[j])?);
            }
        }
        ineqs = next;
    }
}

/// `x·p + y·q` for positive multipliers.
fn combine(p: &Row, x: i128, q: &Row, y: i128) -> Option<Row> {
    let mut a = Vec::with_capacity(p.a.len());
    for (pa, qa) in p.a.iter().zip(&q.a) {
        a.push(pa.checked_mul(x)?.checked_add(qa.checked_mul(y)?)?);
    }
    let c = p.c.checked_mul(x)?.checked_add(q.c.checked_mul(y)?)?;
    Some(Row { a, c })
}

/// `r` without `x_j`, through the equality `eq` (`eq.a[j] != 0`), scaled by a positive factor
/// so an inequality keeps its direction.
fn eliminate_with_equality(r: &Row, eq: &Row, j: usize) -> Option<Row> {
    if r.a[j] == 0 {
        return Some(r.clone());
    }
    let (k, e) = (eq.a[j].abs(), eq.a[j].signum());
    combine(r, k, eq, -e * r.a[j])
}

/// The inequalities tightened (content divided out, the constant rounded down), duplicates
/// and constant rows dropped, the tightest of parallel rows kept; `None` on a contradiction.
fn normalise(rows: Vec<Row>) -> Option<Vec<Row>> {
    let mut out: Vec<Row> = Vec::with_capacity(rows.len());
    for mut r in rows {
        let g = content(&r.a);
        if g == 0 {
            if r.c < 0 {
                return None;
            }
            continue;
        }
        if g > 1 {
            for x in &mut r.a {
                *x /= g;
            }
            r.c = Integer::div_floor(&r.c, &g);
        }
        out.push(r);
    }
    // sorted by (a, c): the first row of each direction is the tightest
    out.sort_unstable();
    out.dedup_by(|later, first| later.a == first.a);
    // a·x + c >= 0 and −a·x + d >= 0 need c + d >= 0
    let mut neg = Vec::new();
    for r in &out {
        neg.clear();
        neg.extend(r.a.iter().map(|x| -x));
        if let Ok(k) = out.binary_search_by(|o| o.a.as_slice().cmp(&neg)) {
            if r.c.checked_add(out[k].c).is_some_and(|s| s < 0) {
                return None;
            }
        }
    }
    Some(out)
}

fn content(a: &[i128]) -> i128 {
    a.iter().fold(0i128, |g, x| g.gcd(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ge(e: LinExpr) -> Constraint {
        Constraint { expr: e, eq: false }
    }

    fn v(n: &str) -> LinExpr {
        LinExpr::var(n)
    }

    #[test]
    fn exit_contradiction_is_found() {
        // k = f − 1 and k <= f − 2
        let cons = vec![
            Constraint {
                expr: v("k").sub(&v("f")).add_const(1),
                eq: true,
            },
            ge(v("f").sub(&v("k")).add_const(-2)),
            ge(v("k")),
        ];
        assert!(infeasible(&cons));
    }

    #[test]
    fn integer_tightening_finds_what_the_rationals_miss() {
        // 1 <= 2x <= 1 has the rational solution x = 1/2 only
        let cons = vec![
            ge(v("x").scale(2).add_const(-1)),
            ge(v("x").scale(-2).add_const(1)),
        ];
        assert!(infeasible(&cons));
        // 2x = 2y + 1 has no integer solution
        let odd = vec![Constraint {
            expr: v("x").scale(2).sub(&v("y").scale(2)).add_const(-1),
            eq: true,
        }];
        assert!(infeasible(&odd));
    }

    #[test]
    fn floors_are_lifted() {
        // floor(n/4) >= 1 and n <= 3
        let cons = vec![
            ge(v("n").floor_div(4).add_const(-1)),
            ge(v("n").scale(-1).add_const(3)),
        ];
        assert!(infeasible(&cons));
        let fine = vec![ge(v("n").floor_div(4).add_const(-1))];
        assert!(!infeasible(&fine));
    }

    #[test]
    fn satisfiable_systems_are_not_called_empty() {
        // 0 <= t < 256, 256·b + t < n, b >= 0: many solutions
        let cons = vec![
            ge(v("t")),
            ge(v("t").scale(-1).add_const(255)),
            ge(v("b")),
            ge(v("n").sub(&v("b").scale(256)).sub(&v("t")).add_const(-1)),
        ];
        assert!(!infeasible(&cons));
        assert!(!infeasible(&[]));
    }

    #[test]
    fn agrees_with_brute_force_on_small_boxes() {
        // random two- and three-variable systems over [-4, 4]^3: a proof of emptiness is never
        // wrong
        let mut seed = 11u64;
        let mut next = |m: i128| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i128).rem_euclid(2 * m + 1) - m
        };
        let names = ["x", "y", "z"];
        let mut proofs = 0;
        for _ in 0..3000 {
            let mut cons: Vec<Constraint> = names
                .iter()
                .flat_map(|n| [ge(v(n).add_const(4)), ge(v(n).scale(-1).add_const(4))])
                .collect();
            for _ in 0..3 {
                let mut e = LinExpr::constant(next(6));
                for n in names {
                    e = e.add(&v(n).scale(next(3)));
                }
                cons.push(Constraint {
                    expr: e,
                    eq: next(4) == 0,
                });
            }
            if infeasible(&cons) {
                proofs += 1;
                for x in -4..=4 {
                    for y in -4..=4 {
                        for z in -4..=4 {
                            let env = |n: &str| match n {
                                "x" => Some(x),
                                "y" => Some(y),
                                _ => Some(z),
                            };
                            assert!(
                                cons.iter().any(|c| c.holds(&env) == Some(false)),
                                "({x}, {y}, {z}) satisfies {cons:?}"
                            );
                        }
                    }
                }
            }
        }
        assert!(proofs > 100, "only {proofs} systems shown empty");
    }
}
