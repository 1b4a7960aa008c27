//! Model A under the same leave-one-family-out cross-validation as model C's other candidates.
//!
//! Scoring the LSTM on a held-out family needs an LSTM trained without it, one training per
//! family (about 8 minutes each on one core). That is too slow for every validation run, so
//! the fold models are trained once by `--train-lstm-cv` and saved with the project, as the full
//! model's weights are. A validation run loads them and predicts each family with the model that
//! never saw it; the fold models are never used on the test applications. Each fold model has a
//! manifest beside it that records what it was trained on and how, and a run checks it against
//! the data set it loaded, so a fold trained on other data or with another recipe is refused.

use crate::combined::{families, family};
use crate::data::{Benchmark, Dataset};
use crate::error::{io, Error, Result};
use crate::lstm::Lstm;
use crate::metrics::Curve;
use crate::model::TrainSet;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The micro-benchmarks outside `fam`: a fold's training set.
pub fn training_without(ds: &Dataset, fam: &str) -> Vec<Benchmark> {
    ds.micro
        .iter()
        .filter(|b| family(&b.name) != fam)
        .cloned()
        .collect()
}

/// Where the fold model that never saw `fam` is saved: `<dir>/<fam>.safetensors`.
pub fn fold_path(dir: &Path, fam: &str) -> PathBuf {
    dir.join(format!("{fam}.safetensors"))
}

/// Its manifest: `<dir>/<fam>.json`.
pub fn manifest_path(dir: &Path, fam: &str) -> PathBuf {
    dir.join(format!("{fam}.json"))
}

/// How model A is trained: the same for the full model and every fold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Recipe {
    pub seed: u64,
    pub epochs: usize,
    pub lr_scale: f64,
}

/// What a fold model was trained on, written beside its weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub held_out_family: String,
    pub held_out: Vec<String>,
    pub trained_on: Vec<String>,
    pub recipe: Recipe,
}

impl Manifest {
    fn of(ds: &Dataset, fam: &str, recipe: Recipe) -> Manifest {
        let names = |keep: bool| {
            ds.micro
                .iter()
                .filter(|b| (family(&b.name) == fam) == keep)
                .map(|b| b.name.clone())
                .collect()
        };
        Manifest {
            held_out_family: fam.to_string(),
            held_out: names(true),
            trained_on: names(false),
            recipe,
        }
    }

    /// `Err` says how the saved manifest differs from what this data set and recipe make.
    fn check(&self, expected: &Manifest, path: &Path) -> Result<()> {
        let set = |v: &[String]| v.iter().cloned().collect::<BTreeSet<_>>();
        let differs = |what: &str, saved: &[String], now: &[String]| {
            let (s, n) = (set(saved), set(now));
            (s != n).then(|| {
                format!(
                    "{what}: saved only {:?}, this data set only {:?}",
                    s.difference(&n).collect::<Vec<_>>(),
                    n.difference(&s).collect::<Vec<_>>()
                )
            })
        };
        let problem = if self.held_out_family != expected.held_out_family {
            Some(format!(
                "held-out family {:?}, expected {:?}",
                self.held_out_family, expected.held_out_family
            ))
        } else if self.recipe != expected.recipe {
            Some(format!(
                "trained with {:?}, model A is trained with {:?}",
                self.recipe, expected.recipe
            ))
        } else {
            differs("held out", &self.held_out, &expected.held_out)
                .or_else(|| differs("trained on", &self.trained_on, &expected.trained_on))
        };
        match problem {
            None => Ok(()),
            Some(p) => Err(Error::Model(format!(
                "{}: the fold model does not match this run ({p}); retrain it with --train-lstm-cv",
                path.display()
            ))),
        }
    }
}

/// Trains and saves the fold model of every family in `which` (all families when empty), with
/// the full model's seed, epochs and learning rates, so that each fold is trained as model A is.
pub fn train_folds(
    ds: &Dataset,
    dir: &Path,
    which: &[String],
    recipe: Recipe,
    mut say: impl FnMut(&str),
) -> Result<()> {
    let all = families(ds);
    if let Some(unknown) = which.iter().find(|f| !all.contains(f)) {
        return Err(Error::Model(format!(
            "--cv-folds: no micro-benchmark family {unknown:?}; the families are {all:?}"
        )));
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let todo: Vec<&String> = all
        .iter()
        .filter(|f| which.is_empty() || which.contains(f))
        .collect();
    for (i, fam) in todo.iter().enumerate() {
        let train = training_without(ds, fam);
        let t = TrainSet::of(ds, &train);
        say(&format!(
            "fold {}/{}: training the LSTM without family {fam} ({} micro-benchmarks)",
            i + 1,
            todo.len(),
            train.len()
        ));
        let start = std::time::Instant::now();
        let m = Lstm::train(&t, recipe.seed, recipe.epochs, recipe.lr_scale, |l| {
            say(&format!("  {l} ({:.0} s)", start.elapsed().as_secs_f64()))
        })?;
        // Each written under a temporary name and renamed, the manifest last, so an interrupted
        // run leaves no fold that a later validation would take for a finished one.
        let path = fold_path(dir, fam);
        let tmp = path.with_extension("safetensors.part");
        m.save(&tmp)?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        let manifest = manifest_path(dir, fam);
        let json = serde_json::to_string_pretty(&Manifest::of(ds, fam, recipe))
            .map_err(|e| Error::Model(e.to_string()))?;
        let tmp = manifest.with_extension("json.part");
        std::fs::write(&tmp, json + "\n").map_err(io(&tmp))?;
        std::fs::rename(&tmp, &manifest).map_err(io(&manifest))?;
        say(&format!("saved {}", path.display()));
    }
    Ok(())
}

/// The held-out predictions of model A on every micro-benchmark, each from the fold model
/// trained without its family.
pub struct FoldPredictions {
    by_name: BTreeMap<String, Curve>,
}

impl FoldPredictions {
    /// Loads the fold models in `dir`, each checked against its manifest. `Err` names the
    /// families whose model is missing or does not match, so the run can say why model A is not
    /// a candidate.
    pub fn load(ds: &Dataset, dir: &Path, recipe: Recipe) -> Result<FoldPredictions> {
        let fams = families(ds);
        let missing: Vec<&String> = fams
            .iter()
            .filter(|f| !fold_path(dir, f).exists() || !manifest_path(dir, f).exists())
            .collect();
        if !missing.is_empty() {
            return Err(Error::Model(format!(
                "no fold model in {} for families {missing:?} (train them with --train-lstm-cv)",
                dir.display()
            )));
        }
        let mut by_name = BTreeMap::new();
        for fam in &fams {
            let mp = manifest_path(dir, fam);
            let text = std::fs::read_to_string(&mp).map_err(io(&mp))?;
            let saved: Manifest = serde_json::from_str(&text).map_err(|e| Error::Parse {
                path: mp.clone(),
                line: e.line(),
                msg: e.to_string(),
            })?;
            saved.check(&Manifest::of(ds, fam, recipe), &mp)?;
            let m = Lstm::load(&fold_path(dir, fam), &ds.grid)?;
            for b in ds.micro.iter().filter(|b| family(&b.name) == *fam) {
                by_name.insert(b.name.clone(), m.try_predict(b)?);
            }
        }
        Ok(FoldPredictions { by_name })
    }

    /// Model A's prediction of a micro-benchmark by the model that did not train on it.
    pub fn held_out(&self, b: &Benchmark) -> Option<&Curve> {
        self.by_name.get(&b.name)
    }
}

/// Model A as a model C candidate: the model trained on every micro-benchmark, and its held-out
/// predictions on each micro-benchmark from the fold model that never saw its family.
pub struct Learned {
    pub full: Lstm,
    pub folds: FoldPredictions,
}

impl Learned {
    /// The full model's weights and the fold models' folder, as `run::Options` names them.
    pub fn load(ds: &Dataset, weights: &Path, fold_dir: &Path, recipe: Recipe) -> Result<Learned> {
        Ok(Learned {
            full: Lstm::load(weights, &ds.grid)?,
            folds: FoldPredictions::load(ds, fold_dir, recipe)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(fam: &str, held_out: &[&str], trained_on: &[&str], seed: u64) -> Manifest {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        Manifest {
            held_out_family: fam.into(),
            held_out: names(held_out),
            trained_on: names(trained_on),
            recipe: Recipe {
                seed,
                epochs: 60,
                lr_scale: 1.0,
            },
        }
    }

    #[test]
    fn a_fold_manifest_matches_only_the_same_split_and_recipe() {
        let p = Path::new("folds/sp.json");
        let now = manifest(
            "sp",
            &["sp_add_4", "sp_mul_4"],
            &["dp_add_4", "int_add_4"],
            42,
        );
        // Order does not matter: the loader may list benchmarks in another order.
        let reordered = manifest(
            "sp",
            &["sp_mul_4", "sp_add_4"],
            &["int_add_4", "dp_add_4"],
            42,
        );
        assert!(reordered.check(&now, p).is_ok());

        let other_seed = manifest(
            "sp",
            &["sp_add_4", "sp_mul_4"],
            &["dp_add_4", "int_add_4"],
            43,
        );
        let e = other_seed.check(&now, p).unwrap_err().to_string();
        assert!(e.contains("folds/sp.json") && e.contains("seed: 43"), "{e}");

        // A benchmark added to the data set since the fold was trained.
        let before = manifest("sp", &["sp_add_4", "sp_mul_4"], &["dp_add_4"], 42);
        let e = before.check(&now, p).unwrap_err().to_string();
        assert!(
            e.contains("trained on") && e.contains("this data set only [\"int_add_4\"]"),
            "{e}"
        );

        // A fold that saw one of the benchmarks it is scored on.
        let leaked = manifest(
            "sp",
            &["sp_add_4"],
            &["sp_mul_4", "dp_add_4", "int_add_4"],
            42,
        );
        let e = leaked.check(&now, p).unwrap_err().to_string();
        assert!(e.contains("held out"), "{e}");

        let e = manifest("dp", &[], &[], 42).check(&now, p).unwrap_err();
        assert!(e.to_string().contains("held-out family \"dp\""), "{e}");
    }
}
