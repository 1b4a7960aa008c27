//! The feature vocabulary shared by every producer of counts (the symbolic counter, the emulator)
//! and every consumer (the models, reports). A `Feature` is a typed key; `BoundStats` holds the
//! counts of one kernel bound to one workload, as numbers.
//!
//! Counting convention: every count is a total over the whole launch. `Granularity::Thread` counts
//! one per executing thread, `Granularity::Warp` one per executing warp (a warp executes an
//! instruction when at least one of its lanes does).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// What kind of operation an instruction performs (Stevens & Klöckner op classes, extended to PTX).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    AddSub,
    Mul,
    /// fma and mad (floating point and integer `mad`).
    Fma,
    Div,
    Rem,
    Rcp,
    Sqrt,
    Rsqrt,
    /// ex2, lg2, sin, cos, tanh.
    Special,
    MinMax,
    Abs,
    Neg,
    /// setp, set, selp, slct.
    CmpSel,
    /// and, or, xor, not, shl, shr, bfe, bfi, popc, clz, brev, prmt, lop3.
    LogicShift,
    /// cvt, cvta.
    Convert,
    /// mov of registers, immediates and special registers.
    Move,
    Atomic,
    /// shfl, vote, match, redux.
    ShuffleVote,
    /// mma, wmma, wgmma.
    Mma,
    /// bra, call, ret, exit.
    Control,
    Barrier,
    /// Anything not classified above; the opcode is kept in `Feature::Unknown` too.
    Other,
}

/// Operand type of an instruction or access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DType {
    F16,
    Bf16,
    F32,
    F64,
    S8,
    U8,
    S16,
    U16,
    S32,
    U32,
    S64,
    U64,
    /// Untyped bits (.b8 … .b128).
    Bits,
    Pred,
    /// No type suffix (bar.sync, bra, ret …).
    None,
}

/// PTX state space of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Space {
    Global,
    Shared,
    Local,
    Const,
    Param,
    /// A generic address the analysis could not resolve to one space.
    Generic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dir {
    Load,
    Store,
    /// Read-modify-write (atom, red).
    Atomic,
}

/// The words the notes use: `global`, `load`, as the JSON spells them.
impl std::fmt::Display for Space {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
            Space::Generic => "generic",
        })
    }
}

impl std::fmt::Display for Dir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dir::Load => "load",
            Dir::Store => "store",
            Dir::Atomic => "atomic",
        })
    }
}

/// Access pattern of a memory instruction: how the address moves from one lane to the next
/// (Stevens & Klöckner's lane stride, as Loopy computes it from the index expression).
///
/// **The rule.** The class is a property of the instruction, not of one warp's active lanes.
/// Write the address, with block index, loop counters and parameters fixed, as
/// `a0 + cx·tid.x + cy·tid.y + cz·tid.z` (bytes). Only dimensions that vary inside some warp of
/// the block count (`classify::warp::varying_dims`: x when `ntid.x > 1`; y when `ntid.y > 1` and
/// `ntid.x` is not a multiple of 32; z likewise with `ntid.x·ntid.y`); the others' coefficients
/// are taken as 0. Then: all counted coefficients 0 → `Uniform`; else with
/// `s = ceil(|cx| / width)`: `cx = 0` → `Uncoalesced { quarters: 1 }`, `s = 1` → `Unit`,
/// `s ∈ 2..=4` → `Strided { stride: s, used: 1 }`, `s > 4` → `Uncoalesced { quarters: 1 }`.
/// Not affine in the thread index, or coefficients that change between executions (they depend
/// on a loop counter, the block index or data) → `Unknown`.
///
/// Every warp execution carries its instruction's class: a partial warp, a warp with one active
/// lane, the tail warp of a block whose size is not a multiple of 32. The static counter reads
/// the coefficients off the address polynomial; the emulator recovers them from the lanes of all
/// the instruction's warp accesses together (`classify::warp::StrideEvidence`), a coefficient no
/// warp access can observe being 0 there. `used` / `quarters` are per-access utilisation (one
/// access with lane stride `s` touches one of every `s` cells); merging several instructions'
/// footprints per array (S&K's "2/2") is done by neither producer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "class")]
pub enum StrideClass {
    /// The same address in every lane (stride 0).
    Uniform,
    /// Consecutive elements (stride 1).
    Unit,
    /// Stride 2, 3 or 4 elements, with `used` of every `stride` elements of the footprint touched.
    Strided { stride: u8, used: u8 },
    /// Stride above 4 elements; `quarters` of the footprint touched (1–4).
    Uncoalesced { quarters: u8 },
    /// Not affine in the lane index (data-dependent or unresolved).
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    Thread,
    Warp,
}

/// A typed count key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "feature")]
pub enum Feature {
    /// Executed operations.
    Op {
        kind: OpKind,
        ty: DType,
        gran: Granularity,
    },
    /// Executed memory instructions. `bits` is the width of one lane's access (vectors included),
    /// `nc` marks the non-coherent / read-only path (ld.global.nc, ld.const).
    Mem {
        space: Space,
        dir: Dir,
        bits: u16,
        stride: StrideClass,
        nc: bool,
        gran: Granularity,
    },
    /// 32-byte sectors touched, summed over warp-level accesses of a space.
    Sectors {
        space: Space,
        dir: Dir,
    },
    /// 128-byte lines touched, summed over warp-level accesses of a space.
    Lines {
        space: Space,
        dir: Dir,
    },
    /// Shared-memory wavefronts: one per conflict-free warp access, `ways` for a `ways`-way conflict.
    SharedWavefronts {
        dir: Dir,
    },
    /// Barriers executed, per thread or per warp.
    Barrier {
        gran: Granularity,
    },
    /// Warp tensor-core instructions (`wmma.mma`, `mma.sync`, `wgmma.mma_async`) that do
    /// `fmas` multiply–adds each (m·n·k of the shape; a quarter of it for `wgmma`, which a
    /// warpgroup's four warps execute together), by the type of the inputs and of the
    /// accumulator.
    TensorMma {
        input: DType,
        acc: DType,
        fmas: u32,
    },
    Blocks,
    Warps,
    Threads,
    /// Instructions the analysis could not classify, by opcode; never dropped.
    Unknown {
        opcode: String,
    },
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = |g: &Granularity| match g {
            Granularity::Thread => "thread",
            Granularity::Warp => "warp",
        };
        match self {
            Feature::Op { kind, ty, gran } => {
                write!(f, "op.{}.{}.{}", snake(kind), snake(ty), g(gran))
            }
            Feature::Mem {
                space,
                dir,
                bits,
                stride,
                nc,
                gran,
            } => {
                write!(
                    f,
                    "mem.{}.{}.b{}.{}",
                    snake(space),
                    snake(dir),
                    bits,
                    stride
                )?;
                if *nc {
                    write!(f, ".nc")?;
                }
                write!(f, ".{}", g(gran))
            }
            Feature::Sectors { space, dir } => write!(f, "sectors.{}.{}", snake(space), snake(dir)),
            Feature::Lines { space, dir } => write!(f, "lines.{}.{}", snake(space), snake(dir)),
            Feature::SharedWavefronts { dir } => write!(f, "wavefronts.shared.{}", snake(dir)),
            Feature::Barrier { gran } => write!(f, "barrier.{}", g(gran)),
            Feature::TensorMma { input, acc, fmas } => {
                write!(f, "tensor.{}.{}.fma{fmas}.warp", snake(input), snake(acc))
            }
            Feature::Blocks => write!(f, "blocks"),
            Feature::Warps => write!(f, "warps"),
            Feature::Threads => write!(f, "threads"),
            Feature::Unknown { opcode } => write!(f, "unknown.{opcode}"),
        }
    }
}

impl fmt::Display for StrideClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrideClass::Uniform => write!(f, "uniform"),
            StrideClass::Unit => write!(f, "stride1"),
            StrideClass::Strided { stride, used } => write!(f, "stride{stride}_{used}of{stride}"),
            StrideClass::Uncoalesced { quarters } => write!(f, "uncoalesced_{quarters}of4"),
            StrideClass::Unknown => write!(f, "unknown_stride"),
        }
    }
}

/// The inverse of `Display`: a key as `kerncast count` prints it and JSON maps it.
impl std::str::FromStr for Feature {
    type Err = String;

    fn from_str(s: &str) -> Result<Feature, String> {
        let bad = || format!("`{s}` is not a feature key");
        // a unit variant by its serde (snake_case) name
        fn named<T: serde::de::DeserializeOwned>(w: &str, s: &str) -> Result<T, String> {
            serde_json::from_value(serde_json::Value::String(w.to_string()))
                .map_err(|_| format!("`{s}` is not a feature key"))
        }
        let parts: Vec<&str> = s.split('.').collect();
        Ok(match parts.as_slice() {
            ["blocks"] => Feature::Blocks,
            ["warps"] => Feature::Warps,
            ["threads"] => Feature::Threads,
            ["unknown", ..] if s.len() > "unknown.".len() => Feature::Unknown {
                opcode: s["unknown.".len()..].to_string(),
            },
            ["op", kind, ty, g] => Feature::Op {
                kind: named(kind, s)?,
                ty: named(ty, s)?,
                gran: named(g, s)?,
            },
            ["mem", space, dir, bits, stride, rest @ ..] => {
                let (nc, g) = match rest {
                    ["nc", g] => (true, *g),
                    [g] => (false, *g),
                    _ => return Err(bad()),
                };
                Feature::Mem {
                    space: named(space, s)?,
                    dir: named(dir, s)?,
                    bits: bits
                        .strip_prefix('b')
                        .and_then(|b| b.parse().ok())
                        .ok_or_else(bad)?,
                    stride: stride.parse().map_err(|_| bad())?,
                    nc,
                    gran: named(g, s)?,
                }
            }
            ["sectors", space, dir] => Feature::Sectors {
                space: named(space, s)?,
                dir: named(dir, s)?,
            },
            ["lines", space, dir] => Feature::Lines {
                space: named(space, s)?,
                dir: named(dir, s)?,
            },
            ["wavefronts", "shared", dir] => Feature::SharedWavefronts {
                dir: named(dir, s)?,
            },
            ["barrier", g] => Feature::Barrier { gran: named(g, s)? },
            ["tensor", input, acc, fmas, "warp"] => Feature::TensorMma {
                input: named(input, s)?,
                acc: named(acc, s)?,
                fmas: fmas
                    .strip_prefix("fma")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(bad)?,
            },
            _ => return Err(bad()),
        })
    }
}

impl std::str::FromStr for StrideClass {
    type Err = ();

    fn from_str(s: &str) -> Result<StrideClass, ()> {
        let num = |t: &str| t.parse::<u8>().map_err(|_| ());
        Ok(match s {
            "uniform" => StrideClass::Uniform,
            "stride1" => StrideClass::Unit,
            "unknown_stride" => StrideClass::Unknown,
            _ => {
                if let Some(q) = s
                    .strip_prefix("uncoalesced_")
                    .and_then(|r| r.strip_suffix("of4"))
                {
                    StrideClass::Uncoalesced { quarters: num(q)? }
                } else {
                    let r = s.strip_prefix("stride").ok_or(())?;
                    let (stride, r) = r.split_once('_').ok_or(())?;
                    let (used, of) = r.split_once("of").ok_or(())?;
                    if of != stride {
                        return Err(());
                    }
                    StrideClass::Strided {
                        stride: num(stride)?,
                        used: num(used)?,
                    }
                }
            }
        })
    }
}

/// A map keyed by features as JSON can hold it: an object keyed by each feature's printed
/// key (`op.fma.f32.thread`), as `kerncast count` prints them (JSON keys must be strings).
mod feature_map {
    use super::Feature;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(m: &BTreeMap<Feature, f64>, s: S) -> Result<S::Ok, S::Error> {
        m.iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<BTreeMap<String, f64>>()
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Feature, f64>, D::Error> {
        BTreeMap::<String, f64>::deserialize(d)?
            .into_iter()
            .map(|(k, v)| Ok((k.parse().map_err(D::Error::custom)?, v)))
            .collect()
    }
}

/// snake_case name of a unit enum variant, through its serde name.
fn snake<T: Serialize + fmt::Debug>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{v:?}").to_lowercase(),
    }
}

/// Something the analysis could not derive and had to assume: a data-dependent trip count, an
/// unresolved generic address, an unknown instruction. Listed in every output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assumption {
    /// The key a user sets to replace the default (kerncast.toml `hints`, `// kerncast: trip(...)`,
    /// or `--hint key=value`).
    pub hint_key: String,
    /// What was assumed, in words.
    pub what: String,
    /// The value used when the user gave none.
    pub default: f64,
    /// Whether the user supplied the value (true) or the default was used (false).
    pub from_user: bool,
    /// Source location (file:line) when known.
    pub at: Option<String>,
}

/// Keys of what the analysis could not resolve, as opposed to a value it reads: a lane stride, an
/// access's sectors or wavefronts, a control-flow warning, the sector alignment of wmma rows,
/// counts the emulator estimated from a sample of blocks or with accesses outside its buffers.
/// No hint replaces them, so none may mark them as given.
pub const UNRESOLVED_KEYS: [&str; 7] = [
    "stride",
    "sectors",
    "wavefronts",
    "cfg",
    "wmma.rows_aligned",
    "emulator.sample",
    "emulator.outside",
];

impl Assumption {
    /// Whether a hint with this key changes what is counted (a trip count, a parameter, a
    /// buffer size), rather than naming something left unresolved ([`UNRESOLVED_KEYS`]).
    pub fn settable(&self) -> bool {
        !UNRESOLVED_KEYS.contains(&self.hint_key.as_str())
    }

    /// How the outputs show its value: `= 64 (given)`, `= 0 (default)` or `(not resolved)`.
    pub fn value_label(&self) -> String {
        if !self.settable() {
            "(not resolved)".into()
        } else if self.from_user {
            format!("= {} (given)", self.default)
        } else {
            format!("= {} (default)", self.default)
        }
    }
}

/// Launch geometry of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub grid: [u64; 3],
    pub block: [u64; 3],
}

impl Launch {
    // saturating: a launch read from user input may overflow u64 before it is refused
    pub fn blocks(&self) -> u64 {
        self.grid.iter().fold(1u64, |a, b| a.saturating_mul(*b))
    }
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().fold(1u64, |a, b| a.saturating_mul(*b))
    }
    pub fn warps_per_block(&self) -> u64 {
        self.threads_per_block().div_ceil(32)
    }
}

/// Counts of one kernel bound to one workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BoundStats {
    pub kernel: String,
    pub launch: Option<Launch>,
    /// Registers per thread and static shared memory per block, when known (ptxas -v or the PTX).
    pub regs_per_thread: Option<u32>,
    pub shared_bytes_per_block: Option<u64>,
    /// Local memory one thread's frame holds, bytes: ptxas's stack frame when ptxas ran, else
    /// the kernel's `.local` declarations. With the threads resident at once it is the
    /// footprint of the local traffic in the caches.
    #[serde(default)]
    pub local_bytes_per_thread: Option<u64>,
    #[serde(with = "feature_map")]
    pub features: BTreeMap<Feature, f64>,
    /// Executions of each basic block of the kernel's CFG (by block index in `cfg`), so models that
    /// work per block (the schedule model's DAGs) can weight each block by how often it runs.
    pub block_execs: BTreeMap<usize, BlockExecs>,
    /// Executions of the guarded instructions whose guard the counter decided (by block, then
    /// by position in the block): the threads whose predicate is on, not the block's. CUB's
    /// `@p add.f32` after a shuffle runs on 129 of a warp's 160 lane steps, not all of them.
    /// An instruction absent here runs wherever its block runs.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub guarded_execs: BTreeMap<usize, BTreeMap<usize, BlockExecs>>,
    pub assumptions: Vec<Assumption>,
    /// Reuse of the global sectors between blocks, for the L2 hit rate; `None` when the counter
    /// does not walk addresses (the emulator).
    #[serde(default)]
    pub reuse: Option<crate::reuse::profile::Reuse>,
}

/// How often one basic block executes over the whole launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockExecs {
    /// Thread-level executions (one per thread that runs the block, per time it runs it).
    pub threads: f64,
    /// Warp-level executions (one per warp with at least one active lane).
    pub warps: f64,
}

impl BoundStats {
    /// Executions of the instruction at `pos` of block `block`: its guard's when the counter
    /// decided it, else its block's.
    pub fn inst_execs(&self, block: usize, pos: usize) -> Option<BlockExecs> {
        self.guarded_execs
            .get(&block)
            .and_then(|m| m.get(&pos))
            .or_else(|| self.block_execs.get(&block))
            .copied()
    }

    /// Scale every execution count (blocks' and guarded instructions') by `k`: a sample's
    /// counts made the whole launch's.
    pub fn scale_execs(&mut self, k: f64) {
        let guarded = self.guarded_execs.values_mut().flat_map(|m| m.values_mut());
        for e in self.block_execs.values_mut().chain(guarded) {
            e.threads *= k;
            e.warps *= k;
        }
    }

    /// The count of one feature, 0 when absent.
    pub fn get(&self, f: &Feature) -> f64 {
        self.features.get(f).copied().unwrap_or(0.0)
    }

    /// Sum of counts over every feature that matches a predicate.
    pub fn sum_where(&self, pred: impl Fn(&Feature) -> bool) -> f64 {
        // a float sum of nothing is -0.0, which reports would print as "-0.000"
        0.0 + self
            .features
            .iter()
            .filter(|(k, _)| pred(k))
            .map(|(_, v)| v)
            .sum::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assumption_shows_a_value_only_where_a_hint_can_set_one() {
        let a = |key: &str, from_user: bool| Assumption {
            hint_key: key.into(),
            what: String::new(),
            default: 64.0,
            from_user,
            at: None,
        };
        assert_eq!(a("trip.k.cu:3", false).value_label(), "= 64 (default)");
        assert_eq!(a("trip.k.cu:3", true).value_label(), "= 64 (given)");
        assert_eq!(a("stride", false).value_label(), "(not resolved)");
        assert!(!a("sectors", true).settable());
    }

    #[test]
    fn feature_keys_print_stably() {
        let f = Feature::Op {
            kind: OpKind::Fma,
            ty: DType::F32,
            gran: Granularity::Thread,
        };
        assert_eq!(f.to_string(), "op.fma.f32.thread");
        let m = Feature::Mem {
            space: Space::Global,
            dir: Dir::Load,
            bits: 32,
            stride: StrideClass::Strided { stride: 3, used: 1 },
            nc: true,
            gran: Granularity::Warp,
        };
        assert_eq!(m.to_string(), "mem.global.load.b32.stride3_1of3.nc.warp");
        assert_eq!(
            Feature::SharedWavefronts { dir: Dir::Store }.to_string(),
            "wavefronts.shared.store"
        );
    }

    /// Every feature key parses back to its feature, and bound counts go through JSON (whose
    /// keys must be strings): `kerncast count --json` with a launch.
    #[test]
    fn feature_keys_parse_back_and_bound_stats_roundtrip_through_json() {
        let strides = [
            StrideClass::Uniform,
            StrideClass::Unit,
            StrideClass::Strided { stride: 3, used: 1 },
            StrideClass::Uncoalesced { quarters: 2 },
            StrideClass::Unknown,
        ];
        let mut all = vec![
            Feature::Blocks,
            Feature::Warps,
            Feature::Threads,
            Feature::Unknown {
                opcode: "tex.2d.v4".into(),
            },
            Feature::Op {
                kind: OpKind::CmpSel,
                ty: DType::Bf16,
                gran: Granularity::Warp,
            },
            Feature::Sectors {
                space: Space::Global,
                dir: Dir::Atomic,
            },
            Feature::Lines {
                space: Space::Local,
                dir: Dir::Store,
            },
            Feature::SharedWavefronts { dir: Dir::Load },
            Feature::Barrier {
                gran: Granularity::Thread,
            },
            Feature::TensorMma {
                input: DType::F16,
                acc: DType::F32,
                fmas: 4096,
            },
        ];
        for stride in strides {
            for nc in [false, true] {
                all.push(Feature::Mem {
                    space: Space::Shared,
                    dir: Dir::Load,
                    bits: 128,
                    stride,
                    nc,
                    gran: Granularity::Warp,
                });
            }
        }
        for f in &all {
            assert_eq!(f.to_string().parse::<Feature>().as_ref(), Ok(f), "{f}");
        }
        for bad in [
            "",
            "op.fma",
            "mem.global.load.x32.stride1.thread",
            "tensor.f16.f32.fmaX.warp",
        ] {
            assert!(bad.parse::<Feature>().is_err(), "{bad}");
        }
        let mut s = BoundStats::default();
        for (i, f) in all.into_iter().enumerate() {
            s.features.insert(f, i as f64);
        }
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"op.cmp_sel.bf16.warp\":4.0"), "{json}");
        assert_eq!(serde_json::from_str::<BoundStats>(&json).unwrap(), s);
    }

    #[test]
    fn bound_stats_sum_and_get() {
        let mut s = BoundStats::default();
        s.features.insert(Feature::Threads, 256.0);
        s.features.insert(
            Feature::Op {
                kind: OpKind::Fma,
                ty: DType::F32,
                gran: Granularity::Thread,
            },
            10.0,
        );
        s.features.insert(
            Feature::Op {
                kind: OpKind::Mul,
                ty: DType::F32,
                gran: Granularity::Thread,
            },
            5.0,
        );
        assert_eq!(s.get(&Feature::Threads), 256.0);
        assert_eq!(s.get(&Feature::Blocks), 0.0);
        assert_eq!(s.sum_where(|f| matches!(f, Feature::Op { .. })), 15.0);
        // nothing matches: a zero that prints as one
        let none = s.sum_where(|f| matches!(f, Feature::Blocks));
        assert_eq!(format!("{none:.3}"), "0.000");
    }

    #[test]
    fn launch_geometry() {
        let l = Launch {
            grid: [4, 2, 1],
            block: [48, 1, 1],
        };
        assert_eq!(l.blocks(), 8);
        assert_eq!(l.warps_per_block(), 2);
    }
}
