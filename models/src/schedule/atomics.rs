//! Which atomics a warp applies one lane after another, as ptxas compiles them for `sm_80` and
//! later (seen in `nvdisasm` of CUDA 13.5's `sm_86` code; `docs/time-model.md`).
//!
//! Lanes of a warp that meet at one address are applied in turn: by the L2's atomic unit for a
//! global atomic, by a compare-and-swap loop that lets one lane through a trip
//! (`ATOMS.CAST.SPIN`) for a float add on shared memory. ptxas takes that cost away where it
//! can: a 32-bit integer add, min, max, and, or or xor whose address it can prove the same in
//! every lane becomes a warp reduction (`REDUX`, or `VOTEU.ANY` and `POPC` for a constant) and
//! one atomic per warp. Inc, dec, cas, exch and every 64-bit or float operation stay one per
//! lane; on shared memory an integer operation is one `ATOMS` per warp or needs no loop, which
//! the scheduler's shared-memory traffic already covers.
//!
//! An address is the same in every lane *by construction* when it is made of parameters,
//! constants, module variables, the launch's sizes and block index, and values loaded from
//! such addresses; never of the thread or lane index, of local memory, or of what an atomic or
//! a shuffle returns. That is what ptxas can prove, and where no lane's data can send the lanes
//! elsewhere. The counts' stride class instead says where addresses met when the counter or
//! the emulator evaluated them: a data-indexed address (`bincount`'s bins, a hash table's
//! slots) meets other lanes' as the data makes it, and ptxas cannot reduce it. Such lanes are
//! applied one after another as they meet, each: where the counts class a global atomic's lanes
//! uniform beyond those uniform by construction, every lane is a serial execution. (On the
//! zero-filled buffers an emulated launch may run on, that is every lane; the program's own
//! data spreads them, but bins and slots that few do meet.)

use super::adapter::operand_regs;
use kerncast_passes::cfg::Cfg;
use kerncast_passes::classify::mem_access;
use kerncast_passes::ptx::{AddrBase, Inst, Operand, PtxType, SReg};
use kerncast_passes::stats::{BoundStats, Space};
use kerncast_passes::taint::decided_blocks;
use std::collections::{BTreeMap, BTreeSet};

/// The executions of a launch's atomics applied one after another ([`serial_lanes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SerialExecs {
    /// Global (and generic) atomics', each at the one place in the L2 all the GPU's warps meet.
    pub global: f64,
    /// The lanes of float adds to shared memory: each SM spins through its own blocks' lanes.
    pub shared_spin: f64,
}

/// How many of a warp's executions of an atomic at a lane-uniform address the memory system
/// applies one after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Serial {
    /// One per lane that runs it.
    Lanes,
    /// One per warp: ptxas reduced the lanes first.
    Warps,
}

/// An atomic whose lanes all address one place by construction, and how they are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SerialAtomic {
    /// CFG block and position in it (as `BoundStats::inst_execs` takes them).
    pub block: usize,
    pub inst: usize,
    pub per: Serial,
    /// On shared memory, which the counts' uniform global lanes do not include.
    pub shared: bool,
}

/// The atomics of `cfg` whose address is the same in every lane by construction.
pub fn serial_atomics(cfg: &Cfg) -> Vec<SerialAtomic> {
    let varying = varying_registers(cfg);
    let mut out = Vec::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        for (k, inst) in block.insts.iter().enumerate() {
            if let Some(per) = serial_form(inst, &varying) {
                out.push(SerialAtomic {
                    block: b,
                    inst: k,
                    per,
                    shared: matches!(mem_access(inst), Some((Space::Shared, ..))),
                });
            }
        }
    }
    out
}

/// The executions the atomics apply one after another, for the executions `stats` counts:
/// of `atomics` (uniform by construction), each lane or, where ptxas reduces them, each warp;
/// and every lane of the global atomics the counts class uniform beyond those.
pub fn serial_lanes(stats: &BoundStats, atomics: &[SerialAtomic]) -> SerialExecs {
    let mut out = SerialExecs::default();
    let mut by_construction = 0.0;
    for a in atomics {
        let Some(e) = stats.inst_execs(a.block, a.inst) else {
            continue;
        };
        let n = match a.per {
            Serial::Lanes => e.threads,
            Serial::Warps => e.warps,
        };
        if a.shared {
            out.shared_spin += n;
        } else {
            out.global += n;
            by_construction += e.threads;
        }
    }
    let met_in_data = stats.sum_where(crate::sched_terms::is_uniform_atomic_lanes);
    out.global += (met_in_data - by_construction).max(0.0);
    out
}

/// How an atomic's lanes are applied where its address is uniform by construction; `None` for
/// what is not an atomic, addresses that may differ by lane, and shared-memory operations that
/// do not spin.
fn serial_form(inst: &Inst, varying: &BTreeSet<String>) -> Option<Serial> {
    if !matches!(inst.opcode.as_str(), "atom" | "red") {
        return None;
    }
    let (space, ..) = mem_access(inst)?;
    let uniform = inst.operands.iter().any(|op| match op {
        Operand::Addr { base, .. } => match base {
            AddrBase::Reg(r) => !varying.contains(r),
            AddrBase::Symbol(_) | AddrBase::None => true,
        },
        _ => false,
    });
    if !uniform {
        return None;
    }
    let float = inst.types.iter().any(|t| t.is_float());
    let op = |o: &str| inst.has_modifier(o);
    match space {
        Space::Shared => (float && op("add")).then_some(Serial::Lanes),
        Space::Global | Space::Generic => {
            let reducible = ["add", "min", "max", "and", "or", "xor"]
                .iter()
                .any(|o| op(o))
                && inst.types.len() == 1
                && matches!(inst.types[0], PtxType::U32 | PtxType::S32 | PtxType::B32);
            Some(if reducible {
                Serial::Warps
            } else {
                Serial::Lanes
            })
        }
        _ => None,
    }
}

/// Whether reading `r` gives each lane its own value, whatever the data.
fn varying_special(r: &SReg) -> bool {
    matches!(
        r,
        SReg::Tid(_)
            | SReg::Laneid
            | SReg::LanemaskEq
            | SReg::LanemaskLe
            | SReg::LanemaskLt
            | SReg::LanemaskGe
            | SReg::LanemaskGt
            | SReg::Clock
            | SReg::Clock64
            | SReg::Globaltimer
            | SReg::Other(_)
    )
}

/// Whether `inst` writes a value that may differ by lane even where what it reads does not.
fn makes_varying(inst: &Inst) -> bool {
    let reads_varying_special = inst
        .operands
        .iter()
        .any(|op| reads_special(op, &varying_special));
    let per_lane_result = matches!(
        inst.opcode.as_str(),
        "atom" | "shfl" | "match" | "activemask"
    );
    // each lane's local memory is its own: one address, a different place per lane
    let local = matches!(mem_access(inst), Some((Space::Local, ..)));
    reads_varying_special || per_lane_result || local
}

fn reads_special(op: &Operand, pick: &dyn Fn(&SReg) -> bool) -> bool {
    match op {
        Operand::SpecialReg(r) => pick(r),
        Operand::Vector(v) | Operand::List(v) | Operand::AddrList(v) => {
            v.iter().any(|o| reads_special(o, pick))
        }
        Operand::Pair(a, b) => reads_special(a, pick) || reads_special(b, pick),
        Operand::Not(a) => reads_special(a, pick),
        _ => false,
    }
}

/// The registers that may hold a different value in different lanes of a warp: written from a
/// lane's own value, from one that is, under a guard that is, or, where the register is written
/// in more than one place, in a block whose running a lane-varying branch decides (the lanes
/// that took each side then hold each side's value). A fixpoint: a register found varying can
/// make a branch varying, and that branch the registers its region writes.
fn varying_registers(cfg: &Cfg) -> BTreeSet<String> {
    let mut writes: BTreeMap<String, usize> = BTreeMap::new();
    for inst in cfg.blocks.iter().flat_map(|b| &b.insts) {
        for r in operand_regs(inst).0 {
            *writes.entry(r).or_default() += 1;
        }
    }
    // where the graph is incomplete, every block after a branch is decided by it
    let post_dominators = cfg.warnings.is_empty().then(|| cfg.post_dominators());
    let mut varying: BTreeSet<String> = BTreeSet::new();
    let mut divergent_blocks: BTreeSet<usize> = BTreeSet::new();
    loop {
        let before = (varying.len(), divergent_blocks.len());
        for (b, block) in cfg.blocks.iter().enumerate() {
            let in_divergent = divergent_blocks.contains(&b);
            for inst in &block.insts {
                let (dst, src) = operand_regs(inst);
                let from_varying = makes_varying(inst) || src.iter().any(|r| varying.contains(r));
                for r in dst {
                    let merged = in_divergent && writes.get(&r).copied().unwrap_or(0) > 1;
                    if from_varying || merged {
                        varying.insert(r);
                    }
                }
            }
        }
        for (b, block) in cfg.blocks.iter().enumerate() {
            let divergent_branch = block
                .terminator()
                .and_then(|t| t.pred.as_ref())
                .is_some_and(|g| varying.contains(&g.reg));
            if divergent_branch {
                divergent_blocks.extend(decided_blocks(cfg, post_dominators.as_deref(), b));
            }
        }
        if (varying.len(), divergent_blocks.len()) == before {
            return varying;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::ptx::Module;

    fn forms(body: &str) -> Vec<Serial> {
        let ptx = format!(
            ".version 8.0\n.target sm_86\n.address_size 64\n\
             .visible .entry k(.param .u64 k_p, .param .u64 k_q)\n{{\n\
             .reg .b32 %r<20>;\n.reg .b64 %rd<20>;\n.reg .f32 %f<8>;\n.reg .pred %p<4>;\n\
             .shared .align 4 .f32 s_sum;\n\
             ld.param.u64 %rd1, [k_p];\ncvta.to.global.u64 %rd2, %rd1;\n\
             mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n{body}\nret;\n}}\n"
        );
        let m = Module::parse(&ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        serial_atomics(&Cfg::build(f))
            .into_iter()
            .map(|a| a.per)
            .collect()
    }

    /// A 32-bit integer add at a parameter's address is one per warp (ptxas reduces the
    /// lanes); the same address with the block index is still uniform; a float add, an inc and
    /// a 64-bit add there stay one per lane.
    #[test]
    fn ptxas_reduces_uniform_32_bit_integer_reductions_only() {
        assert_eq!(forms("red.global.add.u32 [%rd2], %r1;"), [Serial::Warps]);
        assert_eq!(
            forms("mul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\natom.global.max.s32 %r3, [%rd4], %r1;"),
            [Serial::Warps]
        );
        assert_eq!(
            forms("cvt.rn.f32.u32 %f1, %r1;\nred.global.add.f32 [%rd2], %f1;"),
            [Serial::Lanes]
        );
        assert_eq!(
            forms("atom.global.inc.u32 %r3, [%rd2], 100;"),
            [Serial::Lanes]
        );
        assert_eq!(
            forms("cvt.u64.u32 %rd5, %r1;\nred.global.add.u64 [%rd2], %rd5;"),
            [Serial::Lanes]
        );
        assert_eq!(
            forms("atom.global.cas.b32 %r3, [%rd2], 0, %r1;"),
            [Serial::Lanes]
        );
    }

    /// An address made of the thread index, or of a value loaded through it, is not uniform by
    /// construction, whatever the data it ran on; one loaded through a uniform address is.
    #[test]
    fn addresses_of_the_thread_index_are_not_uniform() {
        assert!(forms(
            "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nred.global.add.u32 [%rd4], 1;"
        )
        .is_empty());
        assert!(forms(
            "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r4, [%rd4];\n\
             mul.wide.u32 %rd5, %r4, 4;\nadd.s64 %rd6, %rd2, %rd5;\nred.global.add.u32 [%rd6], 1;"
        )
        .is_empty());
        assert_eq!(
            forms(
                "mul.wide.u32 %rd3, %r2, 8;\nadd.s64 %rd4, %rd2, %rd3;\nld.global.u64 %rd5, [%rd4];\n\
                 red.global.add.u32 [%rd5], %r1;"
            ),
            [Serial::Warps]
        );
    }

    /// A float add to a shared variable spins once per lane; an integer one there does not.
    #[test]
    fn a_shared_float_add_spins_per_lane() {
        assert_eq!(
            forms("cvt.rn.f32.u32 %f1, %r1;\natom.shared.add.f32 %f2, [s_sum], %f1;"),
            [Serial::Lanes]
        );
        assert!(forms("atom.shared.add.u32 %r3, [s_sum], %r1;").is_empty());
    }

    /// Of 4096 lanes the counts class uniform, 1024 belong to an atomic ptxas reduces (32 warps
    /// of them serial) and the rest met in the data (each serial); a shared spin adds its lanes.
    #[test]
    fn lanes_uniform_by_construction_follow_the_sass_and_the_rest_each_count() {
        use kerncast_passes::stats::{BlockExecs, Dir, Feature, Granularity, StrideClass};
        let mut s = BoundStats::default();
        s.block_execs.insert(
            0,
            BlockExecs {
                threads: 1024.0,
                warps: 32.0,
            },
        );
        s.block_execs.insert(
            1,
            BlockExecs {
                threads: 512.0,
                warps: 16.0,
            },
        );
        s.features.insert(
            Feature::Mem {
                space: Space::Global,
                dir: Dir::Atomic,
                bits: 32,
                stride: StrideClass::Uniform,
                nc: false,
                gran: Granularity::Thread,
            },
            4096.0,
        );
        let atomics = [
            SerialAtomic {
                block: 0,
                inst: 3,
                per: Serial::Warps,
                shared: false,
            },
            SerialAtomic {
                block: 1,
                inst: 0,
                per: Serial::Lanes,
                shared: true,
            },
        ];
        assert_eq!(
            serial_lanes(&s, &atomics),
            SerialExecs {
                global: 32.0 + (4096.0 - 1024.0),
                shared_spin: 512.0
            }
        );
        assert_eq!(serial_lanes(&s, &[]).global, 4096.0);
    }

    /// A register set on both sides of a branch on the thread index holds each side's value in
    /// the lanes that took it: an address made of it is not uniform.
    #[test]
    fn a_value_merged_after_a_divergent_branch_varies() {
        let body = "setp.lt.u32 %p1, %r1, 16;\nmov.u64 %rd6, 0;\n@%p1 bra $L_a;\n\
                    mov.u64 %rd6, 4;\n$L_a:\nadd.s64 %rd7, %rd2, %rd6;\nred.global.add.u32 [%rd7], 1;";
        assert!(forms(body).is_empty(), "{:?}", forms(body));
    }
}
