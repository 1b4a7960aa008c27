//! The one interface every model implements (Kerncraft-style plugins): counts of a kernel bound
//! to a workload, a device and a clock pair in; time, power, energy, a breakdown, the bottleneck
//! and an error band out. Reports, gates and sweeps only ever see this trait.

use crate::device::{Clocks, Device, DeviceError};
use crate::sched_inst::SchedInst;
use kerncast_passes::stats::{BoundStats, Launch};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything a model may look at for one kernel and one workload.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ModelInput {
    pub stats: BoundStats,
    /// Per CFG basic block (index as in `stats.block_execs`), its instructions in program order
    /// as the scheduler sees them. Empty when the caller has no IR; the schedule model then
    /// falls back to the class totals in `stats`.
    #[serde(default)]
    pub blocks: BTreeMap<usize, Vec<SchedInst>>,
    /// Why `blocks` is empty when the caller could not build it (a latency the device lacks),
    /// so the model that needs them says so.
    #[serde(skip)]
    pub blocks_missing: Option<String>,
    /// Per CFG basic block (index as in `stats.block_execs`), its longest dependent chains
    /// (`crate::schedule::chain`): device-free, so present where `blocks` cannot be.
    #[serde(default)]
    pub chains: BTreeMap<usize, crate::schedule::chain::Chain>,
    /// Values the static analysis cannot derive (`l2_hit_rate`, …), set by the user.
    #[serde(default)]
    pub hints: BTreeMap<String, f64>,
    /// The warp instructions the GPU's SASS issues to the FP64 pipe beyond one per PTX f64
    /// operation (a `div.rn.f64` is eight DADD/DMUL/DFMA; negative where multiplies fuse into
    /// adds), where the caller has the architecture's expansion table.
    #[serde(default)]
    pub fp64_sass_extra: Option<f64>,
    /// The atomics whose lanes all address one place by construction, and whether ptxas
    /// reduces their lanes first (`crate::schedule::atomics`).
    #[serde(default)]
    pub atomics: Vec<crate::schedule::atomics::SerialAtomic>,
}

/// Hint: the L2 hit rate of the kernel's global traffic, in [0, 1] (`crate::l2`).
pub const HINT_L2_HIT_RATE: &str = "l2_hit_rate";
/// Hint: the bytes the kernel's buffers occupy, from which the L2 hit rate follows (`crate::l2`).
pub const HINT_FOOTPRINT_BYTES: &str = "footprint_bytes";
/// The hint keys a model reads ([`ModelInput::hint`]); others are the counters' (the keys of
/// their assumptions, `param.*`, `buffer_bytes.*`).
pub const MODEL_HINTS: [&str; 2] = [HINT_L2_HIT_RATE, HINT_FOOTPRINT_BYTES];

impl ModelInput {
    pub fn new(stats: BoundStats) -> Self {
        ModelInput {
            stats,
            ..Default::default()
        }
    }
    pub fn hint(&self, key: &str) -> Option<f64> {
        self.hints.get(key).copied()
    }

    /// The launch geometry, which every time model needs.
    pub fn launch(&self, model: &str) -> Result<Launch> {
        self.stats.launch.ok_or_else(|| ModelError::Input {
            model: model.into(),
            what: "a launch geometry (grid, block) in the stats".into(),
        })
    }
}

/// Relative error band of a prediction and where the number comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBand {
    /// Expected relative error, e.g. 0.283 = ±28.3 %.
    pub rel: f64,
    pub source: String,
}

impl ErrorBand {
    /// The band of a model not validated on the device: the worst per-GPU MAPE of a static model
    /// in the references; `why` says what was not validated.
    pub fn unvalidated(why: &str) -> ErrorBand {
        ErrorBand {
            rel: 0.478,
            source: format!(
                "{why}: the worst per-GPU MAPE of a static model in the references (Alavani 2023 Table 4.8, M60)"
            ),
        }
    }
}

/// One prediction. Power and energy are `None` when the device lacks the power data the model
/// needs; `notes` then says which key is missing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub model: String,
    pub clocks: Clocks,
    pub time_s: f64,
    pub power_w: Option<f64>,
    pub energy_j: Option<f64>,
    /// Time (s) by category: compute, memory, launch, penalties … (model-specific keys).
    pub breakdown: BTreeMap<String, f64>,
    /// The category that limits the kernel (`compute`, `dram`, `latency`, `launch` …).
    pub bottleneck: String,
    pub error_band: ErrorBand,
    /// Utilisation in [0, 1] of each activity class (`sp`, `dram` …), input to the power model.
    pub activity: BTreeMap<String, f64>,
    /// Assumptions and missing data, in words.
    pub notes: Vec<String>,
}

impl Prediction {
    /// Energy-delay product (J·s), when energy is known.
    pub fn edp(&self) -> Option<f64> {
        self.energy_j.map(|e| e * self.time_s)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error("the {model} model needs {what}")]
    Input { model: String, what: String },
    #[error("fit failed: {0}")]
    Fit(String),
}

pub type Result<T> = std::result::Result<T, ModelError>;

/// A performance (and power) model.
pub trait Model {
    /// Short name (`linear`, `schedule`, `dvfs`).
    fn name(&self) -> &'static str;
    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction>;

    /// Loads what predicting on `d` reads besides the input (a fitted table), so that a caller
    /// can have it done while the input is still being counted; `predict` loads it otherwise.
    fn prepare(&self, _d: &Device) {}
}

/// The category with the largest share of the breakdown (ties broken by name), `none` if empty.
pub fn largest(breakdown: &BTreeMap<String, f64>) -> String {
    breakdown
        .iter()
        .fold(None::<(&String, f64)>, |best, (k, &v)| match best {
            Some((_, bv)) if bv >= v => best,
            _ => Some((k, v)),
        })
        .map(|(k, _)| k.clone())
        .unwrap_or_else(|| "none".to_string())
}
