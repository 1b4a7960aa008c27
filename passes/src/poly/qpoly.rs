//! Piecewise quasi-polynomials: `Σ [guardᵢ] · polyᵢ` where a guard is a conjunction of
//! quasi-affine constraints over the parameters. The counter produces disjoint pieces, so
//! evaluation picks at most one; the algebra (add, mul, substitution) is valid without
//! disjointness because the value is defined as the sum over every piece whose guard holds.

use super::constraint::Constraint;
use super::linexpr::LinExpr;
use super::poly::{rat_to_f64, Poly, Rat};
use num_traits::{One, Zero};
use rustc_hash::FxHashMap as HashMap;
use serde::{Serialize, Serializer};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

/// A conjunction of constraints (empty = always true).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Guard {
    pub constraints: Vec<Constraint>,
}

impl Guard {
    pub fn always() -> Guard {
        Guard::default()
    }

    pub fn and(&self, o: &Guard) -> Guard {
        let mut c: BTreeSet<Constraint> = self.constraints.iter().cloned().collect();
        c.extend(o.constraints.iter().cloned());
        Guard {
            constraints: c.into_iter().collect(),
        }
    }

    pub fn holds(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<bool> {
        for c in &self.constraints {
            if !c.holds(env)? {
                return Some(false);
            }
        }
        Some(true)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Piece {
    pub guard: Guard,
    pub poly: Poly,
}

/// A piecewise quasi-polynomial in named parameters: flat pieces `Σ [guard]·poly`, plus products
/// of such flat factors kept unexpanded. The count of a domain that is a product of independent
/// parts (the rows and columns of a boundary-checked 2-D stencil) is the product of their counts;
/// expanded, 42- and 32-piece factors become 1344 pieces, every one of them copied, added and
/// evaluated.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QPoly {
    /// Shared between clones: counts are cloned into every record that refers to them.
    pub pieces: Arc<Vec<Piece>>,
    /// `Σ coeff · Π factors`, each factor flat (no products of its own).
    pub products: Arc<Vec<Product>>,
}

/// `coeff · Π factors`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Product {
    pub coeff: Rat,
    /// Flat factors, sorted (so that equal products compare equal).
    pub factors: Vec<QPoly>,
}

/// Products of flat pieces up to this many pieces are expanded (readable, and as cheap).
const EXPAND_UP_TO: usize = 16;

/// A sum of quasi-polynomials built up term by term, pieces with equal guards (and products
/// with equal factors) merged through indexes kept between additions (adding to a plain `QPoly`
/// copies it, quadratic over the hundreds of additions that build a kernel's feature counts).
#[derive(Clone, Debug, Default)]
pub struct QPolySum {
    pieces: Vec<Piece>,
    index: HashMap<Guard, usize>,
    products: Vec<Product>,
    product_index: HashMap<Vec<QPoly>, usize>,
}

impl QPolySum {
    /// Add `k · q`.
    pub fn add_scaled(&mut self, q: &QPoly, k: &Rat) {
        let unit = k.is_one();
        for p in q.pieces.iter() {
            let poly = if unit {
                p.poly.clone()
            } else {
                p.poly.scale(k)
            };
            match self.index.get(&p.guard) {
                Some(&i) => self.pieces[i].poly = self.pieces[i].poly.add(&poly),
                None => {
                    self.index.insert(p.guard.clone(), self.pieces.len());
                    self.pieces.push(Piece {
                        guard: p.guard.clone(),
                        poly,
                    });
                }
            }
        }
        for pr in q.products.iter() {
            let coeff = if unit {
                pr.coeff.clone()
            } else {
                &pr.coeff * k
            };
            match self.product_index.get(&pr.factors) {
                Some(&i) => self.products[i].coeff += coeff,
                None => {
                    self.product_index
                        .insert(pr.factors.clone(), self.products.len());
                    self.products.push(Product {
                        coeff,
                        factors: pr.factors.clone(),
                    });
                }
            }
        }
    }

    pub fn finish(mut self) -> QPoly {
        self.pieces.retain(|p| !p.poly.is_zero());
        self.products.retain(|p| !p.coeff.is_zero());
        QPoly {
            pieces: Arc::new(self.pieces),
            products: Arc::new(self.products),
        }
    }
}

impl QPoly {
    pub fn zero() -> QPoly {
        QPoly::default()
    }

    pub fn from_poly(p: Poly) -> QPoly {
        QPoly::guarded(Guard::always(), p)
    }

    pub fn constant(c: i128) -> QPoly {
        QPoly::from_poly(Poly::constant(super::poly::rat(c)))
    }

    pub fn guarded(guard: Guard, poly: Poly) -> QPoly {
        let mut q = QPoly::zero();
        q.push(guard, poly);
        q
    }

    pub fn is_zero(&self) -> bool {
        self.pieces.is_empty() && self.products.is_empty()
    }

    /// Whether it is flat pieces only.
    pub fn is_flat(&self) -> bool {
        self.products.is_empty()
    }

    /// Add a piece, merging with an identical guard.
    pub fn push(&mut self, guard: Guard, poly: Poly) {
        if poly.is_zero() {
            return;
        }
        let pieces = Arc::make_mut(&mut self.pieces);
        if let Some(i) = pieces.iter().position(|p| p.guard == guard) {
            let s = pieces[i].poly.add(&poly);
            if s.is_zero() {
                pieces.remove(i);
            } else {
                pieces[i].poly = s;
            }
        } else {
            pieces.push(Piece { guard, poly });
        }
    }

    /// The pieces whose guards can hold within `context`, each guard without the constraints
    /// the rest of it and the context imply (both shown by [`super::fm`]; what it cannot show
    /// stays). Pieces left with equal guards are merged.
    pub fn pruned(&self, context: &[Constraint]) -> QPoly {
        self.pruned_with(context, true)
    }

    /// The pieces whose guards can hold within `context` (as far as [`super::fm`] shows),
    /// guards unchanged: the cheap half of [`QPoly::pruned`].
    pub fn feasible(&self, context: &[Constraint]) -> QPoly {
        self.pruned_with(context, false)
    }

    fn pruned_with(&self, context: &[Constraint], simplify: bool) -> QPoly {
        let mut out = QPoly {
            pieces: Arc::default(),
            products: self.products.clone(),
        };
        for p in self.pieces.iter() {
            let mut kept: Vec<Constraint> = p.guard.constraints.clone();
            let all: Vec<Constraint> = context.iter().chain(&kept).cloned().collect();
            if super::fm::infeasible(&all) {
                continue;
            }
            if !simplify {
                out.push(p.guard.clone(), p.poly.clone());
                continue;
            }
            let mut i = 0;
            while i < kept.len() {
                let c = &kept[i];
                if c.eq {
                    i += 1;
                    continue;
                }
                let violated = Constraint {
                    expr: c.expr.scale(-1).add_const(-1),
                    eq: false,
                };
                let others = context
                    .iter()
                    .chain(kept[..i].iter())
                    .chain(kept[i + 1..].iter())
                    .cloned()
                    .chain([violated])
                    .collect::<Vec<_>>();
                if super::fm::infeasible(&others) {
                    kept.remove(i);
                } else {
                    i += 1;
                }
            }
            out.push(Guard { constraints: kept }, p.poly.clone());
        }
        out
    }

    /// The sum, pieces with equal guards and products with equal factors merged.
    pub fn add(&self, o: &QPoly) -> QPoly {
        if o.is_zero() {
            return self.clone();
        }
        if self.is_zero() {
            return o.clone();
        }
        let mut s = QPolySum::default();
        s.add_scaled(self, &super::poly::rat(1));
        s.add_scaled(o, &super::poly::rat(1));
        s.finish()
    }

    pub fn scale(&self, k: &Rat) -> QPoly {
        if k.is_zero() {
            return QPoly::zero();
        }
        let mut r = self.clone();
        for p in Arc::make_mut(&mut r.pieces).iter_mut() {
            p.poly = p.poly.scale(k);
        }
        for p in Arc::make_mut(&mut r.products).iter_mut() {
            p.coeff *= k;
        }
        r
    }

    /// The product. Flat factors whose expansion stays small are expanded; larger ones are
    /// kept as a [`Product`].
    pub fn mul(&self, o: &QPoly) -> QPoly {
        if self.is_zero() || o.is_zero() {
            return QPoly::zero();
        }
        let mut acc = QPolySum::default();
        let one = super::poly::rat(1);
        let (fa, fb) = (self.flat_part(), o.flat_part());
        if !fa.is_zero() && !fb.is_zero() {
            acc.add_scaled(&flat_product(&fa, &fb), &one);
        }
        for pb in o.products.iter() {
            if !fa.is_zero() {
                acc.add_scaled(&product_times_flat(pb, &fa), &one);
            }
        }
        for pa in self.products.iter() {
            if !fb.is_zero() {
                acc.add_scaled(&product_times_flat(pa, &fb), &one);
            }
            for pb in o.products.iter() {
                let mut factors = pa.factors.clone();
                factors.extend(pb.factors.iter().cloned());
                factors.sort();
                acc.add_scaled(
                    &QPoly {
                        pieces: Arc::default(),
                        products: Arc::new(vec![Product {
                            coeff: &pa.coeff * &pb.coeff,
                            factors,
                        }]),
                    },
                    &one,
                );
            }
        }
        acc.finish()
    }

    fn flat_part(&self) -> QPoly {
        QPoly {
            pieces: self.pieces.clone(),
            products: Arc::default(),
        }
    }

    /// The flat pieces of the product of flat factors (the expansion, however large).
    pub fn expand(&self) -> QPoly {
        let mut r = self.flat_part();
        for p in self.products.iter() {
            let mut e = QPoly::constant(1);
            for f in &p.factors {
                e = flat_product_expanded(&e, f);
            }
            r = r.add(&e.scale(&p.coeff));
        }
        r
    }

    pub fn mul_poly(&self, p: &Poly) -> QPoly {
        self.mul(&QPoly::from_poly(p.clone()))
    }

    /// Substitute a quasi-affine expression for a parameter, e.g. `nctaid_x := floor((n + 15)/16)`.
    pub fn subst(&self, name: &str, e: &LinExpr) -> QPoly {
        let mut r = QPoly::zero();
        for p in self.pieces.iter() {
            let guard = Guard {
                constraints: p
                    .guard
                    .constraints
                    .iter()
                    .map(|c| Constraint {
                        expr: c.expr.subst(name, e),
                        eq: c.eq,
                    })
                    .collect(),
            };
            r.push(guard, p.poly.subst(name, e));
        }
        for pr in self.products.iter() {
            let mut factors: Vec<QPoly> = pr.factors.iter().map(|f| f.subst(name, e)).collect();
            factors.sort();
            r = r.add(&QPoly {
                pieces: Arc::default(),
                products: Arc::new(vec![Product {
                    coeff: pr.coeff.clone(),
                    factors,
                }]),
            });
        }
        r
    }

    /// Exact value at integer parameter values; `None` when a parameter has no value.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<Rat> {
        let mut acc = Rat::zero();
        for p in self.pieces.iter() {
            if p.guard.holds(env)? {
                acc += p.poly.eval(env)?;
            }
        }
        for pr in self.products.iter() {
            let mut v = pr.coeff.clone();
            for f in &pr.factors {
                v *= f.eval(env)?;
            }
            acc += v;
        }
        Some(acc)
    }

    /// Exact value with parameters from a map.
    pub fn eval_map(&self, vals: &BTreeMap<String, i128>) -> Option<Rat> {
        self.eval(&|v| vals.get(v).copied())
    }

    pub fn eval_f64(&self, vals: &BTreeMap<String, i128>) -> Option<f64> {
        self.eval_map(vals).map(|r| rat_to_f64(&r))
    }

    /// Every parameter name that occurs.
    pub fn params(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for p in self.pieces.iter() {
            p.poly.vars(&mut out);
            for c in &p.guard.constraints {
                c.expr.vars(&mut out);
            }
        }
        for pr in self.products.iter() {
            for f in &pr.factors {
                out.extend(f.params());
            }
        }
        out
    }

    /// Highest total degree over the pieces and products.
    pub fn degree(&self) -> u32 {
        let flat = self.pieces.iter().map(|p| p.poly.degree()).max();
        let products = self
            .products
            .iter()
            .map(|p| p.factors.iter().map(QPoly::degree).sum());
        flat.into_iter().chain(products).max().unwrap_or(0)
    }
}

/// The product of two flat quasi-polynomials: expanded when that stays small (or one side is
/// a single piece), else kept as a product.
fn flat_product(a: &QPoly, b: &QPoly) -> QPoly {
    if a.pieces.len() <= 1 || b.pieces.len() <= 1 || a.pieces.len() * b.pieces.len() <= EXPAND_UP_TO
    {
        return flat_product_expanded(a, b);
    }
    let mut factors = vec![a.clone(), b.clone()];
    factors.sort();
    QPoly {
        pieces: Arc::default(),
        products: Arc::new(vec![Product {
            coeff: super::poly::rat(1),
            factors,
        }]),
    }
}

fn flat_product_expanded(a: &QPoly, b: &QPoly) -> QPoly {
    let mut r = QPolySum::default();
    let one = super::poly::rat(1);
    for pa in a.pieces.iter() {
        for pb in b.pieces.iter() {
            let piece = QPoly {
                pieces: Arc::new(vec![Piece {
                    guard: pa.guard.and(&pb.guard),
                    poly: pa.poly.mul(&pb.poly),
                }]),
                products: Arc::default(),
            };
            r.add_scaled(&piece, &one);
        }
    }
    r.finish()
}

/// `p · f` for a flat `f`: a single piece folds into the smallest factor, anything larger joins
/// the factors.
fn product_times_flat(p: &Product, f: &QPoly) -> QPoly {
    let mut factors = p.factors.clone();
    let smallest = (0..factors.len()).min_by_key(|&i| factors[i].pieces.len());
    match smallest {
        Some(k) if f.pieces.len() == 1 => factors[k] = flat_product_expanded(&factors[k], f),
        // no factors is the empty product, 1: then 1 · f is f alone
        _ => factors.push(f.clone()),
    }
    factors.sort();
    QPoly {
        pieces: Arc::default(),
        products: Arc::new(vec![Product {
            coeff: p.coeff.clone(),
            factors,
        }]),
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.constraints.is_empty() {
            return f.write_str("true");
        }
        for (i, c) in self.constraints.iter().enumerate() {
            if i > 0 {
                f.write_str(" and ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// `0`, `n^2`, or `n^2 if n >= 1; 0 otherwise`-style pieces joined by `; `, then products as
/// `c * (factor) * (factor)`.
impl fmt::Display for QPoly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let mut first = true;
        for p in self.pieces.iter() {
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            if p.guard.constraints.is_empty() {
                write!(f, "{}", p.poly)?;
            } else {
                write!(f, "{} if {}", p.poly, p.guard)?;
            }
        }
        for p in self.products.iter() {
            if !first {
                f.write_str("; ")?;
            }
            first = false;
            if p.coeff != super::poly::rat(1) {
                write!(f, "{} * ", p.coeff)?;
            }
            for (i, x) in p.factors.iter().enumerate() {
                if i > 0 {
                    f.write_str(" * ")?;
                }
                write!(f, "({x})")?;
            }
        }
        Ok(())
    }
}

impl Serialize for QPoly {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::poly::rat;

    /// `Σ_{k<pieces} [v = k]·(k + 1)·v + [v >= pieces]·v²`: a flat factor of `pieces + 1` pieces.
    fn factor(v: &str, pieces: i128) -> QPoly {
        let x = LinExpr::var(v);
        let mut q = QPoly::zero();
        for k in 0..pieces {
            let g = Guard {
                constraints: vec![Constraint {
                    expr: x.add_const(-k),
                    eq: true,
                }],
            };
            q.push(g, Poly::var(v).scale(&rat(k + 1)));
        }
        let g = Guard {
            constraints: vec![Constraint {
                expr: x.add_const(-pieces),
                eq: false,
            }],
        };
        q.push(g, Poly::var(v).mul(&Poly::var(v)));
        q
    }

    #[test]
    fn large_products_stay_unexpanded_and_equal_their_expansion() {
        let (a, b) = (factor("n", 4), factor("m", 3));
        let q = a.mul(&b);
        assert_eq!((q.pieces.len(), q.products.len()), (0, 1), "{q}");
        // a small product is expanded
        assert!(factor("n", 1).mul(&factor("m", 1)).is_flat());
        let sum = q.add(&q).add(&QPoly::constant(7));
        assert_eq!(sum.products[0].coeff, rat(2));
        let sub = q.subst("m", &LinExpr::var("n").add_const(-1));
        let names = ["n", "m"];
        let compiled = crate::poly::Compiled::new(&sum, &names).unwrap();
        let mut regs = Vec::new();
        for n in -2..9i128 {
            for m in -2..7i128 {
                let env = |v: &str| match v {
                    "n" => Some(n),
                    "m" => Some(m),
                    _ => None,
                };
                let want = a.eval(&env).unwrap() * b.eval(&env).unwrap();
                assert_eq!(q.eval(&env).unwrap(), want, "n={n} m={m}");
                assert_eq!(q.expand().eval(&env).unwrap(), want);
                let s = sum.eval(&env).unwrap();
                assert_eq!(s, &want * rat(2) + rat(7));
                assert_eq!(
                    compiled.eval(&[n as i64, m as i64], &mut regs),
                    rat_to_f64(&s)
                );
                let at_n1 = |v: &str| match v {
                    "n" => Some(n),
                    "m" => Some(n - 1),
                    _ => None,
                };
                assert_eq!(sub.eval(&env).unwrap(), q.eval(&at_n1).unwrap());
            }
        }
        assert!(q.to_string().contains(") * ("), "{q}");
    }

    #[test]
    fn substitution_of_launch_sizes() {
        // threads = nctaid * 16 with nctaid := ceil(n/16)
        let q = QPoly::from_poly(Poly::var("nctaid").scale(&rat(16)));
        let b = q.subst("nctaid", &LinExpr::var("n").ceil_div(16));
        assert_eq!(b.to_string(), "16*floor((n + 15)/16)");
        let mut m = BTreeMap::new();
        m.insert("n".to_string(), 100);
        assert_eq!(b.eval_map(&m), Some(rat(112)));
    }

    #[test]
    fn guards_select_pieces() {
        let g = Guard {
            constraints: vec![Constraint {
                expr: LinExpr::var("n").add_const(-1),
                eq: false,
            }],
        };
        let q = QPoly::guarded(g, Poly::var("n").mul(&Poly::var("n")));
        assert_eq!(q.to_string(), "n^2 if n >= 1");
        let e = |n: i128| q.eval(&move |_| Some(n)).unwrap();
        assert_eq!(e(5), rat(25));
        assert_eq!(e(0), rat(0));
    }
}
