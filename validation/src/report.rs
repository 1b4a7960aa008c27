//! The validation table: per application and overall, for every model, the paper's error
//! definitions and energy savings, with the paper's published GTX Titan X figures beside them.
//! Fixed-width text with fixed float formatting, so the output diffs cleanly.

use crate::data::Dataset;
use crate::metrics::{score_app, Summary};
use crate::model::Predictor;
use std::fmt::Write;

/// Published figures of Guerreiro et al. 2019, Table 3, GTX Titan X column (for comparison only).
pub const PAPER_TIME: f64 = 15.8;
pub const PAPER_POWER: f64 = 5.4;
pub const PAPER_ENERGY: f64 = 13.0;
pub const PAPER_SAVED: f64 = 11.5;
pub const PAPER_ORACLE: f64 = 18.1;
/// The baseline figures quoted in notes/seed-003 §12 (for comparison only).
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
    let _ = writeln!(
        o,
        "GTX Titan X, {} test applications x {} clock pairs, trained on {} micro-benchmarks; \
         scaling factors vs the default clocks {}; errors = mean |pred-meas|/meas (the paper's \"MAE\").\n",
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
    let _ = writeln!(
        o,
        "{:<48} {:>6.1} {:>6.1} {:>6.1} | {:>6.1} {:>6.1} {:>6.1} | {:>8.1} {:>8}",
        "paper: LSTM (Table 3, published)",
        PAPER_TIME,
        PAPER_POWER,
        PAPER_ENERGY,
        5.3,
        3.5,
        6.9,
        PAPER_SAVED,
        "-"
    );
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
            "{:<48} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} | {:>8.1} {:>8.1}   (paper: {PAPER_ORACLE:.1})",
            "oracle (true min-energy clocks)", "", "", "", "", "", "", s.oracle_vs_fmax(),
            s.oracle_vs_default()
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
