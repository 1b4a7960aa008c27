//! Static features of a benchmark from its released instruction sequences: the instruction mix by
//! class (compute SP/DP/INT/SFU, global/shared/local/param memory, atomics, control, moves), the
//! global bytes moved, the issue cost in FP32-instruction equivalents and the sequence length.
//! All kernels of a benchmark are summed (the measured time is the sum over its kernels).

use crate::data::Benchmark;
use crate::isa::{Class, Inst};

/// Issue cost of one warp instruction of each class, in units of one FP32 instruction: how many
/// FP32 instructions an SM could issue in the time its units take for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IssueCosts([f64; 12]);

impl IssueCosts {
    /// A Maxwell GM200 SM (the GTX Titan X of the released data), from the CUDA C Programming
    /// Guide throughput table for compute capability 5.2: FP32 128 lanes/clock, FP64 4, 32-bit
    /// integer add/logic 128 (multiply: emulated, ~4 instructions), SFU 32, conversions/moves
    /// 32..128, load/store units 32 lanes.
    pub fn cc52() -> IssueCosts {
        let mut v = [0.0; 12];
        for c in Class::ALL {
            v[c.index()] = match c {
                Class::Sp => 1.0,
                Class::Dp => 32.0,
                Class::Int => 1.5,
                Class::Sfu => 4.0,
                Class::GlobalLd | Class::GlobalSt | Class::Local | Class::Atomic => 4.0,
                Class::Shared => 4.0,
                Class::Param => 1.0,
                Class::Control => 2.0,
                Class::Move => 1.0,
            };
        }
        IssueCosts(v)
    }

    /// From a GPU's units per SM: FP64, SFU and load/store (global, local, atomic and shared)
    /// cost FP32 lanes over their units; the other classes are as in [`IssueCosts::cc52`], whose
    /// GM200 unit counts give back that table exactly.
    pub fn from_units(fp32: f64, fp64: f64, sfu: f64, lsu: f64) -> IssueCosts {
        let mut v = IssueCosts::cc52().0;
        for c in Class::ALL {
            let units = match c {
                Class::Dp => fp64,
                Class::Sfu => sfu,
                Class::GlobalLd
                | Class::GlobalSt
                | Class::Local
                | Class::Atomic
                | Class::Shared => lsu,
                _ => continue,
            };
            v[c.index()] = fp32 / units;
        }
        IssueCosts(v)
    }

    pub fn of(&self, c: Class) -> f64 {
        self.0[c.index()]
    }
}

/// Bytes of one access of a memory instruction (its type's width; 4 when untyped).
pub fn access_bytes(i: &Inst) -> f64 {
    match i.type_name() {
        Some("b8" | "s8" | "u8") => 1.0,
        Some("b16" | "s16" | "u16" | "f16") => 2.0,
        Some("b64" | "s64" | "u64" | "f64") => 8.0,
        _ => 4.0,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// Instruction count per class (index = `Class::index`).
    pub counts: [f64; 12],
    pub instructions: f64,
    pub kernels: f64,
    /// Bytes read or written by global, local and atomic accesses (per thread, static).
    pub global_bytes: f64,
    /// Global, local and atomic accesses (per thread, static).
    pub global_accesses: f64,
    /// Issue cost in FP32-instruction equivalents ([`IssueCosts`]), summed.
    pub core_cost: f64,
    /// The cost table `core_cost` and `cost_share` use.
    pub costs: IssueCosts,
    /// Non-memory instructions whose closest producer (within 3) is a memory load.
    pub load_dependent: f64,
}

impl Features {
    pub fn of(b: &Benchmark, costs: &IssueCosts) -> Features {
        let mut counts = [0.0; 12];
        let (mut n, mut bytes, mut cost, mut dep, mut acc) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for i in b.all_insts() {
            let c = i.class();
            counts[c.index()] += 1.0;
            n += 1.0;
            cost += costs.of(c);
            if matches!(
                c,
                Class::GlobalLd | Class::GlobalSt | Class::Local | Class::Atomic
            ) {
                bytes += access_bytes(i);
                acc += 1.0;
            }
            let is_mem = matches!(
                c,
                Class::GlobalLd
                    | Class::GlobalSt
                    | Class::Local
                    | Class::Atomic
                    | Class::Shared
                    | Class::Param
            );
            if !is_mem && i.dep_kind == 1 && (1..=3).contains(&i.dep_dist) {
                dep += 1.0;
            }
        }
        Features {
            counts,
            instructions: n,
            kernels: b.kernels.len() as f64,
            global_bytes: bytes,
            global_accesses: acc,
            core_cost: cost,
            costs: *costs,
            load_dependent: dep,
        }
    }

    /// Share of instructions in a class.
    pub fn mix(&self, c: Class) -> f64 {
        self.counts[c.index()] / self.instructions.max(1.0)
    }

    /// Share of the core issue cost spent in a class.
    pub fn cost_share(&self, c: Class) -> f64 {
        self.counts[c.index()] * self.costs.of(c) / self.core_cost.max(1e-9)
    }

    /// Global bytes per FP32-instruction-equivalent of core work (the static arithmetic intensity,
    /// inverted).
    pub fn bytes_per_cost(&self) -> f64 {
        self.global_bytes / self.core_cost.max(1e-9)
    }

    /// The feature vector of the regression models: the 12 class shares, log bytes per core cost,
    /// log instructions per kernel, the load-dependent share.
    pub fn vector(&self) -> Vec<f64> {
        let mut v: Vec<f64> = Class::ALL.iter().map(|c| self.mix(*c)).collect();
        v.push((self.bytes_per_cost() + 1e-3).ln());
        v.push((self.instructions / self.kernels.max(1.0)).max(1.0).ln());
        v.push(self.load_dependent / self.instructions.max(1.0));
        v
    }
}
