//! The report's data: what every view renders, and the JSON it is written as.

use crate::workload::Workload;
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
    /// The DRAM traffic the L2 model predicts, kept apart from the roofline, which a kernel
    /// without floating-point work (hashing, sorting, bit packing) does not have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram: Option<DramTraffic>,
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
    pub(super) fn shown_key(&self) -> String {
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

/// The global memory traffic of a kernel, and the part of it the L2 does not serve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DramTraffic {
    /// Bytes of the 32-byte sectors global loads and stores touch.
    pub sector_bytes: f64,
    /// The fraction of them the L2 serves (0 where the L2 model has no hit rate; its note
    /// says so).
    pub l2_hit_rate: f64,
    /// Bytes of local-memory sectors (local arrays, stack frames) that reach DRAM because the
    /// frames of the threads resident at once outgrow the L2.
    #[serde(default)]
    pub local_bytes: f64,
    /// Bytes of written sectors taken to be still dirty in the L2 when the kernel ends: they
    /// go back to DRAM after it, so a profiler does not count them in the kernel's DRAM bytes
    /// (the device's fitted `hw.l2_dirty_at_exit_bytes`, at most the bytes the kernel writes).
    #[serde(default)]
    pub dirty_at_exit_bytes: f64,
    /// The bytes that reach DRAM while the kernel runs:
    /// `sector_bytes × (1 − l2_hit_rate) − dirty_at_exit_bytes + local_bytes`.
    pub bytes: f64,
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

/// Bytes in decimal units, as Nsight Compute shows them.
pub fn fmt_bytes(b: f64) -> String {
    let a = b.abs();
    if a < 1e3 {
        format!("{b:.0} B")
    } else if a < 1e6 {
        format!("{:.3} kB", b / 1e3)
    } else if a < 1e9 {
        format!("{:.3} MB", b / 1e6)
    } else {
        format!("{:.3} GB", b / 1e9)
    }
}

pub fn fmt_power(w: Option<f64>) -> String {
    w.map(|w| format!("{w:.1} W")).unwrap_or_else(|| "–".into())
}

/// Energy that may be unknown (no power data for the device).
pub fn fmt_energy_opt(j: Option<f64>) -> String {
    j.map(fmt_energy).unwrap_or_else(|| "–".into())
}

/// One launch in the host code that a report entry stands for, and how often the host code runs
/// it at the entry's workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostRun {
    /// The host file the launch is written in.
    pub file: String,
    /// 1-based line of the launch in it.
    #[serde(default)]
    pub line: u32,
    /// Where, as the notes name it: `line 27`, `main.cu:27, called at line 40`.
    pub at: String,
    /// Runs; `None` where a loop around the launch has trips kerncast cannot count.
    pub times: Option<u64>,
    /// Why the launch is left out of its file's total; `None` when it is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_out: Option<String>,
}

/// The launches of one host file on one device, summed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HostTotal {
    pub file: String,
    /// The first of its launches' lines, for the gate's annotations.
    #[serde(default)]
    pub line: u32,
    pub device: String,
    /// Runs in the sums.
    pub launches: u64,
    pub time_s: f64,
    /// `None` when some launch in the sums has no energy (the device has no power data).
    pub energy_j: Option<f64>,
    /// Each kernel's part of the sums, the most time first.
    pub kernels: Vec<KernelShare>,
    /// Launches not in the sums, and why (`` `step` at line 31: … ``).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// The device's clock pair at which the sums take the least energy, where every launch in
    /// them has a DVFS sweep over the same pairs: one setting for the whole program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub least_energy: Option<ClockTotal>,
}

/// The sums at one clock pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockTotal {
    pub core_mhz: f64,
    pub mem_mhz: f64,
    pub time_s: f64,
    pub energy_j: f64,
}

/// One kernel's runs in a host total.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelShare {
    pub kernel: String,
    pub launches: u64,
    pub time_s: f64,
}
