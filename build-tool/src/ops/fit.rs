//! `kerncast fit --measurements FILE --device NAME`: fits the linear model on measured launch
//! times, in one of two forms: `--form scheduler` (the default; launch overhead, the roofline's
//! time and the latency of each warp's chain per wave, [`kerncast_models::sched_terms`], fitted
//! on absolute log error) or `--form stevens` (Stevens & Klöckner's counts,
//! [`kerncast_models::linear`], NNLS on relative error). It judges the fit by
//! 5-fold cross-validation grouped by program (a program's launches are never both fitted and
//! tested), prints its figures beside the roofline's on the same launches, and writes the
//! weights fitted on every row into the device profile's `[linear]` table, each with its
//! provenance. Where the rows carry measured and predicted DRAM bytes it also fits
//! `hw.l2_dirty_at_exit_bytes` ([`super::fit_dram`]) and writes it into `[hw]` the same way.
//!
//! The measurements are `kerncast realcode --json` rows: each carries the launch's program,
//! its measured time, the roofline's time and the counts kerncast made for it (`counts`: the
//! counter's features by key, and Stevens & Klöckner's under `linear.*`). Rows
//! without a prediction (and so without features) or a measured time are left out and counted.
//! A CSV of measured launches (columns program, kernel, grid, block and time_ns; gpuFLOPBench's
//! measurements.csv is one) is read too: its times are fitted on the features of the realcode
//! rows given with `--features` for the same program, kernel, grid and block.

use super::fit_dram;
use crate::Error;
use kerncast_models::linear::{self, Measurement};
use kerncast_models::sched_terms;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// `kerncast realcode --json` rows (program, kernel, measured_time_ns, counts), or a CSV
    /// of measured launches (program, kernel, grid, block, time_ns) with `--features`.
    #[arg(long)]
    pub measurements: PathBuf,
    /// With a CSV: the `kerncast realcode --json` rows whose features the CSV's launches take
    /// (matched by program, kernel, grid and block).
    #[arg(long)]
    pub features: Option<PathBuf>,
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
    /// Write the rows the weights were fitted on here (JSON, with only the counts the form
    /// reads): the data behind the weights, which `--measurements` reads back.
    #[arg(long)]
    pub write_rows: Option<PathBuf>,
    /// Folds of the cross-validation (grouped by program).
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Rows of other programs (realcode JSON) that are only predicted, never fitted: their
    /// figures are printed beside the roofline's.
    #[arg(long)]
    pub held_out: Option<PathBuf>,
    /// The device the `--held-out` rows were measured and analysed on, when it is another
    /// GPU than `--device`: the weights fitted on one GPU then predict the other's launches
    /// (the same programs may be in both; no time of the other GPU is fitted).
    #[arg(long, requires = "held_out")]
    pub held_out_device: Option<String>,
    /// Which features are fitted: `scheduler` (launch overhead, the roofline's time and the
    /// latency of each warp's chain per wave, fitted on absolute log error) or `stevens`
    /// (Stevens & Klöckner's counts, NNLS on relative error).
    #[arg(long, value_enum, default_value_t = Form::Scheduler)]
    pub form: Form,
}

/// The feature set a fit uses ([`kerncast_models::sched_terms`] or [`linear::features`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Scheduler,
    Stevens,
}

impl Form {
    fn fit(self, rows: &[Measurement]) -> kerncast_models::model::Result<linear::Fit> {
        match self {
            Form::Scheduler => linear::fit_log_l1(rows),
            Form::Stevens => linear::fit(rows, true),
        }
    }

    /// Whether the form reads a row's count `key`: the launch's size and the warp's dependent
    /// chains for the scheduler form, the `linear.*` features for Stevens'.
    fn reads(self, key: &str) -> bool {
        use kerncast_passes::stats::Feature;
        match self {
            Form::Stevens => key.starts_with("linear."),
            Form::Scheduler => {
                key == sched_terms::CHAIN_ALU
                    || key == sched_terms::CHAIN_GMEM
                    || key == sched_terms::SERIAL_ATOMICS
                    || key == sched_terms::SPIN_LANES
                    || key.parse::<Feature>().is_ok_and(|f| {
                        matches!(f, Feature::Blocks | Feature::Warps | Feature::Threads)
                            || sched_terms::is_uniform_atomic_lanes(&f)
                    })
            }
        }
    }

    fn method(self) -> &'static str {
        match self {
            Form::Scheduler => "scheduler form (const, sched.roofline, sched.chain.alu, sched.chain.gmem, sched.atomic.uniform, sched.atomic.shared_spin), least absolute log error",
            Form::Stevens => "Stevens & Klöckner features, NNLS on relative error",
        }
    }
}

#[derive(Clone, Default, Deserialize, serde::Serialize)]
struct Row {
    program: String,
    kernel: String,
    #[serde(default)]
    launch: u32,
    #[serde(default)]
    grid: [u64; 3],
    #[serde(default)]
    block: [u64; 3],
    #[serde(default)]
    measured_time_ns: Option<f64>,
    #[serde(default)]
    roofline_time_ns: Option<f64>,
    #[serde(default)]
    counts: BTreeMap<String, f64>,
    #[serde(default)]
    regs_per_thread: Option<u32>,
    #[serde(default)]
    shared_bytes_per_block: Option<u64>,
    #[serde(default)]
    measured_dram_bytes: Option<f64>,
    #[serde(default)]
    dram_bytes: Option<f64>,
    #[serde(default)]
    dram_dirty_at_exit_bytes: Option<f64>,
}

impl Row {
    /// The launch's DRAM bytes as the dirty-at-exit fit reads them, where it has both figures.
    fn dram(&self) -> Option<fit_dram::DramRow> {
        fit_dram::DramRow::from_realcode(
            &self.program,
            self.measured_dram_bytes,
            self.dram_bytes,
            self.dram_dirty_at_exit_bytes,
            &self.counts,
        )
    }
}

/// A program's fold: a fixed hash of its name (FNV-1a), so folds do not depend on the order of
/// the rows or on the data, and every launch of a program is in the same fold.
pub fn fold_of(program: &str, folds: usize) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in program.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h % folds as u64) as usize
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default()
}

fn is_csv(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"))
}

/// One measured launch of a CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvLaunch {
    pub program: String,
    /// The launched kernel's name (from `kernel_signature` where the CSV has it).
    pub kernel: String,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub time_ns: Option<f64>,
}

/// A CSV of measured launches: program, kernel, grid, block (`XxYxZ`) and time in ns
/// (`time_ns`, or `time`); `kernel_signature` names the launched kernel where `kernel` is a
/// profiler's filter.
pub fn read_csv(path: &Path) -> crate::Result<Vec<CsvLaunch>> {
    let mut rdr = csv::Reader::from_path(path)
        .map_err(|e| Error::Input(format!("{}: cannot read: {e}", path.display())))?;
    let headers = rdr
        .headers()
        .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?
        .clone();
    let pos = |name: &str| headers.iter().position(|h| h.trim() == name);
    let col = |name: &str| {
        pos(name).ok_or_else(|| Error::Input(format!("{}: no column `{name}`", path.display())))
    };
    let (p, k, g, b) = (col("program")?, col("kernel")?, col("grid")?, col("block")?);
    let t = pos("time_ns").or_else(|| pos("time")).ok_or_else(|| {
        Error::Input(format!(
            "{}: no column `time_ns` (or `time`, in ns)",
            path.display()
        ))
    })?;
    let sig = pos("kernel_signature");
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| Error::Input(format!("{}:{}: {e}", path.display(), i + 2)))?;
        let field = |c: usize| rec.get(c).unwrap_or("").trim().to_string();
        let bad = |what: &str| {
            Error::Input(format!(
                "{}:{}: `{what}` is not XxYxZ",
                path.display(),
                i + 2
            ))
        };
        let m = crate::realcode::Measured {
            program: field(p),
            kernel: field(k),
            signature: sig.map(field).unwrap_or_default(),
            launch: 0,
            grid: crate::realcode::dims(&field(g)).ok_or_else(|| bad("grid"))?,
            block: crate::realcode::dims(&field(b)).ok_or_else(|| bad("block"))?,
            exe_args: String::new(),
            time_ns: None,
            dram_bytes: None,
            sp_flops: None,
            dp_flops: None,
        };
        out.push(CsvLaunch {
            kernel: crate::realcode::launched_kernel(&m),
            program: m.program,
            grid: m.grid,
            block: m.block,
            time_ns: field(t).parse().ok(),
        });
    }
    Ok(out)
}

/// A measured launch's identity: program, kernel, grid, block.
type LaunchKey<'a> = (&'a str, &'a str, [u64; 3], [u64; 3]);

/// The CSV's launches with the features of the realcode row of the same program, kernel,
/// grid and block (the first that has features); a launch with none has no features and is
/// left out of the fit like a realcode row without a prediction.
fn rows_from_csv(csv: &[CsvLaunch], features: &[Row]) -> Vec<Row> {
    let mut by_key: BTreeMap<LaunchKey<'_>, &Row> = BTreeMap::new();
    for r in features.iter().filter(|r| !r.counts.is_empty()) {
        by_key
            .entry((r.program.as_str(), r.kernel.as_str(), r.grid, r.block))
            .or_insert(r);
    }
    csv.iter()
        .enumerate()
        .map(|(i, c)| {
            let hit = by_key.get(&(c.program.as_str(), c.kernel.as_str(), c.grid, c.block));
            Row {
                program: c.program.clone(),
                kernel: c.kernel.clone(),
                launch: i as u32 + 1,
                grid: c.grid,
                block: c.block,
                measured_time_ns: c.time_ns,
                roofline_time_ns: hit.and_then(|r| r.roofline_time_ns),
                counts: hit.map(|r| r.counts.clone()).unwrap_or_default(),
                regs_per_thread: hit.and_then(|r| r.regs_per_thread),
                shared_bytes_per_block: hit.and_then(|r| r.shared_bytes_per_block),
                ..Row::default()
            }
        })
        .collect()
}

/// The rows of fold `f` (tested) and of the other folds (fitted), by program.
pub fn split(programs: &[&str], folds: usize, f: usize) -> (Vec<usize>, Vec<usize>) {
    (0..programs.len()).partition(|&i| fold_of(programs[i], folds) != f)
}

/// Each row's time (ns) predicted by weights fitted on the other folds only.
pub fn cross_validate(
    rows: &[(&str, Measurement)],
    folds: usize,
    form: Form,
) -> crate::Result<Vec<Option<f64>>> {
    let programs: Vec<&str> = rows.iter().map(|(p, _)| *p).collect();
    let mut cv: Vec<Option<f64>> = vec![None; rows.len()];
    for f in 0..folds {
        let (train, test) = split(&programs, folds, f);
        if train.is_empty() || test.is_empty() {
            continue;
        }
        let train: Vec<Measurement> = train.iter().map(|&i| rows[i].1.clone()).collect();
        let fit = form
            .fit(&train)
            .map_err(|e| Error::Analysis(format!("fold {f}: {e}")))?;
        for i in test {
            cv[i] = Some(linear::predict_time(&fit.weights, &rows[i].1.features).0 * 1e9);
        }
    }
    Ok(cv)
}

/// One order whatever the source (realcode JSON or a CSV): a fold's NNLS problem can be
/// rank-deficient, and then which of its solutions is found depends on the row order.
fn sort_rows(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        (&a.program, &a.kernel, a.grid, a.block)
            .cmp(&(&b.program, &b.kernel, b.grid, b.block))
            .then(
                a.measured_time_ns
                    .unwrap_or(0.0)
                    .total_cmp(&b.measured_time_ns.unwrap_or(0.0)),
            )
    });
}

/// The scheduler form refitted in `folds`-fold cross-validation grouped by program on a realcode
/// run's rows of device `d`: the time model's held-out figure, as `kerncast fit --dry-run`
/// prints it for the same rows. `None` where too few programs have features.
pub fn cross_validated_time(
    rows: &[crate::realcode::Row],
    d: &kerncast_models::Device,
    folds: usize,
) -> Option<String> {
    let mut rows: Vec<Row> = rows
        .iter()
        .filter_map(|r| serde_json::from_value(serde_json::to_value(r).ok()?).ok())
        .collect();
    sort_rows(&mut rows);
    let usable = usable_rows(&rows, Some(d));
    let programs: BTreeSet<&str> = usable.iter().map(|(r, _)| r.program.as_str()).collect();
    if programs.len() < folds.max(2) {
        return None;
    }
    let labelled: Vec<(&str, Measurement)> = usable
        .iter()
        .map(|(r, m)| (r.program.as_str(), m.clone()))
        .collect();
    let cv = cross_validate(&labelled, folds, Form::Scheduler).ok()?;
    let name = format!("linear scheduler form refitted in {folds}-fold CV grouped by program");
    let (text, _) = figures_beside_roofline(&name, &usable, &cv);
    text.lines().next().map(|l| format!("{l}\n"))
}

/// The rows with a measured time and the form's features (the scheduler form's with the
/// device, else the `linear.*` counts), as measurements.
fn usable_rows<'a>(
    rows: &'a [Row],
    device: Option<&kerncast_models::Device>,
) -> Vec<(&'a Row, Measurement)> {
    rows.iter()
        .filter_map(|r| {
            let t = r.measured_time_ns.filter(|t| *t > 0.0)?;
            let features = match device {
                Some(d) => scheduler_features(r, d)?,
                None => r
                    .counts
                    .iter()
                    .filter_map(|(k, v)| k.strip_prefix("linear.").map(|k| (k.to_string(), *v)))
                    .collect(),
            };
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
        .collect()
}

/// Figures of predicted against measured times beside the roofline's on the same launches.
fn figures_beside_roofline(
    name: &str,
    rows: &[(&Row, Measurement)],
    predicted: &[Option<f64>],
) -> (String, Vec<(f64, f64)>) {
    let same: Vec<(f64, f64, f64)> = rows
        .iter()
        .zip(predicted)
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
    let mut out = String::new();
    for (name, pairs) in [(name, &lin), ("roofline", &roof)] {
        let (mae, w2, rho) = crate::realcode::time_figures(pairs);
        out += &format!(
            "time ({name}, {} launches): median abs error {:.1} %, within 2x {:.1} %, rank correlation {:.3}\n",
            pairs.len(),
            100.0 * mae,
            100.0 * w2,
            rho
        );
    }
    (out, lin)
}

/// The scheduler form's features of a realcode row: its counts read back into the counter's
/// features, the launch from its grid and block, the roofline's time from the same run, the
/// chains from its `sched.chain.*` counts. None where the row lacks the roofline's time or the
/// chains, or the device its SM limits.
fn scheduler_features(r: &Row, d: &kerncast_models::Device) -> Option<BTreeMap<String, f64>> {
    let roofline_s = r.roofline_time_ns.filter(|t| *t > 0.0)? / 1e9;
    let stats = kerncast_passes::stats::BoundStats {
        kernel: r.kernel.clone(),
        launch: Some(kerncast_passes::stats::Launch {
            grid: r.grid,
            block: r.block,
        }),
        features: r
            .counts
            .iter()
            .filter_map(|(k, v)| Some((k.parse().ok()?, *v)))
            .collect(),
        regs_per_thread: r.regs_per_thread,
        shared_bytes_per_block: r.shared_bytes_per_block,
        ..Default::default()
    };
    // the dependent chains per warp the realcode run kept beside the counts; a row made
    // before kerncast kept them has none, and so no scheduler features
    let chain = kerncast_models::schedule::chain::Chain {
        alu: *r.counts.get(sched_terms::CHAIN_ALU)?,
        gmem: *r.counts.get(sched_terms::CHAIN_GMEM)?,
    };
    // a row kept before the atomics' serial executions were counted (the H200's) charges the
    // lanes its counts class uniform, as the form then did, and no shared-memory spin
    let serial = kerncast_models::schedule::atomics::SerialExecs {
        global: r
            .counts
            .get(sched_terms::SERIAL_ATOMICS)
            .copied()
            .unwrap_or_else(|| stats.sum_where(sched_terms::is_uniform_atomic_lanes)),
        shared_spin: r
            .counts
            .get(sched_terms::SPIN_LANES)
            .copied()
            .unwrap_or(0.0),
    };
    let clocks = d.default_clocks().ok()?;
    sched_terms::features(&stats, roofline_s, Some(chain), serial, d, clocks, "linear").ok()
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

/// A profile's text rewritten by `edit`, written back only if it still parses as TOML.
fn rewrite_profile(
    path: &Path,
    edit: impl FnOnce(&str) -> crate::Result<String>,
) -> crate::Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Input(format!(
            "{}: cannot read the device profile: {e}",
            path.display()
        ))
    })?;
    let out = edit(&text)?;
    toml::from_str::<toml::Value>(&out).map_err(|e| {
        Error::Input(format!(
            "{}: the written profile would not parse: {e}",
            path.display()
        ))
    })?;
    crate::fsio::write_atomic(path, out.as_bytes())
        .map_err(|e| Error::Output(format!("{}: {e}", path.display())))
}

/// A value with its provenance, as a profile spells it.
fn sourced(value: &str, source: &str) -> String {
    let src = source.replace('\\', "\\\\").replace('"', "\\\"");
    format!("{{ value = {value}, source = \"{src}\" }}")
}

/// Replaces the `[linear]` table of a profile (its other text kept as written).
fn write_linear(path: &Path, weights: &BTreeMap<String, f64>, source: &str) -> crate::Result<()> {
    rewrite_profile(path, |text| {
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
        for (k, w) in weights.iter().filter(|(_, w)| **w > 0.0) {
            out.push_str(&format!(
                "\"{k}\" = {}\n",
                sourced(&format!("{w:e}"), source)
            ));
        }
        Ok(out)
    })
}

/// Replaces (or adds after `l2_bytes`) one value of a profile's `[hw]` table, its other text
/// kept as written.
fn write_hw_value(path: &Path, key: &str, value: u64, source: &str) -> crate::Result<()> {
    let line = format!("{key} = {}", sourced(&value.to_string(), source));
    let is = |l: &str, k: &str| {
        l.trim_start()
            .strip_prefix(k)
            .is_some_and(|r| r.trim_start().starts_with('='))
    };
    rewrite_profile(path, |text| {
        let mut out = String::new();
        let (mut in_hw, mut placed) = (false, false);
        for l in text.lines() {
            if l.trim().starts_with('[') {
                if in_hw && !placed {
                    out.push_str(&line);
                    out.push('\n');
                    placed = true;
                }
                in_hw = l.trim() == "[hw]";
            }
            if in_hw && is(l, key) {
                continue;
            }
            out.push_str(l);
            out.push('\n');
            if in_hw && !placed && is(l, "l2_bytes") {
                out.push_str(&line);
                out.push('\n');
                placed = true;
            }
        }
        if in_hw && !placed {
            out.push_str(&line);
            out.push('\n');
            placed = true;
        }
        if !placed {
            return Err(Error::Input(format!(
                "{}: the device profile has no [hw] table to write {key} into",
                path.display()
            )));
        }
        Ok(out)
    })
}

/// The dirty-at-exit amount fitted on the rows' DRAM bytes, with its cross-validation, as
/// lines for the report, and the amount with its provenance where the rows carry DRAM bytes
/// of enough programs.
fn fit_dirty_at_exit(
    rows: &[Row],
    args: &Args,
    device: &kerncast_models::Device,
    out: &mut String,
) -> Option<(u64, String)> {
    let dram = fit_dram::usable(rows.iter().filter_map(Row::dram));
    let programs: BTreeSet<&str> = dram.iter().map(|r| r.program.as_str()).collect();
    let Some(l2) = device.hw.l2_bytes.as_ref().map(|l| l.value) else {
        *out += "DRAM: the device has no hw.l2_bytes; hw.l2_dirty_at_exit_bytes is not fitted\n";
        return None;
    };
    if programs.len() < args.folds {
        *out += &format!(
            "DRAM: {} launches of {} programs move over 1 MB with a predicted count: too few to fit hw.l2_dirty_at_exit_bytes\n",
            dram.len(),
            programs.len()
        );
        return None;
    }
    let v = fit_dram::cross_validate(&dram, args.folds, l2);
    let refs: Vec<&fit_dram::DramRow> = dram.iter().collect();
    let amount = fit_dram::fit(&refs, l2);
    let pct = |n: usize| 100.0 * n as f64 / v.rows.max(1) as f64;
    let figures = format!(
        "DRAM bytes within 10 % of the measured on {} launches moving over 1 MB ({} programs): {} ({:.1} %) with none of the writes left in the L2, {} ({:.1} %) in {}-fold CV grouped by program (the folds fitted {} bytes)",
        v.rows,
        programs.len(),
        v.within_without,
        pct(v.within_without),
        v.within_cv,
        pct(v.within_cv),
        args.folds,
        v.fold_amounts
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    *out += &format!(
        "{figures}\nhw.l2_dirty_at_exit_bytes (fitted on every row): {amount} bytes, under which {} of the {} launches are within 10 %\n",
        fit_dram::within(&refs, amount as f64),
        v.rows
    );
    let source = format!(
        "kerncast fit --measurements {} --device {}: the amount of a kernel's writes a profiler's DRAM count leaves out, searched in {} KiB steps up to the L2 size for the most launches within 10 %; {figures}",
        file_name(&args.measurements),
        args.device,
        fit_dram::STEP_BYTES / 1024
    );
    Some((amount, source))
}

/// Fits the linear model as `kerncast fit` asks, writes the weights where it says, and
/// returns the cross-validation report.
pub fn fit(args: &Args) -> crate::Result<String> {
    let mut out = String::new();
    if args.folds < 2 {
        return Err(Error::Flag("--folds must be at least 2".to_string()));
    }
    let rows: Vec<Row> = if is_csv(&args.measurements) {
        let Some(f) = &args.features else {
            return Err(Error::Flag(format!(
                "{}: a CSV carries times only; give the features with --features ROWS.json (kerncast realcode --json on the same programs)",
                args.measurements.display()
            )));
        };
        let features: Vec<Row> = crate::realcode::read_rows(f)?;
        rows_from_csv(&read_csv(&args.measurements)?, &features)
    } else {
        crate::realcode::read_rows(&args.measurements)?
    };
    let total = rows.len();
    let mut rows = rows;
    sort_rows(&mut rows);
    let device = match args.form {
        Form::Scheduler => Some(
            kerncast_models::Device::load(&args.device)
                .map_err(|e| Error::Device(e.to_string()))?,
        ),
        Form::Stevens => None,
    };
    let usable = usable_rows(&rows, device.as_ref());
    let programs: BTreeSet<&str> = usable.iter().map(|(r, _)| r.program.as_str()).collect();
    if let Some(path) = &args.write_rows {
        let kept: Vec<Row> = usable
            .iter()
            .map(|(r, _)| Row {
                counts: r
                    .counts
                    .iter()
                    .filter(|(k, _)| args.form.reads(k) || fit_dram::is_written_sectors(k))
                    .map(|(k, v)| (k.clone(), *v))
                    .collect(),
                ..(*r).clone()
            })
            .collect();
        let text = serde_json::to_string_pretty(&kept)
            .map_err(|e| Error::Output(format!("{}: {e}", path.display())))?;
        crate::fsio::write_atomic(path, text.as_bytes())
            .map_err(|e| Error::Output(format!("{}: {e}", path.display())))?;
    }
    out += &format!(
        "{}: {} rows; {} with a measured time and kerncast's features, from {} programs\n",
        args.measurements.display(),
        total,
        usable.len(),
        programs.len()
    );
    if programs.len() < args.folds {
        // rows a kerncast before the dependent chains wrote have counts but no chains
        let without_chains = rows
            .iter()
            .any(|r| !r.counts.is_empty() && !r.counts.contains_key(sched_terms::CHAIN_ALU));
        let hint = if args.form == Form::Scheduler && without_chains {
            format!(
                " (rows without `{}`, which a kerncast before the scheduler form's dependent chains wrote: run `kerncast realcode --json` again)",
                sched_terms::CHAIN_ALU
            )
        } else {
            String::new()
        };
        return Err(Error::Analysis(format!(
            "{} programs with features: too few for {}-fold cross-validation grouped by program{hint}",
            programs.len(),
            args.folds
        )));
    }
    // cross-validation grouped by program
    let labelled: Vec<(&str, Measurement)> = usable
        .iter()
        .map(|(r, m)| (r.program.as_str(), m.clone()))
        .collect();
    let cv = cross_validate(&labelled, args.folds, args.form)?;
    let form = format!("{:?}", args.form).to_lowercase();
    let (text, lin) = figures_beside_roofline(
        &format!("linear {form}, {}-fold CV by program", args.folds),
        &usable,
        &cv,
    );
    out += &text;
    let all: Vec<Measurement> = usable.iter().map(|(_, m)| m.clone()).collect();
    let fit = args
        .form
        .fit(&all)
        .map_err(|e| Error::Analysis(e.to_string()))?;
    let mut held_note = String::new();
    if let Some(path) = &args.held_out {
        let held: Vec<Row> = crate::realcode::read_rows(path)?;
        let other_gpu = args
            .held_out_device
            .as_ref()
            .filter(|d| **d != args.device)
            .map(|d| kerncast_models::Device::load(d).map_err(|e| Error::Device(e.to_string())))
            .transpose()?;
        let shared: BTreeSet<&str> = held
            .iter()
            .map(|r| r.program.as_str())
            .filter(|p| programs.contains(p))
            .collect();
        if !shared.is_empty() && other_gpu.is_none() {
            return Err(Error::Input(format!(
                "{}: {} program(s) are also in the fitted rows, so they are not held out: {}",
                path.display(),
                shared.len(),
                shared.into_iter().collect::<Vec<_>>().join(" ")
            )));
        }
        let held_device = match args.form {
            Form::Scheduler => other_gpu.as_ref().or(device.as_ref()),
            Form::Stevens => None,
        };
        let held_usable = usable_rows(&held, held_device);
        let predicted: Vec<Option<f64>> = held_usable
            .iter()
            .map(|(_, m)| Some(linear::predict_time(&fit.weights, &m.features).0 * 1e9))
            .collect();
        let held_programs: BTreeSet<&str> = held_usable
            .iter()
            .map(|(r, _)| r.program.as_str())
            .collect();
        let on = match &other_gpu {
            Some(d) => format!(" on {}, another GPU than the fit's", d.name),
            None => String::new(),
        };
        out += &format!(
            "held out ({}: {} launches of {} programs{on}, predicted with the weights fitted on every row above):\n",
            path.display(),
            held_usable.len(),
            held_programs.len()
        );
        let (text, pairs) = figures_beside_roofline(
            &format!("linear {form}, held out"),
            &held_usable,
            &predicted,
        );
        out += &text;
        let (mae, w2, rho) = crate::realcode::time_figures(&pairs);
        held_note = format!(
            "; predicting the {} launches of {} held-out programs{on} in {}: median abs error {:.1} %, within 2x {:.1} %, rank correlation {:.3}",
            pairs.len(),
            held_programs.len(),
            file_name(path),
            100.0 * mae,
            100.0 * w2,
            rho
        );
    }
    let (mae, w2, rho) = crate::realcode::time_figures(&lin);
    let provenance = format!(
        "kerncast fit --measurements {}{} --device {} --form {}: {} over {} measured launches of {} programs ({}); {}-fold CV grouped by program: median abs error {:.1} %, within 2x {:.1} %, rank correlation {:.3}{held_note}; fit geomean rel error {:.3}",
        file_name(&args.measurements),
        args.features
            .as_ref()
            .map(|f| format!(" --features {}", file_name(f)))
            .unwrap_or_default(),
        args.device,
        form,
        args.form.method(),
        usable.len(),
        programs.len(),
        programs.iter().copied().collect::<Vec<_>>().join(" "),
        args.folds,
        100.0 * mae,
        100.0 * w2,
        rho,
        fit.geomean_rel_error
    );
    let nonzero: Vec<(&String, &f64)> = fit.weights.iter().filter(|(_, w)| **w > 0.0).collect();
    out += &format!(
        "weights (fitted on every row; {} of {} features non-zero):\n",
        nonzero.len(),
        fit.weights.len()
    );
    for (k, w) in &nonzero {
        out += &format!("  {k:<40} {w:.4e} s\n");
    }
    let device = match device {
        Some(d) => d,
        None => {
            kerncast_models::Device::load(&args.device).map_err(|e| Error::Device(e.to_string()))?
        }
    };
    let dirty = fit_dirty_at_exit(&rows, args, &device, &mut out);
    if args.dry_run {
        return Ok(out);
    }
    let path = args
        .profile
        .clone()
        .unwrap_or_else(|| profile_path(&args.device));
    write_linear(&path, &fit.weights, &provenance)?;
    out += &format!("weights written to {} [linear]\n", path.display());
    if let Some((amount, source)) = dirty {
        write_hw_value(&path, "l2_dirty_at_exit_bytes", amount, &source)?;
        out += &format!("hw.l2_dirty_at_exit_bytes written to {}\n", path.display());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fitted amount goes after `l2_bytes` the first time and replaces itself after that;
    /// the rest of the profile stays as written.
    #[test]
    fn a_hw_value_is_added_once_and_then_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.toml");
        let before = "name = \"d\"\n\n[hw]\nsm_count = 1 # kept\nl2_bytes = { value = 4, source = \"s\" }\nmem_bus_bits = 8\n\n[clocks]\nx = 1\n";
        std::fs::write(&p, before).unwrap();
        write_hw_value(&p, "l2_dirty_at_exit_bytes", 3, "fit \"a\"").unwrap();
        let once = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            once,
            before.replace(
                "mem_bus_bits",
                "l2_dirty_at_exit_bytes = { value = 3, source = \"fit \\\"a\\\"\" }\nmem_bus_bits"
            )
        );
        write_hw_value(&p, "l2_dirty_at_exit_bytes", 2, "fit b").unwrap();
        let twice = std::fs::read_to_string(&p).unwrap();
        assert_eq!(twice.matches("l2_dirty_at_exit_bytes").count(), 1);
        assert!(twice.contains("l2_dirty_at_exit_bytes = { value = 2, source = \"fit b\" }"));
        let no_hw = dir.path().join("e.toml");
        std::fs::write(&no_hw, "name = \"e\"\n").unwrap();
        assert!(write_hw_value(&no_hw, "k", 1, "s").is_err());
        assert_eq!(std::fs::read_to_string(&no_hw).unwrap(), "name = \"e\"\n");
    }

    /// Launch rows of `programs` programs, `per` launches each, whose times are exactly
    /// Σ w·f with the weights `truth`.
    fn synthetic(
        programs: usize,
        per: usize,
        truth: &BTreeMap<String, f64>,
    ) -> Vec<(String, Measurement)> {
        let mut out = Vec::new();
        for p in 0..programs {
            for l in 0..per {
                let x = (1 + p * 7 + l * 3) as f64;
                let features: BTreeMap<String, f64> = [
                    ("const".to_string(), 1.0),
                    ("flop.add.f32".to_string(), 1e6 * x * (1 + l % 2) as f64),
                    (
                        "gmem.load.b32.1".to_string(),
                        1e5 * (p as f64 + 1.0) * (l as f64 + 1.0),
                    ),
                    ("groups".to_string(), (16 << (l % 4)) as f64),
                ]
                .into_iter()
                .collect();
                let seconds = linear::predict_time(truth, &features).0;
                out.push((
                    format!("prog{p}"),
                    Measurement {
                        kernel: format!("prog{p}/k"),
                        workload: format!("launch {l}"),
                        features,
                        seconds,
                    },
                ));
            }
        }
        out
    }

    fn truth() -> BTreeMap<String, f64> {
        [
            ("const".to_string(), 3e-6),
            ("flop.add.f32".to_string(), 4e-13),
            ("gmem.load.b32.1".to_string(), 2e-11),
            ("groups".to_string(), 5e-9),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn the_fit_recovers_known_weights_and_cross_validation_predicts_unseen_programs() {
        let truth = truth();
        let rows = synthetic(20, 4, &truth);
        let all: Vec<Measurement> = rows.iter().map(|(_, m)| m.clone()).collect();
        let fit = linear::fit(&all, true).unwrap();
        for (k, w) in &truth {
            let got = fit.weights[k];
            assert!(
                ((got - w) / w).abs() < 1e-6,
                "{k}: fitted {got:e}, true {w:e}"
            );
        }
        let labelled: Vec<(&str, Measurement)> =
            rows.iter().map(|(p, m)| (p.as_str(), m.clone())).collect();
        let cv = cross_validate(&labelled, 5, Form::Stevens).unwrap();
        for ((p, m), c) in rows.iter().zip(&cv) {
            let c = c.unwrap_or_else(|| panic!("{p}: no held-out prediction"));
            let t = m.seconds * 1e9;
            assert!(
                ((c - t) / t).abs() < 1e-6,
                "{p}: held out {c} ns, true {t} ns"
            );
        }
    }

    #[test]
    fn a_program_is_never_split_between_fitted_and_tested() {
        let names: Vec<String> = (0..40).map(|i| format!("program-{i}-cuda")).collect();
        // several launches per program, interleaved
        let rows: Vec<&str> = (0..200).map(|i| names[(i * 7) % 40].as_str()).collect();
        let mut tested = vec![0; rows.len()];
        for f in 0..5 {
            let (train, test) = split(&rows, 5, f);
            assert!(!test.is_empty(), "fold {f} tests nothing");
            let fitted: BTreeSet<&str> = train.iter().map(|&i| rows[i]).collect();
            for &i in &test {
                assert!(
                    !fitted.contains(rows[i]),
                    "{} is both fitted and tested in fold {f}",
                    rows[i]
                );
                tested[i] += 1;
            }
            assert_eq!(train.len() + test.len(), rows.len());
        }
        assert!(
            tested.iter().all(|&n| n == 1),
            "every row is tested exactly once"
        );
    }

    #[test]
    fn a_held_out_prediction_does_not_see_its_own_programs_times() {
        let truth = truth();
        let rows = synthetic(15, 3, &truth);
        let mut poisoned = rows.clone();
        for (p, m) in poisoned.iter_mut() {
            if p == "prog3" {
                m.seconds *= 50.0;
            }
        }
        let label = |v: &[(String, Measurement)]| -> Vec<Option<f64>> {
            let l: Vec<(&str, Measurement)> =
                v.iter().map(|(p, m)| (p.as_str(), m.clone())).collect();
            cross_validate(&l, 5, Form::Stevens).unwrap()
        };
        let (clean, dirty) = (label(&rows), label(&poisoned));
        for (i, (p, _)) in rows.iter().enumerate() {
            if p == "prog3" {
                assert_eq!(
                    clean[i], dirty[i],
                    "prog3's held-out prediction moved with its own times"
                );
            }
        }
        // and the poisoned times do reach the programs fitted with them
        assert!(rows
            .iter()
            .enumerate()
            .any(|(i, (p, _))| p != "prog3" && clean[i] != dirty[i]));
    }

    #[test]
    fn a_csv_of_launches_takes_the_features_of_the_same_launch() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("m.csv");
        std::fs::write(
            &csv,
            "program,kernel,kernel_signature,grid,block,time_ns\n\
             a-cuda,step,\"step_init(float *, int)\",4x1x1,256x1x1,1500.0\n\
             a-cuda,gemm,,8x8x1,16x16x1,90000\n\
             b-cuda,gemm,,8x8x1,16x16x1,\n",
        )
        .unwrap();
        let launches = read_csv(&csv).unwrap();
        assert_eq!(
            launches[0].kernel, "step_init",
            "the signature names the launched kernel"
        );
        assert_eq!(launches[1].grid, [8, 8, 1]);
        assert_eq!(launches[2].time_ns, None);
        let feat = |program: &str, kernel: &str, grid, block, v: f64| Row {
            program: program.into(),
            kernel: kernel.into(),
            launch: 1,
            grid,
            block,
            measured_time_ns: None,
            roofline_time_ns: Some(1000.0),
            counts: [("linear.const".to_string(), v)].into_iter().collect(),
            regs_per_thread: None,
            shared_bytes_per_block: None,
            ..Row::default()
        };
        let features = vec![
            feat("a-cuda", "step_init", [4, 1, 1], [256, 1, 1], 1.0),
            feat("a-cuda", "gemm", [8, 8, 1], [16, 16, 1], 2.0),
            feat("a-cuda", "gemm", [4, 8, 1], [16, 16, 1], 3.0),
        ];
        let rows = rows_from_csv(&launches, &features);
        assert_eq!(rows[0].counts["linear.const"], 1.0);
        assert_eq!(rows[0].measured_time_ns, Some(1500.0));
        assert_eq!(
            rows[1].counts["linear.const"], 2.0,
            "same program, kernel, grid and block"
        );
        assert!(
            rows[2].counts.is_empty(),
            "another program's launch is not matched"
        );
    }

    /// `kerncast fit` reads a launch's scheduler features back from a realcode row's counts; a
    /// prediction computes them from the counter's stats. Both must see the same numbers.
    #[test]
    fn a_rows_counts_give_the_scheduler_features_the_prediction_sees() {
        use kerncast_passes::stats::{BoundStats, DType, Dir, Feature, Granularity, Launch};
        use kerncast_passes::stats::{OpKind, Space, StrideClass};
        let d = kerncast_models::Device::load("rtx-3080").unwrap();
        let launch = Launch {
            grid: [3000, 2, 1],
            block: [96, 2, 1],
        };
        let stats = BoundStats {
            kernel: "k".into(),
            launch: Some(launch),
            features: [
                (Feature::Blocks, 6000.0),
                (Feature::Warps, 36000.0),
                (Feature::Threads, 1_152_000.0),
                (
                    Feature::Op {
                        kind: OpKind::AddSub,
                        ty: DType::S32,
                        gran: Granularity::Warp,
                    },
                    7.0e6,
                ),
                (
                    Feature::Mem {
                        space: Space::Global,
                        dir: Dir::Store,
                        bits: 64,
                        stride: StrideClass::Strided { stride: 2, used: 1 },
                        nc: false,
                        gran: Granularity::Warp,
                    },
                    3.0e5,
                ),
                (
                    Feature::Mem {
                        space: Space::Global,
                        dir: Dir::Load,
                        bits: 32,
                        stride: StrideClass::Unit,
                        nc: true,
                        gran: Granularity::Warp,
                    },
                    9.0e5,
                ),
            ]
            .into_iter()
            .collect(),
            regs_per_thread: Some(128),
            shared_bytes_per_block: Some(20_000),
            ..Default::default()
        };
        let row = Row {
            program: "p".into(),
            kernel: "k".into(),
            launch: 1,
            grid: launch.grid,
            block: launch.block,
            measured_time_ns: Some(5000.0),
            roofline_time_ns: Some(1234.0),
            counts: stats
                .features
                .iter()
                .map(|(f, v)| (f.to_string(), *v))
                .chain([
                    ("flops.f32".to_string(), 1.0),
                    ("linear.const".to_string(), 1.0),
                    (sched_terms::CHAIN_ALU.to_string(), 640.0),
                    (sched_terms::CHAIN_GMEM.to_string(), 3.0),
                ])
                .collect(),
            regs_per_thread: stats.regs_per_thread,
            shared_bytes_per_block: stats.shared_bytes_per_block,
            ..Row::default()
        };
        let clocks = d.default_clocks().unwrap();
        let chain = kerncast_models::schedule::chain::Chain {
            alu: 640.0,
            gmem: 3.0,
        };
        let direct = sched_terms::features(
            &stats,
            1234e-9,
            Some(chain),
            Default::default(),
            &d,
            clocks,
            "linear",
        )
        .unwrap();
        assert_eq!(scheduler_features(&row, &d).unwrap(), direct);
        assert!(direct[sched_terms::CHAIN_GMEM] > 0.0 && direct[sched_terms::CHAIN_ALU] > 0.0);
        // a row kept before the chains were: no scheduler features, rather than a zero chain
        let mut old = row.clone();
        old.counts.remove(sched_terms::CHAIN_ALU);
        assert!(scheduler_features(&old, &d).is_none());
        // the registers limit the blocks an SM holds, so they lengthen the waves
        let unlimited = Row {
            regs_per_thread: None,
            shared_bytes_per_block: None,
            ..row
        };
        let more_resident = scheduler_features(&unlimited, &d).unwrap();
        assert!(more_resident[sched_terms::CHAIN_ALU] < direct[sched_terms::CHAIN_ALU]);
    }

    /// realcode-like rows of `programs`, timed by known scheduler-form weights.
    fn scheduler_rows(programs: std::ops::Range<usize>) -> Vec<serde_json::Value> {
        let d = kerncast_models::Device::load("rtx-3080").unwrap();
        let w: BTreeMap<String, f64> = [
            ("const", 3e-6),
            (sched_terms::ROOFLINE, 1.2),
            (sched_terms::CHAIN_ALU, 10.0),
            (sched_terms::CHAIN_GMEM, 30.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let mut out = Vec::new();
        for p in programs {
            for l in 0..3u64 {
                let blocks = 17 * (p as u64 + 1) * (l + 1) * (l + 1);
                let warps = blocks * 4;
                let counts: BTreeMap<String, f64> = [
                    ("blocks".to_string(), blocks as f64),
                    ("warps".to_string(), warps as f64),
                    ("threads".to_string(), (warps * 32) as f64),
                    (
                        "op.add_sub.s32.warp".to_string(),
                        (warps * (50 + 400 * (p as u64 % 4))) as f64,
                    ),
                    (
                        "mem.global.load.b32.stride1.warp".to_string(),
                        (warps * (2 + 7 * l)) as f64,
                    ),
                    (
                        sched_terms::CHAIN_ALU.to_string(),
                        (20 + 300 * (p as u64 % 4)) as f64,
                    ),
                    (sched_terms::CHAIN_GMEM.to_string(), (1 + 3 * l) as f64),
                ]
                .into_iter()
                .collect();
                let mut row = Row {
                    program: format!("prog{p}"),
                    kernel: "k".into(),
                    launch: l as u32 + 1,
                    grid: [blocks, 1, 1],
                    block: [128, 1, 1],
                    measured_time_ns: None,
                    roofline_time_ns: Some(1000.0 * (1 + (p * 7 + l as usize) % 50) as f64),
                    counts,
                    regs_per_thread: Some(32),
                    shared_bytes_per_block: None,
                    ..Row::default()
                };
                let f = scheduler_features(&row, &d).unwrap();
                row.measured_time_ns = Some(linear::predict_time(&w, &f).0 * 1e9);
                out.push(serde_json::json!({
                    "program": row.program, "kernel": row.kernel, "launch": row.launch,
                    "grid": row.grid, "block": row.block,
                    "measured_time_ns": row.measured_time_ns,
                    "roofline_time_ns": row.roofline_time_ns, "counts": row.counts,
                    "regs_per_thread": row.regs_per_thread,
                }));
            }
        }
        out
    }

    /// Held-out programs are predicted with the weights of the others, and their figures are
    /// printed and kept in the provenance; a "held-out" file that shares a program with the
    /// fitted rows is refused.
    #[test]
    fn held_out_programs_are_only_predicted_and_never_fitted() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, rows: Vec<serde_json::Value>| {
            let p = dir.path().join(name);
            std::fs::write(&p, serde_json::to_string(&rows).unwrap()).unwrap();
            p
        };
        let fitted = write("fit.json", scheduler_rows(0..12));
        let held = write("held.json", scheduler_rows(12..16));
        let overlapping = write("overlap.json", scheduler_rows(10..14));
        let args = |held_out: &Path| Args {
            measurements: fitted.clone(),
            features: None,
            device: "rtx-3080".into(),
            profile: None,
            dry_run: true,
            write_rows: None,
            folds: 5,
            held_out: Some(held_out.to_path_buf()),
            held_out_device: None,
            form: Form::Scheduler,
        };
        let out = fit(&args(&held)).unwrap();
        let line = out
            .lines()
            .find(|l| l.starts_with("time (linear scheduler, held out, 12 launches)"))
            .unwrap_or_else(|| panic!("no held-out line in:\n{out}"));
        assert!(line.contains("median abs error 0.0 %"), "{line}");
        let err = fit(&args(&overlapping)).unwrap_err().to_string();
        assert!(
            err.contains("prog10 prog11") && err.contains("not held out"),
            "{err}"
        );
    }

    /// A scheduler-form fit of `measurements` on the RTX 3080 that writes no profile.
    fn dry_run_args(measurements: &Path, write_rows: Option<PathBuf>) -> Args {
        Args {
            measurements: measurements.to_path_buf(),
            features: None,
            device: "rtx-3080".into(),
            profile: None,
            dry_run: true,
            write_rows,
            folds: 5,
            held_out: None,
            held_out_device: None,
            form: Form::Scheduler,
        }
    }

    /// `kerncast realcode` prints the time model's cross-validated figures as `kerncast fit
    /// --dry-run` does on the same rows.
    #[test]
    fn realcode_prints_the_fits_cross_validated_figures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.json");
        let mut rows = scheduler_rows(0..10);
        for r in rows.iter_mut() {
            r["found"] = serde_json::json!(true);
        }
        std::fs::write(&path, serde_json::to_string(&rows).unwrap()).unwrap();
        let fitted = fit(&dry_run_args(&path, None)).unwrap();
        let realcode_rows: Vec<crate::realcode::Row> = crate::realcode::read_rows(&path).unwrap();
        let d = kerncast_models::Device::load("rtx-3080").unwrap();
        let line = cross_validated_time(&realcode_rows, &d, 5).unwrap();
        let figures = |l: &str| {
            l.split_once("launches): ")
                .map(|(_, f)| f.trim().to_string())
        };
        let from_fit = fitted
            .lines()
            .find(|l| l.starts_with("time (linear scheduler, 5-fold CV by program, 30 launches)"))
            .unwrap_or_else(|| panic!("no CV line in:\n{fitted}"));
        assert!(
            line.starts_with(
                "time (linear scheduler form refitted in 5-fold CV grouped by program, 30 launches)"
            ),
            "{line}"
        );
        assert_eq!(figures(&line), figures(from_fit));
        // too few programs for the folds: no figure rather than a meaningless one
        assert!(cross_validated_time(&realcode_rows[..6], &d, 5).is_none());
    }

    /// Rows written before the chains were kept fail with what to do, not a bare count.
    #[test]
    fn rows_without_the_chains_say_to_run_realcode_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.json");
        let mut rows = scheduler_rows(0..10);
        for r in rows.iter_mut() {
            let c = r["counts"].as_object_mut().unwrap();
            c.remove(sched_terms::CHAIN_ALU);
            c.remove(sched_terms::CHAIN_GMEM);
        }
        std::fs::write(&path, serde_json::to_string(&rows).unwrap()).unwrap();
        let e = fit(&dry_run_args(&path, None)).unwrap_err().to_string();
        assert!(
            e.contains("sched.chain.alu") && e.contains("realcode"),
            "{e}"
        );
    }

    /// The rows `--write-rows` keeps (with only the counts the form reads) give the same fit.
    #[test]
    fn the_written_rows_give_the_same_weights() {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("full.json");
        let mut rows = scheduler_rows(0..10);
        for r in rows.iter_mut() {
            r["counts"]["op.add_sub.s32.thread"] = serde_json::json!(1e9);
            r["counts"]["flops.f32"] = serde_json::json!(5.0);
        }
        std::fs::write(&full, serde_json::to_string(&rows).unwrap()).unwrap();
        let kept = dir.path().join("kept.json");
        let first = fit(&dry_run_args(&full, Some(kept.clone()))).unwrap();
        let again = fit(&dry_run_args(&kept, None)).unwrap();
        let body = |out: &str| out.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(body(&first), body(&again));
        let written: Vec<Row> = crate::realcode::read_rows(&kept).unwrap();
        assert_eq!(written.len(), 30);
        assert!(written.iter().all(|r| !r.counts.contains_key("flops.f32")
            && !r.counts.contains_key("op.add_sub.s32.thread")
            && !r.counts.contains_key("op.add_sub.s32.warp")
            && r.counts.contains_key(sched_terms::CHAIN_ALU)
            && r.counts.contains_key("warps")));
    }

    #[test]
    fn the_written_profile_keeps_its_other_tables_and_replaces_linear() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.toml");
        std::fs::write(&p, "name = \"d\"\n[memory]\nbw = 1\n[linear]\n\"old\" = { value = 1.0, source = \"x\" }\n[other]\na = 2\n").unwrap();
        let w: BTreeMap<String, f64> = [("const".to_string(), 2e-6), ("zero".to_string(), 0.0)]
            .into_iter()
            .collect();
        write_linear(&p, &w, "a \"quoted\" source").unwrap();
        let v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["other"]["a"].as_integer(), Some(2));
        assert_eq!(v["memory"]["bw"].as_integer(), Some(1));
        let lin = v["linear"].as_table().unwrap();
        assert!(lin.get("old").is_none() && lin.get("zero").is_none());
        assert_eq!(lin["const"]["value"].as_float(), Some(2e-6));
        assert_eq!(lin["const"]["source"].as_str(), Some("a \"quoted\" source"));
    }
}
