//! The memory instructions the counter records per kernel (`count::KernelStats`), for what is
//! only decided once a workload is bound: each site's stride class at the workload's parameters
//! (`classify::stride`, `unroll::site_classes`) and the global accesses the reuse profile walks
//! (`reuse`).
//!
//! Why apart from `count`: those passes read these records and `count` calls them; with the
//! types in `count` each imported the other.

use crate::cond::Cond;
use crate::poly::{Poly, QPoly};
use crate::stats::{Dir, Space};
use std::sync::Arc;

/// One memory instruction, for its stride class bound to a workload (`bind`).
#[derive(Clone, Debug)]
pub struct MemSite {
    /// Index of the instruction in the function, shared by the copies unrolling makes of it.
    pub inst: usize,
    pub space: Space,
    pub dir: Dir,
    pub bits: u16,
    pub nc: bool,
    /// Byte coefficients along the thread index; `None` when not affine in it.
    pub coefs: Option<[Poly; 3]>,
    pub counters: Vec<String>,
    pub cond: Cond,
    pub addr: Option<Poly>,
    pub width: u64,
    pub thread: Arc<QPoly>,
    pub warp: Arc<QPoly>,
}

/// One global/local memory instruction: its domain and address, for sector and line counts.
#[derive(Clone, Debug)]
pub struct AccessRecord {
    pub counters: Vec<String>,
    pub cond: Cond,
    pub addr: Option<Poly>,
    pub width: u64,
    pub space: Space,
    pub dir: Dir,
    /// Warp executions of the access.
    pub warp: Arc<QPoly>,
    /// A `wmma` tile access, which the warp moves together.
    pub tile: Option<WmmaTile>,
    /// The instruction's position in the function: where it comes in program order.
    pub inst: usize,
}

/// The tile a `wmma.load` / `wmma.store` moves: `rows` rows of `row_bytes` each, the first at
/// `base` and each `pitch` bytes after the one before (either `None` where it is not a
/// polynomial).
#[derive(Clone, Debug)]
pub struct WmmaTile {
    pub rows: u32,
    pub row_bytes: u32,
    pub base: Option<Poly>,
    pub pitch: Option<Poly>,
}
