//! Model C: candidates built from the physical models (B, the roofline; B2, kerncast-models' Wang &
//! Chu model), nearest-neighbour models over static features and the code-agnostic baseline,
//! blended in log space. The candidate is chosen by leave-one-family-out cross-validation on the
//! micro-benchmarks only (a family is a generator of micro-benchmarks, e.g. all `fadd_l2d_*`),
//! which mimics predicting code unlike anything in training. The test applications play no part
//! in the choice.

use crate::analytic::Analytic;
use crate::baseline::Baseline;
use crate::data::{Benchmark, Dataset};
use crate::knn::{Avg, Knn, Space};
use crate::metrics::{mean, score_app, Curve};
use crate::model::{Predictor, TrainSet};
use crate::profile::Physics;
use crate::wangchu::WangChu;

/// Log-space blend: exp(α·ln a + (1−α)·ln b), per factor.
pub struct Blend {
    pub a: Box<dyn Predictor>,
    pub b: Box<dyn Predictor>,
    pub alpha: f64,
    name: String,
}

impl Blend {
    pub fn new(a: Box<dyn Predictor>, b: Box<dyn Predictor>, alpha: f64) -> Blend {
        let name = format!(
            "{:.2}*{} + {:.2}*{}",
            alpha,
            short(a.name()),
            1.0 - alpha,
            short(b.name())
        );
        Blend { a, b, alpha, name }
    }
}

impl Predictor for Blend {
    fn name(&self) -> &str {
        &self.name
    }
    fn predict(&self, x: &Benchmark) -> Curve {
        blend(&self.a.predict(x), &self.b.predict(x), self.alpha)
    }
}

/// A model's short name for composite names: its first word, plus the space and `(k=..)` for kNN.
fn short(name: &str) -> String {
    let first = name.split_whitespace().next().unwrap_or(name);
    let space = if name.contains("memory") {
        "mem"
    } else {
        "mix"
    };
    match name.find("(k=") {
        Some(i) if first == "kNN" => format!("kNN-{space}{}", &name[i..]),
        _ => first.to_string(),
    }
}

/// The physical (analytical) models a recipe can start from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Physical {
    /// Model B: roofline DVFS + physical power (`analytic`).
    Roofline,
    /// Model B2: kerncast-models' Wang & Chu DVFS + physical power (`wangchu`).
    WangChu,
}

impl Physical {
    /// The physical models whose constants the GPU's device profile has.
    pub fn available(phys: &Physics) -> Vec<Physical> {
        let mut v = Vec::new();
        if phys.roofline.is_ok() {
            v.push(Physical::Roofline);
        }
        if phys.wangchu.is_ok() {
            v.push(Physical::WangChu);
        }
        v
    }

    /// `None` when the profile lacks the model's constants (`available` leaves it out).
    fn fit(self, t: &TrainSet, phys: &Physics) -> Option<Box<dyn Predictor>> {
        match self {
            Physical::Roofline => phys
                .roofline
                .as_ref()
                .ok()
                .map(|peak| Box::new(Analytic::fit(t, peak)) as Box<dyn Predictor>),
            Physical::WangChu => phys
                .wangchu
                .as_ref()
                .ok()
                .map(|start| Box::new(WangChu::fit(t, start)) as Box<dyn Predictor>),
        }
    }
}

/// One candidate recipe of model C (re-fitted on every fold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recipe {
    Baseline,
    Physical(Physical),
    Knn(usize, Space, Avg),
    PhysicalBaseline(Physical, f64),
    PhysicalKnn(Physical, f64, usize, Space, Avg),
}

/// Neighbour counts tried.
const KS: [usize; 4] = [3, 5, 10, 20];
const SPACES: [Space; 3] = [Space::Mix, Space::Mem, Space::Both];
const AVGS: [Avg; 3] = [Avg::Geo, Avg::Arith, Avg::RelMedian];

impl Recipe {
    /// The pool: the baseline, every kNN, and the physical models the profile allows with their
    /// blends.
    pub fn candidates(physicals: &[Physical]) -> Vec<Recipe> {
        let mut v = vec![Recipe::Baseline];
        v.extend(physicals.iter().map(|ph| Recipe::Physical(*ph)));
        for s in SPACES {
            for a in AVGS {
                for k in KS {
                    v.push(Recipe::Knn(k, s, a));
                }
            }
        }
        for &ph in physicals {
            for al in [0.25, 0.5, 0.75] {
                v.push(Recipe::PhysicalBaseline(ph, al));
                for s in SPACES {
                    for a in AVGS {
                        for k in [5, 10] {
                            v.push(Recipe::PhysicalKnn(ph, al, k, s, a));
                        }
                    }
                }
            }
        }
        v
    }

    /// `None` for a recipe over a physical model the profile does not allow.
    pub fn fit(self, t: &TrainSet, phys: &Physics) -> Option<Box<dyn Predictor>> {
        Some(match self {
            Recipe::Baseline => Box::new(Baseline::fit(t)),
            Recipe::Physical(ph) => ph.fit(t, phys)?,
            Recipe::Knn(k, s, a) => Box::new(Knn::fit(t, k, s, a)),
            Recipe::PhysicalBaseline(ph, al) => {
                Box::new(Blend::new(ph.fit(t, phys)?, Box::new(Baseline::fit(t)), al))
            }
            Recipe::PhysicalKnn(ph, al, k, s, a) => Box::new(Blend::new(
                ph.fit(t, phys)?,
                Box::new(Knn::fit(t, k, s, a)),
                al,
            )),
        })
    }
}

/// The generator family of a micro-benchmark name (the CV group).
pub fn family(name: &str) -> String {
    let parts: Vec<&str> = name.split('_').collect();
    if name.ends_with("_asm") {
        "asm".into()
    } else if parts[0] == "fadd" && parts.len() > 2 {
        format!("fadd_{}", parts[1])
    } else {
        parts[0].to_string()
    }
}

/// Leave-one-family-out CV scores of every recipe on the held-out micro-benchmarks: mean relative
/// errors (%) of time, power and energy, and the regret (percentage points of energy vs F_max
/// between the measured minimum and the predicted minimum-energy clocks), the quantity a DVFS
/// governor acting on the prediction pays. The base models are fitted once per fold and the blends
/// composed from their held-out predictions.
pub fn cv_scores(ds: &Dataset, recipes: &[Recipe], phys: &Physics) -> Vec<[f64; 4]> {
    let mut fams: Vec<String> = ds.micro.iter().map(|b| family(&b.name)).collect();
    fams.sort();
    fams.dedup();
    let mut errs: Vec<[Vec<f64>; 4]> = vec![Default::default(); recipes.len()];
    for f in &fams {
        let train: Vec<Benchmark> = ds
            .micro
            .iter()
            .filter(|b| family(&b.name) != *f)
            .cloned()
            .collect();
        let t = TrainSet::of(ds, &train);
        let base = Baseline::fit(&t);
        let fitted: Vec<(Physical, Box<dyn Predictor>)> = Physical::available(phys)
            .into_iter()
            .filter_map(|ph| Some((ph, ph.fit(&t, phys)?)))
            .collect();
        let mut knns = Vec::new();
        for s in SPACES {
            for a in AVGS {
                for k in KS {
                    knns.push(((k, s, a), Knn::fit(&t, k, s, a)));
                }
            }
        }
        for b in ds.micro.iter().filter(|b| family(&b.name) == *f) {
            let pb = base.predict(b);
            let pp: Vec<(Physical, Curve)> =
                fitted.iter().map(|(ph, m)| (*ph, m.predict(b))).collect();
            let physical = |ph: Physical| pp.iter().find(|p| p.0 == ph).map(|p| p.1.clone());
            let pk: Vec<_> = knns.iter().map(|(key, m)| (*key, m.predict(b))).collect();
            let knn =
                |key: (usize, Space, Avg)| pk.iter().find(|p| p.0 == key).map(|p| p.1.clone());
            for (ri, r) in recipes.iter().enumerate() {
                let p = match *r {
                    Recipe::Baseline => Some(pb.clone()),
                    Recipe::Physical(ph) => physical(ph),
                    Recipe::Knn(k, s, a) => knn((k, s, a)),
                    Recipe::PhysicalBaseline(ph, al) => physical(ph).map(|pa| blend(&pa, &pb, al)),
                    Recipe::PhysicalKnn(ph, al, k, s, a) => physical(ph)
                        .zip(knn((k, s, a)))
                        .map(|(pa, pk)| blend(&pa, &pk, al)),
                };
                let Some(p) = p else { continue };
                let sc = score_app(ds, b, &p);
                for e in &sc.errors {
                    for k in 0..3 {
                        errs[ri][k].push(e[k]);
                    }
                }
                errs[ri][3].push(sc.oracle_vs_fmax - sc.saved_vs_fmax);
            }
        }
    }
    errs.iter()
        .map(|e| [mean(&e[0]), mean(&e[1]), mean(&e[2]), mean(&e[3])])
        .collect()
}

/// A blend's name is already short; a single kNN gets its short form, so the table stays aligned.
fn short_name(name: &str) -> String {
    if name.starts_with("kNN") {
        short(name)
    } else {
        name.to_string()
    }
}

fn blend(a: &Curve, b: &Curve, alpha: f64) -> Curve {
    a.iter()
        .zip(b)
        .map(|(u, v)| [0, 1, 2].map(|k| (alpha * u[k].ln() + (1.0 - alpha) * v[k].ln()).exp()))
        .collect()
}

/// Model C: the recipe with the best CV score, re-fitted on all micro-benchmarks.
pub struct Selected {
    pub recipe: Recipe,
    pub cv: Vec<(Recipe, [f64; 4])>,
    pub model: Box<dyn Predictor>,
    name: String,
}

impl Selected {
    /// `phys`: the device constants the physical models are calibrated from; a model the
    /// profile cannot support is not a candidate.
    pub fn select(ds: &Dataset, phys: &Physics) -> Selected {
        let recipes = Recipe::candidates(&Physical::available(phys));
        let scores = cv_scores(ds, &recipes, phys);
        let cv: Vec<(Recipe, [f64; 4])> = recipes.into_iter().zip(scores).collect();
        let best = cv
            .iter()
            .min_by(|a, b| mean(&a.1).total_cmp(&mean(&b.1)))
            .map(|c| c.0)
            .unwrap_or(Recipe::Baseline);
        let t = TrainSet::micro(ds);
        // The pool holds only models the profile supports, so the fallback is never taken.
        let model = best
            .fit(&t, phys)
            .unwrap_or_else(|| Box::new(Baseline::fit(&t)));
        let name = format!("C (micro-CV pick): {}", short_name(model.name()));
        Selected {
            recipe: best,
            cv,
            model,
            name,
        }
    }
}

impl Predictor for Selected {
    fn name(&self) -> &str {
        &self.name
    }
    fn predict(&self, b: &Benchmark) -> Curve {
        self.model.predict(b)
    }
}
