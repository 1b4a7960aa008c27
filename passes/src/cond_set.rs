//! isl sets of conditions, built bottom-up through isl's API instead of parsed as one text.
//!
//! The conditions of loop exits and joins nest disjunctions (every `x != y` is `x < y or x > y`),
//! and isl's reader expands a whole formula into disjunctive normal form before it simplifies
//! anything: a 800-character emptiness query took 3.7 ms to parse and 90 ns to decide. Here a
//! condition restricts a base set one conjunct at a time (`base ∩ a ∩ b`), so a contradiction
//! empties the set as soon as it appears and the rest is never built; a disjunction is the union
//! of the base restricted by each side, coalesced. Each atom (`e >= 0`, `e = 0`) is parsed once
//! per space, as a short text.

use crate::cond::{isl_lin, Cond};
use crate::poly::isl::{Ctx, IslError, Set};
use crate::poly::{fm, Atom, Constraint, LinExpr};
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

/// Whether no point of the space (`params`, `dims`) within `launch` satisfies `cond`.
///
/// Every floor is first lifted to a fresh set dimension `f` with `m·f <= e <= m·f + m − 1`:
/// the lifted set is empty exactly when the original is (`f` has one value per point), and
/// without divisions isl neither aligns them between atoms nor carries them through its
/// normal form, which made these queries cost milliseconds.
///
/// The condition is then split into its disjunctive terms: most are contradictions that
/// Fourier–Motzkin shows at once ([`fm::infeasible`]); isl is asked about the others one
/// conjunction at a time, and the first with a point answers. Only a condition with too many
/// terms is built as one set of unions.
pub(crate) fn is_empty(
    spaces: &mut Spaces,
    params: &[String],
    dims: &[String],
    launch: &Cond,
    cond: &Cond,
) -> Result<bool, IslError> {
    let mut floors = Floors::default();
    let lifted = floors.cond(cond);
    let mut base = launch.clone();
    for (name, (e, m)) in floors.names.iter().zip(&floors.defs) {
        let f = LinExpr::var(name);
        let lo = Cond::Ge(e.sub(&f.scale(*m)));
        let hi = Cond::Ge(f.scale(*m).add_const(m - 1).sub(e));
        base = base.and(lo).and(hi);
    }
    let mut all_dims = dims.to_vec();
    all_dims.extend(floors.names.iter().cloned());
    let (Some(terms), Some(base_terms)) = (lifted.dnf(false, MAX_TERMS), base.dnf(false, 1)) else {
        let sets = spaces.get(params, &all_dims)?;
        let base = sets.restrict(sets.universe(), &base)?;
        return sets.restrict(base, &lifted)?.is_empty();
    };
    let base_system = fm::System::new(&base_terms.into_iter().next().unwrap_or_default());
    let open: Vec<Vec<Constraint>> = terms
        .into_iter()
        .filter(|t| !base_system.with(t).infeasible())
        .collect();
    if open.is_empty() {
        return Ok(true);
    }
    let sets = spaces.get(params, &all_dims)?;
    let base = sets.restrict(sets.universe(), &base)?;
    for t in open {
        let conj = t.into_iter().fold(Cond::True, |c, k| {
            c.and(if k.eq {
                Cond::Eq(k.expr)
            } else {
                Cond::Ge(k.expr)
            })
        });
        if !sets.restrict(base.clone(), &conj)?.is_empty()? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Disjunctive terms a condition is split into before it is built as one set.
const MAX_TERMS: usize = 64;

/// `0 <= ctaid_d < nctaid_d` and `0 <= tid_d < ntid_d` for the three dimensions.
pub(crate) fn launch_box(ntid: [u64; 3]) -> Cond {
    let mut c = Cond::True;
    for (d, n) in ["x", "y", "z"].iter().zip(ntid) {
        let (b, t) = (
            LinExpr::var(&format!("ctaid_{d}")),
            LinExpr::var(&format!("tid_{d}")),
        );
        let nb = LinExpr::var(&format!("nctaid_{d}"));
        c = c
            .and(Cond::Ge(b.clone()))
            .and(Cond::Ge(nb.sub(&b).add_const(-1)))
            .and(Cond::Ge(t.clone()))
            .and(Cond::Ge(t.scale(-1).add_const(n as i128 - 1)));
    }
    c
}

/// Floors replaced by fresh variables `_floor0`, `_floor1`, … (innermost first).
#[derive(Default)]
struct Floors {
    index: BTreeMap<(LinExpr, i128), usize>,
    names: Vec<String>,
    /// (floor-free numerator, modulus) per variable
    defs: Vec<(LinExpr, i128)>,
}

impl Floors {
    fn lin(&mut self, e: &LinExpr) -> LinExpr {
        let mut out = LinExpr::constant(e.constant);
        for (a, c) in &e.terms {
            let v = match a {
                Atom::Var(_) => LinExpr::atom(a.clone()),
                Atom::Floor(inner, m) => {
                    let inner = self.lin(inner);
                    let k = match self.index.get(&(inner.clone(), *m)) {
                        Some(&k) => k,
                        None => {
                            let k = self.names.len();
                            self.names.push(format!("_floor{k}"));
                            self.defs.push((inner.clone(), *m));
                            self.index.insert((inner, *m), k);
                            k
                        }
                    };
                    LinExpr::var(&self.names[k])
                }
            };
            out = out.add(&v.scale(*c));
        }
        out
    }

    fn cond(&mut self, c: &Cond) -> Cond {
        match c {
            Cond::Ge(e) => Cond::Ge(self.lin(e)),
            Cond::Eq(e) => Cond::Eq(self.lin(e)),
            Cond::Not(x) => Cond::Not(Box::new(self.cond(x))),
            Cond::And(a, b) => Cond::And(Box::new(self.cond(a)), Box::new(self.cond(b))),
            Cond::Or(a, b) => Cond::Or(Box::new(self.cond(a)), Box::new(self.cond(b))),
            Cond::True => Cond::True,
        }
    }
}

/// The [`CondSets`] of every space seen, so that atoms are built once per space: an atom is
/// `{e >= 0}` over the named dimensions whatever they stand for in a query.
pub(crate) struct Spaces {
    ctx: Ctx,
    by_space: HashMap<(Vec<String>, Vec<String>), CondSets>,
}

impl Spaces {
    pub(crate) fn new(ctx: &Ctx) -> Spaces {
        Spaces {
            ctx: ctx.clone(),
            by_space: HashMap::default(),
        }
    }

    pub(crate) fn get(
        &mut self,
        params: &[String],
        dims: &[String],
    ) -> Result<&mut CondSets, IslError> {
        let key = (params.to_vec(), dims.to_vec());
        Ok(match self.by_space.entry(key) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(v) => v.insert(CondSets::new(&self.ctx, params, dims)?),
        })
    }
}

/// Sets over one space (named parameters and set dimensions).
pub(crate) struct CondSets {
    ctx: Ctx,
    head: String,
    universe: Set,
    /// name -> (is a parameter, position)
    names: HashMap<String, (bool, usize)>,
    nparams: usize,
    ndims: usize,
    /// (e, is_equality) -> the set where `e >= 0` (or `e = 0`)
    atoms: HashMap<(LinExpr, bool), Set>,
}

impl CondSets {
    pub(crate) fn new(ctx: &Ctx, params: &[String], dims: &[String]) -> Result<CondSets, IslError> {
        let names = params
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), (true, i)))
            .chain(
                dims.iter()
                    .enumerate()
                    .map(|(i, d)| (d.clone(), (false, i))),
            )
            .collect();
        Ok(CondSets {
            ctx: ctx.clone(),
            head: format!("[{}] -> {{ [{}] : ", params.join(", "), dims.join(", ")),
            universe: Set::universe(ctx, params, dims)?,
            names,
            nparams: params.len(),
            ndims: dims.len(),
            atoms: HashMap::default(),
        })
    }

    /// Every point of the space.
    pub(crate) fn universe(&self) -> Set {
        self.universe.clone()
    }

    /// The set of points satisfying the isl constraint text `constraints` (`true` for all).
    pub(crate) fn parse(&self, constraints: &str) -> Result<Set, IslError> {
        Set::parse(&self.ctx, &format!("{}{constraints} }}", self.head))
    }

    /// `base` restricted to where `cond` holds.
    pub(crate) fn restrict(&mut self, base: Set, cond: &Cond) -> Result<Set, IslError> {
        self.restrict_signed(base, cond, false)
    }

    /// `base ∩ {e >= 0}` (or `{e = 0}`).
    fn atom(&mut self, base: Set, e: LinExpr, eq: bool) -> Result<Set, IslError> {
        let key = (e, eq);
        let a = match self.atoms.get(&key) {
            Some(a) => a.clone(),
            None => {
                let a = match self.linear(&key.0, eq)? {
                    Some(a) => a,
                    None => self.parse(&format!(
                        "{} {} 0",
                        isl_lin(&key.0),
                        if eq { "=" } else { ">=" }
                    ))?,
                };
                self.atoms.insert(key, a.clone());
                a
            }
        };
        base.intersect(a)
    }

    /// The constraint built directly, when `e` has no floor, names only this space's symbols and
    /// fits isl's machine integers.
    fn linear(&self, e: &LinExpr, eq: bool) -> Result<Option<Set>, IslError> {
        let mut pc = vec![0i64; self.nparams];
        let mut dc = vec![0i64; self.ndims];
        for (a, c) in &e.terms {
            let (Atom::Var(v), Ok(c)) = (a, i64::try_from(*c)) else {
                return Ok(None);
            };
            match self.names.get(&**v) {
                Some(&(true, i)) => pc[i] = c,
                Some(&(false, i)) => dc[i] = c,
                None => return Ok(None),
            }
        }
        let Ok(k) = i64::try_from(e.constant) else {
            return Ok(None);
        };
        self.universe.linear_constraint(&pc, &dc, k, eq).map(Some)
    }

    /// `base ∩ cond` (`base ∩ ¬cond` when `neg`), negations pushed down to the atoms:
    /// `¬(e >= 0)` is `-e - 1 >= 0`, `¬(e = 0)` is `e - 1 >= 0 or -e - 1 >= 0`.
    fn restrict_signed(&mut self, base: Set, cond: &Cond, neg: bool) -> Result<Set, IslError> {
        if base.plain_is_empty()? {
            return Ok(base);
        }
        let below = |e: &LinExpr| e.scale(-1).add_const(-1);
        match (cond, neg) {
            (Cond::True, false) => Ok(base),
            (Cond::True, true) => base.clone().subtract(base),
            (Cond::Ge(e), false) => self.atom(base, e.clone(), false),
            (Cond::Ge(e), true) => self.atom(base, below(e), false),
            (Cond::Eq(e), false) => self.atom(base, e.clone(), true),
            (Cond::Eq(e), true) => {
                let lt = self.atom(base.clone(), below(e), false)?;
                let gt = self.atom(base, e.add_const(-1), false)?;
                lt.union(gt)?.coalesce()
            }
            (Cond::Not(c), n) => self.restrict_signed(base, c, !n),
            (Cond::And(a, b), false) | (Cond::Or(a, b), true) => {
                let first = self.restrict_signed(base, a, neg)?;
                self.restrict_signed(first, b, neg)
            }
            (Cond::Or(a, b), false) | (Cond::And(a, b), true) => {
                let left = self.restrict_signed(base.clone(), a, neg)?;
                let right = self.restrict_signed(base, b, neg)?;
                left.union(right)?.coalesce()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::LinExpr;
    use std::ops::Not;

    fn ge(e: LinExpr) -> Cond {
        Cond::Ge(e)
    }

    /// Built bottom-up or parsed whole, a condition gives the same set.
    #[test]
    fn restrict_equals_parsing_the_whole_formula() {
        let ctx = Ctx::new();
        let (i, n) = (LinExpr::var("i"), LinExpr::var("n"));
        // 0 <= i < n, i != 3, and (i even or i > n - 4), and not (i = 1 and n = 5)
        let conds = [
            ge(i.clone())
                .and(ge(n.sub(&i).add_const(-1)))
                .and(Cond::Eq(i.add_const(-3)).not())
                .and(Cond::Eq(i.sub(&i.floor_div(2).scale(2))).or(ge(i.sub(&n).add_const(3))))
                .and(
                    Cond::Eq(i.add_const(-1))
                        .and(Cond::Eq(n.add_const(-5)))
                        .not(),
                ),
            ge(i.clone()).and(ge(i.clone()).not()),
            Cond::True.not().or(ge(n.sub(&i))),
        ];
        let params = vec!["n".to_string()];
        let dims = vec!["i".to_string()];
        for c in conds {
            let mut sets = CondSets::new(&ctx, &params, &dims).unwrap();
            let built = sets
                .restrict(sets.parse("-10 <= i <= 10").unwrap(), &c)
                .unwrap();
            let parsed = Set::parse(
                &ctx,
                &format!("[n] -> {{ [i] : -10 <= i <= 10 and {} }}", c.to_isl()),
            )
            .unwrap();
            assert!(built.is_equal(&parsed).unwrap(), "{}", c.to_isl());
        }
    }
}
