//! An address polynomial compiled for evaluation at every lane of a warp walk, named values
//! (`mmN`, the min, max and select trees of [`crate::named`]) and floors included.
//!
//! [`crate::slots::Lin`] compiles affine forms only; an address with a named value or a product
//! was evaluated lane by lane through [`crate::named::Defs::eval_poly`]: every variable looked up
//! by name in a map built per point, every named value's tree walked recursively, in arbitrary
//! precision. A kernel whose unrolled loop clamps its index (`min(i, n - 1)`) spent seconds
//! there. Compiled here once per walk: each distinct atom (a variable, a floor, a named value)
//! is a step whose value goes into a scratch table, later steps read earlier ones by index, and
//! the polynomial is a sum of integer-coefficient products over that table. Arithmetic is
//! checked: where `i128` would overflow, the evaluation says so and the caller falls back to
//! the exact path. Results are those of [`crate::classify::stride::eval_addr`], exactly.

use crate::cond::Cond;
use crate::named::{self, Defs};
use crate::piecewise::Piecewise;
use crate::poly::linexpr::{Atom, LinExpr};
use crate::poly::poly::Poly;
use crate::slots::Var;
use std::collections::{BTreeMap, HashMap};

/// Most named values one program inlines (each a step per lane): past it the address stays on
/// the exact path.
const MAX_STEPS: usize = 4096;

/// `Σ c·table[i] + constant`.
#[derive(Clone, Debug)]
struct LinCode<W> {
    terms: Vec<(usize, W)>,
    constant: W,
}

/// A named value's tree over compiled leaves.
#[derive(Clone, Debug)]
enum Tree<W> {
    Leaf(LinCode<W>),
    Max(Vec<Tree<W>>),
    Min(Vec<Tree<W>>),
    Select(Box<Test<W>>, Box<Tree<W>>, Box<Tree<W>>),
}

/// A select's condition over compiled forms.
#[derive(Clone, Debug)]
enum Test<W> {
    Ge(LinCode<W>),
    Eq(LinCode<W>),
    Not(Box<Test<W>>),
    And(Box<Test<W>>, Box<Test<W>>),
    Or(Box<Test<W>>, Box<Test<W>>),
    True,
}

/// One entry of the scratch table.
#[derive(Clone, Debug)]
enum Step<W> {
    Var(Var),
    Const(W),
    /// `floor(lin / m)`, `m >= 2`.
    Floor(LinCode<W>, W),
    Named(Tree<W>),
}

/// The steps and the polynomial over them, in words of type `W`.
#[derive(Clone, Debug)]
struct Code<W> {
    steps: Vec<Step<W>>,
    /// `(coefficient, [(table index, power)])`.
    terms: Vec<(W, Vec<(usize, u32)>)>,
    constant: W,
}

/// An address compiled for a walk whose point holds `slots` (see [`crate::slots::resolver`]).
///
/// Why two copies: nearly every address and every value on the way fits in 64 bits, where a
/// checked product or a floor is one machine instruction and in 128 bits a call. The narrow
/// copy runs first; where a constant does not fit it is absent, and where a value overflows
/// the wide copy says what the address is, or that it overflows too.
#[derive(Clone, Debug)]
pub struct AddrProgram {
    wide: Code<i128>,
    narrow: Option<Code<i64>>,
}

/// Scratch space of [`AddrProgram::eval`], reused between calls.
#[derive(Default)]
pub struct Scratch {
    wide: Vec<i128>,
    narrow: Vec<i64>,
}

/// The value of a variable neither in the point nor the thread index, as
/// [`crate::classify::stride::eval_addr`] gives it: a shared-array symbol and an unset
/// parameter at 0, the rest from the workload.
pub(crate) fn outside(env: &BTreeMap<String, i128>, v: &str) -> Option<i128> {
    if v.starts_with("sym_") {
        return Some(0);
    }
    env.get(v)
        .copied()
        .or_else(|| crate::affine::symbols::is_param_symbol(v).then_some(0))
}

struct Compiler<'a> {
    defs: &'a Defs,
    slots: &'a [String],
    env: &'a BTreeMap<String, i128>,
    steps: Vec<Step<i128>>,
    /// Table index of each atom already compiled (a named value used twice is evaluated once).
    index: HashMap<Atom, usize>,
}

impl Compiler<'_> {
    fn push(&mut self, s: Step<i128>) -> Option<usize> {
        if self.steps.len() >= MAX_STEPS {
            return None;
        }
        self.steps.push(s);
        Some(self.steps.len() - 1)
    }

    fn var(&mut self, v: &str) -> Option<usize> {
        let step = match crate::slots::resolver(self.slots)(v) {
            Some(var) => Step::Var(var),
            None if named::is_symbol(v) => Step::Named(self.tree(self.defs.get(v)?)?),
            None => Step::Const(outside(self.env, v)?),
        };
        self.push(step)
    }

    fn atom(&mut self, a: &Atom) -> Option<usize> {
        if let Some(&i) = self.index.get(a) {
            return Some(i);
        }
        let i = match a {
            Atom::Var(v) => self.var(v)?,
            Atom::Floor(e, m) => {
                let lin = self.lin(e)?;
                self.push(Step::Floor(lin, *m))?
            }
        };
        self.index.insert(a.clone(), i);
        Some(i)
    }

    fn lin(&mut self, e: &LinExpr) -> Option<LinCode<i128>> {
        let mut terms = Vec::with_capacity(e.terms.len());
        for (a, c) in &e.terms {
            terms.push((self.atom(a)?, *c));
        }
        Some(LinCode {
            terms,
            constant: e.constant,
        })
    }

    fn tree(&mut self, p: &Piecewise) -> Option<Tree<i128>> {
        Some(match p {
            Piecewise::Leaf(e) => Tree::Leaf(self.lin(e)?),
            Piecewise::Max(v) => Tree::Max(v.iter().map(|t| self.tree(t)).collect::<Option<_>>()?),
            Piecewise::Min(v) => Tree::Min(v.iter().map(|t| self.tree(t)).collect::<Option<_>>()?),
            Piecewise::Select(c, a, b) => Tree::Select(
                Box::new(self.test(c)?),
                Box::new(self.tree(a)?),
                Box::new(self.tree(b)?),
            ),
        })
    }

    fn test(&mut self, c: &Cond) -> Option<Test<i128>> {
        Some(match c {
            Cond::Ge(e) => Test::Ge(self.lin(e)?),
            Cond::Eq(e) => Test::Eq(self.lin(e)?),
            Cond::Not(c) => Test::Not(Box::new(self.test(c)?)),
            Cond::And(a, b) => Test::And(Box::new(self.test(a)?), Box::new(self.test(b)?)),
            Cond::Or(a, b) => Test::Or(Box::new(self.test(a)?), Box::new(self.test(b)?)),
            Cond::True => Test::True,
        })
    }
}

impl AddrProgram {
    /// `addr` compiled; `None` where a coefficient is not an integer, a variable has no value,
    /// or the program would be too long.
    pub fn compile(
        addr: &Poly,
        defs: &Defs,
        slots: &[String],
        env: &BTreeMap<String, i128>,
    ) -> Option<AddrProgram> {
        let mut c = Compiler {
            defs,
            slots,
            env,
            steps: Vec::new(),
            index: HashMap::new(),
        };
        let mut terms = Vec::with_capacity(addr.terms.len());
        let mut constant = 0i128;
        for (mono, coef) in &addr.terms {
            if !coef.is_integer() {
                return None;
            }
            let k = i128::try_from(coef.to_integer()).ok()?;
            if mono.is_empty() {
                constant = constant.checked_add(k)?;
                continue;
            }
            let mut factors = Vec::with_capacity(mono.len());
            for (a, pow) in mono {
                factors.push((c.atom(a)?, *pow));
            }
            terms.push((k, factors));
        }
        let wide = Code {
            steps: c.steps,
            terms,
            constant,
        };
        let narrow = wide.narrowed();
        Some(AddrProgram { wide, narrow })
    }

    /// The address at `point` for thread `tid`; `None` where `i128` overflows.
    pub fn eval(&self, point: &[i128], tid: [u64; 3], scratch: &mut Scratch) -> Option<i128> {
        let narrow = self
            .narrow
            .as_ref()
            .and_then(|code| code.eval(point, tid, &mut scratch.narrow));
        match narrow {
            Some(v) => Some(i128::from(v)),
            None => self.wide.eval(point, tid, &mut scratch.wide),
        }
    }
}

/// The integer arithmetic a program runs in: checked, `None` on overflow.
trait Word: Copy + Ord + std::fmt::Debug {
    const MIN: Self;
    const MAX: Self;
    const ZERO: Self;
    fn from_i128(v: i128) -> Option<Self>;
    fn add(self, o: Self) -> Option<Self>;
    fn mul(self, o: Self) -> Option<Self>;
    fn pow(self, e: u32) -> Option<Self>;
    /// `floor(self / m)`, `m >= 2`.
    fn floor_div(self, m: Self) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const ZERO: Self = 0;
            fn from_i128(v: i128) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            fn add(self, o: Self) -> Option<Self> {
                self.checked_add(o)
            }
            fn mul(self, o: Self) -> Option<Self> {
                self.checked_mul(o)
            }
            fn pow(self, e: u32) -> Option<Self> {
                self.checked_pow(e)
            }
            fn floor_div(self, m: Self) -> Self {
                self.div_euclid(m)
            }
        }
    };
}
word!(i64);
word!(i128);

impl Code<i128> {
    /// The same code in 64-bit words, where every constant fits in one.
    fn narrowed(&self) -> Option<Code<i64>> {
        Some(Code {
            steps: self
                .steps
                .iter()
                .map(|s| {
                    Some(match s {
                        Step::Var(v) => Step::Var(*v),
                        Step::Const(c) => Step::Const(i64::from_i128(*c)?),
                        Step::Floor(l, m) => Step::Floor(narrow_lin(l)?, i64::from_i128(*m)?),
                        Step::Named(t) => Step::Named(narrow_tree(t)?),
                    })
                })
                .collect::<Option<_>>()?,
            terms: self
                .terms
                .iter()
                .map(|(c, f)| Some((i64::from_i128(*c)?, f.clone())))
                .collect::<Option<_>>()?,
            constant: i64::from_i128(self.constant)?,
        })
    }
}

fn narrow_lin(l: &LinCode<i128>) -> Option<LinCode<i64>> {
    Some(LinCode {
        terms: l
            .terms
            .iter()
            .map(|(i, c)| Some((*i, i64::from_i128(*c)?)))
            .collect::<Option<_>>()?,
        constant: i64::from_i128(l.constant)?,
    })
}

fn narrow_tree(t: &Tree<i128>) -> Option<Tree<i64>> {
    let all = |v: &[Tree<i128>]| v.iter().map(narrow_tree).collect::<Option<Vec<_>>>();
    Some(match t {
        Tree::Leaf(l) => Tree::Leaf(narrow_lin(l)?),
        Tree::Max(v) => Tree::Max(all(v)?),
        Tree::Min(v) => Tree::Min(all(v)?),
        Tree::Select(c, a, b) => Tree::Select(
            Box::new(narrow_test(c)?),
            Box::new(narrow_tree(a)?),
            Box::new(narrow_tree(b)?),
        ),
    })
}

fn narrow_test(t: &Test<i128>) -> Option<Test<i64>> {
    Some(match t {
        Test::Ge(l) => Test::Ge(narrow_lin(l)?),
        Test::Eq(l) => Test::Eq(narrow_lin(l)?),
        Test::Not(c) => Test::Not(Box::new(narrow_test(c)?)),
        Test::And(a, b) => Test::And(Box::new(narrow_test(a)?), Box::new(narrow_test(b)?)),
        Test::Or(a, b) => Test::Or(Box::new(narrow_test(a)?), Box::new(narrow_test(b)?)),
        Test::True => Test::True,
    })
}

impl<W: Word> Code<W> {
    fn eval(&self, point: &[i128], tid: [u64; 3], table: &mut Vec<W>) -> Option<W> {
        table.clear();
        for s in &self.steps {
            let v = match s {
                Step::Var(Var::Slot(i)) => W::from_i128(*point.get(*i)?)?,
                Step::Var(Var::Tid(d)) => W::from_i128(i128::from(tid[*d]))?,
                Step::Const(c) => *c,
                Step::Floor(l, m) => lin(l, table)?.floor_div(*m),
                Step::Named(t) => tree(t, table)?,
            };
            table.push(v);
        }
        let mut acc = self.constant;
        for (c, factors) in &self.terms {
            let mut t = *c;
            for (i, pow) in factors {
                t = t.mul(table[*i].pow(*pow)?)?;
            }
            acc = acc.add(t)?;
        }
        Some(acc)
    }
}

fn lin<W: Word>(l: &LinCode<W>, table: &[W]) -> Option<W> {
    let mut v = l.constant;
    for (i, c) in &l.terms {
        v = v.add(c.mul(table[*i])?)?;
    }
    Some(v)
}

fn tree<W: Word>(t: &Tree<W>, table: &[W]) -> Option<W> {
    match t {
        Tree::Leaf(l) => lin(l, table),
        Tree::Max(v) => v
            .iter()
            .try_fold(W::MIN, |m, t| Some(m.max(tree(t, table)?))),
        Tree::Min(v) => v
            .iter()
            .try_fold(W::MAX, |m, t| Some(m.min(tree(t, table)?))),
        Tree::Select(c, a, b) => match test(c, table)? {
            true => tree(a, table),
            false => tree(b, table),
        },
    }
}

fn test<W: Word>(t: &Test<W>, table: &[W]) -> Option<bool> {
    Some(match t {
        Test::Ge(l) => lin(l, table)? >= W::ZERO,
        Test::Eq(l) => lin(l, table)? == W::ZERO,
        Test::Not(c) => !test(c, table)?,
        Test::And(a, b) => test(a, table)? && test(b, table)?,
        Test::Or(a, b) => test(a, table)? || test(b, table)?,
        Test::True => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::poly::rat;

    fn lin_of(terms: &[(&str, i128)], constant: i128) -> LinExpr {
        let mut e = LinExpr::constant(constant);
        for (v, c) in terms {
            e = e.add(&LinExpr::var(v).scale(*c));
        }
        e
    }

    /// `3·floor((tid_x + k0)/4)·n + min(tid_x, k0)² + 7` with `n` from the workload, at every
    /// lane of a few points, equals the exact evaluation.
    #[test]
    fn a_program_evaluates_as_the_named_polynomial_does() {
        named::scoped(|| {
            let clamp = named::name(Piecewise::Min(vec![
                Piecewise::Leaf(lin_of(&[("tid_x", 1)], 0)),
                Piecewise::Leaf(lin_of(&[("k0", 1)], 0)),
            ]));
            let defs = named::current();
            let (sym, _) = clamp.terms.iter().next().expect("a named value");
            let floor = Atom::Floor(
                std::sync::Arc::new(lin_of(&[("tid_x", 1), ("k0", 1)], 0)),
                4,
            );
            let mut addr = Poly::default();
            addr.terms
                .insert(vec![(floor, 1), (Atom::Var("n".into()), 1)], rat(3));
            addr.terms.insert(vec![(sym.clone(), 2)], rat(1));
            addr.terms.insert(vec![], rat(7));
            let env: BTreeMap<String, i128> = [("n".to_string(), 100)].into();
            let slots = vec!["ctaid_x".to_string(), "k0".to_string()];
            let p = AddrProgram::compile(&addr, &defs, &slots, &env).unwrap();
            let mut table = Scratch::default();
            for k0 in [0i128, 3, 17] {
                for t in 0..32u64 {
                    let at = |v: &str| match v {
                        "tid_x" => Some(t as i128),
                        "k0" => Some(k0),
                        v => env.get(v).copied(),
                    };
                    let exact = defs.eval_poly(&addr, &at).unwrap();
                    let fast = p.eval(&[0, k0], [t, 0, 0], &mut table).unwrap();
                    assert_eq!(rat(fast), exact, "k0 {k0}, lane {t}");
                }
            }
        })
    }

    #[test]
    fn overflow_is_reported_not_wrapped() {
        let defs = Defs::default();
        let mut addr = Poly::default();
        addr.terms
            .insert(vec![(Atom::Var("tid_x".into()), 3)], rat(i128::MAX / 2));
        let env = BTreeMap::new();
        let p = AddrProgram::compile(&addr, &defs, &[], &env).unwrap();
        assert_eq!(
            p.eval(&[], [1, 0, 0], &mut Scratch::default()),
            Some(i128::MAX / 2)
        );
        assert_eq!(p.eval(&[], [2, 0, 0], &mut Scratch::default()), None);
    }

    /// A value past 64 bits on the way (`2^62·tid_x³` at lane 2) is the 128-bit answer, not
    /// an overflow of the 64-bit copy; a constant past 64 bits leaves only the wide copy.
    #[test]
    fn past_64_bits_the_wide_copy_answers() {
        let defs = Defs::default();
        let env = BTreeMap::new();
        let cube = |c: i128| {
            let mut addr = Poly::default();
            addr.terms
                .insert(vec![(Atom::Var("tid_x".into()), 3)], rat(c));
            AddrProgram::compile(&addr, &defs, &[], &env).unwrap()
        };
        let p = cube(1 << 62);
        assert!(p.narrow.is_some());
        let mut scratch = Scratch::default();
        assert_eq!(p.eval(&[], [1, 0, 0], &mut scratch), Some(1 << 62));
        assert_eq!(p.eval(&[], [2, 0, 0], &mut scratch), Some(1 << 65));
        let q = cube(1 << 70);
        assert!(q.narrow.is_none());
        assert_eq!(q.eval(&[], [1, 0, 0], &mut scratch), Some(1 << 70));
    }
}
