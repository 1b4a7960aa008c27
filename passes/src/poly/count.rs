//! Exact parametric counting (and summation) over isl sets — see the module doc of `poly` for
//! the algorithm. Entry points: [`count`] (#S as a piecewise quasi-polynomial in the
//! parameters) and [`sum`] (Σ over S of a polynomial in the set variables).

mod error;
mod floors;
mod lin;

pub use error::{CountError, Result};
use lin::{aff_parts, lin_constraints};

use super::isl::{Aff, BasicSet, Ctx, DimType, Set};
use super::linexpr::LinExpr;
use super::poly::Poly;
use super::qpoly::{Guard, QPoly};
use num_integer::Integer;
use std::collections::BTreeMap;

const MAX_SPLIT_ROUNDS: usize = 6;
const MAX_REFINE: usize = 24;
/// Contributions above which `finish` probes before testing equality (the corpus has fewer).
const PROBE_ABOVE: usize = 128;
/// Levels one direct summation may enter before [`count`] factors the set instead; the corpus
/// needs at most about a thousand, a boundary-checked 2-D convolution hundreds of thousands.
const MAX_VISITS: usize = 1_500;
/// Work one count may do, in polynomial terms handed from level to level (each level's summand
/// counts its terms, plus one): a bound on the arithmetic, where the levels alone do not bound
/// it (a lattice of three block indices under a parametric grid restrides into summands of
/// thousands of terms with huge rationals, minutes of work). Past it the count fails with
/// `OverBudget` and its caller falls back. The corpus needs at most about 2,100, and one unit
/// of work costs about 20 µs in the shape above.
const MAX_WORK: usize = 100_000;
/// Residue classes one split may enumerate: the corpus splits by unroll factors, warp and
/// segment sizes (at most a few hundred); more means a fixed parameter became the modulus
/// (`(32 i) % n` bound at n = 2^20 splits into 65536 classes, hours of isl work), so the count
/// fails fast with `TooComplex` and its caller falls back.
const MAX_RESIDUES: i128 = 4096;
/// Residue classes above which floors of the summation variable are lifted to variables of
/// their own ([`Counter::lift`]) instead of split: splitting gives floor-free polynomials, one
/// per class, and costs a recursion per class.
const LIFT_ABOVE: i128 = 64;

/// `#set` as a piecewise quasi-polynomial in its parameters, exact at every parameter value.
///
/// When the nested summation splits into too many cells (boundary-checked stencils, whose
/// guards on independent dimensions multiply each other's cells), the set is counted as a sum
/// over its disjoint basic sets, each the product of the counts of its independent groups of
/// dimensions (no constraint or division couples two groups, so the basic set is their
/// Cartesian product for every parameter value and the product of counts is exact).
pub fn count(set: &Set) -> Result<QPoly> {
    count_context(set, None)
}

/// [`count`] for parameters known to lie in `context` (a set of parameters only, such as the
/// value ranges of 32-bit kernel parameters), exact there and only there: a floor that takes
/// one value wherever the context holds is replaced by that value instead of split into its
/// residue classes.
pub fn count_in(set: &Set, context: &Set) -> Result<QPoly> {
    count_context(set, Some(context))
}

fn count_context(set: &Set, context: Option<&Set>) -> Result<QPoly> {
    let mut work = 0;
    match sum_within(set, &Poly::one(), MAX_VISITS, context, &mut work) {
        Err(CountError::TooComplex(_)) => count_factored(set, context, &mut work),
        r => r,
    }
}

fn count_factored(set: &Set, context: Option<&Set>, work: &mut usize) -> Result<QPoly> {
    let mut sum = |s: &Set, p: &Poly| sum_within(s, p, usize::MAX, context, work);
    let nd = set.dim(DimType::isl_dim_set)?;
    let mut total = QPoly::zero();
    for bs in set.clone().compute_divs()?.make_disjoint()?.basic_sets()? {
        let groups = independent_groups(&bs, nd)?;
        if groups.len() <= 1 {
            total = total.add(&sum(&bs.to_set()?, &Poly::one())?);
            continue;
        }
        let whole = bs.to_set()?;
        let mut q = QPoly::constant(1);
        for g in groups {
            let mut part = whole.clone();
            for k in (0..nd).rev().filter(|k| !g.contains(k)) {
                part = part.project_out(DimType::isl_dim_set, k, 1)?;
            }
            q = q.mul(&sum(&part, &Poly::one())?);
        }
        total = total.add(&q);
    }
    std::sync::Arc::make_mut(&mut total.pieces).sort();
    Ok(total)
}

/// The set dimensions of `bs` grouped so that no constraint (directly or through a local
/// division) involves dimensions of two groups.
fn independent_groups(bs: &BasicSet, nd: usize) -> Result<Vec<Vec<usize>>> {
    let mut root: Vec<usize> = (0..nd).collect();
    fn find(root: &mut [usize], k: usize) -> usize {
        let mut r = k;
        while root[r] != r {
            r = root[r];
        }
        root[k] = r;
        r
    }
    for c in bs.constraints()? {
        let mut used = Vec::new();
        for k in 0..nd {
            if c.coefficient(DimType::isl_dim_set, k)?.0 != 0 {
                used.push(k);
            }
        }
        for k in 0..c.dim(DimType::isl_dim_div)? {
            if c.coefficient(DimType::isl_dim_div, k)?.0 != 0 {
                aff_dims(&c.div(k)?, nd, &mut used)?;
            }
        }
        if let Some((&first, rest)) = used.split_first() {
            for &k in rest {
                let (a, b) = (find(&mut root, first), find(&mut root, k));
                root[b] = a;
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for k in 0..nd {
        let r = find(&mut root, k);
        groups.entry(r).or_default().push(k);
    }
    Ok(groups.into_values().collect())
}

/// The set dimensions (isl's input dimensions of a division) an affine expression involves,
/// through its own divisions too.
fn aff_dims(aff: &Aff, nd: usize, out: &mut Vec<usize>) -> Result<()> {
    for k in 0..aff.dim(DimType::isl_dim_in)?.min(nd) {
        if aff.coefficient(DimType::isl_dim_in, k)?.0 != 0 {
            out.push(k);
        }
    }
    for k in 0..aff.dim(DimType::isl_dim_div)? {
        if aff.coefficient(DimType::isl_dim_div, k)?.0 != 0 {
            aff_dims(&aff.div(k)?, nd, out)?;
        }
    }
    Ok(())
}

/// `Σ_{x ∈ set} summand(x)`; the summand names set dimensions by their isl names.
pub fn sum(set: &Set, summand: &Poly) -> Result<QPoly> {
    sum_within(set, summand, usize::MAX, None, &mut 0)
}

/// [`sum`] within `context` (see [`count_in`]), giving up with `TooComplex` after `budget`
/// levels, and with `OverBudget` once `work` (shared by the sums of one count) passes
/// [`MAX_WORK`].
fn sum_within(
    set: &Set,
    summand: &Poly,
    budget: usize,
    context: Option<&Set>,
    work: &mut usize,
) -> Result<QPoly> {
    let nd = set.dim(DimType::isl_dim_set)?;
    let np = set.dim(DimType::isl_dim_param)?;
    let mut vars = Vec::with_capacity(nd);
    let mut s = set.clone();
    for k in 0..nd {
        let name = match set.dim_name(DimType::isl_dim_set, k) {
            Some(n) => n,
            None if summand.as_constant().is_some() => {
                let n = format!("_x{k}");
                s = s.set_dim_name(DimType::isl_dim_set, k, &n)?;
                n
            }
            None => return Err(CountError::UnnamedDim(k)),
        };
        vars.push(name);
    }
    // Every set variable becomes a parameter; each level moves one back and sums it away.
    let s = s.move_dims(DimType::isl_dim_param, np, DimType::isl_dim_set, 0, nd)?;
    let mut c = Counter {
        ctx: set.ctx().clone(),
        fresh: 0,
        out: Vec::new(),
        visits: 0,
        budget,
        work: *work,
        context: context.cloned(),
    };
    let r = c.level(s, &vars, summand.clone());
    *work = c.work;
    r?;
    c.finish()
}

struct Counter {
    ctx: Ctx,
    fresh: usize,
    /// (parameter domain, contribution): the count is the sum over all of them.
    out: Vec<(Set, Poly)>,
    /// levels entered so far, against `budget`
    visits: usize,
    budget: usize,
    /// polynomial terms handed to levels so far, against [`MAX_WORK`]
    work: usize,
    /// What is known of the parameters (their value ranges): the count is exact inside it.
    context: Option<Set>,
}

impl Counter {
    /// `s` has zero set dimensions; `vars` are parameters of `s` still to be summed, innermost
    /// last.
    fn level(&mut self, s: Set, vars: &[String], summand: Poly) -> Result<()> {
        self.visits += 1;
        if self.visits > self.budget {
            return Err(CountError::TooComplex(self.budget));
        }
        self.work += 1 + summand.terms.len();
        if self.work > MAX_WORK {
            return Err(CountError::OverBudget(MAX_WORK));
        }
        if summand.is_zero() || s.is_empty()? {
            return Ok(());
        }
        let Some((x, outer)) = vars.split_last() else {
            self.out.push((s.params()?, summand));
            return Ok(());
        };
        let Some(pos) = s.find_dim_by_name(DimType::isl_dim_param, x) else {
            return Err(CountError::Unbounded(x.clone()));
        };
        let s1 = s.move_dims(DimType::isl_dim_set, 0, DimType::isl_dim_param, pos, 1)?;
        self.sum_dim(s1, x, outer, summand, 0)
    }

    /// `s1` has the one set dimension `x`; sum it away, then continue with `outer`.
    fn sum_dim(
        &mut self,
        s1: Set,
        x: &str,
        outer: &[String],
        summand: Poly,
        rounds: usize,
    ) -> Result<()> {
        let pieces = s1.compute_divs()?.make_disjoint()?;
        // Cells that give the same next summand are summed together, which keeps the recursion
        // from branching on cells that do not change the formula. Only disjoint cells may be
        // united: cells of two basic sets overlap wherever both have points over the same
        // context ({x : 0 <= x < 5 or 10 <= x < 15} gives the cell {} twice, summand 5 each),
        // and their union would count the overlap once.
        let mut next_cells: BTreeMap<Poly, Vec<Set>> = BTreeMap::new();
        for bs in pieces.basic_sets()? {
            let dm = div_modulus(&bs, x)?;
            // floors of ±x in the summand sum in closed form over an interval of x, where the
            // cell itself has no division in x; otherwise x is split into residue classes
            let direct = dm == 1 && summand.floors_summable(x);
            let m = dm.lcm(&summand.split_modulus(x));
            if m > 1 && !direct {
                if rounds >= MAX_SPLIT_ROUNDS {
                    return Err(CountError::SplitLimit(x.to_string(), rounds));
                }
                match floors::fix_constant_floors(&bs, x, &summand, self.context.as_ref())? {
                    floors::Fixed::Empty => continue,
                    floors::Fixed::Some(cell, next) => {
                        self.sum_dim(cell, x, outer, next, rounds + 1)?;
                        continue;
                    }
                    floors::Fixed::Unchanged => {}
                }
                let bset = bs.to_set()?;
                if self.restride(&bset, x, outer, &summand, rounds)? {
                    continue;
                }
                if m > LIFT_ABOVE && dm > 1 && self.lift_divs(&bs, x, outer, &summand, rounds)? {
                    continue;
                }
                if m > LIFT_ABOVE && dm == 1 && self.lift(&bset, x, outer, &summand, rounds)? {
                    continue;
                }
                self.split(bset, x, m, outer, &summand, rounds)?;
                continue;
            }
            let bset = bs.to_set()?;
            let max = bset.dim_max(0)?.pieces()?;
            let min = bset.dim_min(0)?.pieces()?;
            for (a, u) in &max {
                if u.is_nan()? {
                    return Err(CountError::Unbounded(x.to_string()));
                }
                let names = a.param_names()?;
                let ul = aff_to_lin(u, &names, &[], Round::Floor)?;
                for (b, l) in &min {
                    if l.is_nan()? {
                        return Err(CountError::Unbounded(x.to_string()));
                    }
                    let cell = a.clone().intersect(b.clone())?;
                    if cell.is_empty()? {
                        continue;
                    }
                    let lnames = b.param_names()?;
                    let ll = aff_to_lin(l, &lnames, &[], Round::Ceil)?;
                    let next = if direct {
                        summand.sum_range_floors(x, &ll, &ul)
                    } else {
                        summand.sum_range(x, &ll, &ul)
                    };
                    add_disjoint(next_cells.entry(next).or_default(), cell)?;
                }
            }
        }
        for (next, cells) in next_cells {
            for cell in cells {
                self.level(cell.coalesce()?.from_params()?, outer, next.clone())?;
            }
        }
        Ok(())
    }

    /// When `x` lies on a lattice `x = s·q + o` (s > 1, o a function of the context), sum over
    /// q instead: one change of variables where residue splitting would walk s classes of which
    /// all but one are empty (a stride that isl derives from other bounds can be 2^23).
    /// Whether it applied.
    fn restride(
        &mut self,
        s1: &Set,
        x: &str,
        outer: &[String],
        summand: &Poly,
        rounds: usize,
    ) -> Result<bool> {
        let (stride, off) = s1.stride_info(0)?;
        if stride <= 1 {
            return Ok(false);
        }
        let params = s1.param_names()?;
        let off = aff_to_lin(&off, &params, &[x.to_string()], Round::Floor)?;
        let mut names = std::collections::BTreeSet::new();
        off.vars(&mut names);
        // the offset goes back into isl text: every name in it must be one isl can parse
        let plain = |n: &String| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if off.involves(x) || !names.iter().all(plain) {
            return Ok(false);
        }
        self.fresh += 1;
        let q = format!("{x}_q{}", self.fresh);
        let ma = super::isl::MultiAff::parse(
            &self.ctx,
            &format!(
                "[{}] -> {{ [q] -> [({stride} * q + {off})] }}",
                params.join(", ")
            ),
        )?;
        let sq = s1
            .clone()
            .preimage(ma)?
            .set_dim_name(DimType::isl_dim_set, 0, &q)?;
        let e = LinExpr::var(&q).scale(stride as i128).add(&off);
        self.sum_dim(sq, &q, outer, summand.subst(x, &e), rounds + 1)?;
        Ok(true)
    }

    /// The cell's divisions of `x` become variables of their own, as [`Counter::lift`] does for
    /// the summand: `floor(num/d)` becomes `F` with `d·F <= num <= d·F + d − 1`, summed right
    /// after `x`, and the cell is linear in `x` (a residue condition on 256 thread indices modulo
    /// 1024 would otherwise split 1024 ways). Whether it applied (a division nested in one of `x`
    /// is left to splitting).
    fn lift_divs(
        &mut self,
        bs: &BasicSet,
        x: &str,
        outer: &[String],
        summand: &Poly,
        rounds: usize,
    ) -> Result<bool> {
        let ls = bs.local_space()?;
        let nd = ls.dim(DimType::isl_dim_div)?;
        let params = bs.to_set()?.param_names()?;
        let xs = [x.to_string()];
        // per division: the name in the rewritten cell (a new variable, or its floor expression)
        let mut spelled: Vec<String> = Vec::with_capacity(nd);
        let mut lifted: Vec<String> = Vec::new();
        let mut defs: Vec<String> = Vec::new();
        for k in 0..nd {
            let (num, den) = aff_parts(&ls.div(k)?, &params, &xs)?;
            if !num.involves(x) {
                spelled.push(format!("({})", num.floor_div(den)));
                continue;
            }
            if num
                .terms
                .keys()
                .any(|a| matches!(a, super::linexpr::Atom::Floor(..)) && a.involves(x))
            {
                return Ok(false);
            }
            self.fresh += 1;
            let f = format!("{x}_d{}", self.fresh);
            defs.push(format!("{den}*{f} <= ({num}) <= {den}*{f} + {}", den - 1));
            spelled.push(f.clone());
            lifted.push(f);
        }
        let mut constraints = defs;
        for c in bs.constraints()? {
            let mut terms: Vec<String> = Vec::new();
            for (j, p) in params.iter().enumerate() {
                let (a, _) = c.coefficient(DimType::isl_dim_param, j)?;
                if a != 0 {
                    terms.push(format!("{a}*{p}"));
                }
            }
            let (a, _) = c.coefficient(DimType::isl_dim_set, 0)?;
            if a != 0 {
                terms.push(format!("{a}*{x}"));
            }
            for (k, name) in spelled.iter().enumerate() {
                let (a, _) = c.coefficient(DimType::isl_dim_div, k)?;
                if a != 0 {
                    terms.push(format!("{a}*{name}"));
                }
            }
            terms.push(c.constant()?.0.to_string());
            let rel = if c.is_equality()? { "=" } else { ">=" };
            constraints.push(format!("{} {rel} 0", terms.join(" + ")));
        }
        let s2 = self.dim_set(&params, &lifted, x, &constraints)?;
        let mut outer2 = outer.to_vec();
        outer2.extend(lifted);
        self.sum_dim(s2, x, &outer2, summand.clone(), rounds + 1)?;
        Ok(true)
    }

    /// `[params, extra] -> { [x] : constraints }`: a one-dimensional set over `x`, with the
    /// variables introduced for floors as extra parameters.
    fn dim_set(
        &self,
        params: &[String],
        extra: &[String],
        x: &str,
        constraints: &[String],
    ) -> Result<Set> {
        let all: Vec<&str> = params.iter().chain(extra).map(String::as_str).collect();
        Ok(Set::parse(
            &self.ctx,
            &format!(
                "[{}] -> {{ [{x}] : {} }}",
                all.join(", "),
                constraints.join(" and ")
            ),
        )?)
    }

    /// Each floor of `x` in the summand becomes a variable `F` of its own, constrained by
    /// `m'·F <= k'·x + floor(rest/g) <= m'·F + m' − 1` (the floor reduced by g = gcd(k, m), with
    /// k' the signed representative of k/g modulo m' = m/g) and summed right after `x`. `F` is a
    /// function of `x`, so the sum is unchanged, and `x` is then summed without floors; with
    /// k' = ±1 neither bound of `x` brings a new floor. Whether it applied (floors nested inside
    /// floors of `x` are left to splitting).
    fn lift(
        &mut self,
        s1: &Set,
        x: &str,
        outer: &[String],
        summand: &Poly,
        rounds: usize,
    ) -> Result<bool> {
        let xv = super::linexpr::Atom::Var(x.into());
        let mut floors: Vec<(super::linexpr::Atom, LinExpr, i128)> = Vec::new();
        for m in summand.terms.keys() {
            for (a, _) in m {
                let super::linexpr::Atom::Floor(e, md) = a else {
                    continue;
                };
                if !e.involves(x) || floors.iter().any(|(b, _, _)| b == a) {
                    continue;
                }
                let nested = e
                    .terms
                    .keys()
                    .any(|b| matches!(b, super::linexpr::Atom::Floor(..)) && b.involves(x));
                if nested {
                    return Ok(false);
                }
                floors.push((a.clone(), (**e).clone(), *md));
            }
        }
        let params = s1.param_names()?;
        let mut next = summand.clone();
        let mut names = Vec::new();
        let mut constraints = Vec::new();
        for (atom, e, md) in floors {
            let k = e.terms.get(&xv).copied().unwrap_or(0);
            let rest = e.sub(&LinExpr::var(x).scale(k));
            let g = k.gcd(&md);
            let m2 = md / g;
            // k/g modulo m2, as the representative nearest zero
            let mut k2 = (k / g).rem_euclid(m2);
            if 2 * k2 > m2 {
                k2 -= m2;
            }
            // k·x + rest = g·(k/g·x) + rest, and k/g·x ≡ k2·x modulo m2 up to a multiple of x
            // that `floor` carries outside: floor((k x + rest)/m) = ((k/g − k2)/m2)·x
            // + floor((k2·x + floor(rest/g))/m2)
            let outside = (k / g - k2) / m2;
            let inner = LinExpr::var(x).scale(k2).add(&rest.floor_div(g));
            self.fresh += 1;
            let f = format!("{x}_f{}", self.fresh);
            let fl = LinExpr::var(&f);
            constraints.push(format!("{m2}*{f} <= ({inner}) <= {m2}*{f} + {}", m2 - 1));
            let replacement = fl.add(&LinExpr::var(x).scale(outside));
            next = next.subst_atom(&atom, &replacement);
            names.push(f);
        }
        let c = self.dim_set(&params, &names, x, &constraints)?;
        let s2 = s1.clone().intersect(c)?;
        let mut outer2 = outer.to_vec();
        outer2.extend(names);
        self.sum_dim(s2, x, &outer2, next, rounds + 1)?;
        Ok(true)
    }

    /// `x := m·q + r` for r = 0..m-1: the floors of `x` become affine in `q`.
    fn split(
        &mut self,
        s1: Set,
        x: &str,
        m: i128,
        outer: &[String],
        summand: &Poly,
        rounds: usize,
    ) -> Result<()> {
        if m > MAX_RESIDUES {
            return Err(CountError::TooComplex(MAX_RESIDUES as usize));
        }
        let params = s1.param_names()?;
        for r in 0..m {
            self.fresh += 1;
            let q = format!("{x}_q{}", self.fresh);
            let ma = super::isl::MultiAff::parse(
                &self.ctx,
                &format!("[{}] -> {{ [q] -> [({m} * q + {r})] }}", params.join(", ")),
            )?;
            let sq = s1
                .clone()
                .preimage(ma)?
                .set_dim_name(DimType::isl_dim_set, 0, &q)?;
            if sq.is_empty()? {
                continue;
            }
            let e = LinExpr::var(&q).scale(m).add_const(r);
            let next = summand.subst(x, &e);
            self.sum_dim(sq, &q, outer, next, rounds + 1)?;
        }
        Ok(())
    }

    /// Whether some parameter value of the context lies in `bs`: pieces that only values
    /// outside it reach (p0 >= 2^31) count nothing real. (Tested on a private copy, since isl
    /// may rewrite a shared set's constraints in place, and printed forms follow those.)
    fn meets_context(&self, bs: &BasicSet) -> Result<bool> {
        let Some(c) = &self.context else {
            return Ok(true);
        };
        let copy = Set::parse(&self.ctx, &bs.to_set()?.to_str())?;
        Ok(!copy.intersect_params(c.clone())?.is_empty()?)
    }

    /// Refine the contributions into disjoint cells, merge equal polynomials, and convert the
    /// isl domains into guards.
    fn finish(mut self) -> Result<QPoly> {
        // merge identical domains first (cheap, and common)
        // (pairwise, so for many contributions probes rule out unequal pairs before isl's
        // equality test; not for few, because that test also rewrites the sets' constraints in
        // place, and the printed form of every count in the corpus follows from those rewrites)
        let mut merged: Vec<(Set, Poly, Option<Probe>)> = Vec::new();
        let probing = self.out.len() > PROBE_ABOVE;
        let out = std::mem::take(&mut self.out);
        'next: for (s, p) in out {
            let fp = if probing { Probe::of(&s) } else { None };
            for (t, q, tf) in merged.iter_mut() {
                if !Probe::may_equal(&fp, tf) {
                    continue;
                }
                if t.is_equal(&s)? {
                    *q = q.add(&p);
                    continue 'next;
                }
            }
            merged.push((s, p, fp));
        }
        let merged: Vec<(Set, Poly)> = merged.into_iter().map(|(s, p, _)| (s, p)).collect();
        // Refining into disjoint cells costs O(contributions × cells) isl operations; beyond a
        // few dozen contributions the (equally exact) sum of guarded pieces is kept instead.
        if merged.len() > MAX_REFINE {
            let mut q = QPoly::zero();
            for (s, p) in merged {
                for bs in s
                    .coalesce()?
                    .compute_divs()?
                    .make_disjoint()?
                    .basic_sets()?
                {
                    if self.meets_context(&bs)? {
                        q.push(guard_of(&bs)?, p.clone());
                    }
                }
            }
            std::sync::Arc::make_mut(&mut q.pieces).sort();
            return Ok(q);
        }
        let mut cells: Vec<(Set, Poly)> = Vec::new();
        for (s, p) in merged {
            let mut next = Vec::with_capacity(cells.len() + 1);
            let mut rest = s.clone();
            for (c, q) in cells {
                let i = c.clone().intersect(s.clone())?;
                if !i.is_empty()? {
                    next.push((i, q.add(&p)));
                }
                let d = c.clone().subtract(s.clone())?;
                if !d.is_empty()? {
                    next.push((d, q));
                }
                rest = rest.subtract(c)?;
            }
            if !rest.is_empty()? {
                next.push((rest, p));
            }
            cells = next;
        }
        let mut by_poly: BTreeMap<Poly, Set> = BTreeMap::new();
        for (c, p) in cells {
            if p.is_zero() {
                continue;
            }
            let u = match by_poly.remove(&p) {
                Some(s) => s.union(c)?,
                None => c,
            };
            by_poly.insert(p, u);
        }
        let mut q = QPoly::zero();
        for (p, s) in by_poly {
            for bs in s
                .coalesce()?
                .compute_divs()?
                .make_disjoint()?
                .basic_sets()?
            {
                if self.meets_context(&bs)? {
                    q.push(guard_of(&bs)?, p.clone());
                }
            }
        }
        std::sync::Arc::make_mut(&mut q.pieces).sort();
        Ok(q)
    }
}

/// What `finish` knows of a contribution's parameter domain to rule out equality cheaply: its
/// constraints (to test points in Rust) and one point of it (from isl). Equal sets contain each
/// other's points, so a pair where either misses the other's point is unequal without isl's
/// (quadratic, and dear) equality test; the grouping is the same as with that test alone.
struct Probe {
    params: Vec<String>,
    guards: Vec<Guard>,
    point: Vec<i128>,
}

impl Probe {
    /// `None` when the set cannot be read back this way; the caller then asks isl.
    fn of(s: &Set) -> Option<Probe> {
        // isl may rewrite a shared set's representation in place (same set, other
        // constraints), which would change how later steps print; probe a private copy
        let s = &Set::parse(s.ctx(), &s.to_str()).ok()?;
        let params = s.param_names().ok()?;
        let guards = s
            .clone()
            .compute_divs()
            .ok()?
            .basic_sets()
            .ok()?
            .iter()
            .map(guard_of)
            .collect::<Result<Vec<Guard>>>()
            .ok()?;
        let as_set = s
            .clone()
            .move_dims(
                DimType::isl_dim_set,
                0,
                DimType::isl_dim_param,
                0,
                params.len(),
            )
            .ok()?;
        let point = as_set.sample_point().ok()??;
        Some(Probe {
            params,
            guards,
            point: point.into_iter().map(i128::from).collect(),
        })
    }

    fn contains(&self, other: &Probe) -> bool {
        let env = |name: &str| {
            other
                .params
                .iter()
                .position(|p| p == name)
                .map(|i| other.point[i])
        };
        self.guards.iter().any(|g| g.holds(&env) == Some(true))
    }

    /// Whether the two sets may be equal (false only when they certainly differ).
    fn may_equal(a: &Option<Probe>, b: &Option<Probe>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) if a.params == b.params => a.contains(b) && b.contains(a),
            _ => true,
        }
    }
}

/// Unite `cell` with the first of `cells` it does not meet, or keep it apart: the sum over
/// `cells` must count every point as often as the cells that contain it.
fn add_disjoint(cells: &mut Vec<Set>, cell: Set) -> Result<()> {
    for c in cells.iter_mut() {
        if c.clone().intersect(cell.clone())?.is_empty()? {
            *c = c.clone().union(cell)?;
            return Ok(());
        }
    }
    cells.push(cell);
    Ok(())
}

#[derive(Clone, Copy)]
pub(crate) enum Round {
    Floor,
    Ceil,
}

/// The modulus needed to make every local division of `bs` affine in its set dimension 0 (`x`).
fn div_modulus(bs: &BasicSet, x: &str) -> Result<i128> {
    let ls = bs.local_space()?;
    let nd = ls.dim(DimType::isl_dim_div)?;
    if nd == 0 {
        return Ok(1);
    }
    let params = bs.to_set()?.param_names()?;
    let mut m = 1i128;
    for k in 0..nd {
        let e = aff_to_lin(&ls.div(k)?, &params, &[x.to_string()], Round::Floor)?;
        m = m.lcm(&e.split_modulus(x));
    }
    Ok(m)
}

/// Convert an isl affine expression (possibly with local divisions) into a quasi-affine
/// expression; a rational expression is rounded with `round` (isl's integer bounds are
/// integral, so this only canonicalises).
pub(crate) fn aff_to_lin(
    aff: &Aff,
    params: &[String],
    ins: &[String],
    round: Round,
) -> Result<LinExpr> {
    let (num, den) = aff_parts(aff, params, ins)?;
    Ok(match round {
        Round::Floor => num.floor_div(den),
        Round::Ceil => num.ceil_div(den),
    })
}

/// The constraints of a parameter-domain basic set as a guard.
fn guard_of(bs: &BasicSet) -> Result<Guard> {
    let params = bs.to_set()?.param_names()?;
    let mut cons = lin_constraints(bs, &params, &[])?;
    cons.sort();
    cons.dedup();
    Ok(Guard { constraints: cons })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::poly::rat;

    fn check(set: &str, pts: &[i64]) -> QPoly {
        let ctx = Ctx::new();
        let s = Set::parse(&ctx, set).unwrap();
        let q = count(&s).unwrap();
        let params = s.param_names().unwrap();
        for &v in pts {
            let mut fixed = s.clone();
            for k in 0..params.len() {
                fixed = fixed
                    .fix_si(DimType::isl_dim_param, k, v + k as i64)
                    .unwrap();
            }
            let (n, _) = fixed.count_val().unwrap().to_rational().unwrap();
            let got = q
                .eval(&|name| {
                    params
                        .iter()
                        .position(|p| p == name)
                        .map(|k| (v + k as i64) as i128)
                })
                .unwrap();
            assert_eq!(got, rat(n as i128), "{set} at {v}: {q}");
        }
        q
    }

    #[test]
    fn triangle_is_exact() {
        let q = check(
            "[n] -> { [i, j] : 0 <= j < i < n }",
            &[-3, 0, 1, 2, 13, 100],
        );
        assert_eq!(q.to_string(), "(n^2 - n)/2 if n >= 2");
    }

    #[test]
    fn factored_count_is_exact() {
        // two independent groups ({i, j} and {k}) in one basic set, and a union of two
        for set in [
            "[n, m] -> { [i, j, k] : 0 <= j < i < n and 0 <= 2 k < m }",
            "[n, m] -> { [i, k] : (0 <= i < n and 0 <= k < m) or (0 <= i < m and n <= k < 2 n) }",
        ] {
            let ctx = Ctx::new();
            let s = Set::parse(&ctx, set).unwrap();
            let q = count_factored(&s, None, &mut 0).unwrap();
            for (n, m) in [(-1i64, 3i64), (0, 0), (1, 5), (4, 2), (7, 9), (12, 3)] {
                let fixed = s
                    .clone()
                    .fix_si(DimType::isl_dim_param, 0, n)
                    .unwrap()
                    .fix_si(DimType::isl_dim_param, 1, m)
                    .unwrap();
                let (want, _) = fixed.count_val().unwrap().to_rational().unwrap();
                let got = q
                    .eval(&|v| match v {
                        "n" => Some(n as i128),
                        "m" => Some(m as i128),
                        _ => None,
                    })
                    .unwrap();
                assert_eq!(got, rat(want as i128), "{set} at n={n} m={m}: {q}");
            }
        }
    }

    #[test]
    fn overlapping_cells_of_a_union_are_both_counted() {
        // both basic sets have points over every context, each with the same count
        check(
            "[n] -> { [x] : 0 <= x < n or n + 10 <= x < 2n + 10 }",
            &[-2, 0, 1, 7, 40],
        );
        // the 32-byte sectors of the 33x33 `transpose_naive` store (16x16 blocks, as
        // `count::segments` writes the set), whose warps touch two rows of sectors: 605 before
        // the cells were kept apart, 625 true
        let sectors = "[n, nx, ny] -> { [cx, cy, warp, seg] : n = 33 and nx = 3 and ny = 3 and \
            0 <= cx < nx and 0 <= cy < ny and exists (tx, ty : 0 <= tx < 16 and 0 <= ty < 16 and \
            16 cy + ty < n and 16 cx + tx < n and 32 warp <= tx + 16 ty <= 32 warp + 31 and \
            32 seg <= 2112 cx + 64 cy + 132 tx + 4 ty + 3 and 2112 cx + 64 cy + 132 tx + 4 ty <= 32 seg + 31) }";
        let ctx = Ctx::new();
        let q = count(&Set::parse(&ctx, sectors).unwrap()).unwrap();
        let at = |v: &str| match v {
            "n" => Some(33),
            _ => Some(3),
        };
        assert_eq!(q.eval(&at), Some(rat(625)), "{q}");
    }

    /// A grid-stride loop on a fixed grid of 256 blocks of 256 threads: the thread's trip
    /// count floor((n − 1 − 256c − t)/65536) + 1 sums over t in closed form (a floor of −t) and
    /// over c by lifting its floor (modulus 256 after reduction, above the splitting limit).
    /// Every index below n is visited once.
    #[test]
    fn grid_stride_sums_without_splitting() {
        let q = check(
            "[n] -> { [c, t, k] : 0 <= c < 256 and 0 <= t < 256 and k >= 0 and 256 c + t + 65536 k < n }",
            &[0, 1, 255, 65536, 65537, 70000, 200_000],
        );
        let at = |n: i128| q.eval(&|v| (v == "n").then_some(n)).unwrap();
        assert_eq!(at(1 << 20), rat(1 << 20));
        assert_eq!(at(-5), rat(0));
    }

    #[test]
    fn tiles_strides_and_minmax() {
        check(
            "[n] -> { [t, i] : 0 <= 16 t < n and 16 t <= i < 16 t + 16 and i < n }",
            &[0, 1, 15, 16, 17, 40, 100],
        );
        check("[n] -> { [k] : 0 <= 3 k <= n }", &[-1, 0, 1, 2, 3, 10]);
        check(
            "[n, m] -> { [i, j] : 0 <= i < n and 0 <= j <= i and j < m }",
            &[-1, 0, 3, 7, 20],
        );
        check(
            "[n] -> { [i] : 0 <= i < n and exists e : i = 3 e + 1 }",
            &[0, 1, 2, 5, 11],
        );
        check(
            "[n] -> { [i, j] : 0 <= i < n and 0 <= 2 j <= i }",
            &[0, 1, 2, 3, 9, 30],
        );
    }

    /// A row index over three block indices with unrelated strides under a parametric grid
    /// (a real softmax kernel's guard): minutes of rational arithmetic unbounded, a fixed
    /// amount of work here, the same on every machine.
    #[test]
    fn a_count_past_its_work_budget_fails_as_over_budget() {
        let ctx = Ctx::new();
        let set = Set::parse(
            &ctx,
            "[nx, ny, nz, p4] -> { [cx, cy, cz, warp] : 0 <= cx < nx and 0 <= cy < ny and \
             0 <= cz < nz and 0 <= warp < 4 and exists (t : 0 <= t < 4 and \
             ((-8cx - 64cy - 768cz + p4 - 2t - 1) < 0 or (-8cx - 64cy - 768cz + p4 - 2t - 1) > 0) \
             and (8cx + 64cy + 768cz - p4 + 2t) < 0 and warp = t) }",
        )
        .unwrap();
        let context = Set::parse(
            &ctx,
            "[nx, ny, nz, p4] -> { : nx > 0 and ny > 0 and nz > 0 and -2147483648 <= p4 <= 2147483647 }",
        )
        .unwrap();
        assert_eq!(
            count_in(&set, &context).unwrap_err(),
            CountError::OverBudget(MAX_WORK)
        );
    }
}
