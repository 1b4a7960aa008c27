//! The CI gate: compare a report with a committed baseline.
//!
//! Exit codes are the contract with CI: 0 = within thresholds, 1 = a regression, 2 = an error.
//! The gate fails closed: an analysis error is never a pass (a kernel that stops compiling must
//! not slip through as "no regression"), nor is a baseline entry that no analysed kernel
//! matches (a kernel renamed, removed or no longer analysed: removing one from the gate is a
//! deliberate `--update-baseline`), an empty baseline, or an analysis of no kernel at all. A
//! corrupt baseline is an error naming file:line. Baselines are written
//! atomically (temp file in the same folder + rename), so an interrupted `--update-baseline` never
//! leaves half a file behind.

use crate::config::Thresholds;
use crate::report::{fmt_energy, fmt_time, Failure, Report, SourceLoc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub const BASELINE_SCHEMA_VERSION: u32 = 1;

/// What a host total's gate row names instead of a kernel.
const HOST_CODE: &str = "host code";

/// The committed predictions a gate compares against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub schema_version: u32,
    /// Keyed by [`crate::report::KernelReport::key`].
    pub entries: BTreeMap<String, BaselineEntry>,
    /// What each host file's launches cost together, keyed by
    /// [`crate::report::HostTotal::key`]: a change that runs a launch more often, or adds one
    /// to a loop, leaves every entry as it was and shows here.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub host_totals: BTreeMap<String, BaselineEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineEntry {
    pub kernel: String,
    pub source: Option<SourceLoc>,
    pub time_s: f64,
    /// `None` when the device had no power data; such a metric is not gated.
    pub energy_j: Option<f64>,
    pub power_w: Option<f64>,
    /// What limited the prediction (`dram`, `fp32` …), to say whether a regression moved it.
    /// Absent in baselines written before kerncast recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<String>,
    /// The bound feature counts ([`crate::report::KernelReport::counts`]), so a regression can
    /// name the counts that moved. Absent in older baselines and for host totals.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counts: BTreeMap<String, f64>,
    /// Predicted time per source line (the report's hot lines), to name the lines whose cost
    /// grew.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<LineCost>,
}

/// Predicted time of one source line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineCost {
    pub file: String,
    pub line: u32,
    pub time_s: f64,
}

impl BaselineEntry {
    /// The entry a kernel's prediction makes.
    pub fn of_kernel(k: &crate::report::KernelReport) -> BaselineEntry {
        BaselineEntry {
            kernel: k.display_name.clone(),
            source: k.source.clone(),
            time_s: k.prediction.time_s,
            energy_j: k.prediction.energy_j,
            power_w: k.prediction.power_w,
            bottleneck: Some(k.prediction.bottleneck.clone()),
            counts: k.counts.clone(),
            lines: k
                .hot_lines
                .iter()
                .map(|h| LineCost {
                    file: h.loc.file.clone(),
                    line: h.loc.line,
                    time_s: h.time_s,
                })
                .collect(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("{file}: cannot read baseline: {source}{}", read_hint(source))]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: corrupt baseline: {message}")]
    Corrupt {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: baseline schema version {found}, this kerncast reads {expected}")]
    Version {
        file: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("{file}: cannot write baseline: {source}")]
    Write {
        file: PathBuf,
        source: std::io::Error,
    },
}

/// What to do about a baseline that is not there yet.
fn read_hint(e: &std::io::Error) -> &'static str {
    if e.kind() == std::io::ErrorKind::NotFound {
        " (write the first one with the same command and --update-baseline, then commit it)"
    } else {
        ""
    }
}

impl Baseline {
    pub fn from_report(r: &Report) -> Baseline {
        Baseline {
            schema_version: BASELINE_SCHEMA_VERSION,
            entries: r
                .kernels
                .iter()
                .map(|k| (k.key(), BaselineEntry::of_kernel(k)))
                .collect(),
            host_totals: host_total_entries(r),
        }
    }

    pub fn parse(file: &Path, text: &str) -> Result<Baseline, BaselineError> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| BaselineError::Corrupt {
            file: file.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if b.schema_version != BASELINE_SCHEMA_VERSION {
            return Err(BaselineError::Version {
                file: file.to_path_buf(),
                found: b.schema_version,
                expected: BASELINE_SCHEMA_VERSION,
            });
        }
        Ok(b)
    }

    pub fn load(file: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(file).map_err(|source| BaselineError::Read {
            file: file.to_path_buf(),
            source,
        })?;
        Baseline::parse(file, &text)
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Writes the baseline atomically: a temp file in the target's folder, then a rename.
    pub fn save(&self, file: &Path) -> Result<(), BaselineError> {
        crate::fsio::write_atomic(file, self.to_json().as_bytes()).map_err(|source| {
            BaselineError::Write {
                file: file.to_path_buf(),
                source,
            }
        })
    }
}

/// The report's host totals that sum at least one launch, as baseline entries by key.
fn host_total_entries(r: &Report) -> BTreeMap<String, BaselineEntry> {
    r.host_totals
        .iter()
        .filter(|t| t.launches > 0)
        .map(|t| {
            (
                t.key(),
                BaselineEntry {
                    kernel: HOST_CODE.into(),
                    source: Some(SourceLoc {
                        file: t.file.clone(),
                        line: t.line,
                    }),
                    time_s: t.time_s,
                    energy_j: t.energy_j,
                    power_w: None,
                    bottleneck: None,
                    counts: BTreeMap::new(),
                    lines: vec![],
                },
            )
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    Improved,
    Regressed,
    /// Not in the baseline (reported, not failing).
    New,
}

/// One metric of one entry compared with the baseline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricDelta {
    pub metric: &'static str,
    pub baseline: f64,
    pub current: f64,
    /// (current - baseline) / baseline.
    pub change: f64,
    pub threshold: f64,
    pub regressed: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub key: String,
    pub kernel: String,
    pub source: Option<SourceLoc>,
    pub status: Status,
    pub deltas: Vec<MetricDelta>,
    /// Why a regressed entry regressed, against its baseline entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<Explanation>,
}

/// What changed between a baseline entry and the current prediction of a regressed entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Explanation {
    /// The counts that moved most (by relative change), most first; at most [`MAX_MOVED`].
    pub counts: Vec<Moved>,
    /// How many more counts moved than are listed.
    pub more_counts: usize,
    /// The bottleneck before and after, when the baseline recorded it.
    pub bottleneck: Option<(String, String)>,
    /// Source lines whose predicted time grew, most first.
    pub lines: Vec<Moved>,
    /// Why there is less to say (a baseline written before counts were recorded).
    pub note: Option<String>,
}

/// One quantity before and after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub name: String,
    pub before: f64,
    pub after: f64,
}

/// How many moved counts and lines an explanation lists.
pub const MAX_MOVED: usize = 8;

/// A count moved when it changed by more than this share (or appeared, or vanished).
const MOVED_SHARE: f64 = 0.005;

fn moved(before: f64, after: f64) -> bool {
    if before == 0.0 {
        after != 0.0
    } else {
        ((after - before) / before).abs() > MOVED_SHARE
    }
}

/// Orders moves by the size of their relative change, then by name.
fn magnitude(m: &Moved) -> f64 {
    if m.before == 0.0 || m.after == 0.0 {
        f64::INFINITY
    } else {
        (m.after / m.before).ln().abs()
    }
}

/// Explains a regression of `current` against `base`.
pub fn explain(base: &BaselineEntry, current: &BaselineEntry) -> Explanation {
    let mut counts: Vec<Moved> = base
        .counts
        .keys()
        .chain(current.counts.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|k| Moved {
            name: k.clone(),
            before: base.counts.get(k).copied().unwrap_or(0.0),
            after: current.counts.get(k).copied().unwrap_or(0.0),
        })
        .filter(|m| moved(m.before, m.after))
        // the linear model's features (`linear.*`) are made of the counts listed beside them
        .filter(|m| !m.name.starts_with("linear."))
        .collect();
    // a per-warp count moves with its per-thread twin: name the thread's only
    let thread_moved: std::collections::BTreeSet<String> = counts
        .iter()
        .filter_map(|m| m.name.strip_suffix(".thread").map(str::to_string))
        .collect();
    counts.retain(|m| {
        m.name
            .strip_suffix(".warp")
            .is_none_or(|stem| !thread_moved.contains(stem))
    });
    counts.sort_by(|a, b| {
        magnitude(b)
            .partial_cmp(&magnitude(a))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.name.cmp(&b.name))
    });
    let more_counts = counts.len().saturating_sub(MAX_MOVED);
    counts.truncate(MAX_MOVED);
    let bottleneck = base.bottleneck.clone().zip(current.bottleneck.clone());
    let at = |l: &LineCost| format!("{}:{}", l.file, l.line);
    let mut lines: Vec<Moved> = current
        .lines
        .iter()
        .map(|l| Moved {
            name: at(l),
            before: base
                .lines
                .iter()
                .find(|b| b.file == l.file && b.line == l.line)
                .map_or(0.0, |b| b.time_s),
            after: l.time_s,
        })
        .filter(|m| m.after > m.before * (1.0 + MOVED_SHARE))
        .collect();
    lines.sort_by(|a, b| {
        (b.after - b.before)
            .partial_cmp(&(a.after - a.before))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.name.cmp(&b.name))
    });
    lines.truncate(MAX_MOVED);
    let note = (base.counts.is_empty() && !current.counts.is_empty()).then(|| {
        "the baseline records no counts (written by an older kerncast); \
         `--update-baseline` records them"
            .to_string()
    });
    Explanation {
        counts,
        more_counts,
        bottleneck,
        lines,
        note,
    }
}

/// A count in the terminal and the Markdown: integers as integers.
pub fn fmt_count(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

fn fmt_ratio(m: &Moved) -> String {
    if m.before == 0.0 {
        "new".into()
    } else if m.after == 0.0 {
        "gone".into()
    } else {
        format!("x{:.2}", m.after / m.before)
    }
}

impl Explanation {
    /// `counts moved: a 1 -> 8 (x8.00), …` and the other clauses, `; `-separated, for one
    /// line of text (the terminal, SARIF).
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if !self.counts.is_empty() {
            let mut c = self
                .counts
                .iter()
                .map(|m| {
                    format!(
                        "{} {} -> {} ({})",
                        m.name,
                        fmt_count(m.before),
                        fmt_count(m.after),
                        fmt_ratio(m)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            if self.more_counts > 0 {
                let _ = write!(c, " and {} more", self.more_counts);
            }
            parts.push(format!("counts moved: {c}"));
        } else if self.note.is_none() {
            parts.push("no count moved (the model or its device data did)".into());
        }
        if let Some((b, a)) = &self.bottleneck {
            if b == a {
                parts.push(format!("bottleneck {b} (unchanged)"));
            } else {
                parts.push(format!("bottleneck {b} -> {a}"));
            }
        }
        if !self.lines.is_empty() {
            parts.push(format!(
                "lines whose time grew: {}",
                self.lines
                    .iter()
                    .map(|m| format!("{} {} -> {}", m.name, fmt_time(m.before), fmt_time(m.after)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(n) = &self.note {
            parts.push(n.clone());
        }
        parts.join("; ")
    }
}

/// What the gate decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Regression,
    Error,
}

impl Verdict {
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Pass => 0,
            Verdict::Regression => 1,
            Verdict::Error => 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub verdict: Verdict,
    pub rows: Vec<Row>,
    /// Baseline entries with no current prediction (a kernel or workload was removed or
    /// renamed): an error, since the gate can no longer vouch for them.
    pub missing: Vec<String>,
    pub errors: Vec<Failure>,
    /// Why the comparison itself cannot pass (an empty baseline, nothing analysed), beside
    /// `missing` and `errors`.
    pub refusals: Vec<String>,
}

/// Thresholds for one entry: the per-kernel ones when set, else the defaults.
#[derive(Clone, Debug, Default)]
pub struct GateThresholds {
    pub default: Thresholds,
    /// By kernel display name or PTX entry name.
    pub per_kernel: BTreeMap<String, Thresholds>,
}

impl GateThresholds {
    fn for_kernel(&self, display: &str, entry: &str) -> &Thresholds {
        self.per_kernel
            .get(display)
            .or_else(|| self.per_kernel.get(entry))
            .unwrap_or(&self.default)
    }
}

/// Compares `report` with `baseline`: each entry, then each host file's total, with the
/// default thresholds.
pub fn compare(report: &Report, baseline: &Baseline, th: &GateThresholds) -> Outcome {
    let mut rows = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for k in &report.kernels {
        let key = k.key();
        seen.insert(key.clone());
        let t = th.for_kernel(&k.display_name, &k.kernel);
        let current = BaselineEntry::of_kernel(k);
        let base = baseline.entries.get(&key);
        rows.push(row(key, &current, base, t));
    }
    let totals = host_total_entries(report);
    for (key, current) in &totals {
        rows.push(row(
            key.clone(),
            current,
            baseline.host_totals.get(key),
            &th.default,
        ));
    }
    let missing: Vec<String> = baseline
        .entries
        .keys()
        .filter(|k| !seen.contains(*k))
        .chain(
            baseline
                .host_totals
                .keys()
                .filter(|k| !totals.contains_key(*k)),
        )
        .cloned()
        .collect();
    let mut refusals = Vec::new();
    if baseline.entries.is_empty() && baseline.host_totals.is_empty() {
        refusals.push(
            "the baseline has no entries: it gates nothing (write one with --update-baseline)"
                .to_string(),
        );
    }
    if report.kernels.is_empty() {
        refusals.push("no kernel was analysed: an empty analysis is never a pass".to_string());
    }
    let verdict = if !report.errors.is_empty() || !missing.is_empty() || !refusals.is_empty() {
        Verdict::Error
    } else if rows.iter().any(|r| r.status == Status::Regressed) {
        Verdict::Regression
    } else {
        Verdict::Pass
    };
    Outcome {
        verdict,
        rows,
        missing,
        errors: report.errors.clone(),
        refusals,
    }
}

/// The row of one prediction (`current`) against its baseline entry, if it has one.
fn row(key: String, current: &BaselineEntry, base: Option<&BaselineEntry>, t: &Thresholds) -> Row {
    let Some(b) = base else {
        return Row {
            key,
            kernel: current.kernel.clone(),
            source: current.source.clone(),
            status: Status::New,
            deltas: vec![],
            why: None,
        };
    };
    let mut deltas = vec![delta("time", b.time_s, current.time_s, t.time)];
    if let (Some(be), Some(ce)) = (b.energy_j, current.energy_j) {
        deltas.push(delta("energy", be, ce, t.energy));
    }
    if let (Some(th), Some(bp), Some(cp)) = (t.power, b.power_w, current.power_w) {
        deltas.push(delta("power", bp, cp, th));
    }
    let status = if deltas.iter().any(|d| d.regressed) {
        Status::Regressed
    } else if deltas.iter().any(|d| d.change < -d.threshold) {
        Status::Improved
    } else {
        Status::Ok
    };
    // Host totals carry no counts: their rows say which launches moved through the entries'.
    let why =
        (status == Status::Regressed && current.kernel != HOST_CODE).then(|| explain(b, current));
    Row {
        key,
        kernel: current.kernel.clone(),
        source: current.source.clone(),
        status,
        deltas,
        why,
    }
}

fn delta(metric: &'static str, baseline: f64, current: f64, threshold: f64) -> MetricDelta {
    let change = if baseline > 0.0 {
        (current - baseline) / baseline
    } else if current > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    // A NaN prediction is never within a threshold.
    let regressed = change > threshold || change.is_nan();
    MetricDelta {
        metric,
        baseline,
        current,
        change,
        threshold,
        regressed,
    }
}

/// A human-readable summary of the outcome.
pub fn render(o: &Outcome) -> String {
    let mut s = String::new();
    for r in &o.rows {
        let mark = match r.status {
            Status::Ok => "ok      ",
            Status::Improved => "improved",
            Status::Regressed => "REGRESS ",
            Status::New => "new     ",
        };
        let at = r
            .source
            .as_ref()
            .map(|l| format!(" ({}:{})", l.file, l.line))
            .unwrap_or_default();
        let _ = write!(s, "{mark} {}{at}", r.key);
        for d in &r.deltas {
            let (b, c) = match d.metric {
                "time" => (fmt_time(d.baseline), fmt_time(d.current)),
                "energy" => (fmt_energy(d.baseline), fmt_energy(d.current)),
                _ => (
                    format!("{:.1} W", d.baseline),
                    format!("{:.1} W", d.current),
                ),
            };
            let _ = write!(
                s,
                "  {} {b} -> {c} ({:+.1}%, limit +{:.1}%)",
                d.metric,
                d.change * 100.0,
                d.threshold * 100.0
            );
        }
        s.push('\n');
        if let Some(w) = &r.why {
            let _ = writeln!(s, "         why: {}", w.sentence());
        }
    }
    for m in &o.missing {
        let _ = writeln!(
            s,
            "missing  {m} (in the baseline, not analysed now; if it was removed on purpose, \
             run with --update-baseline)"
        );
    }
    for r in &o.refusals {
        let _ = writeln!(s, "error    {r}");
    }
    for e in &o.errors {
        let at = e
            .line
            .map(|l| format!("{}:{l}", e.file))
            .unwrap_or_else(|| e.file.clone());
        // the compiler's output in full: its words, not a summary of them
        let _ = writeln!(
            s,
            "error    {at}: {}: {}",
            e.stage,
            crate::report::verbatim(&e.message, "         ")
        );
    }
    let _ = writeln!(
        s,
        "verdict: {} (exit {})",
        verdict_words(o),
        o.verdict.exit_code()
    );
    s
}

fn verdict_words(o: &Outcome) -> &'static str {
    match o.verdict {
        Verdict::Pass => "pass",
        Verdict::Regression => "regression",
        Verdict::Error if !o.errors.is_empty() => "error (analysis failed; never a pass)",
        Verdict::Error if !o.missing.is_empty() => {
            "error (baseline entries not analysed; never a pass)"
        }
        Verdict::Error => "error (nothing to compare; never a pass)",
    }
}

fn fmt_metric(metric: &str, v: f64) -> String {
    match metric {
        "time" => fmt_time(v),
        "energy" => fmt_energy(v),
        _ => format!("{v:.1} W"),
    }
}

/// A table cell: no `|` or line break survives to break the table.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The gate's outcome as GitHub-flavoured Markdown (for `$GITHUB_STEP_SUMMARY` and
/// `kerncast-check.md`): the verdict, a row per entry, why each regression regressed, and the
/// errors with the compiler's text verbatim.
pub fn markdown(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## kerncast gate: {} (exit {})\n",
        verdict_words(o),
        o.verdict.exit_code()
    );
    if !o.rows.is_empty() {
        s.push_str("| status | entry | source | change |\n|---|---|---|---|\n");
        for r in &o.rows {
            let status = match r.status {
                Status::Ok => "ok",
                Status::Improved => "improved",
                Status::Regressed => "**regressed**",
                Status::New => "new",
            };
            let at = r
                .source
                .as_ref()
                .map(|l| format!("`{}:{}`", cell(&l.file), l.line))
                .unwrap_or_default();
            let change = r
                .deltas
                .iter()
                .map(|d| {
                    format!(
                        "{} {} → {} ({:+.1} %, limit +{:.1} %)",
                        d.metric,
                        fmt_metric(d.metric, d.baseline),
                        fmt_metric(d.metric, d.current),
                        d.change * 100.0,
                        d.threshold * 100.0
                    )
                })
                .collect::<Vec<_>>()
                .join("<br>");
            let _ = writeln!(s, "| {status} | `{}` | {at} | {change} |", cell(&r.key));
        }
    }
    for r in &o.rows {
        let Some(w) = &r.why else { continue };
        let _ = writeln!(s, "\n### Why `{}` regressed\n", r.key);
        if let Some((b, a)) = &w.bottleneck {
            if b == a {
                let _ = writeln!(s, "Bottleneck: {b} (unchanged).\n");
            } else {
                let _ = writeln!(s, "Bottleneck: {b} → **{a}**.\n");
            }
        }
        if w.counts.is_empty() {
            if w.note.is_none() {
                s.push_str("No count moved: the model or its device data did.\n");
            }
        } else {
            s.push_str("| count | baseline | now | change |\n|---|---:|---:|---:|\n");
            for m in &w.counts {
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} |",
                    cell(&m.name),
                    fmt_count(m.before),
                    fmt_count(m.after),
                    fmt_ratio(m)
                );
            }
            if w.more_counts > 0 {
                let _ = writeln!(s, "\nand {} more counts moved.", w.more_counts);
            }
        }
        if !w.lines.is_empty() {
            s.push_str("\nSource lines whose predicted time grew:\n\n");
            for m in &w.lines {
                let _ = writeln!(
                    s,
                    "- `{}`: {} → {}",
                    m.name,
                    fmt_time(m.before),
                    fmt_time(m.after)
                );
            }
        }
        if let Some(n) = &w.note {
            let _ = writeln!(s, "\n{n}.");
        }
    }
    if !o.missing.is_empty() || !o.refusals.is_empty() || !o.errors.is_empty() {
        s.push_str("\n### Errors\n\n");
    }
    for m in &o.missing {
        let _ = writeln!(
            s,
            "- `{m}`: in the baseline, not analysed now (if it was removed on purpose, run with \
             `--update-baseline`)"
        );
    }
    for r in &o.refusals {
        let _ = writeln!(s, "- {r}");
    }
    for e in &o.errors {
        let at = e
            .line
            .map(|l| format!("{}:{l}", e.file))
            .unwrap_or_else(|| e.file.clone());
        // the compiler's own words, verbatim, in a fence long enough for any backticks in them
        let fence = "`".repeat(
            3.max(
                e.message
                    .split(|c| c != '`')
                    .map(str::len)
                    .max()
                    .unwrap_or(0)
                    + 1,
            ),
        );
        let _ = writeln!(
            s,
            "- `{at}`{}: {}\n\n{fence}text\n{}\n{fence}\n",
            e.kernel
                .as_deref()
                .map(|k| format!(" ({k})"))
                .unwrap_or_default(),
            e.stage,
            e.message.trim_end()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_detects_regressions_improvements_and_errors() {
        let r = crate::report::sample::report();
        let base = Baseline::from_report(&r);
        let th = GateThresholds::default();
        assert_eq!(compare(&r, &base, &th).verdict, Verdict::Pass);

        let mut slower = r.clone();
        slower.kernels[0].prediction.energy_j = Some(3.0e-4 * 1.06);
        let o = compare(&slower, &base, &th);
        assert_eq!(o.verdict, Verdict::Regression);
        assert_eq!(o.rows[0].status, Status::Regressed);
        assert!(render(&o).contains("energy 300.000 µJ -> 318.000 µJ (+6.0%, limit +5.0%)"));

        // A per-kernel threshold lets the same growth through.
        let mut loose = th.clone();
        loose.per_kernel.insert(
            "saxpy".into(),
            Thresholds {
                energy: 0.10,
                ..Thresholds::default()
            },
        );
        assert_eq!(compare(&slower, &base, &loose).verdict, Verdict::Pass);

        let mut faster = r.clone();
        faster.kernels[0].prediction.time_s *= 0.5;
        assert_eq!(
            compare(&faster, &base, &th).rows[0].status,
            Status::Improved
        );

        let mut broken = r.clone();
        broken.errors.push(Failure {
            file: "k.cu".into(),
            line: Some(3),
            kernel: None,
            stage: "lower".into(),
            message: "syntax error".into(),
        });
        assert_eq!(compare(&broken, &base, &th).verdict, Verdict::Error);

        let mut nan = r.clone();
        nan.kernels[0].prediction.time_s = f64::NAN;
        assert_eq!(compare(&nan, &base, &th).verdict, Verdict::Regression);
    }

    /// A regression names the counts that moved (most first, a warp twin folded into its
    /// thread count), the bottleneck before and after, and the line whose time grew; the
    /// terminal, the Markdown and the SARIF message all say it.
    #[test]
    fn a_regression_says_which_counts_moved() {
        let mut r = crate::report::sample::report();
        let k = &mut r.kernels[0];
        k.counts = [
            ("sectors.global.load", 100.0),
            ("op.fma.f32.thread", 50.0),
            ("op.fma.f32.warp", 2.0),
            ("threads", 4096.0),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b))
        .collect();
        let base = Baseline::from_report(&r);
        let mut worse = r.clone();
        let w = &mut worse.kernels[0];
        w.prediction.time_s *= 2.0;
        w.prediction.bottleneck = "l2".into();
        w.hot_lines[0].time_s *= 3.0;
        w.counts.insert("sectors.global.load".into(), 800.0);
        w.counts.insert("op.fma.f32.thread".into(), 100.0);
        w.counts.insert("op.fma.f32.warp".into(), 4.0);
        let o = compare(&worse, &base, &GateThresholds::default());
        let why = o.rows[0]
            .why
            .as_ref()
            .expect("a regressed row explains itself");
        let names: Vec<&str> = why.counts.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["sectors.global.load", "op.fma.f32.thread"]);
        assert_eq!(why.bottleneck, Some(("dram".into(), "l2".into())));
        let text = render(&o);
        assert!(
            text.contains(
                "why: counts moved: sectors.global.load 100 -> 800 (x8.00), \
                 op.fma.f32.thread 50 -> 100 (x2.00); bottleneck dram -> l2; \
                 lines whose time grew: k/saxpy.cu:5 2.000 µs -> 6.000 µs"
            ),
            "{text}"
        );
        let md = markdown(&o);
        assert!(
            md.contains("| `sectors.global.load` | 100 | 800 | x8.00 |"),
            "{md}"
        );
        assert!(md.contains("Bottleneck: dram → **l2**."), "{md}");
        assert!(crate::sarif::to_json(&o).contains("Why: counts moved: sectors.global.load"));

        // a baseline from before counts were recorded says so
        let mut old = base.clone();
        for e in old.entries.values_mut() {
            e.counts.clear();
        }
        let o = compare(&worse, &old, &GateThresholds::default());
        assert!(
            render(&o).contains("the baseline records no counts"),
            "{}",
            render(&o)
        );
    }

    /// A compiler's diagnostics reach the terminal and the Markdown word for word.
    #[test]
    fn compiler_errors_are_shown_verbatim() {
        let r = crate::report::sample::report();
        let base = Baseline::from_report(&r);
        let mut broken = r.clone();
        broken.errors.push(Failure {
            file: "bad.cu".into(),
            line: Some(4),
            kernel: None,
            stage: "lower".into(),
            message: "bad.cu: nvcc failed (exit status: 1)\n  command: nvcc -ptx bad.cu\nbad.cu(4): error: expected a \";\"\n1 error detected".into(),
        });
        let o = compare(&broken, &base, &GateThresholds::default());
        let text = render(&o);
        assert!(
            text.contains("bad.cu(4): error: expected a \";\""),
            "{text}"
        );
        assert!(text.contains("1 error detected"), "{text}");
        let md = markdown(&o);
        assert!(md.contains("```text\nbad.cu: nvcc failed (exit status: 1)\n  command: nvcc -ptx bad.cu\nbad.cu(4): error"), "{md}");
    }

    /// A change that runs a launch more often leaves its entry as it was; the host file's
    /// total regresses. A baseline written before totals existed has none to compare.
    #[test]
    fn a_host_total_that_grows_is_a_regression() {
        let mut r = crate::report::sample::report();
        let runs = |times| {
            vec![crate::report::HostRun {
                file: "main.cu".into(),
                line: 12,
                at: "main.cu:12".into(),
                times: Some(times),
                left_out: None,
            }]
        };
        r.kernels[0].host_runs = runs(10);
        r.host_totals = crate::report::host_totals::totals(&r.kernels);
        let base = Baseline::from_report(&r);
        assert_eq!(
            base.host_totals.keys().collect::<Vec<_>>(),
            ["host:main.cu@gtx-titan-x"]
        );
        let th = GateThresholds::default();
        assert_eq!(compare(&r, &base, &th).verdict, Verdict::Pass);
        let mut more = r.clone();
        more.kernels[0].host_runs = runs(20);
        more.host_totals = crate::report::host_totals::totals(&more.kernels);
        let o = compare(&more, &base, &th);
        assert_eq!(o.verdict, Verdict::Regression);
        assert_eq!(o.rows[0].status, Status::Ok, "the entry");
        assert_eq!(o.rows[1].status, Status::Regressed);
        assert!(render(&o).contains(
            "REGRESS  host:main.cu@gtx-titan-x (main.cu:12)  time 25.000 µs -> 50.000 µs \
             (+100.0%, limit +5.0%)"
        ));
        // the total gone: listed as missing; an old baseline without totals: new
        let mut gone = r.clone();
        gone.kernels[0].host_runs.clear();
        gone.host_totals.clear();
        let o = compare(&gone, &base, &th);
        assert_eq!(o.missing, ["host:main.cu@gtx-titan-x"]);
        assert_eq!(o.verdict, Verdict::Error, "a missing entry fails closed");
        let mut old = base.clone();
        old.host_totals.clear();
        let text = old.to_json();
        assert!(!text.contains("host_totals"));
        let old = Baseline::parse(Path::new("b.json"), &text).unwrap();
        assert_eq!(compare(&more, &old, &th).rows[1].status, Status::New);
    }

    /// A kernel renamed or removed, most of the baseline not analysed, an empty baseline and
    /// an empty analysis all fail closed (exit 2), naming what is missing.
    #[test]
    fn the_gate_fails_closed() {
        let r = crate::report::sample::report();
        let base = Baseline::from_report(&r);
        let th = GateThresholds::default();
        let key = r.kernels[0].key();

        let mut renamed = r.clone();
        renamed.kernels[0].kernel = "saxpy_v2".into();
        renamed.kernels[0].display_name = "saxpy_v2".into();
        let o = compare(&renamed, &base, &th);
        assert_eq!(o.verdict, Verdict::Error);
        assert_eq!(o.verdict.exit_code(), 2);
        assert_eq!(o.missing, std::slice::from_ref(&key));
        let text = render(&o);
        assert!(text.contains(&format!("missing  {key}")), "{text}");
        assert!(text.contains("--update-baseline"), "{text}");

        // 7 of 8 entries not analysed
        let mut eight = base.clone();
        for i in 0..7 {
            let mut e = eight.entries[&key].clone();
            e.kernel = format!("k{i}");
            eight.entries.insert(format!("k.cu::k{i}@gtx-titan-x"), e);
        }
        let o = compare(&r, &eight, &th);
        assert_eq!((o.verdict, o.missing.len()), (Verdict::Error, 7));

        let mut empty = base.clone();
        empty.entries.clear();
        empty.host_totals.clear();
        let o = compare(&r, &empty, &th);
        assert_eq!(o.verdict, Verdict::Error);
        assert!(render(&o).contains("the baseline has no entries"));

        let mut nothing = r.clone();
        nothing.kernels.clear();
        nothing.host_totals.clear();
        let o = compare(&nothing, &empty, &th);
        assert_eq!(o.verdict, Verdict::Error);
        assert!(
            render(&o).contains("no kernel was analysed"),
            "{}",
            render(&o)
        );
    }

    #[test]
    fn baseline_roundtrip_atomic_write_and_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("sub/base.json");
        let b = Baseline::from_report(&crate::report::sample::report());
        b.save(&f).unwrap();
        assert_eq!(Baseline::load(&f).unwrap(), b);
        // Only the baseline is left in the folder: the temp file was renamed.
        assert_eq!(std::fs::read_dir(f.parent().unwrap()).unwrap().count(), 1);
        // 0666 less the umask, as any new file (the temp file alone would be 0600)
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
            let umask = std::fs::read_to_string("/proc/self/status")
                .ok()
                .and_then(|s| {
                    let l = s.lines().find(|l| l.starts_with("Umask:"))?.to_string();
                    u32::from_str_radix(l.trim_start_matches("Umask:").trim(), 8).ok()
                });
            if let Some(umask) = umask {
                assert_eq!(mode, 0o666 & !umask, "mode {mode:o}, umask {umask:o}");
            }
            assert_ne!(mode, 0o600, "not the temp file's mode");
        }

        let text = b.to_json().replacen("\"time_s\"", "\"time_s\" 1.0,", 1);
        let e = Baseline::parse(&f, &text).unwrap_err();
        match &e {
            BaselineError::Corrupt { line, .. } => assert!(*line > 1),
            other => panic!("{other}"),
        }
        assert!(e.to_string().starts_with(&format!("{}:", f.display())));
    }
}
