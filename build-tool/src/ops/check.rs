//! `kerncast check`: the CI gate. Exit 0 = within thresholds, 1 = regression, 2 = error (an
//! analysis error, an unreadable or empty baseline, a baseline entry no analysed kernel
//! matches, or an analysis of nothing never passes).

use crate::check::{self, Baseline};
use crate::fsio;
use crate::ops::analyze::{analyze_resolved, Inputs};
use crate::report::Report;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub inputs: Inputs,
    /// The committed baseline to compare with.
    #[arg(long, default_value = "kerncast-baseline.json")]
    pub baseline: PathBuf,
    /// Write the current predictions as the new baseline (atomically) instead of comparing.
    #[arg(long)]
    pub update_baseline: bool,
    /// Write SARIF 2.1.0 results here (for GitHub code scanning).
    #[arg(long)]
    pub sarif: Option<PathBuf>,
    /// Allowed relative growth of predicted time (overrides kerncast.toml; 0.05 = +5 %).
    #[arg(long)]
    pub time_threshold: Option<f64>,
    /// Allowed relative growth of predicted energy (overrides kerncast.toml).
    #[arg(long)]
    pub energy_threshold: Option<f64>,
    /// Also write the reports here.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The gate's Markdown, beside the reports in `--out`.
pub const CHECK_MD: &str = "kerncast-check.md";

/// Appends to `$GITHUB_STEP_SUMMARY` when GitHub Actions sets it (best effort: a summary that
/// cannot be written does not change the gate's verdict).
fn append_step_summary(md: &str) {
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(summary)
        {
            let _ = f.write_all(md.as_bytes());
        }
    }
}

/// What a check run decided and printed.
pub struct CheckRun {
    pub exit_code: i32,
    pub text: String,
    pub report: Option<Report>,
}

/// Runs the gate; every failure is an exit code, never an early return.
pub fn check(args: &Args) -> CheckRun {
    let errored = |text: String| CheckRun {
        exit_code: 2,
        text,
        report: None,
    };
    let resolved = match args.inputs.resolve() {
        Ok(r) => r,
        Err(e) => return errored(format!("error: {}", crate::error::render(&e))),
    };
    let report = match analyze_resolved(&resolved, args.out.as_deref()) {
        Ok(r) => r,
        Err(e) => return errored(format!("error: {}", crate::error::render(&e))),
    };
    let mut th = resolved.thresholds.clone();
    if let Some(t) = args.time_threshold {
        th.default.time = t;
    }
    if let Some(t) = args.energy_threshold {
        th.default.energy = t;
    }
    if args.update_baseline {
        if !report.errors.is_empty() {
            let o = check::compare(&report, &Baseline::from_report(&report), &th);
            return CheckRun {
                exit_code: 2,
                text: format!(
                    "{}baseline not updated: the analysis has errors\n",
                    check::render(&o)
                ),
                report: Some(report),
            };
        }
        let b = Baseline::from_report(&report);
        if b.entries.is_empty() {
            // a baseline of nothing would gate nothing; the next check refuses it anyway
            return CheckRun {
                exit_code: 2,
                text: format!(
                    "error: no kernel was analysed; baseline not written: {}\n",
                    args.baseline.display()
                ),
                report: Some(report),
            };
        }
        return match b.save(&args.baseline) {
            Ok(()) => CheckRun {
                exit_code: 0,
                text: format!(
                    "baseline written: {} ({} entries)\n",
                    args.baseline.display(),
                    b.entries.len()
                ),
                report: Some(report),
            },
            Err(e) => errored(format!("error: {e}\n")),
        };
    }
    let baseline = match Baseline::load(&args.baseline) {
        Ok(b) => b,
        Err(e) => {
            return CheckRun {
                exit_code: 2,
                text: format!("error: {e}\n"),
                report: Some(report),
            }
        }
    };
    let outcome = check::compare(&report, &baseline, &th);
    let mut text = check::render(&outcome);
    let md = check::markdown(&outcome);
    if let Some(dir) = &args.out {
        let p = dir.join(CHECK_MD);
        if let Err(e) = fsio::write_atomic(&p, md.as_bytes()) {
            text.push_str(&format!("error: cannot write {}: {e}\n", p.display()));
            return CheckRun {
                exit_code: 2,
                text,
                report: Some(report),
            };
        }
    }
    append_step_summary(&md);
    if let Some(p) = &args.sarif {
        if let Err(e) = fsio::write_atomic(p, crate::sarif::to_json(&outcome).as_bytes()) {
            text.push_str(&format!("error: cannot write {}: {e}\n", p.display()));
            return CheckRun {
                exit_code: 2,
                text,
                report: Some(report),
            };
        }
    }
    CheckRun {
        exit_code: outcome.verdict.exit_code(),
        text,
        report: Some(report),
    }
}
