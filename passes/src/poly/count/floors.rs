//! Floors that take one value on a whole summation cell. Unroll masks and sign-bit idioms leave
//! floors such as `floor((i + 1)/2^31)` in domains and bounds: residue splitting would walk 2^31
//! classes, although on the cell (with the parameters in their value ranges) the floor is 0.
//! Replacing such a floor by its value is exact on the cell, and it needs no split.

use super::lin::lin_constraints;
use super::Result;
use crate::poly::isl::{BasicSet, DimType, Set};
use crate::poly::linexpr::{Atom, LinExpr};
use crate::poly::poly::Poly;
use std::collections::{BTreeMap, BTreeSet};

pub(super) enum Fixed {
    /// No point of the cell lies in the context: it contributes nothing there.
    Empty,
    /// The cell and the summand with every constant floor of `x` replaced by its value.
    Some(Set, Poly),
    Unchanged,
}

/// `bs` has the one set dimension `x` (the rest are parameters); replace every floor of `x`, in
/// its constraints and in `summand`, whose value is the same at every point of `bs ∩ context`.
pub(super) fn fix_constant_floors(
    bs: &BasicSet,
    x: &str,
    summand: &Poly,
    context: Option<&Set>,
) -> Result<Fixed> {
    let set = bs.to_set()?;
    let params = set.param_names()?;
    // the test sets are written as isl text, which has no spelling for the primed names of
    // residue variables (`i'1`); those cells keep their floors and are split as before
    let plain = |n: &str| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !plain(x) || !params.iter().all(|p| plain(p)) {
        return Ok(Fixed::Unchanged);
    }
    let ins = [x.to_string()];
    let cons = lin_constraints(bs, &params, &ins)?;
    let mut atoms = BTreeSet::new();
    for c in &cons {
        atoms.extend(c.expr.terms.keys().filter(|a| is_floor_of(a, x)).cloned());
    }
    for m in summand.terms.keys() {
        atoms.extend(
            m.iter()
                .map(|(a, _)| a)
                .filter(|a| is_floor_of(a, x))
                .cloned(),
        );
    }
    if atoms.is_empty() {
        return Ok(Fixed::Unchanged);
    }
    let within = match context {
        Some(c) => set.intersect_params(c.clone())?,
        None => set,
    };
    let Some(point) = sample(&within, x)? else {
        return Ok(Fixed::Empty);
    };
    let space = format!("[{}] -> {{ [{x}] : ", params.join(", "));
    let mut fixed: BTreeMap<Atom, LinExpr> = BTreeMap::new();
    for a in atoms {
        let Atom::Floor(e, m) = &a else { continue };
        // floor(e/m) = g + floor(r/m) with r = e - m·g the remainders nearest zero: the
        // floor of a value that stays small, such as (2^24 - 1)·c/2^24 = c - c/2^24, is g
        let (g, r) = nearest_quotient(e, *m);
        let Some(v) = r.eval(&|n| point.get(n).copied()) else {
            continue;
        };
        let c = v.div_euclid(*m);
        // floor(r/m) is c wherever m·c <= r < m·c + m
        let below = Set::parse(within.ctx(), &format!("{space}{r} < {} }}", m * c))?;
        let above = Set::parse(within.ctx(), &format!("{space}{r} >= {} }}", m * c + m))?;
        if within.clone().intersect(below)?.is_empty()?
            && within.clone().intersect(above)?.is_empty()?
        {
            fixed.insert(a.clone(), g.add_const(c));
        }
    }
    if fixed.is_empty() {
        return Ok(Fixed::Unchanged);
    }
    let mut text = space;
    for (k, c) in cons.iter().enumerate() {
        let e = lin_fix(&c.expr, &fixed);
        let op = if c.eq { "=" } else { ">=" };
        let and = if k == 0 { "" } else { " and " };
        text += &format!("{and}{e} {op} 0");
    }
    if cons.is_empty() {
        text += "true";
    }
    text += " }";
    let mut cell = Set::parse(bs.ctx(), &text)?;
    if let Some(c) = context {
        // the bounds that defined a floor (f <= 2^31 - 1 for floor(f/2^31) = 0) hold wherever
        // the context does; left in, they would only clutter the guards
        cell = cell.gist_params(c.clone())?;
    }
    Ok(Fixed::Some(cell, poly_fix(summand, &fixed)))
}

fn is_floor_of(a: &Atom, x: &str) -> bool {
    matches!(a, Atom::Floor(..)) && a.involves(x)
}

/// Values of the parameters and of `x` at some point of `s`, `None` when it is empty.
fn sample(s: &Set, x: &str) -> Result<Option<BTreeMap<String, i128>>> {
    let params = s.param_names()?;
    let all = s.clone().move_dims(
        DimType::isl_dim_set,
        0,
        DimType::isl_dim_param,
        0,
        params.len(),
    )?;
    let Some(p) = all.sample_point()? else {
        return Ok(None);
    };
    let names = params.iter().cloned().chain([x.to_string()]);
    Ok(Some(names.zip(p.into_iter().map(i128::from)).collect()))
}

/// (g, r) with e = m·g + r and every coefficient of r in (-m/2, m/2].
fn nearest_quotient(e: &LinExpr, m: i128) -> (LinExpr, LinExpr) {
    let near = |a: i128| {
        let (q, r) = (a.div_euclid(m), a.rem_euclid(m));
        if 2 * r > m {
            q + 1
        } else {
            q
        }
    };
    let mut g = LinExpr::constant(near(e.constant));
    for (a, c) in &e.terms {
        g.add_term(a.clone(), near(*c));
    }
    let r = e.sub(&g.scale(m));
    (g, r)
}

fn lin_fix(e: &LinExpr, fixed: &BTreeMap<Atom, LinExpr>) -> LinExpr {
    let mut r = LinExpr::constant(e.constant);
    for (a, c) in &e.terms {
        match fixed.get(a) {
            Some(v) => r = r.add(&v.scale(*c)),
            None => r.add_term(a.clone(), *c),
        }
    }
    r
}

fn poly_fix(p: &Poly, fixed: &BTreeMap<Atom, LinExpr>) -> Poly {
    let mut r = Poly::zero();
    for (m, c) in &p.terms {
        let mut t = Poly::constant(c.clone());
        for (a, k) in m {
            let f = match fixed.get(a) {
                Some(v) => Poly::from_lin(v),
                None => Poly::from_lin(&LinExpr::atom(a.clone())),
            };
            t = t.mul(&f.pow(*k));
        }
        r.absorb(t);
    }
    r
}
