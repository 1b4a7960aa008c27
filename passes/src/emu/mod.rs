//! Functional PTX emulator: runs a kernel on the CPU for a small launch with real buffers and
//! counts what really executed, under the same `stats::Feature` keys as the static counter. It is
//! the counter's oracle and the source of trip-count hints for data-dependent loops.
//!
//! Model: each block runs its threads cooperatively in warps of 32 lanes. Every lane has its own
//! PC; a warp steps the lanes at the lowest PC together (min-PC scheduling), which reconverges
//! divergent paths at the first common instruction without an explicit stack. `bar.sync` parks a
//! warp until every live thread of the block has arrived. Blocks run one after another, so
//! atomics are trivially atomic and a block sees the global writes of earlier blocks. A
//! `cp.async` copy completes when it executes, so its `commit_group` / `wait_group` /
//! `wait_all` have nothing to wait for (they only count).
//! Registers are raw `u64` bits per lane; memories are described in [`mem`].
//!
//! Counting follows the convention documented in [`crate::classify`]; block executions are
//! indexed by the basic blocks of [`crate::cfg`]. An instruction the emulator cannot run stops
//! the run with an error naming opcode and line when a lane executes it (not when it is merely
//! decoded, so a slow path the data never takes does not stop the kernel): nothing is skipped.

pub mod alu;
mod blocks;
mod decode;
mod exec;
pub mod local_args;
pub mod loops;
pub mod mem;
mod ops;

use crate::ptx::Module;
use crate::stats::{BoundStats, Launch};
use std::collections::BTreeMap;
use thiserror::Error;

pub use exec::{run_observed, run_with};

/// A kernel argument, in parameter order.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// A global buffer: the parameter receives its address; its final contents come back.
    Buffer(Vec<u8>),
    /// A zero-filled global buffer of this many bytes, as `Buffer(vec![0; n])` without the
    /// copy the run makes of a `Buffer`: its memory is only touched where the kernel touches
    /// it, so a sample of a few blocks of a launch over large buffers costs what they touch
    /// (the pages touched count against [`Options::max_bytes`], the declared size against
    /// [`ZEROED_MAX_BYTES`]).
    Zeros(u64),
    U8(u8),
    U16(u16),
    U32(u32),
    S32(i32),
    U64(u64),
    S64(i64),
    F32(f32),
    F64(f64),
    /// Raw parameter bytes (structs, `.b8` arrays).
    Bytes(Vec<u8>),
    /// A struct that holds global pointers (`struct P { float *x; int n; }`, a PyTorch tensor
    /// accessor): its bytes, and a buffer for each pointer field, by byte offset, whose address
    /// the field receives.
    Struct {
        bytes: Vec<u8>,
        buffers: Vec<(u64, Vec<u8>)>,
    },
    /// An OpenCL `__local` argument of this many bytes per block: the parameter receives the
    /// address of its share of the block's shared memory ([`local_args`]).
    Local(u64),
}

impl KernelArg {
    pub fn f32s(v: &[f32]) -> KernelArg {
        KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
    pub fn f64s(v: &[f64]) -> KernelArg {
        KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
    pub fn i32s(v: &[i32]) -> KernelArg {
        KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
    pub fn u32s(v: &[u32]) -> KernelArg {
        KernelArg::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
    /// The parameter bytes of a scalar argument; `None` for buffers and `__local` arguments.
    pub fn scalar_bytes(&self) -> Option<Vec<u8>> {
        Some(match self {
            KernelArg::Buffer(_)
            | KernelArg::Zeros(_)
            | KernelArg::Local(_)
            | KernelArg::Struct { .. } => return None,
            KernelArg::U8(v) => vec![*v],
            KernelArg::U16(v) => v.to_le_bytes().to_vec(),
            KernelArg::U32(v) => v.to_le_bytes().to_vec(),
            KernelArg::S32(v) => v.to_le_bytes().to_vec(),
            KernelArg::U64(v) => v.to_le_bytes().to_vec(),
            KernelArg::S64(v) => v.to_le_bytes().to_vec(),
            KernelArg::F32(v) => v.to_le_bytes().to_vec(),
            KernelArg::F64(v) => v.to_le_bytes().to_vec(),
            KernelArg::Bytes(b) => b.clone(),
        })
    }
}

/// Run-time options.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Bytes of dynamic (`extern .shared`) shared memory per block.
    pub dynamic_shared: u64,
    /// Warp-level instruction steps after which the run is abandoned (an infinite loop guard).
    pub max_steps: u64,
    /// Bytes the run may hold (buffers, module globals, parameters, one block's shared, local
    /// and register memory); a launch or a module that needs more is refused before anything
    /// is allocated ([`EmuError::Budget`]), so a huge buffer or `.local` array is an error
    /// naming the knob, not an abort.
    pub max_bytes: u64,
    /// Run only the first blocks of the launch (in dispatch order, x fastest).
    pub max_blocks: Option<u64>,
    /// Run only the blocks whose dispatch index is a multiple of this (1: every block), so a
    /// sample of the launch is spread over it.
    pub every: u64,
    /// Record the global sectors every warp access of the first this-many blocks run touches
    /// ([`EmuResult::touches`]); 0 records none. The blocks after them still run.
    pub trace_blocks: u64,
    /// Hand back the buffers' final contents ([`EmuResult::buffers`]); a caller that wants
    /// only counts saves a copy of every buffer.
    pub keep_buffers: bool,
    /// Start no further block once the run has taken this many warp steps and has run the
    /// blocks it traces ([`Options::trace_blocks`]): the run ends with the blocks it finished
    /// ([`EmuResult::blocks_run`]), where `max_steps` would end it with an error. A work budget
    /// for sampling, not an infinite-loop guard. Such a run also starts no block that could
    /// take the pages of zero-filled buffers it touched past their share of `max_bytes` (as
    /// many as the most one block has touched), where running on would end it in an error,
    /// nor one that, at the mean warp steps of the blocks it ran, would end past `max_steps`
    /// (a traced run whose blocks are long ends with those it traced, not in an error after
    /// running most of one more).
    pub soft_steps: Option<u64>,
    /// Run the chosen blocks (every `every`-th, at most `max_blocks`) in an order whose every
    /// prefix is spread evenly over them (steps of the golden section of their number), not in
    /// dispatch order: a run that `soft_steps` cuts short has still sampled
    /// the whole grid. Blocks then see the global writes of blocks dispatched after them; for
    /// blocks that do not wait on each other, as CUDA requires, the counts are the same.
    pub spread_order: bool,
    /// With `soft_steps`, also start no further block once the run has run the blocks it
    /// traces and the blocks it has run, at their mean warp steps, make the whole run more
    /// than twice `soft_steps`: a run that will not finish within the budget stops as soon as
    /// it has what it traces, where it would otherwise go on to the budget.
    pub stop_when_over: bool,
    /// With `spread_order` and `soft_steps`, for a run the budget will cut short, also start no
    /// further block once the run has run a power of two of blocks, at least
    /// [`SETTLE_MIN_BLOCKS`], whose warp steps estimate the whole run's within a relative
    /// standard error of [`SETTLED_REL_SE`] ([`sample_rel_se`]): blocks that all do the same
    /// work tell no more about the launch when there are more of them.
    pub stop_when_settled: bool,
}

/// Blocks a settled run ([`Options::stop_when_settled`]) has run at least.
pub const SETTLE_MIN_BLOCKS: u64 = 256;
/// The relative standard error at which a spread run's estimate is settled: a hundredth of
/// the 0.1 % a FLOP count is judged by.
pub const SETTLED_REL_SE: f64 = 1e-5;

/// The relative standard error of the total work of `population` blocks estimated from the
/// warp steps of the blocks in `steps`, taken as a simple random sample of them (with the
/// finite-population correction); 0 where there is no work.
pub fn sample_rel_se(steps: &[u64], population: u64) -> f64 {
    let n = steps.len() as f64;
    let mean = steps.iter().sum::<u64>() as f64 / n.max(1.0);
    let var = match steps.len() {
        0 | 1 => 0.0,
        _ => {
            steps
                .iter()
                .map(|s| (*s as f64 - mean).powi(2))
                .sum::<f64>()
                / (n - 1.0)
        }
    };
    let fpc = (1.0 - n / population.max(1) as f64).max(0.0);
    match mean > 0.0 {
        true => (var / n.max(1.0) * fpc).sqrt() / mean,
        false => 0.0,
    }
}

impl Options {
    /// The blocks of `launch` a run with these options runs.
    pub fn blocks_of(&self, launch: &Launch) -> u64 {
        let every = self.every.max(1);
        self.max_blocks
            .unwrap_or(u64::MAX)
            .min(launch.blocks().div_ceil(every))
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dynamic_shared: 0,
            max_steps: crate::budget::get().emu_steps,
            max_bytes: crate::budget::get().emu_bytes,
            max_blocks: None,
            every: 1,
            trace_blocks: 0,
            keep_buffers: true,
            soft_steps: None,
            spread_order: false,
            stop_when_over: false,
            stop_when_settled: false,
        }
    }
}

/// The outcome of one emulated launch.
#[derive(Clone, Debug, Default)]
pub struct EmuResult {
    pub stats: BoundStats,
    /// Final contents of every `KernelArg::Buffer`, keyed by argument index.
    pub buffers: BTreeMap<usize, Vec<u8>>,
    /// Thread-level traversals of CFG edges (from block, to block), for loop trip counts.
    pub edges: BTreeMap<(usize, usize), u64>,
    /// Thread-level entries into the kernel's first block (one per thread).
    pub entries: u64,
    /// Every loop that ran, with its mean trips per entry.
    pub loops: Vec<loops::LoopTrips>,
    /// With [`Options::trace_blocks`]: the global sectors each warp access touched, as the
    /// reuse profile takes them (`crate::reuse::from_touches`): block in dispatch order, the
    /// warp's progress through its own instructions, sector, whether it writes.
    pub touches: Vec<crate::reuse::profile::Touch>,
    /// Blocks run (all of the launch's, unless [`Options::max_blocks`] or [`Options::every`]
    /// cut it).
    pub blocks_run: u64,
    /// Of those, the leading blocks whose sectors are in `touches`.
    pub blocks_traced: u64,
    /// Warp steps (warp-level instructions issued) of each block run, in the order they ran:
    /// how much the work of the blocks varies, for the spread of an estimate from a sample.
    pub block_steps: Vec<u64>,
    /// Accesses that fell near, but outside, the buffers: loads that read zeros and stores that
    /// were dropped ([`mem::Global`]). Not zero, the counts are an estimate.
    pub outside: mem::Outside,
}

impl EmuResult {
    pub fn f32s(&self, arg: usize) -> Vec<f32> {
        self.chunks(arg, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn f64s(&self, arg: usize) -> Vec<f64> {
        self.chunks(arg, |b| {
            f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        })
    }
    pub fn i32s(&self, arg: usize) -> Vec<i32> {
        self.chunks(arg, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn u32s(&self, arg: usize) -> Vec<u32> {
        self.chunks(arg, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn chunks<T>(&self, arg: usize, f: impl Fn(&[u8]) -> T) -> Vec<T> {
        let w = std::mem::size_of::<T>();
        self.buffers
            .get(&arg)
            .map(|b| b.chunks_exact(w).map(&f).collect())
            .unwrap_or_default()
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum EmuError {
    #[error("kernel `{0}` not found in the module")]
    NoKernel(String),
    #[error("line {line}: `{inst}` cannot be emulated: {why}")]
    Unsupported {
        line: u32,
        inst: String,
        why: String,
    },
    #[error("{0}")]
    Args(String),
    #[error("{space} access of {len} bytes at {addr:#x} is out of bounds{past}")]
    OutOfBounds {
        space: &'static str,
        addr: u64,
        len: usize,
        /// Where it falls, when past the end of a global buffer: `, 1024 bytes past the end of
        /// `k_param_2` (4096 bytes)`, by the parameter's (or module variable's) PTX name.
        past: String,
    },
    #[error("line {line}: `{inst}`: {why}")]
    Fault {
        line: u32,
        inst: String,
        why: String,
    },
    #[error("block {block:?}: barrier deadlock ({arrived} of {expected} threads arrived)")]
    Deadlock {
        block: [u64; 3],
        arrived: u64,
        expected: u64,
    },
    /// `blocks_done`: the blocks that finished within the limit (blocks run in dispatch
    /// order, so a run of only those would stay within it); `traced`: the touches a traced run
    /// recorded of those of them it traced, as a run of only those would record them.
    #[error(
        "needs {bytes} bytes of {what}, more than the emulator's budget of {budget} bytes \
         (raise it with --emu-bytes, or `emu_bytes` under [budgets] in kerncast.toml)"
    )]
    Budget {
        what: String,
        bytes: u64,
        budget: u64,
    },
    #[error(
        "needs {bytes} bytes of address space for {what}, more than the {limit} bytes kerncast \
         maps for zero-filled buffers: a size that large is likely computed wrongly; give the \
         buffer its size"
    )]
    AddressSpace {
        what: String,
        bytes: u64,
        limit: u64,
    },
    #[error(
        "gave up after {steps} warp steps (an infinite loop?); the budget is --emu-steps, or \
         `emu_steps` under [budgets] in kerncast.toml"
    )]
    StepLimit {
        steps: u64,
        blocks_done: u64,
        traced: Vec<crate::reuse::profile::Touch>,
    },
}

/// The declared size zero-filled buffers ([`KernelArg::Zeros`]) may have in all. They are mapped,
/// not written, and cost the run only the pages it touches, which count against
/// [`Options::max_bytes`]; the declared size only needs address space, limited here so that
/// a size computed wrongly (a count gone negative) is an error rather than a mapping the
/// machine refuses. 16 GiB is more than the memory of most GPUs kerncast models.
pub const ZEROED_MAX_BYTES: u64 = 16 << 30;

/// `bytes` of zero-filled `what` within [`ZEROED_MAX_BYTES`], or the error saying so.
pub fn check_zeroed(what: &str, bytes: u64) -> Result<(), EmuError> {
    if bytes > ZEROED_MAX_BYTES {
        return Err(EmuError::AddressSpace {
            what: what.to_string(),
            bytes,
            limit: ZEROED_MAX_BYTES,
        });
    }
    Ok(())
}

/// `bytes` of `what` within `budget`, or the error naming the knob.
pub fn check_bytes(what: &str, bytes: u64, budget: u64) -> Result<(), EmuError> {
    if bytes > budget {
        return Err(EmuError::Budget {
            what: what.to_string(),
            bytes,
            budget,
        });
    }
    Ok(())
}

/// Run `kernel` of `module` on `launch` with `args` (one per kernel parameter).
pub fn run(
    module: &Module,
    kernel: &str,
    launch: &Launch,
    args: &[KernelArg],
) -> Result<EmuResult, EmuError> {
    run_with(module, kernel, launch, args, &Options::default())
}
