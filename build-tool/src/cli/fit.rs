//! `kerncast fit --measurements FILE --device NAME`: fits the linear model (Stevens &
//! Klöckner's features, [`kerncast_models::linear`]) on measured launch times, judges it by
//! 5-fold cross-validation grouped by program (a program's launches are never both fitted and
//! tested), prints its figures beside the roofline's on the same launches, and writes the
//! weights fitted on every row into the device profile's `[linear]` table, each with its
//! provenance.
//!
//! The measurements are `kerncast realcode --json` rows: each carries the launch's program,
//! its measured time and the features kerncast counted for it (`counts`, keys `linear.*`). Rows
//! without a prediction (and so without features) or a measured time are left out and counted.

use kerncast_models::linear::{self, Measurement};
use miette::{miette, IntoDiagnostic};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// `kerncast realcode --json` rows: program, kernel, measured_time_ns, counts.
    #[arg(long)]
    pub measurements: PathBuf,
    /// The device profile the weights are for (`rtx-3080`).
    #[arg(long)]
    pub device: String,
    /// The profile file to write (default: devices/<device>.toml found from the working
    /// directory up).
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// Print the figures only; leave the profile as it is.
    #[arg(long)]
    pub dry_run: bool,
    /// Folds of the cross-validation (grouped by program).
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
}

#[derive(Deserialize)]
struct Row {
    program: String,
    kernel: String,
    #[serde(default)]
    launch: u32,
    #[serde(default)]
    measured_time_ns: Option<f64>,
    #[serde(default)]
    roofline_time_ns: Option<f64>,
    #[serde(default)]
    counts: BTreeMap<String, f64>,
}

/// A program's fold: a fixed hash of its name (FNV-1a), so folds do not depend on the order of
/// the rows or on the data.
fn fold_of(program: &str, folds: usize) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in program.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % folds as u64) as usize
}

fn profile_path(device: &str) -> PathBuf {
    let here = std::env::current_dir().unwrap_or_default();
    for a in here.ancestors() {
        let p = a.join("devices").join(format!("{device}.toml"));
        if p.is_file() {
            return p;
        }
    }
    PathBuf::from("devices").join(format!("{device}.toml"))
}

pub fn run(args: Args) -> miette::Result<()> {
    if args.folds < 2 {
        return Err(miette!("--folds must be at least 2"));
    }
    let text = std::fs::read_to_string(&args.measurements)
        .map_err(|e| miette!("{}: cannot read: {e}", args.measurements.display()))?;
    let rows: Vec<Row> = serde_json::from_str(&text).map_err(|e| {
        miette!(
            "{}:{}:{}: not kerncast realcode --json rows: {e}",
            args.measurements.display(),
            e.line(),
            e.column()
        )
    })?;
    let total = rows.len();
    let usable: Vec<(&Row, Measurement)> = rows
        .iter()
        .filter_map(|r| {
            let t = r.measured_time_ns.filter(|t| *t > 0.0)?;
            let features: BTreeMap<String, f64> = r
                .counts
                .iter()
                .filter_map(|(k, v)| k.strip_prefix("linear.").map(|k| (k.to_string(), *v)))
                .collect();
            if features.is_empty() {
                return None;
            }
            Some((
                r,
                Measurement {
                    kernel: format!("{}/{}", r.program, r.kernel),
                    workload: format!("launch {}", r.launch),
                    features,
                    seconds: t * 1e-9,
                },
            ))
        })
        .collect();
    let programs: BTreeSet<&str> = usable.iter().map(|(r, _)| r.program.as_str()).collect();
    println!(
        "{}: {} rows; {} with a measured time and kerncast's features, from {} programs",
        args.measurements.display(),
        total,
        usable.len(),
        programs.len()
    );
    if programs.len() < args.folds {
        return Err(miette!(
            "{} programs with features: too few for {}-fold cross-validation grouped by program",
            programs.len(),
            args.folds
        ));
    }
    // cross-validation grouped by program
    let mut cv: Vec<Option<f64>> = vec![None; usable.len()];
    for f in 0..args.folds {
        let train: Vec<Measurement> = usable
            .iter()
            .filter(|(r, _)| fold_of(&r.program, args.folds) != f)
            .map(|(_, m)| m.clone())
            .collect();
        if train.is_empty() {
            continue;
        }
        let fit = linear::fit(&train, true).map_err(|e| miette!("fold {f}: {e}"))?;
        for (i, (r, m)) in usable.iter().enumerate() {
            if fold_of(&r.program, args.folds) == f {
                cv[i] = Some(linear::predict_time(&fit.weights, &m.features).0 * 1e9);
            }
        }
    }
    let same: Vec<(f64, f64, f64)> = usable
        .iter()
        .zip(&cv)
        .filter_map(|((r, m), p)| {
            Some((
                (*p)?,
                r.roofline_time_ns.filter(|t| *t > 0.0)?,
                m.seconds * 1e9,
            ))
        })
        .collect();
    let lin: Vec<(f64, f64)> = same.iter().map(|(p, _, m)| (*p, *m)).collect();
    let roof: Vec<(f64, f64)> = same.iter().map(|(_, r, m)| (*r, *m)).collect();
    for (name, pairs) in [
        (format!("linear, {}-fold CV by program", args.folds), &lin),
        ("roofline".to_string(), &roof),
    ] {
        let (mae, w2, rho) = crate::realcode::time_figures(pairs);
        println!(
            "time ({name}, {} launches): median abs error {:.1} %, within 2x {:.1} %, rank correlation {:.3}",
            pairs.len(),
            100.0 * mae,
            100.0 * w2,
            rho
        );
    }
    let all: Vec<Measurement> = usable.iter().map(|(_, m)| m.clone()).collect();
    let fit = linear::fit(&all, true).map_err(|e| miette!("{e}"))?;
    let (mae, w2, _) = crate::realcode::time_figures(&lin);
    let provenance = format!(
        "kerncast fit --measurements {} --device {}: NNLS on relative error over {} measured launches of {} programs ({}); {}-fold CV grouped by program: median abs error {:.1} %, within 2x {:.1} %; fit geomean rel error {:.3}",
        args.measurements
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default(),
        args.device,
        usable.len(),
        programs.len(),
        programs.iter().copied().collect::<Vec<_>>().join(" "),
        args.folds,
        100.0 * mae,
        100.0 * w2,
        fit.geomean_rel_error
    );
    let nonzero: Vec<(&String, &f64)> = fit.weights.iter().filter(|(_, w)| **w > 0.0).collect();
    println!("weights (fitted on every row; {} of {} features non-zero):", nonzero.len(), fit.weights.len());
    for (k, w) in &nonzero {
        println!("  {k:<40} {w:.4e} s");
    }
    if args.dry_run {
        return Ok(());
    }
    let path = args.profile.clone().unwrap_or_else(|| profile_path(&args.device));
    write_linear(&path, &fit.weights, &provenance)?;
    println!("weights written to {} [linear]", path.display());
    Ok(())
}

/// Replaces the `[linear]` table of a profile (its other text kept as written).
fn write_linear(path: &Path, weights: &BTreeMap<String, f64>, source: &str) -> miette::Result<()> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| miette!("{}: cannot read the device profile: {e}", path.display()))?;
    let mut out = String::new();
    let mut skipping = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            skipping = t == "[linear]";
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out.push_str("\n[linear]\n");
    let src = source.replace('\\', "\\\\").replace('"', "\\\"");
    for (k, w) in weights.iter().filter(|(_, w)| **w > 0.0) {
        out.push_str(&format!("\"{k}\" = {{ value = {w:e}, source = \"{src}\" }}\n"));
    }
    // the profile must still load
    toml::from_str::<toml::Value>(&out)
        .into_diagnostic()
        .map_err(|e| miette!("{}: the written profile would not parse: {e}", path.display()))?;
    crate::check::write_atomic(path, out.as_bytes()).map_err(|e| miette!("{}: {e}", path.display()))
}
