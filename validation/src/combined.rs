//! Model C: candidates built from the analytical model (B), a nearest-neighbour model over the
//! instruction-mix features and the code-agnostic baseline, blended in log space; the candidate
//! is chosen by leave-one-family-out cross-validation on the micro-benchmarks only (a family is a
//! generator of micro-benchmarks, e.g. all `fadd_l2d_*`), which mimics predicting code unlike
//! anything in training. The test applications play no part in the choice.

use crate::analytic::Analytic;
use crate::baseline::Baseline;
use crate::data::{Benchmark, Dataset};
use crate::features::Features;
use crate::metrics::{mean, rel_err_pct, Curve};
use crate::model::{Predictor, TrainSet};

/// k nearest micro-benchmarks in standardised feature space; geometric mean of their curves.
pub struct Knn {
    k: usize,
    mu: Vec<f64>,
    sd: Vec<f64>,
    points: Vec<(Vec<f64>, Curve)>,
    name: String,
}

impl Knn {
    pub fn fit(t: &TrainSet, k: usize) -> Knn {
        let xs: Vec<Vec<f64>> = t.benches.iter().map(|b| Features::of(b).vector()).collect();
        let d = xs[0].len();
        let n = xs.len() as f64;
        let mu: Vec<f64> = (0..d)
            .map(|j| xs.iter().map(|x| x[j]).sum::<f64>() / n)
            .collect();
        let sd: Vec<f64> = (0..d)
            .map(|j| (xs.iter().map(|x| (x[j] - mu[j]).powi(2)).sum::<f64>() / n).sqrt() + 1e-9)
            .collect();
        let z = |x: &Vec<f64>| -> Vec<f64> { (0..d).map(|j| (x[j] - mu[j]) / sd[j]).collect() };
        let points = xs.iter().map(&z).zip(t.targets.iter().cloned()).collect();
        Knn {
            k,
            mu,
            sd,
            points,
            name: format!("kNN over instruction mix (k={k})"),
        }
    }
}

impl Predictor for Knn {
    fn name(&self) -> &str {
        &self.name
    }
    fn predict(&self, b: &Benchmark) -> Curve {
        let x = Features::of(b).vector();
        let z: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(j, v)| (v - self.mu[j]) / self.sd[j])
            .collect();
        let mut d: Vec<(f64, usize)> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (p.iter().zip(&z).map(|(a, b)| (a - b).powi(2)).sum(), i))
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let k = self.k.min(d.len());
        let n = self.points[0].1.len();
        let mut out = vec![[0.0; 3]; n];
        for &(_, i) in &d[..k] {
            for (o, v) in out.iter_mut().zip(&self.points[i].1) {
                for c in 0..3 {
                    o[c] += v[c].ln() / k as f64;
                }
            }
        }
        out.iter().map(|o| o.map(f64::exp)).collect()
    }
}

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

/// A model's short name for composite names: its first word, plus `(k=..)` for kNN.
fn short(name: &str) -> String {
    let first = name.split_whitespace().next().unwrap_or(name);
    match name.find("(k=") {
        Some(i) if first == "kNN" => format!("kNN{}", &name[i..]),
        _ => first.to_string(),
    }
}

/// One candidate recipe of model C (re-fitted on every fold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recipe {
    Baseline,
    Analytic,
    Knn(usize),
    AnalyticBaseline(f64),
    AnalyticKnn(f64, usize),
}

impl Recipe {
    pub fn candidates() -> Vec<Recipe> {
        let mut v = vec![Recipe::Baseline, Recipe::Analytic];
        for k in [3, 5, 10, 20] {
            v.push(Recipe::Knn(k));
        }
        for a in [0.25, 0.5, 0.75] {
            v.push(Recipe::AnalyticBaseline(a));
            for k in [5, 10] {
                v.push(Recipe::AnalyticKnn(a, k));
            }
        }
        v
    }

    pub fn fit(self, t: &TrainSet) -> Box<dyn Predictor> {
        match self {
            Recipe::Baseline => Box::new(Baseline::fit(t)),
            Recipe::Analytic => Box::new(Analytic::fit(t)),
            Recipe::Knn(k) => Box::new(Knn::fit(t, k)),
            Recipe::AnalyticBaseline(a) => Box::new(Blend::new(
                Box::new(Analytic::fit(t)),
                Box::new(Baseline::fit(t)),
                a,
            )),
            Recipe::AnalyticKnn(a, k) => Box::new(Blend::new(
                Box::new(Analytic::fit(t)),
                Box::new(Knn::fit(t, k)),
                a,
            )),
        }
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

/// Leave-one-family-out CV scores of every recipe: mean relative errors (%) of time, power and
/// energy on the held-out micro-benchmarks. The base models are fitted once per fold and the blends
/// composed from their held-out predictions.
pub fn cv_scores(ds: &Dataset, recipes: &[Recipe]) -> Vec<[f64; 3]> {
    let mut fams: Vec<String> = ds.micro.iter().map(|b| family(&b.name)).collect();
    fams.sort();
    fams.dedup();
    let mut errs: Vec<[Vec<f64>; 3]> = vec![Default::default(); recipes.len()];
    for f in &fams {
        let train: Vec<Benchmark> = ds
            .micro
            .iter()
            .filter(|b| family(&b.name) != *f)
            .cloned()
            .collect();
        let t = TrainSet::of(ds, &train);
        let base = Baseline::fit(&t);
        let ana = Analytic::fit(&t);
        let knns: Vec<(usize, Knn)> = [3, 5, 10, 20].map(|k| (k, Knn::fit(&t, k))).into();
        for b in ds.micro.iter().filter(|b| family(&b.name) == *f) {
            let y = ds.scaling(b);
            let pb = base.predict(b);
            let pa = ana.predict(b);
            let pk: Vec<(usize, Curve)> = knns.iter().map(|(k, m)| (*k, m.predict(b))).collect();
            let knn = |k: usize| pk.iter().find(|p| p.0 == k).map(|p| p.1.clone());
            for (ri, r) in recipes.iter().enumerate() {
                let p = match *r {
                    Recipe::Baseline => Some(pb.clone()),
                    Recipe::Analytic => Some(pa.clone()),
                    Recipe::Knn(k) => knn(k),
                    Recipe::AnalyticBaseline(a) => Some(blend(&pa, &pb, a)),
                    Recipe::AnalyticKnn(a, k) => knn(k).map(|pk| blend(&pa, &pk, a)),
                };
                let Some(p) = p else { continue };
                for (pp, yy) in p.iter().zip(&y) {
                    for k in 0..3 {
                        errs[ri][k].push(rel_err_pct(pp[k], yy[k]));
                    }
                }
            }
        }
    }
    errs.iter()
        .map(|e| [mean(&e[0]), mean(&e[1]), mean(&e[2])])
        .collect()
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
    pub cv: Vec<(Recipe, [f64; 3])>,
    pub model: Box<dyn Predictor>,
    name: String,
}

impl Selected {
    pub fn select(ds: &Dataset) -> Selected {
        let recipes = Recipe::candidates();
        let scores = cv_scores(ds, &recipes);
        let cv: Vec<(Recipe, [f64; 3])> = recipes.into_iter().zip(scores).collect();
        let best = cv
            .iter()
            .min_by(|a, b| mean(&a.1).total_cmp(&mean(&b.1)))
            .map(|c| c.0)
            .unwrap_or(Recipe::Baseline);
        let model = best.fit(&TrainSet::micro(ds));
        let name = format!("C (micro-CV pick): {}", model.name());
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
