//! Min, max and select values as named symbols.
//!
//! Why: a band loop runs from `lo = max(0, i - w)` to `hi = min(n - 1, i + w)`; unrolled by 4,
//! it computes its remainder `(hi + 1 - lo) & 3`, starts the main loop at `lo + rem`, and its
//! addresses step from `4·lo`. As trees with affine leaves ([`crate::piecewise`]) every such step
//! multiplies the leaves (`x - 4·floor(x/4)` of a 4-leaf tree has 16), and two uses of one `lo`
//! are not known to be the same value. Named, `lo` is one symbol `mmN` whose tree is its
//! definition: what is computed from it stays quasi-affine, so induction variables, addresses,
//! exit iterations and path-aware joins work on it unchanged. isl takes a symbol as one more
//! parameter where the analysis only proves emptiness (true for every value of the symbol, so
//! for its real one); the definition is put back where a set is counted ([`Defs::expand`]) and
//! where an address is evaluated lane by lane ([`Defs::value`]).
//!
//! Expansion keeps conditions small: a comparison that is monotone in the symbol takes the
//! tree's comparisons (`max(a, b) >= 0` ⇔ `a >= 0 or b >= 0`, what the trees gave before);
//! any other use splits the whole condition into the tree's cases (`a >= b` with `a`, `a < b`
//! with `b`), once per symbol, not once per comparison.
//!
//! Symbols live in a per-thread registry while a kernel is analysed ([`scoped`]); results that
//! outlive the analysis keep a copy ([`current`]).

use crate::cond::Cond;
use crate::piecewise::Piecewise;
use crate::poly::{Atom, LinExpr, Poly};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::ops::Not;

const PREFIX: &str = "mm";

/// Definitions of the named values: symbol `mm<i>` is `trees[i]`, whose leaves may name only
/// earlier symbols.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Defs {
    trees: Vec<Piecewise>,
    index: HashMap<Piecewise, usize>,
    /// How deep each symbol's definition nests other symbols (1: only plain variables).
    depth: Vec<usize>,
}

/// Deepest nesting of symbols a value may have: a chain of thousands of `min`/`max`
/// instructions would otherwise nest its expansions (and their recursion) as deep, and take
/// minutes; past it the value is unknown (a listed assumption where it decides control flow).
pub const MAX_DEPTH: usize = 64;

thread_local! {
    static REGISTRY: RefCell<Defs> = RefCell::new(Defs::default());
}

pub fn is_symbol(v: &str) -> bool {
    number(v).is_some()
}

fn number(v: &str) -> Option<usize> {
    let d = v.strip_prefix(PREFIX)?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    d.parse().ok()
}

/// Run `f` with an empty registry, restoring the previous one after (one kernel's analysis).
pub fn scoped<T>(f: impl FnOnce() -> T) -> T {
    let old = REGISTRY.with(|r| r.replace(Defs::default()));
    let out = f();
    REGISTRY.with(|r| r.replace(old));
    out
}

/// The definitions made so far on this thread.
pub fn current() -> Defs {
    REGISTRY.with(|r| r.borrow().clone())
}

/// The value of `t`: a leaf is itself; any other tree is a symbol (the same one for the same
/// tree, so successive rounds of the analysis agree).
pub fn name(t: Piecewise) -> LinExpr {
    let t = match simplify(t) {
        Piecewise::Leaf(e) => return e,
        t => t,
    };
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        let i = match r.index.get(&t) {
            Some(&i) => i,
            None => {
                let i = r.trees.len();
                let mut vs = BTreeSet::new();
                t.vars(&mut vs);
                let d = 1 + vs.iter().filter_map(|v| r.depth_of(v)).max().unwrap_or(0);
                r.trees.push(t.clone());
                r.depth.push(d);
                r.index.insert(t, i);
                i
            }
        };
        LinExpr::var(&format!("{PREFIX}{i}"))
    })
}

fn simplify(t: Piecewise) -> Piecewise {
    match t {
        Piecewise::Select(c, a, b) if *c == Cond::True || a == b => *a,
        Piecewise::Select(c, _, b) if c.is_false() => *b,
        Piecewise::Max(mut v) | Piecewise::Min(mut v) if v.len() == 1 => v.remove(0),
        t => t,
    }
}

/// The tree a symbol names, in this thread's registry.
pub fn definition(sym: &str) -> Option<Piecewise> {
    REGISTRY.with(|r| r.borrow().get(sym).cloned())
}

/// `vars` with the variables of the definitions of the symbols in it, transitively.
pub fn close(vars: &mut BTreeSet<String>) {
    REGISTRY.with(|r| r.borrow().close(vars))
}

/// Whether `e` depends on `var`, through the symbols it names too.
pub fn depends(e: &LinExpr, var: &str) -> bool {
    let mut vs = BTreeSet::new();
    e.vars(&mut vs);
    close(&mut vs);
    vs.contains(var)
}

/// Whether `c` names a value.
pub fn has_symbols(c: &Cond) -> bool {
    let mut vs = BTreeSet::new();
    c.vars(&mut vs);
    vs.iter().any(|v| is_symbol(v))
}

/// [`Defs::expand`] in this thread's registry.
pub fn expand(c: &Cond) -> Cond {
    REGISTRY.with(|r| r.borrow().expand(c))
}

/// `c` and what the definitions of its symbols say about them without splitting into cases
/// (`max(a, b) >= a` and `>= b`, `min(a, b) <= a` and `<= b`): the convex facts a proof that
/// takes the symbols as free parameters may need.
pub fn with_facts(c: &Cond) -> Cond {
    let mut vs = BTreeSet::new();
    c.vars(&mut vs);
    close(&mut vs);
    let mut out = c.clone();
    for s in vs.iter().filter(|v| is_symbol(v)) {
        let Some(t) = definition(s) else { continue };
        let me = LinExpr::var(s);
        match &t {
            Piecewise::Max(v) => {
                for l in v.iter().filter_map(Piecewise::as_leaf) {
                    out = out.and(Cond::Ge(me.sub(l)));
                }
            }
            Piecewise::Min(v) => {
                for l in v.iter().filter_map(Piecewise::as_leaf) {
                    out = out.and(Cond::Ge(l.sub(&me)));
                }
            }
            _ => {}
        }
    }
    out
}

/// Expand only the symbols whose value depends on `var` (a loop counter about to be shifted
/// or solved for), keeping the others as symbols.
pub fn expand_dependent(c: &Cond, var: &str) -> Cond {
    REGISTRY.with(|r| {
        let r = r.borrow();
        r.expand_if(c, &|s| r.depends(s, var))
    })
}

/// `e` with `var := v`, also inside the definitions of the symbols it names (a symbol whose
/// definition changes becomes a new symbol).
pub fn subst_lin(e: &LinExpr, var: &str, v: &LinExpr) -> LinExpr {
    renamed(e, var, v).subst(var, v)
}

pub fn subst_poly(p: &Poly, var: &str, v: &LinExpr) -> Poly {
    renamed(p, var, v).subst(var, v)
}

pub fn subst_cond(c: &Cond, var: &str, v: &LinExpr) -> Cond {
    renamed(c, var, v).subst(var, v)
}

/// What the symbol-aware substitution needs of an expression.
trait Substitutable: Clone {
    fn collect_vars(&self, out: &mut BTreeSet<String>);
    fn substituted(&self, name: &str, e: &LinExpr) -> Self;
}

impl Substitutable for LinExpr {
    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        self.vars(out)
    }
    fn substituted(&self, name: &str, e: &LinExpr) -> Self {
        self.subst(name, e)
    }
}

impl Substitutable for Poly {
    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        self.vars(out)
    }
    fn substituted(&self, name: &str, e: &LinExpr) -> Self {
        self.subst(name, e)
    }
}

impl Substitutable for Cond {
    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        self.vars(out)
    }
    fn substituted(&self, name: &str, e: &LinExpr) -> Self {
        self.subst(name, e)
    }
}

/// `x` with its symbols that depend on `var` replaced by their substituted versions.
fn renamed<T: Substitutable>(x: &T, var: &str, v: &LinExpr) -> T {
    let mut vs = BTreeSet::new();
    x.collect_vars(&mut vs);
    let mut out = x.clone();
    for s in vs.iter().filter(|s| is_symbol(s)) {
        let s2 = subst_symbol(s, var, v);
        if s2 != LinExpr::var(s) {
            out = out.substituted(s, &s2);
        }
    }
    out
}

fn subst_symbol(s: &str, var: &str, v: &LinExpr) -> LinExpr {
    let Some(t) = definition(s) else {
        return LinExpr::var(s);
    };
    let depends = REGISTRY.with(|r| r.borrow().depends(s, var));
    if !depends {
        return LinExpr::var(s);
    }
    name(t.map(&|e| subst_lin(e, var, v), &|c| subst_cond(c, var, v)))
}

/// How deep the symbols `e` names nest (0: none).
pub fn depth(e: &LinExpr) -> usize {
    let mut vs = BTreeSet::new();
    e.vars(&mut vs);
    REGISTRY.with(|r| {
        let r = r.borrow();
        vs.iter().filter_map(|v| r.depth_of(v)).max().unwrap_or(0)
    })
}

impl Defs {
    fn depth_of(&self, sym: &str) -> Option<usize> {
        self.depth.get(number(sym)?).copied()
    }

    pub fn get(&self, sym: &str) -> Option<&Piecewise> {
        self.trees.get(number(sym)?)
    }

    pub fn is_empty(&self) -> bool {
        self.trees.is_empty()
    }

    /// `vars` with the variables of the definitions of the symbols in it, transitively.
    pub fn close(&self, vars: &mut BTreeSet<String>) {
        let mut todo: Vec<String> = vars.iter().filter(|v| is_symbol(v)).cloned().collect();
        while let Some(s) = todo.pop() {
            let Some(t) = self.get(&s) else { continue };
            let mut vs = BTreeSet::new();
            t.vars(&mut vs);
            for v in vs {
                if is_symbol(&v) && !vars.contains(&v) {
                    todo.push(v.clone());
                }
                vars.insert(v);
            }
        }
    }

    /// Whether symbol `sym`'s value depends on `var`.
    pub fn depends(&self, sym: &str, var: &str) -> bool {
        let mut vs = BTreeSet::from([sym.to_string()]);
        self.close(&mut vs);
        vs.contains(var)
    }

    /// The value of symbol `sym` where the other symbols take the values `at` gives.
    pub fn value(&self, sym: &str, at: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        self.get(sym)?.eval(&|v| {
            if is_symbol(v) {
                self.value(v, at)
            } else {
                at(v)
            }
        })
    }

    /// `at` extended to the symbols.
    pub fn eval_poly(
        &self,
        p: &Poly,
        at: &dyn Fn(&str) -> Option<i128>,
    ) -> Option<crate::poly::poly::Rat> {
        p.eval(&|v| {
            if is_symbol(v) {
                self.value(v, at)
            } else {
                at(v)
            }
        })
    }

    /// `c` without symbols: each replaced by its definition, the last named first (its
    /// definition may name earlier ones).
    pub fn expand(&self, c: &Cond) -> Cond {
        self.expand_if(c, &|_| true)
    }

    fn expand_if(&self, c: &Cond, pick: &dyn Fn(&str) -> bool) -> Cond {
        let mut c = c.clone();
        loop {
            let mut vs = BTreeSet::new();
            c.vars(&mut vs);
            let last = vs
                .iter()
                .filter(|v| pick(v) && self.get(v).is_some())
                .filter_map(|v| number(v))
                .max();
            let Some(i) = last else { return c };
            c = eliminate(&c, &format!("{PREFIX}{i}"), &self.trees[i]);
        }
    }
}

/// `c` with symbol `s` replaced by its definition `t`.
fn eliminate(c: &Cond, s: &str, t: &Piecewise) -> Cond {
    if atoms_monotone(c, s) {
        return map_atoms(c, &|a| match a {
            Cond::Ge(e) if e.involves(s) => through(e, s, t).ge0(),
            Cond::Eq(e) if e.involves(s) => through(e, s, t).eq0(),
            a => a.clone(),
        });
    }
    t.cases()
        .into_iter()
        .map(|(g, v)| both(g, put(c, s, &v)))
        .reduce(Cond::or)
        .unwrap_or(Cond::True)
}

/// `e >= 0`, decided when `e` is a constant.
fn ge(e: LinExpr) -> Cond {
    match e.is_constant() {
        true if e.constant >= 0 => Cond::True,
        true => Cond::True.not(),
        false => Cond::Ge(e),
    }
}

/// `a and b`, false when either is.
fn both(a: Cond, b: Cond) -> Cond {
    if a.is_false() || b.is_false() {
        Cond::True.not()
    } else {
        a.and(b)
    }
}

/// `c` with `s := v`. Comparisons that the residues in them decide are decided, and `e != 0`
/// for an `e` that cannot be negative (a remainder `x mod 4` the substitution exposes) is
/// `e >= 1`: one convex piece for isl instead of two.
fn put(c: &Cond, s: &str, v: &LinExpr) -> Cond {
    let decided = |truth: bool| if truth { Cond::True } else { Cond::True.not() };
    match c {
        Cond::Ge(e) if e.involves(s) => {
            let e = e.subst(s, v);
            match bounds(&e) {
                Some((lo, _)) if lo >= 0 => Cond::True,
                Some((_, hi)) if hi < 0 => decided(false),
                _ => Cond::Ge(e),
            }
        }
        Cond::Eq(e) if e.involves(s) => {
            let e = e.subst(s, v);
            match bounds(&e) {
                Some((0, 0)) => Cond::True,
                Some((lo, hi)) if lo > 0 || hi < 0 => decided(false),
                _ => Cond::Eq(e),
            }
        }
        Cond::Not(x) => match x.as_ref() {
            Cond::Eq(e) if e.involves(s) => {
                let e = e.subst(s, v);
                match bounds(&e) {
                    Some((lo, _)) if lo >= 0 => ge(e.add_const(-1)),
                    Some((_, hi)) if hi <= 0 => ge(e.scale(-1).add_const(-1)),
                    _ => Cond::Eq(e).not(),
                }
            }
            x => put(x, s, v).not(),
        },
        Cond::And(a, b) => both(put(a, s, v), put(b, s, v)),
        Cond::Or(a, b) => put(a, s, v).or(put(b, s, v)),
        c => c.clone(),
    }
}

/// Bounds of `e` where it is a constant plus remainders: each `c·y - c·m·floor(y/m)` in it is
/// `c·(y mod m)`, between 0 and `c·(m - 1)`. `None` when other terms are left.
fn bounds(e: &LinExpr) -> Option<(i128, i128)> {
    let mut rest = e.clone();
    let (mut lo, mut hi) = (0i128, 0i128);
    for (a, coef) in &e.terms {
        let Atom::Floor(y, m) = a else { continue };
        if coef % m != 0 {
            continue;
        }
        let c = -coef / m;
        let residue = y.sub(&LinExpr::atom(a.clone()).scale(*m)).scale(c);
        let left = rest.sub(&residue);
        // only where `c·y` was there to pair with
        if left.terms.len() < rest.terms.len() {
            rest = left;
            let span = c.checked_mul(m - 1)?;
            lo += span.min(0);
            hi += span.max(0);
        }
    }
    rest.is_constant()
        .then_some((lo + rest.constant, hi + rest.constant))
}

/// `e` with `s := t` as a tree, `e` being monotone in `s`.
fn through(e: &LinExpr, s: &str, t: &Piecewise) -> Piecewise {
    if direction(e, s) == Some(-1) {
        // e(s) = g(-s) with g increasing
        t.neg().map_monotone(&|y| e.subst(s, &y.scale(-1)))
    } else {
        t.map_monotone(&|x| e.subst(s, x))
    }
}

/// +1 when `e` does not decrease as `s` grows, -1 when it does not increase (0: `s` does not
/// occur), `None` when it does both (`s - 4·floor(s/4)`).
fn direction(e: &LinExpr, s: &str) -> Option<i8> {
    let mut d = 0i8;
    for (a, c) in &e.terms {
        let x = match a {
            Atom::Var(v) if &**v == s => 1,
            Atom::Var(_) => 0,
            Atom::Floor(inner, _) => direction(inner, s)?,
        } * c.signum() as i8;
        if x != 0 {
            if d != 0 && d != x {
                return None;
            }
            d = x;
        }
    }
    Some(d)
}

fn atoms_monotone(c: &Cond, s: &str) -> bool {
    match c {
        Cond::Ge(e) | Cond::Eq(e) => direction(e, s).is_some(),
        Cond::Not(x) => atoms_monotone(x, s),
        Cond::And(a, b) | Cond::Or(a, b) => atoms_monotone(a, s) && atoms_monotone(b, s),
        Cond::True => true,
    }
}

fn map_atoms(c: &Cond, f: &dyn Fn(&Cond) -> Cond) -> Cond {
    match c {
        Cond::Ge(_) | Cond::Eq(_) => f(c),
        Cond::Not(x) => Cond::Not(Box::new(map_atoms(x, f))),
        Cond::And(a, b) => Cond::And(Box::new(map_atoms(a, f)), Box::new(map_atoms(b, f))),
        Cond::Or(a, b) => Cond::Or(Box::new(map_atoms(a, f)), Box::new(map_atoms(b, f))),
        Cond::True => Cond::True,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(c: i128) -> LinExpr {
        LinExpr::var("x").add_const(c)
    }

    /// Expanded conditions hold exactly where the condition with the symbols' values does.
    fn agrees(c: &Cond) {
        let defs = current();
        let e = defs.expand(c);
        let mut vs = BTreeSet::new();
        e.vars(&mut vs);
        assert!(!vs.iter().any(|v| is_symbol(v)), "{e:?}");
        for xv in -9..=9 {
            for yv in -9..=9 {
                let at = |v: &str| match v {
                    "x" => Some(xv),
                    "y" => Some(yv),
                    _ => None,
                };
                let full = |v: &str| {
                    if is_symbol(v) {
                        defs.value(v, &at)
                    } else {
                        at(v)
                    }
                };
                assert_eq!(e.eval(&at), c.eval(&full), "{c:?} at x={xv} y={yv}");
            }
        }
    }

    #[test]
    fn expansion_is_exact_for_monotone_and_modular_uses() {
        scoped(|| {
            let lo = name(Piecewise::Max(vec![
                Piecewise::Leaf(LinExpr::constant(0)),
                Piecewise::Leaf(x(-2)),
            ]));
            let hi = name(Piecewise::Min(vec![
                Piecewise::Leaf(LinExpr::var("y")),
                Piecewise::Leaf(x(3)),
            ]));
            // the same tree is the same symbol
            assert_eq!(
                lo,
                name(Piecewise::Max(vec![
                    Piecewise::Leaf(LinExpr::constant(0)),
                    Piecewise::Leaf(x(-2)),
                ]))
            );
            let len = hi.sub(&lo).add_const(1);
            let rem = len.sub(&len.floor_div(4).scale(4));
            let sel = name(Piecewise::Select(
                Box::new(Cond::Ge(rem.add_const(-2))),
                Box::new(Piecewise::Leaf(lo.clone())),
                Box::new(Piecewise::Leaf(hi.scale(2))),
            ));
            // a remainder cannot be negative: `rem != 0` expands to `rem >= 1` per case
            fn disequalities(c: &Cond) -> usize {
                match c {
                    Cond::Not(x) if matches!(x.as_ref(), Cond::Eq(_)) => 1,
                    Cond::Not(x) => disequalities(x),
                    Cond::And(a, b) | Cond::Or(a, b) => disequalities(a) + disequalities(b),
                    _ => 0,
                }
            }
            assert_eq!(
                disequalities(&current().expand(&Cond::Eq(rem.clone()).not())),
                0
            );
            for c in [
                Cond::Ge(len.clone()),
                Cond::Eq(rem.clone()).not(),
                Cond::Ge(rem.add_const(-1)).and(Cond::Ge(len.add_const(-4))),
                Cond::Eq(sel.sub(&rem)).or(Cond::Ge(sel.floor_div(3))),
            ] {
                agrees(&c);
            }
        });
    }

    #[test]
    fn substitution_reaches_into_definitions() {
        scoped(|| {
            let m = name(Piecewise::Max(vec![
                Piecewise::Leaf(LinExpr::var("k")),
                Piecewise::Leaf(x(0)),
            ]));
            let shifted = subst_lin(&m.add_const(1), "k", &LinExpr::var("k").add_const(-1));
            let defs = current();
            for k in -5..5 {
                for xv in -5..5 {
                    let at = |v: &str| match v {
                        "k" => Some(k),
                        "x" => Some(xv),
                        _ => None,
                    };
                    let full = |v: &str| {
                        if is_symbol(v) {
                            defs.value(v, &at)
                        } else {
                            at(v)
                        }
                    };
                    assert_eq!(shifted.eval(&full), Some((k - 1).max(xv) + 1));
                }
            }
        });
    }
}
