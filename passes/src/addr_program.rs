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
struct LinCode {
    terms: Vec<(usize, i128)>,
    constant: i128,
}

/// A named value's tree over compiled leaves.
#[derive(Clone, Debug)]
enum Tree {
    Leaf(LinCode),
    Max(Vec<Tree>),
    Min(Vec<Tree>),
    Select(Box<Test>, Box<Tree>, Box<Tree>),
}

/// A select's condition over compiled forms.
#[derive(Clone, Debug)]
enum Test {
    Ge(LinCode),
    Eq(LinCode),
    Not(Box<Test>),
    And(Box<Test>, Box<Test>),
    Or(Box<Test>, Box<Test>),
    True,
}

/// One entry of the scratch table.
#[derive(Clone, Debug)]
enum Step {
    Var(Var),
    Const(i128),
    /// `floor(lin / m)`, `m >= 2`.
    Floor(LinCode, i128),
    Named(Tree),
}

/// An address compiled for a walk whose point holds `slots` (see [`crate::slots::resolver`]).
#[derive(Clone, Debug)]
pub struct AddrProgram {
    steps: Vec<Step>,
    /// `(coefficient, [(table index, power)])`.
    terms: Vec<(i128, Vec<(usize, u32)>)>,
    constant: i128,
}

/// The value of a variable neither in the point nor the thread index, as
/// [`crate::classify::stride::eval_addr`] gives it: a shared-array symbol and an unset
/// parameter at 0, the rest from the workload.
fn outside(env: &BTreeMap<String, i128>, v: &str) -> Option<i128> {
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
    steps: Vec<Step>,
    /// Table index of each atom already compiled (a named value used twice is evaluated once).
    index: HashMap<Atom, usize>,
}

impl Compiler<'_> {
    fn push(&mut self, s: Step) -> Option<usize> {
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

    fn lin(&mut self, e: &LinExpr) -> Option<LinCode> {
        let mut terms = Vec::with_capacity(e.terms.len());
        for (a, c) in &e.terms {
            terms.push((self.atom(a)?, *c));
        }
        Some(LinCode {
            terms,
            constant: e.constant,
        })
    }

    fn tree(&mut self, p: &Piecewise) -> Option<Tree> {
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

    fn test(&mut self, c: &Cond) -> Option<Test> {
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
        Some(AddrProgram {
            steps: c.steps,
            terms,
            constant,
        })
    }

    /// The address at `point` for thread `tid`; `None` where `i128` overflows. `table` is
    /// scratch space, reused between calls.
    pub fn eval(&self, point: &[i128], tid: [u64; 3], table: &mut Vec<i128>) -> Option<i128> {
        table.clear();
        for s in &self.steps {
            let v = match s {
                Step::Var(Var::Slot(i)) => *point.get(*i)?,
                Step::Var(Var::Tid(d)) => tid[*d] as i128,
                Step::Const(c) => *c,
                Step::Floor(l, m) => lin(l, table)?.div_euclid(*m),
                Step::Named(t) => tree(t, table)?,
            };
            table.push(v);
        }
        let mut acc = self.constant;
        for (c, factors) in &self.terms {
            let mut t = *c;
            for (i, pow) in factors {
                t = t.checked_mul(table[*i].checked_pow(*pow)?)?;
            }
            acc = acc.checked_add(t)?;
        }
        Some(acc)
    }
}

fn lin(l: &LinCode, table: &[i128]) -> Option<i128> {
    let mut v = l.constant;
    for (i, c) in &l.terms {
        v = v.checked_add(c.checked_mul(table[*i])?)?;
    }
    Some(v)
}

fn tree(t: &Tree, table: &[i128]) -> Option<i128> {
    match t {
        Tree::Leaf(l) => lin(l, table),
        Tree::Max(v) => v
            .iter()
            .try_fold(i128::MIN, |m, t| Some(m.max(tree(t, table)?))),
        Tree::Min(v) => v
            .iter()
            .try_fold(i128::MAX, |m, t| Some(m.min(tree(t, table)?))),
        Tree::Select(c, a, b) => match test(c, table)? {
            true => tree(a, table),
            false => tree(b, table),
        },
    }
}

fn test(t: &Test, table: &[i128]) -> Option<bool> {
    Some(match t {
        Test::Ge(l) => lin(l, table)? >= 0,
        Test::Eq(l) => lin(l, table)? == 0,
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
            let mut table = Vec::new();
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
        assert_eq!(p.eval(&[], [1, 0, 0], &mut Vec::new()), Some(i128::MAX / 2));
        assert_eq!(p.eval(&[], [2, 0, 0], &mut Vec::new()), None);
    }
}
