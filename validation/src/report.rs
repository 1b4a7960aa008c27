//! The validation table: per application and overall, for every model, the paper's error
//! definitions and energy savings, with the paper's published figures for the GPU beside them.
//! Fixed-width text with fixed float formatting, so the output diffs cleanly.

use crate::data::Dataset;
use crate::metrics::{score_app, Summary};
use crate::model::Predictor;
use std::fmt::Write;

/// What Guerreiro et al. 2019 publish for one GPU (Table 3, "copied exactly" in
/// notes/seed-003 §10.3): mean and median relative errors of the time, power and energy scaling
/// factors on the test applications, and the energy saved vs F_max at the predicted and at the
/// measured (oracle) minimum-energy clocks. For comparison only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Published {
    /// The data set's folder name of the GPU.
    pub gpu: &'static str,
    /// The GPU's name as the paper writes it.
    pub name: &'static str,
    pub mean: [f64; 3],
    pub median: [f64; 3],
    pub saved: f64,
    pub oracle: f64,
}

/// Table 3 of the paper, one column per GPU of the released `gpu_info`.
pub const PUBLISHED: [Published; 4] = [
    Published {
        gpu: "teslat4",
        name: "Tesla T4",
        mean: [19.2, 7.9, 19.3],
        median: [8.6, 4.5, 5.8],
        saved: 8.0,
        oracle: 16.8,
    },
    Published {
        gpu: "titanv",
        name: "Titan V",
        mean: [16.7, 6.7, 13.0],
        median: [4.5, 3.7, 3.3],
        saved: 6.0,
        oracle: 9.1,
    },
    Published {
        gpu: "titanxp",
        name: "Titan Xp",
        mean: [9.9, 5.9, 9.9],
        median: [5.3, 5.4, 6.5],
        saved: 29.0,
        oracle: 32.6,
    },
    Published {
        gpu: "gtxtitanx",
        name: "GTX Titan X",
        mean: [15.8, 5.4, 13.0],
        median: [5.3, 3.5, 6.9],
        saved: 11.5,
        oracle: 18.1,
    },
];

/// The paper's figures for a data set's GPU, if it published any.
pub fn published(gpu: &str) -> Option<&'static Published> {
    PUBLISHED.iter().find(|p| p.gpu == gpu)
}

/// The baseline figures quoted in notes/seed-003 §12 for the GTX Titan X (for comparison only).
pub const NOTES_BASELINE: [f64; 4] = [13.0, 6.5, 11.2, 2.9];

pub fn evaluate(ds: &Dataset, m: &dyn Predictor) -> Summary {
    Summary {
        model: m.name().to_string(),
        apps: ds
            .real
            .iter()
            .map(|b| score_app(ds, b, &m.predict(b)))
            .collect(),
    }
}

fn clock(ds: &Dataset, i: usize) -> String {
    format!("{}/{}", ds.grid[i].mem_mhz, ds.grid[i].core_mhz)
}

/// Per-application table of one model.
pub fn per_app(ds: &Dataset, s: &Summary) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "### {}\n", s.model);
    let _ = writeln!(
        o,
        "{:<18} {:>7} {:>7} {:>7} {:>10} {:>10} {:>8} {:>8}",
        "application", "time%", "power%", "energy%", "F_pred", "F_oracle", "saved%", "oracle%"
    );
    for a in &s.apps {
        let _ = writeln!(
            o,
            "{:<18} {:>7.1} {:>7.1} {:>7.1} {:>10} {:>10} {:>8.1} {:>8.1}",
            a.name,
            a.mean_err(0),
            a.mean_err(1),
            a.mean_err(2),
            clock(ds, a.chosen),
            clock(ds, a.oracle),
            a.saved_vs_fmax,
            a.oracle_vs_fmax
        );
    }
    o
}

/// Overall comparison of all models with the paper and the notes' baseline.
pub fn overall(ds: &Dataset, all: &[Summary]) -> String {
    let mut o = String::new();
    let paper = published(&ds.gpu);
    let _ = writeln!(
        o,
        "{}, {} test applications x {} clock pairs, trained on {} micro-benchmarks; \
         scaling factors vs the default clocks {}; errors = mean |pred-meas|/meas (the paper's \"MAE\").\n",
        paper.map_or(ds.gpu.as_str(), |p| p.name),
        ds.real.len(),
        ds.grid.len(),
        ds.micro.len(),
        clock(ds, ds.reference)
    );
    let _ = writeln!(
        o,
        "{:<48} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} | {:>8} {:>8}",
        "model", "time%", "power%", "energy%", "med.t", "med.p", "med.e", "saved%", "saved/def%"
    );
    match paper {
        Some(p) => {
            let _ = writeln!(
                o,
                "{:<48} {:>6.1} {:>6.1} {:>6.1} | {:>6.1} {:>6.1} {:>6.1} | {:>8.1} {:>8}",
                "paper: LSTM (Table 3, published)",
                p.mean[0],
                p.mean[1],
                p.mean[2],
                p.median[0],
                p.median[1],
                p.median[2],
                p.saved,
                "-"
            );
        }
        None => {
            let _ = writeln!(
                o,
                "{:<48} (the paper publishes no figures for `{}`)",
                "paper: LSTM (Table 3, published)", ds.gpu
            );
        }
    }
    if ds.gpu == "gtxtitanx" {
        let _ = writeln!(
            o,
            "{:<48} {:>6.1} {:>6.1} {:>6.1} | {:>6} {:>6} {:>6} | {:>8.1} {:>8}",
            "notes: per-clock mean baseline (quoted)",
            NOTES_BASELINE[0],
            NOTES_BASELINE[1],
            NOTES_BASELINE[2],
            "-",
            "-",
            "-",
            NOTES_BASELINE[3],
            "-"
        );
    }
    for s in all {
        let _ = writeln!(
            o,
            "{:<48} {:>6.1} {:>6.1} {:>6.1} | {:>6.1} {:>6.1} {:>6.1} | {:>8.1} {:>8.1}",
            s.model,
            s.mean_err(0),
            s.mean_err(1),
            s.mean_err(2),
            s.median_err(0),
            s.median_err(1),
            s.median_err(2),
            s.saved_vs_fmax(),
            s.saved_vs_default()
        );
    }
    if let Some(s) = all.first() {
        let _ = writeln!(
            o,
            "{:<48} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} | {:>8.1} {:>8.1}{}",
            "oracle (true min-energy clocks)",
            "",
            "",
            "",
            "",
            "",
            "",
            s.oracle_vs_fmax(),
            s.oracle_vs_default(),
            paper.map_or(String::new(), |p| format!("   (paper: {:.1})", p.oracle))
        );
    }
    let _ = writeln!(
        o,
        "\nsaved% = energy saved at the predicted min-energy clocks vs F_max {} (the paper's Table 3);\n\
         saved/def% = the same vs the default clocks {}.",
        clock(ds, ds.fmax),
        clock(ds, ds.reference)
    );
    o
}
