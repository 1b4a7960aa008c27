//! What the models see of one instruction ([`SchedInst`]): its execution-unit class, the
//! registers it writes and reads, its latency, and its part in the order of global memory
//! accesses. The caller gives them per CFG block in `ModelInput::blocks`; the schedule model's
//! list scheduler (`schedule::dag`), the memory-level parallelism (`mlp`) and the barrier
//! periods (`periods`) read them.
//!
//! Why apart from `schedule::dag`: `model::ModelInput`, the input every model takes, carries
//! these, and the schedule model implements `model::Model`; with the types in the scheduler the
//! interface and one of its models imported each other.

use serde::{Deserialize, Serialize};

/// Execution-unit class of an instruction (the thesis' R_map).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitClass {
    /// Single-precision / integer cores.
    Sp,
    /// Special-function units (div, sqrt, rcp, transcendental).
    Sfu,
    /// Double-precision units.
    Dpu,
    /// Load/store units (every memory access).
    Lsu,
}

impl UnitClass {
    pub const ALL: [UnitClass; 4] = [
        UnitClass::Sp,
        UnitClass::Sfu,
        UnitClass::Dpu,
        UnitClass::Lsu,
    ];
    pub fn key(self) -> &'static str {
        match self {
            UnitClass::Sp => "sp",
            UnitClass::Sfu => "sfu",
            UnitClass::Dpu => "dpu",
            UnitClass::Lsu => "lsu",
        }
    }
}

/// What the scheduler needs of one instruction: its unit, the registers it writes and reads,
/// its latency in cycles, and a memory tag for penalty counting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchedInst {
    pub class: UnitClass,
    pub dst: Vec<String>,
    pub src: Vec<String>,
    pub latency: u32,
    /// `global`, `shared` or empty; counted as nGM / nShM (Algorithm 8).
    #[serde(default)]
    pub mem: String,
    /// Thesis latency key (`addf`, `mads` …), for approach 1's throughput / peak-warps lookup.
    #[serde(default)]
    pub key: String,
    /// How far the compiler may move the instruction if it is a global load, or how it holds
    /// global loads back if it is not (`crate::mlp`).
    #[serde(default)]
    pub order: MemOrder,
    /// A barrier every thread of the block waits at (`bar.sync`, `barrier.sync`; not
    /// `bar.warp.sync` or a fence): it closes a period of the shared-memory cases
    /// (`crate::periods`).
    #[serde(default)]
    pub cta_barrier: bool,
}

/// An instruction's part in the order of global memory accesses, as the compiler must keep it
/// when it schedules loads early (ptxas issues a block's independent global loads together,
/// ahead of the arithmetic that uses them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemOrder {
    /// Neither a global load nor an access global loads must stay behind.
    #[default]
    Free,
    /// A global load: it may move up past anything but the producers and users of its
    /// registers and the [`MemOrder::Fence`]s before it.
    Load,
    /// A read-only global load (`ld.global.nc`, `ldu`): the kernel writes no memory it could
    /// read, so it may move up past stores and atomics too, though not past a barrier or fence.
    ReadOnlyLoad,
    /// A store or atomic to memory a global load could read (global, local, generic), or a
    /// volatile/acquire load: later global loads stay behind it.
    Fence,
    /// A barrier or memory fence: every later global load stays behind it.
    Barrier,
}

impl SchedInst {
    pub fn new(class: UnitClass, dst: &[&str], src: &[&str], latency: u32) -> Self {
        SchedInst {
            class,
            dst: dst.iter().map(|s| s.to_string()).collect(),
            src: src.iter().map(|s| s.to_string()).collect(),
            latency,
            mem: String::new(),
            key: String::new(),
            order: MemOrder::Free,
            cta_barrier: false,
        }
    }
}
