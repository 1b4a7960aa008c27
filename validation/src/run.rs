//! The whole validation as one call: load, fit on the micro-benchmarks, predict the applications,
//! print the table, write plots. Shared by `cargo xtask validate` (through the
//! `kerncast-validate` binary) and `kerncast validate --suite gpuptxmodel`.

use crate::analytic::Analytic;
use crate::baseline::Baseline;
use crate::combined::{Pool, Selected};
use crate::data::{default_root, pick_gpu, Dataset, DEFAULT_GPU};
use crate::error::{Error, Result};
use crate::lstm::Lstm;
use crate::lstm_cv::{FoldPredictions, Learned};
use crate::metrics::Summary;
use crate::model::{Predictor, TrainSet};
use crate::profile::Physics;
use crate::report::{evaluate, overall, per_app};
use crate::wangchu::WangChu;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Seed of the LSTM training (initialisation and batch order).
pub const SEED: u64 = 42;
/// Epochs of the shipped LSTM training.
pub const EPOCHS: usize = 60;
/// Learning-rate multiplier of the shipped LSTM training.
pub const LR_SCALE: f64 = 1.0;

#[derive(Debug, Clone)]
pub struct Options {
    /// Workspace root (for the default data and weights locations).
    pub workspace: PathBuf,
    /// Data set root; default `$KERNCAST_GPUPTXMODEL_DATA` or `<workspace>/../shared/data/gpuptxmodel`.
    pub data: Option<PathBuf>,
    /// The data set's GPU (`datasets/<gpu>`); default `gtxtitanx`, or the only one present.
    pub gpu: Option<String>,
    /// kerncast device profile (name or path) for the physical models; default the one whose
    /// name matches the GPU.
    pub device: Option<String>,
    /// Output folder for plots and index.md; default `<workspace>/target/validation`.
    pub out: Option<PathBuf>,
    /// LSTM weights; default `<workspace>/validation/weights/lstm_<gpu>.safetensors`.
    pub weights: Option<PathBuf>,
    /// Train the LSTM (and save the weights) instead of loading them.
    pub train_lstm: bool,
    pub epochs: usize,
    /// Seed of the LSTM training.
    pub seed: u64,
    /// Multiplies the paper's learning rates (encoder 0.005, heads 0.01).
    pub lr_scale: f64,
    /// Skip model A entirely.
    pub no_lstm: bool,
    /// Train (and save) model A's leave-one-family-out fold models before the run.
    pub train_lstm_cv: bool,
    /// The families whose fold models `train_lstm_cv` trains; all when empty.
    pub cv_folds: Vec<String>,
}

impl Options {
    pub fn new(workspace: &Path) -> Options {
        Options {
            workspace: workspace.to_path_buf(),
            data: None,
            gpu: None,
            device: None,
            out: None,
            weights: None,
            train_lstm: false,
            epochs: EPOCHS,
            seed: SEED,
            lr_scale: LR_SCALE,
            no_lstm: false,
            train_lstm_cv: false,
            cv_folds: Vec::new(),
        }
    }
    /// The LSTM weights of a GPU: `--weights`, else the ones saved for it with the project.
    pub fn weights_path(&self, gpu: &str) -> PathBuf {
        self.weights.clone().unwrap_or_else(|| {
            self.workspace
                .join(format!("validation/weights/lstm_{gpu}.safetensors"))
        })
    }
    /// How this run trains model A (and its fold models).
    pub fn lstm_recipe(&self) -> crate::lstm_cv::Recipe {
        crate::lstm_cv::Recipe {
            seed: self.seed,
            epochs: self.epochs,
            lr_scale: self.lr_scale,
        }
    }
    /// Model A as a model C candidate, from the saved weights and fold models, as a run
    /// without `--train-lstm` has it.
    pub fn saved_learned(&self, ds: &Dataset) -> Result<Learned> {
        Learned::load(
            ds,
            &self.weights_path(&ds.gpu),
            &self.cv_weights_dir(&ds.gpu),
            self.lstm_recipe(),
        )
    }
    /// Model A's fold models of a GPU (one per micro-benchmark family), saved with the project.
    pub fn cv_weights_dir(&self, gpu: &str) -> PathBuf {
        self.workspace
            .join(format!("validation/weights/lstm_cv_{gpu}"))
    }
    pub fn out_dir(&self) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| self.workspace.join("target/validation"))
    }
}

/// Runs the validation; `say` receives progress lines; returns the report text.
pub fn run(opts: &Options, mut say: impl FnMut(&str)) -> Result<String> {
    let root = match &opts.data {
        Some(d) => d.clone(),
        None => default_root(&opts.workspace)?,
    };
    let gpu = pick_gpu(&root, opts.gpu.as_deref())?;
    let mut ds = Dataset::load(&root, &gpu)?;
    let st = &ds.stats;
    say(&format!(
        "{gpu}: loaded {} benchmarks ({} micro, {} applications), {} kernels, {} instructions from {}; \
         readable/coded opcode mismatches: {}; duplicate names (later block kept): {:?}; \
         directories without measurements (unused): {:?}; off the common grid (unused): {:?}",
        st.benchmarks,
        ds.micro.len(),
        ds.real.len(),
        st.kernels,
        st.instructions,
        root.display(),
        st.readable_mismatches,
        st.duplicate_names,
        st.unmeasured_dirs,
        st.off_grid
    ));
    let phys = Physics::of(
        &ds.gpu,
        opts.device.as_deref(),
        ds.grid[ds.reference].mem_mhz as f64,
    );
    say(&phys.describe());
    if let Ok(costs) = phys.issue_costs {
        ds.issue_costs = costs;
    }
    let t = TrainSet::micro(&ds);
    if opts.train_lstm_cv {
        let dir = opts.cv_weights_dir(&ds.gpu);
        say(&format!(
            "training model A's fold models (leave one family out): {} epochs, seed {}, into {}",
            opts.epochs,
            opts.seed,
            dir.display()
        ));
        crate::lstm_cv::train_folds(&ds, &dir, &opts.cv_folds, opts.lstm_recipe(), &mut say)?;
    }
    let mut models: Vec<Box<dyn Predictor>> = vec![Box::new(Baseline::fit(&t))];
    let mut lstm: Option<Lstm> = None;
    if !opts.no_lstm {
        let wp = opts.weights_path(&ds.gpu);
        if opts.train_lstm {
            say(&format!(
                "training the LSTM: {} epochs, seed {}, learning rates x{}",
                opts.epochs, opts.seed, opts.lr_scale
            ));
            let start = std::time::Instant::now();
            let m = Lstm::train(&t, opts.seed, opts.epochs, opts.lr_scale, |l| {
                say(&format!("  {l} ({:.0} s)", start.elapsed().as_secs_f64()))
            })?;
            if let Some(dir) = wp.parent() {
                std::fs::create_dir_all(dir).map_err(crate::error::io(dir))?;
            }
            m.save(&wp)?;
            say(&format!("saved {}", wp.display()));
            lstm = Some(m);
        } else if wp.exists() {
            lstm = Some(Lstm::load(&wp, &ds.grid)?);
        } else {
            say(&format!(
                "no LSTM weights at {}: model A skipped (train them with --train-lstm)",
                wp.display()
            ));
        }
    }
    if let Some(m) = &lstm {
        models.push(Box::new(m.clone()));
    }
    let dir = opts.cv_weights_dir(&ds.gpu);
    let (learned, pool_line) = match lstm {
        None => (
            None,
            "model A is not a model C candidate: no model A in this run".to_string(),
        ),
        Some(full) => match FoldPredictions::load(&ds, &dir, opts.lstm_recipe()) {
            Ok(folds) => (
                Some(Learned { full, folds }),
                format!(
                    "model A is a model C candidate, scored by its fold models in {}",
                    dir.display()
                ),
            ),
            Err(e) => (None, format!("model A is not a model C candidate: {e}")),
        },
    };
    say(&pool_line);
    let mut text = String::new();
    let _ = writeln!(text, "{}", phys.describe());
    let _ = writeln!(text, "{pool_line}");
    if let Ok(peak) = &phys.roofline {
        say("fitting model B (analytical)");
        let b = Analytic::fit(&t, peak);
        let _ = writeln!(
            text,
            "model B constants: kappa {:.4}, c0 {} ({}), p {:.1}, DRAM power {:.1} W, core weights {:?}",
            b.kappa,
            b.c0,
            if b.knee { "h = min(1, c0/n)" } else { "h = c0/(c0+n)" },
            b.p,
            b.a_mem,
            b.w.map(|w| (w * 10.0).round() / 10.0)
        );
        models.push(Box::new(b));
    }
    if let Ok(start) = &phys.wangchu {
        say("fitting model B2 (kerncast-models: Wang & Chu DVFS + physical power)");
        let fit_start = std::time::Instant::now();
        let b2 = WangChu::fit(&t, start);
        say(&format!(
            "  fitted in {:.1} s",
            fit_start.elapsed().as_secs_f64()
        ));
        let _ = writeln!(
            text,
            "model B2 constants: DRAM latency {:.1}*r + {:.1} cycles, DRAM delay {:.2} cycles/transaction, \
             {:.3} cycles/instruction, c0 {}, #Aw {}, dynamic power {:?} W, core exponent {:.1}; \
             training time error {:.1} %",
            b2.params.dm_lat_a,
            b2.params.dm_lat_b,
            b2.params.dm_del_base,
            b2.params.inst_cycle,
            b2.c0,
            b2.active_warps,
            b2.power
                .dynamic_w
                .iter()
                .map(|(k, w)| format!("{k} {w:.1}"))
                .collect::<Vec<_>>(),
            b2.power.core_exponent,
            b2.train_time_error
        );
        models.push(Box::new(b2));
    }
    say("selecting model C by leave-one-family-out CV on the micro-benchmarks");
    let pool = Pool {
        phys: &phys,
        learned: learned.as_ref(),
    };
    let c = Selected::select(&ds, pool);
    let _ = writeln!(
        text,
        "model C candidates (leave-one-family-out CV on the micro-benchmarks: time%, power%, energy%, \
         regret% = oracle saving - saving at the predicted clocks; the pick minimises their mean):"
    );
    for (r, s) in &c.cv {
        let mark = if *r == c.recipe { " <- selected" } else { "" };
        let _ = writeln!(
            text,
            "  {:<46} {:>6.2} {:>6.2} {:>6.2} {:>6.2}{mark}",
            format!("{r:?}"),
            s[0],
            s[1],
            s[2],
            s[3]
        );
    }
    if ds.gpu == DEFAULT_GPU {
        let _ = writeln!(text, "{}", default_table_status(opts, &ds, &c));
    }
    models.push(Box::new(c));
    let summaries: Vec<Summary> = models.iter().map(|m| evaluate(&ds, m.as_ref())).collect();
    let table = overall(&ds, &summaries);
    let _ = writeln!(text, "\n{table}");
    for s in &summaries {
        let _ = writeln!(text, "{}", per_app(&ds, s));
    }
    // Plots of model C (the default predictor).
    let best = models
        .last()
        .ok_or_else(|| Error::Model("no model".into()))?;
    let preds: Vec<(String, crate::metrics::Curve)> = ds
        .real
        .iter()
        .map(|b| (b.name.clone(), best.predict(b)))
        .collect();
    let out = opts.out_dir();
    let index = crate::plot::plot_all(&ds, best.name(), &preds, &table, &out)?;
    let _ = writeln!(text, "plots: {}", index.display());
    Ok(text)
}

/// Whether the table behind `kerncast --model auto` on the GTX Titan X is this run's model C.
fn default_table_status(opts: &Options, ds: &Dataset, c: &Selected) -> String {
    use crate::export::{knn_table, TABLE_PATH};
    use crate::knn::{Knn, Space};
    let path = opts.workspace.join(TABLE_PATH);
    let crate::combined::Recipe::Knn(k, Space::Mem, avg) = c.recipe else {
        return format!(
            "kerncast's default (auto) on gtx-titan-x: STALE, the CV pick {:?} is not a kNN over memory features and cannot be exported to {}",
            c.recipe,
            path.display()
        );
    };
    let fresh = knn_table(ds, &Knn::fit(&TrainSet::micro(ds), k, Space::Mem, avg));
    let committed = std::fs::read_to_string(&path).ok();
    match (fresh, committed) {
        (Ok(f), Some(cm)) if f == cm => format!(
            "kerncast's default (auto) on gtx-titan-x: model C as picked here ({})",
            path.display()
        ),
        _ => format!(
            "kerncast's default (auto) on gtx-titan-x: STALE, {} differs from this run's model C; \
             re-export with `cargo run --release -p kerncast-validation --example export_default_model`",
            path.display()
        ),
    }
}
