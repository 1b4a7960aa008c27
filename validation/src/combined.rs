//! Model C: candidates built from the fitted models (B, the roofline; B2, kerncast-models' Wang &
//! Chu model; A, the paper's LSTM, when its fold models are saved), nearest-neighbour models over
//! static features and the code-agnostic baseline, blended in log space. The candidate is chosen
//! by leave-one-family-out cross-validation on the micro-benchmarks only (a family is a
//! generator of micro-benchmarks, e.g. all `fadd_l2d_*`), which mimics predicting code unlike
//! anything in training. The test applications play no part in the choice.

use crate::analytic::Analytic;
use crate::baseline::Baseline;
use crate::data::{Benchmark, Dataset};
use crate::knn::{Avg, Knn, Space};
use crate::lstm_cv::Learned;
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

/// What a run can offer model C beyond the baseline and the kNNs: the device constants the
/// physical models are calibrated from, and model A when its fold models exist.
#[derive(Clone, Copy)]
pub struct Pool<'a> {
    pub phys: &'a Physics,
    pub learned: Option<&'a Learned>,
}

/// The fitted models a recipe can start from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fitted {
    /// Model B: roofline DVFS + physical power (`analytic`).
    Roofline,
    /// Model B2: kerncast-models' Wang & Chu DVFS + physical power (`wangchu`).
    WangChu,
    /// Model A: the paper's LSTM (`lstm`), trained once per fold ahead of time (`lstm_cv`).
    Lstm,
}

impl Fitted {
    /// The models this run can fit: the physical ones whose constants the device profile has,
    /// and the LSTM when its fold models are there.
    pub fn available(pool: Pool) -> Vec<Fitted> {
        let mut v = Vec::new();
        if pool.phys.roofline.is_ok() {
            v.push(Fitted::Roofline);
        }
        if pool.phys.wangchu.is_ok() {
            v.push(Fitted::WangChu);
        }
        if pool.learned.is_some() {
            v.push(Fitted::Lstm);
        }
        v
    }

    /// Fitted on `t`; `None` when the run cannot offer the model (`available` leaves it out).
    /// The LSTM is not retrained here: it is the saved model trained on every micro-benchmark,
    /// so it is for the final fit only, and the folds use its saved held-out predictions.
    fn fit(self, t: &TrainSet, pool: Pool) -> Option<Box<dyn Predictor>> {
        match self {
            Fitted::Roofline => pool
                .phys
                .roofline
                .as_ref()
                .ok()
                .map(|peak| Box::new(Analytic::fit(t, peak)) as Box<dyn Predictor>),
            Fitted::WangChu => pool
                .phys
                .wangchu
                .as_ref()
                .ok()
                .map(|start| Box::new(WangChu::fit(t, start)) as Box<dyn Predictor>),
            Fitted::Lstm => pool
                .learned
                .map(|l| Box::new(l.full.clone()) as Box<dyn Predictor>),
        }
    }
}

/// One candidate recipe of model C (re-fitted on every fold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recipe {
    Baseline,
    Single(Fitted),
    Knn(usize, Space, Avg),
    WithBaseline(Fitted, f64),
    WithKnn(Fitted, f64, usize, Space, Avg),
}

/// Neighbour counts tried.
const KS: [usize; 4] = [3, 5, 10, 20];
const SPACES: [Space; 3] = [Space::Mix, Space::Mem, Space::Both];
const AVGS: [Avg; 3] = [Avg::Geo, Avg::Arith, Avg::RelMedian];

impl Recipe {
    /// The pool: the baseline, every kNN, and the fitted models the run allows with their
    /// blends.
    pub fn candidates(fitted: &[Fitted]) -> Vec<Recipe> {
        let mut v = vec![Recipe::Baseline];
        v.extend(fitted.iter().map(|m| Recipe::Single(*m)));
        for s in SPACES {
            for a in AVGS {
                for k in KS {
                    v.push(Recipe::Knn(k, s, a));
                }
            }
        }
        for &m in fitted {
            for al in [0.25, 0.5, 0.75] {
                v.push(Recipe::WithBaseline(m, al));
                for s in SPACES {
                    for a in AVGS {
                        for k in [5, 10] {
                            v.push(Recipe::WithKnn(m, al, k, s, a));
                        }
                    }
                }
            }
        }
        v
    }

    /// `None` for a recipe over a model the run cannot offer.
    pub fn fit(self, t: &TrainSet, pool: Pool) -> Option<Box<dyn Predictor>> {
        Some(match self {
            Recipe::Baseline => Box::new(Baseline::fit(t)),
            Recipe::Single(m) => m.fit(t, pool)?,
            Recipe::Knn(k, s, a) => Box::new(Knn::fit(t, k, s, a)),
            Recipe::WithBaseline(m, al) => {
                Box::new(Blend::new(m.fit(t, pool)?, Box::new(Baseline::fit(t)), al))
            }
            Recipe::WithKnn(m, al, k, s, a) => Box::new(Blend::new(
                m.fit(t, pool)?,
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

/// The families of the micro-benchmarks (the CV groups), sorted.
pub fn families(ds: &Dataset) -> Vec<String> {
    let mut fams: Vec<String> = ds.micro.iter().map(|b| family(&b.name)).collect();
    fams.sort();
    fams.dedup();
    fams
}

/// Leave-one-family-out CV scores of every recipe on the held-out micro-benchmarks: mean relative
/// errors (%) of time, power and energy, and the regret (percentage points of energy vs F_max
/// between the measured minimum and the predicted minimum-energy clocks), the quantity a DVFS
/// governor acting on the prediction pays. The base models are fitted once per fold and the blends
/// composed from their held-out predictions; the LSTM's come from its saved fold models.
pub fn cv_scores(ds: &Dataset, recipes: &[Recipe], pool: Pool) -> Vec<[f64; 4]> {
    let fams = families(ds);
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
        let fitted: Vec<(Fitted, Box<dyn Predictor>)> = Fitted::available(pool)
            .into_iter()
            // the LSTM is not retrained per fold: its held-out curves come from its fold models
            .filter(|m| *m != Fitted::Lstm)
            .filter_map(|m| Some((m, m.fit(&t, pool)?)))
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
            let pp: Vec<(Fitted, Curve)> = fitted.iter().map(|(m, f)| (*m, f.predict(b))).collect();
            let single = |m: Fitted| match m {
                Fitted::Lstm => pool.learned.and_then(|l| l.folds.held_out(b).cloned()),
                _ => pp.iter().find(|p| p.0 == m).map(|p| p.1.clone()),
            };
            let pk: Vec<_> = knns.iter().map(|(key, m)| (*key, m.predict(b))).collect();
            let knn =
                |key: (usize, Space, Avg)| pk.iter().find(|p| p.0 == key).map(|p| p.1.clone());
            for (ri, r) in recipes.iter().enumerate() {
                let p = match *r {
                    Recipe::Baseline => Some(pb.clone()),
                    Recipe::Single(m) => single(m),
                    Recipe::Knn(k, s, a) => knn((k, s, a)),
                    Recipe::WithBaseline(m, al) => single(m).map(|pa| blend(&pa, &pb, al)),
                    Recipe::WithKnn(m, al, k, s, a) => single(m)
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
    /// `pool`: what the run can offer beyond the baseline and the kNNs; a model it cannot
    /// offer is not a candidate.
    pub fn select(ds: &Dataset, pool: Pool) -> Selected {
        let recipes = Recipe::candidates(&Fitted::available(pool));
        let scores = cv_scores(ds, &recipes, pool);
        let cv: Vec<(Recipe, [f64; 4])> = recipes.into_iter().zip(scores).collect();
        let best = cv
            .iter()
            .min_by(|a, b| mean(&a.1).total_cmp(&mean(&b.1)))
            .map(|c| c.0)
            .unwrap_or(Recipe::Baseline);
        let t = TrainSet::micro(ds);
        // The pool holds only models the run can offer, so the fallback is never taken.
        let model = best
            .fit(&t, pool)
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
