//! The report: everything `kerncast analyze` learned about a set of kernels, as one serde value.
//! Every output (JSON, Markdown, HTML, SARIF, the stdout table, the baseline) renders from it, so
//! they cannot disagree. The JSON form is documented in `docs/report-schema.md`; bump
//! [`SCHEMA_VERSION`] on any change that is not a pure addition.

pub mod charts;
pub mod host_totals;
pub mod html;
pub mod markdown;
pub mod shown;
pub mod table;

use crate::workload::Workload;
pub use host_totals::{HostRun, HostTotal};
use kerncast_passes::stats::Assumption;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the JSON report format.
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON Schema of [`Report`] (draft 2020-12, generated from these types with schemars),
/// as published in `docs/report-schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Report);
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    pub schema_version: u32,
    pub tool: String,
    pub tool_version: String,
    /// One entry per (kernel, workload, device).
    pub kernels: Vec<KernelReport>,
    /// Kernels that could not be analysed. A report with errors never passes the gate.
    pub errors: Vec<Failure>,
    /// Sources that define no kernel (host code, such as a `main.cu` that launches kernels
    /// defined elsewhere): nothing to predict, but their launches give workloads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_only: Vec<String>,
    /// Kernels whose every launch is in a branch the host code does not take at its values
    /// (`case 512:` of a `switch (threads)` with 256 threads): nothing to predict, and no error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_launched: Vec<NotLaunched>,
    /// Kernel templates that nothing instantiates (no explicit instantiation, no launch of an
    /// instance, no NVRTC name expression): the compiler emitted no code, so there is nothing
    /// to predict, and no error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_instantiated: Vec<NotLaunched>,
    /// Kernels in the compiled code that no analysed source defines and nothing gives a
    /// workload: instances of a library's kernel templates from its headers (CUB's, Thrust's),
    /// which the library's own code launches. Nothing to predict, and no error; a
    /// `[[kernel.workload]]` for one predicts it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub library_kernels: Vec<NotLaunched>,
    /// What the host code's launches cost together, per host file and device
    /// ([`host_totals`]), from the entries' `host_runs`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_totals: Vec<HostTotal>,
    /// The project's folder (the config's, or the one that holds every analysed input), which
    /// the Markdown and HTML show paths relative to. Not in the JSON: it would put the
    /// machine's absolute path in a file that is otherwise the same on every machine.
    #[serde(skip)]
    #[schemars(skip)]
    pub root: Option<std::path::PathBuf>,
}

/// A kernel the sources define and kerncast has nothing to predict for, and why: never
/// launched at the host code's values, or a template never instantiated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NotLaunched {
    pub kernel: String,
    pub file: String,
    pub line: Option<u32>,
    /// The launches and the branch conditions that rule each out, or what would make an
    /// instance.
    pub why: String,
}

impl NotLaunched {
    /// `reduce6<float, 512> (reduce.cu:4): the launch at line 31: … is in a branch …`
    pub fn shown(&self) -> String {
        let at = self
            .line
            .map_or(self.file.clone(), |l| format!("{}:{l}", self.file));
        format!("{} ({at}): {}", self.kernel, self.why)
    }
}

impl Report {
    pub fn new(kernels: Vec<KernelReport>, errors: Vec<Failure>) -> Report {
        let mut r = Report {
            schema_version: SCHEMA_VERSION,
            tool: "kerncast".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            kernels,
            errors,
            host_only: Vec::new(),
            not_launched: Vec::new(),
            not_instantiated: Vec::new(),
            library_kernels: Vec::new(),
            host_totals: Vec::new(),
            root: None,
        };
        name_shapes_apart(&mut r.kernels);
        // by the names a reader knows (a C++ entry's mangled name begins with its length)
        r.kernels.sort_by(|a, b| {
            natural_order(&a.shown_key(), &b.shown_key())
                .then_with(|| natural_order(&a.key(), &b.key()))
        });
        r.errors
            .sort_by(|a, b| (&a.file, a.line, &a.kernel).cmp(&(&b.file, b.line, &b.kernel)));
        r.host_totals = host_totals::totals(&r.kernels);
        r
    }

    pub fn to_json(&self) -> String {
        let mut s =
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        s.push('\n');
        s
    }
}

/// Gives the launch shape in the workload's name where two predictions of one kernel share a
/// key but not a launch (`k<<<grid, block>>>(a, w, h)` twice with other `dim3`s): a baseline
/// keyed by name would otherwise hold one of them, and `check` compare both with it.
fn name_shapes_apart(kernels: &mut [KernelReport]) {
    type Shape = ([u64; 3], [u64; 3]);
    let shape = |k: &KernelReport| -> Shape { (k.workload.grid, k.workload.block) };
    let mut shapes: BTreeMap<String, Vec<Shape>> = BTreeMap::new();
    for k in kernels.iter() {
        let seen = shapes.entry(k.key()).or_default();
        if !seen.contains(&shape(k)) {
            seen.push(shape(k));
        }
    }
    let dims = |d: [u64; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
    for k in kernels.iter_mut() {
        if shapes[&k.key()].len() > 1 {
            let (grid, block) = shape(k);
            k.workload.name = format!(
                "{} (grid {}, block {})",
                k.workload.name,
                dims(grid),
                dims(block)
            );
        }
    }
}

/// `a` against `b` with their runs of digits compared as numbers, so that a size sweep's
/// workloads come in the order of their sizes (`n=512`, `n=1024`, `n=4096`).
fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn runs(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, c) in s.char_indices().skip(1) {
            let prev = s[..i]
                .chars()
                .next_back()
                .is_some_and(|p| p.is_ascii_digit());
            if prev != c.is_ascii_digit() {
                out.push((prev, &s[start..i]));
                start = i;
            }
        }
        if !s.is_empty() {
            let digits = s[start..].starts_with(|c: char| c.is_ascii_digit());
            out.push((digits, &s[start..]));
        }
        out
    }
    for (x, y) in runs(a).into_iter().zip(runs(b)) {
        fn by_number(r: &str) -> (usize, &str) {
            let r = r.trim_start_matches('0');
            (r.len(), r)
        }
        let o = match (x, y) {
            ((true, x), (true, y)) => by_number(x).cmp(&by_number(y)),
            ((_, x), (_, y)) => x.cmp(y),
        };
        if o.is_ne() {
            return o;
        }
    }
    runs(a).len().cmp(&runs(b).len()).then_with(|| a.cmp(b))
}

/// Files written by [`write_all`].
pub const JSON_FILE: &str = "kerncast-report.json";
pub const MARKDOWN_FILE: &str = "kerncast-report.md";
pub const HTML_FILE: &str = "kerncast-report.html";

/// Writes the JSON, Markdown and HTML reports into `dir`, plus one JSON file per kernel entry
/// under `dir/kernels/`; returns the paths written, in a fixed order.
pub fn write_all(r: &Report, dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir.join("kernels"))?;
    let mut out = Vec::new();
    for (name, text) in [
        (JSON_FILE, r.to_json()),
        (MARKDOWN_FILE, markdown::render(r)),
        (HTML_FILE, html::render(r)),
    ] {
        let p = dir.join(name);
        crate::fsio::write_atomic(&p, text.as_bytes())?;
        out.push(p);
    }
    for k in &r.kernels {
        let p = dir
            .join("kernels")
            .join(format!("{}.json", entry_file_stem(k)));
        let mut text = serde_json::to_string_pretty(k).unwrap_or_default();
        text.push('\n');
        crate::fsio::write_atomic(&p, text.as_bytes())?;
        out.push(p);
    }
    remove_stale_entries(&dir.join("kernels"), &out)?;
    Ok(out)
}

/// Removes the per-entry files of an earlier run that this run did not write (a kernel renamed
/// or removed since), so the folder holds this report's entries and no others. Only `.json`
/// files are touched: anything else there is not ours.
fn remove_stale_entries(
    kernels: &std::path::Path,
    written: &[std::path::PathBuf],
) -> std::io::Result<()> {
    for e in std::fs::read_dir(kernels)?.flatten() {
        let p = e.path();
        let ours = p.extension().is_some_and(|x| x == "json") && e.file_type()?.is_file();
        if ours && !written.contains(&p) {
            std::fs::remove_file(&p)?;
        }
    }
    Ok(())
}

/// The longest file stem an entry's file gets: file systems allow 255 bytes a name.
const MOST_STEM_BYTES: usize = 160;

/// The stem of an entry's file under `kernels/`: its kernel, workload and device, each
/// character outside `[A-Za-z0-9_-]` as `_`; a stem longer than [`MOST_STEM_BYTES`] (a workload
/// of many parameters) is cut, and ends with a hash of the whole, so that it stays unique.
fn entry_file_stem(k: &KernelReport) -> String {
    let whole = format!("{}-{}-{}", k.display_name, k.workload.name, k.device);
    let stem: String = whole
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.len() <= MOST_STEM_BYTES {
        return stem;
    }
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(whole.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", &stem[..MOST_STEM_BYTES - 17])
}

/// Where a kernel (or a line of it) is in its source.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SourceLoc {
    /// As given (relative to the working directory or the config's folder).
    pub file: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelReport {
    /// The PTX entry name.
    pub kernel: String,
    /// The name in the source (demangled when the entry is C++-mangled).
    pub display_name: String,
    pub source: Option<SourceLoc>,
    pub frontend: String,
    /// sha256 of the PTX the prediction was made from.
    pub ptx_sha256: String,
    pub device: String,
    pub model: String,
    pub workload: Workload,
    pub prediction: Prediction,
    pub breakdown: Vec<Component>,
    pub roofline: Option<Roofline>,
    pub dvfs: Vec<DvfsPoint>,
    pub scaling: Option<Scaling>,
    /// Source lines carrying the most predicted time, most first.
    pub hot_lines: Vec<HotLine>,
    /// Bound feature counts, by their stable key (`op.fma.f32.thread` …).
    pub counts: BTreeMap<String, f64>,
    /// Instructions the counter could not classify, by opcode. Never dropped.
    pub unknowns: BTreeMap<String, f64>,
    /// What the counts assume (a data-dependent trip count, an unknown instruction), each
    /// with its key, value and why (kerncast-passes' `stats::Assumption`).
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub assumptions: Vec<Assumption>,
    pub resources: Resources,
    /// Caveats, e.g. which parts of the pipeline are approximations.
    pub notes: Vec<String>,
    /// Counting back end that produced `counts` (`symbolic`, `emulator`); `notes` say why a
    /// kernel fell back to the emulator.
    #[serde(default)]
    pub counter: String,
    /// Every model at the default clocks, beside the one `model` chose, so a reader sees how far
    /// they agree (or why one could not run).
    #[serde(default)]
    pub models: Vec<ModelResult>,
    /// The launches in host code this entry stands for, and how often each runs: what
    /// [`Report::host_totals`] adds up. Empty for workloads written for kerncast.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_runs: Vec<HostRun>,
}

/// A failure's message for a terminal: its first line as is, the rest (a compiler's command
/// line and its diagnostics, word for word) on lines indented by `indent`.
pub fn verbatim(message: &str, indent: &str) -> String {
    let mut lines = message.trim_end().lines();
    let mut s = lines.next().unwrap_or("").to_string();
    for l in lines {
        s.push('\n');
        s.push_str(indent);
        s.push_str(l);
    }
    s
}

/// One model's time at the default clocks, or why it could not predict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelResult {
    pub model: String,
    pub time_s: Option<f64>,
    pub bottleneck: Option<String>,
    pub error: Option<String>,
}

impl KernelReport {
    /// [`KernelReport::key`] with the source name in place of the PTX entry's: the report's
    /// order.
    fn shown_key(&self) -> String {
        let file = self.source.as_ref().map(|s| s.file.as_str()).unwrap_or("");
        format!(
            "{file}::{}::{}@{}",
            self.display_name, self.workload.name, self.device
        )
    }

    /// Identity of an entry in baselines and gates: `file::kernel::workload@device`.
    pub fn key(&self) -> String {
        let file = self.source.as_ref().map(|s| s.file.as_str()).unwrap_or("");
        format!(
            "{file}::{}::{}@{}",
            self.kernel, self.workload.name, self.device
        )
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Resources {
    pub regs_per_thread: Option<u32>,
    pub shared_bytes_per_block: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Prediction {
    pub time_s: f64,
    /// `None` when the device profile lacks the power data the model needs (see `notes`).
    pub power_w: Option<f64>,
    pub energy_j: Option<f64>,
    /// What limits the kernel (`dram`, `compute`, `latency`, `launch` …).
    pub bottleneck: String,
    /// Relative uncertainty (low, high), e.g. (-0.2, 0.3), when the model gives one.
    pub error_band: Option<[f64; 2]>,
}

/// One part of the predicted time and energy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Component {
    pub name: String,
    pub time_s: f64,
    pub energy_j: f64,
}

/// Position on the roofline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Roofline {
    /// Floating-point operations: CUDA-core ops (fma = 2) and tensor-core multiply–adds (× 2).
    pub flops: f64,
    /// The tensor cores' share of `flops`.
    #[serde(default)]
    pub tensor_flops: f64,
    /// Global bytes from DRAM: the sectors that miss the L2.
    pub dram_bytes: f64,
    /// The L2 hit rate `dram_bytes` takes, as the models do (a hint, the reuse profile, or 0).
    #[serde(default)]
    pub l2_hit_rate: f64,
    /// flops per DRAM byte.
    pub intensity: f64,
    /// Achieved flop/s at the predicted time.
    pub flops_per_s: f64,
    /// The CUDA cores' f32 peak (an fma a lane a clock).
    pub peak_flops_per_s: f64,
    pub peak_bytes_per_s: f64,
    /// Other compute ceilings for the work the kernel does (`fp64`, `tensor f16→f32`).
    #[serde(default)]
    pub ceilings: Vec<Ceiling>,
    /// The kernel's place under the L2's roof, where its traffic there and the L2's measured
    /// throughput are known.
    #[serde(default)]
    pub l2: Option<L2Level>,
}

/// The L2 level of a hierarchical roofline: the bytes that reach the L2 and the rate it serves
/// them at, for this kernel's mix of reads and writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct L2Level {
    pub bytes: f64,
    /// flops per L2 byte.
    pub intensity: f64,
    /// The L2's measured read and write throughput, weighted by this kernel's reads and writes.
    pub peak_bytes_per_s: f64,
}

/// A compute ceiling of the roofline: a pipe's peak flop rate on the device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ceiling {
    pub name: String,
    pub flops_per_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DvfsPoint {
    pub core_mhz: f64,
    pub mem_mhz: f64,
    pub time_s: f64,
    pub power_w: f64,
    pub energy_j: f64,
    /// On the time/energy Pareto front.
    pub pareto: bool,
}

/// Predicted time and energy as the size parameter varies, from the symbolic counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Scaling {
    pub param: String,
    pub points: Vec<ScalingPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScalingPoint {
    pub value: i64,
    pub time_s: f64,
    pub energy_j: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HotLine {
    pub loc: SourceLoc,
    /// The source text of the line, when the file could be read.
    pub text: Option<String>,
    pub time_s: f64,
    pub energy_j: f64,
    /// Share of the kernel's predicted time, 0–1.
    pub share: f64,
}

/// A kernel (or file) that could not be analysed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Failure {
    pub file: String,
    pub line: Option<u32>,
    pub kernel: Option<String>,
    pub stage: String,
    pub message: String,
}

impl Failure {
    /// One failure for each that repeats word for word (every value of a swept host loop, when
    /// what fails is not the swept value), first ones first, saying how many it stands for.
    pub fn merge_repeated(all: Vec<Failure>) -> Vec<Failure> {
        let mut out: Vec<(Failure, usize)> = Vec::new();
        for f in all {
            match out.iter_mut().find(|(o, _)| *o == f) {
                Some((_, n)) => *n += 1,
                None => out.push((f, 1)),
            }
        }
        out.into_iter()
            .map(|(mut f, n)| {
                if n > 1 {
                    f.message
                        .push_str(&format!(" (the same for {n} workloads)"));
                }
                f
            })
            .collect()
    }
}

/// Fixed formatting of quantities, so text outputs are deterministic and readable.
pub fn fmt_time(s: f64) -> String {
    let a = s.abs();
    if a == 0.0 {
        "0 s".into()
    } else if a < 1e-6 {
        format!("{:.3} ns", s * 1e9)
    } else if a < 1e-3 {
        format!("{:.3} µs", s * 1e6)
    } else if a < 1.0 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

pub fn fmt_energy(j: f64) -> String {
    let a = j.abs();
    if a == 0.0 {
        "0 J".into()
    } else if a < 1e-6 {
        format!("{:.3} nJ", j * 1e9)
    } else if a < 1e-3 {
        format!("{:.3} µJ", j * 1e6)
    } else if a < 1.0 {
        format!("{:.3} mJ", j * 1e3)
    } else {
        format!("{j:.3} J")
    }
}

pub fn fmt_power(w: Option<f64>) -> String {
    w.map(|w| format!("{w:.1} W")).unwrap_or_else(|| "–".into())
}

/// Energy that may be unknown (no power data for the device).
pub fn fmt_energy_opt(j: Option<f64>) -> String {
    j.map(fmt_energy).unwrap_or_else(|| "–".into())
}

#[cfg(test)]
pub(crate) mod sample {
    //! A small report for renderer tests.
    use super::*;

    pub fn report() -> Report {
        let k = KernelReport {
            counter: "symbolic".into(),
            models: vec![ModelResult {
                model: "schedule".into(),
                time_s: Some(3.0e-6),
                bottleneck: Some("latency".into()),
                error: None,
            }],
            kernel: "_Z5saxpyifPKfPf".into(),
            display_name: "saxpy".into(),
            source: Some(SourceLoc {
                file: "k/saxpy.cu".into(),
                line: 3,
            }),
            frontend: "nvcc".into(),
            ptx_sha256: "ab".repeat(32),
            device: "gtx-titan-x".into(),
            model: "test".into(),
            workload: Workload {
                name: "n=4096".into(),
                grid: [16, 1, 1],
                block: [256, 1, 1],
                params: [("n".to_string(), 4096)].into_iter().collect(),
                hints: BTreeMap::new(),
                buffers: BTreeMap::new(),
            },
            prediction: Prediction {
                time_s: 2.5e-6,
                power_w: Some(120.0),
                energy_j: Some(3.0e-4),
                bottleneck: "dram".into(),
                error_band: Some([-0.2, 0.25]),
            },
            breakdown: vec![
                Component {
                    name: "dram".into(),
                    time_s: 2.0e-6,
                    energy_j: 2.4e-4,
                },
                Component {
                    name: "compute".into(),
                    time_s: 0.5e-6,
                    energy_j: 0.6e-4,
                },
            ],
            roofline: Some(Roofline {
                flops: 8192.0,
                tensor_flops: 0.0,
                dram_bytes: 49152.0,
                l2_hit_rate: 0.25,
                intensity: 8192.0 / 49152.0,
                flops_per_s: 8192.0 / 2.5e-6,
                peak_flops_per_s: 6.1e12,
                peak_bytes_per_s: 336e9,
                ceilings: vec![Ceiling {
                    name: "fp64".into(),
                    flops_per_s: 0.19e12,
                }],
                l2: Some(L2Level {
                    bytes: 98304.0,
                    intensity: 8192.0 / 98304.0,
                    peak_bytes_per_s: 1.2e12,
                }),
            }),
            dvfs: vec![
                DvfsPoint {
                    core_mhz: 1000.0,
                    mem_mhz: 3505.0,
                    time_s: 2.5e-6,
                    power_w: 120.0,
                    energy_j: 3.0e-4,
                    pareto: true,
                },
                DvfsPoint {
                    core_mhz: 600.0,
                    mem_mhz: 3505.0,
                    time_s: 3.0e-6,
                    power_w: 80.0,
                    energy_j: 2.4e-4,
                    pareto: true,
                },
                DvfsPoint {
                    core_mhz: 600.0,
                    mem_mhz: 810.0,
                    time_s: 9.0e-6,
                    power_w: 60.0,
                    energy_j: 5.4e-4,
                    pareto: false,
                },
            ],
            scaling: Some(Scaling {
                param: "n".into(),
                points: vec![
                    ScalingPoint {
                        value: 1024,
                        time_s: 1.0e-6,
                        energy_j: 1.0e-4,
                    },
                    ScalingPoint {
                        value: 4096,
                        time_s: 2.5e-6,
                        energy_j: 3.0e-4,
                    },
                ],
            }),
            hot_lines: vec![HotLine {
                loc: SourceLoc {
                    file: "k/saxpy.cu".into(),
                    line: 5,
                },
                text: Some("y[i] = a * x[i] + y[i];".into()),
                time_s: 2.0e-6,
                energy_j: 2.4e-4,
                share: 0.8,
            }],
            counts: [("threads".to_string(), 4096.0)].into_iter().collect(),
            unknowns: BTreeMap::new(),
            assumptions: vec![],
            resources: Resources::default(),
            notes: vec![],
            host_runs: vec![],
        };
        Report::new(vec![k], vec![])
    }
}

#[cfg(test)]
mod tests {
    use super::natural_order;

    /// Twenty workloads that fail alike are one error that says so; another stays apart.
    #[test]
    fn repeated_failures_are_merged_in_order() {
        let fail = |kernel: &str, message: &str| super::Failure {
            file: "k.cu".into(),
            line: Some(2),
            kernel: Some(kernel.into()),
            stage: "count".into(),
            message: message.into(),
        };
        let mut all = vec![fail("a", "needs j"); 20];
        all.insert(3, fail("b", "needs n"));
        let merged = super::Failure::merge_repeated(all);
        assert_eq!(
            merged,
            [
                fail("a", "needs j (the same for 20 workloads)"),
                fail("b", "needs n")
            ]
        );
    }

    /// A second run into the same folder leaves only its own per-entry files: the entry of a
    /// kernel renamed since is removed, a file that is not an entry's stays.
    #[test]
    fn stale_entry_files_of_an_earlier_run_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::sample::report();
        super::write_all(&first, dir.path()).unwrap();
        let kernels = dir.path().join("kernels");
        std::fs::write(kernels.join("README.txt"), "mine").unwrap();
        let mut renamed = first.clone();
        renamed.kernels[0].display_name = "saxpy2".into();
        let written = super::write_all(&renamed, dir.path()).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&kernels)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["README.txt", "saxpy2-n_4096-gtx-titan-x.json"]);
        assert!(written
            .iter()
            .any(|p| p.ends_with("saxpy2-n_4096-gtx-titan-x.json")));
    }

    #[test]
    fn an_entry_s_file_name_is_cut_to_fit_and_stays_unique() {
        let mut k = super::sample::report().kernels.remove(0);
        assert_eq!(super::entry_file_stem(&k), "saxpy-n_4096-gtx-titan-x");
        let many: Vec<String> = (0..40).map(|i| format!("a.sizes[{i}]=4096")).collect();
        k.workload.name = many.join(",");
        let long = super::entry_file_stem(&k);
        assert_eq!(long.len(), super::MOST_STEM_BYTES);
        k.workload.name.push('1');
        let other = super::entry_file_stem(&k);
        assert_eq!(other.len(), super::MOST_STEM_BYTES);
        assert_ne!(long, other);
        assert_eq!(long[..140], other[..140]);
    }

    #[test]
    fn two_launches_of_one_name_and_other_shapes_get_apart_in_their_keys() {
        let one = super::sample::report().kernels[0].clone();
        let mut other = one.clone();
        other.workload.grid = [8, 1, 1];
        other.workload.block = [512, 1, 1];
        let same = one.clone();
        let r = super::Report::new(vec![one, other, same], vec![]);
        let names: Vec<&str> = r.kernels.iter().map(|k| k.workload.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "n=4096 (grid 8x1x1, block 512x1x1)",
                "n=4096 (grid 16x1x1, block 256x1x1)",
                "n=4096 (grid 16x1x1, block 256x1x1)",
            ]
        );
        // one shape keeps its name
        let lone = super::Report::new(vec![r.kernels[0].clone()], vec![]);
        assert_eq!(lone.kernels[0].workload.name, r.kernels[0].workload.name);
        let plain = super::sample::report();
        assert_eq!(plain.kernels[0].workload.name, "n=4096");
    }

    /// C++ entries sort by their source names, not by their mangled ones (`_Z5scale…` before
    /// `_Z9butterfly…`), and each kernel's workloads by their numbers.
    #[test]
    fn entries_sort_by_source_name_then_workload() {
        let entry = |ptx: &str, name: &str, workload: &str| {
            let mut k = super::sample::report().kernels.remove(0);
            (k.kernel, k.display_name) = (ptx.into(), name.into());
            k.workload.name = workload.into();
            k
        };
        let r = super::Report::new(
            vec![
                entry("_Z5scaleP6float2if", "scale", "n=1024"),
                entry("_Z9butterflyP6float2ii", "butterfly", "stage=10"),
                entry("_Z9butterflyP6float2ii", "butterfly", "stage=2"),
            ],
            vec![],
        );
        let order: Vec<String> = r
            .kernels
            .iter()
            .map(|k| format!("{} {}", k.display_name, k.workload.name))
            .collect();
        assert_eq!(
            order,
            ["butterfly stage=2", "butterfly stage=10", "scale n=1024"]
        );
    }

    #[test]
    fn workloads_sort_by_their_numbers() {
        let mut keys = vec![
            "a.cu::k::n=4096@gpu",
            "a.cu::k::n=512@gpu",
            "a.cu::k::n=1024@gpu",
            "a.cu::k::n=1024,m=2@gpu",
            "a.cu::j::n=99999@gpu",
            "a.cu::k::n=0512@gpu",
        ];
        keys.sort_by(|a, b| natural_order(a, b));
        assert_eq!(
            keys,
            [
                "a.cu::j::n=99999@gpu",
                "a.cu::k::n=0512@gpu",
                "a.cu::k::n=512@gpu",
                "a.cu::k::n=1024,m=2@gpu",
                "a.cu::k::n=1024@gpu",
                "a.cu::k::n=4096@gpu",
            ]
        );
    }
}
