//! Which registers may depend on data, as opposed to the launch and the kernel parameters.
//!
//! Why: a branch whose condition affine recovery cannot express is not necessarily data
//! dependent. `if (blockIdx.y * rows + r < n)` compares a product of a launch index and a
//! parameter, and a grid-stride loop unrolled by 4 divides by `blockDim.x * gridDim.x`; both
//! are decided by the launch alone and become affine once the parameters and the grid are
//! numbers, which `KernelStats::bind` can do for a workload. Labelling them data dependent
//! would send such kernels to the emulator (and the oracle would call a static kernel
//! unanalysable). So the domain pass asks this pass which of its unresolved branches really
//! read data.
//!
//! A register is tainted when an instruction writes it from memory (other than the parameter
//! space), from a special register the launch does not decide (`%clock`, `%smid`, …), from a
//! tainted operand or under a tainted guard, or in a block that a tainted branch may decide
//! whether to run (every block reachable from it: coarse, but it only ever says "data" too
//! often, which is what the analysis said before). Registers are taken by name over the whole
//! function, so a name reused for data taints every use.

use crate::affine::dests;
use crate::cfg::Cfg;
use crate::ptx::{AddrBase, Function, Inst, Operand, SReg};
use std::collections::{BTreeMap, BTreeSet};

pub struct Taint {
    regs: BTreeSet<String>,
}

impl Taint {
    pub fn new(cfg: &Cfg) -> Taint {
        let mut regs: BTreeSet<String> = BTreeSet::new();
        loop {
            let influenced = influenced(cfg, &regs);
            let mut changed = false;
            for (b, bb) in cfg.blocks.iter().enumerate() {
                for i in &bb.insts {
                    let decided_by_taint = influenced.contains(&b)
                        || i.pred.as_ref().is_some_and(|g| regs.contains(&g.reg));
                    let tainted = decided_by_taint
                        || reads_state(i)
                        || sources(i).iter().any(|r| regs.contains(r));
                    if tainted {
                        for d in dests(i) {
                            if decided_by_taint || !shfl_range_untainted(i, &d, &regs) {
                                changed |= regs.insert(d);
                            }
                        }
                    }
                }
            }
            if !changed {
                return Taint { regs };
            }
        }
    }

    /// Whether the branch that ends block `b` may depend on data.
    pub fn branch(&self, cfg: &Cfg, b: usize) -> bool {
        cfg.blocks[b]
            .terminator()
            .and_then(|t| t.pred.as_ref())
            .is_some_and(|g| self.regs.contains(&g.reg))
    }

    pub fn reg(&self, r: &str) -> bool {
        self.regs.contains(r)
    }
}

/// Indices of the parameters whose value may decide a guard, a branch or a memory address: the
/// ways a scalar changes what is counted. One that only enters arithmetic whose result is
/// stored (a time step's index, a scale factor) changes no count. Flow-insensitive: a
/// register holds every parameter any write to it derives from (a struct's fields count as
/// their parameter).
pub fn params_deciding_counts(f: &Function) -> BTreeSet<usize> {
    let insts: Vec<&Inst> = f.instructions().collect();
    let mut from: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    loop {
        let mut changed = false;
        for i in &insts {
            let mut origins: BTreeSet<usize> = BTreeSet::new();
            if i.opcode == "ld" && i.modifiers.iter().any(|m| m == "param") {
                if let Some(Operand::Addr {
                    base: AddrBase::Symbol(s),
                    ..
                }) = i.operands.get(1)
                {
                    origins.extend(f.param_index(s));
                }
            }
            for r in sources(i) {
                origins.extend(from.get(&r).into_iter().flatten());
            }
            if origins.is_empty() {
                continue;
            }
            for d in dests(i) {
                let set = from.entry(d).or_default();
                let before = set.len();
                set.extend(origins.iter().copied());
                changed |= set.len() != before;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = BTreeSet::new();
    for i in &insts {
        if let Some(g) = &i.pred {
            out.extend(from.get(&g.reg).into_iter().flatten());
        }
        if i.modifiers.iter().any(|m| m == "param") {
            continue;
        }
        for o in &i.operands {
            if let Operand::Addr {
                base: AddrBase::Reg(r),
                ..
            } = o
            {
                out.extend(from.get(r).into_iter().flatten());
            }
        }
    }
    out
}

/// Blocks reachable from a branch on a tainted predicate.
fn influenced(cfg: &Cfg, regs: &BTreeSet<String>) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<usize> = (0..cfg.blocks.len())
        .filter(|&b| {
            cfg.blocks[b]
                .terminator()
                .and_then(|t| t.pred.as_ref())
                .is_some_and(|g| regs.contains(&g.reg))
        })
        .flat_map(|b| cfg.successors(b).map(|e| e.to).collect::<Vec<_>>())
        .collect();
    while let Some(b) = todo.pop() {
        if seen.insert(b) {
            todo.extend(cfg.successors(b).map(|e| e.to));
        }
    }
    seen
}

/// Whether `i` reads memory other than the kernel parameters, or state the launch does not
/// decide.
fn reads_state(i: &Inst) -> bool {
    let memory = matches!(
        i.opcode.as_str(),
        "ld" | "ldu"
            | "atom"
            | "red"
            | "tex"
            | "tld4"
            | "suld"
            | "shfl"
            | "vote"
            | "match"
            | "redux"
            | "activemask"
            | "call"
    );
    let param = i.modifiers.iter().any(|m| m == "param");
    (memory && !(i.opcode == "ld" && param)) || i.operands.iter().any(unlaunched)
}

/// Whether an operand reads state the launch does not set. The cluster registers it does set,
/// whether the PTX fixes the cluster shape or the host does.
fn unlaunched(o: &Operand) -> bool {
    match o {
        Operand::SpecialReg(s) if s.cluster_register().is_some() => false,
        Operand::SpecialReg(s) => !matches!(
            s,
            SReg::Tid(_) | SReg::Ntid(_) | SReg::Ctaid(_) | SReg::Nctaid(_) | SReg::Laneid
        ),
        Operand::Not(a) => unlaunched(a),
        Operand::Vector(v) | Operand::List(v) | Operand::AddrList(v) => v.iter().any(unlaunched),
        Operand::Pair(a, b) => unlaunched(a) || unlaunched(b),
        _ => false,
    }
}

/// Whether `d` is the in-range predicate of a `shfl` (`shfl.sync.mode.b32 d|p, a, b, c, mask`)
/// whose lane operands are untainted: the predicate depends on the lane, `b` and `c`, not on the
/// shuffled value `a`.
fn shfl_range_untainted(i: &Inst, d: &str, regs: &BTreeSet<String>) -> bool {
    let Some(Operand::Pair(_, p)) = i.operands.first() else {
        return false;
    };
    if i.opcode != "shfl" || p.reg() != Some(d) {
        return false;
    }
    let mut lane_operands = BTreeSet::new();
    i.operands
        .iter()
        .skip(2)
        .for_each(|o| o.collect_reads(&mut lane_operands));
    !lane_operands.iter().any(|r| regs.contains(r)) && !i.operands.iter().skip(2).any(unlaunched)
}

/// The registers `i` reads.
fn sources(i: &Inst) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let skip = usize::from(!dests(i).is_empty());
    i.operands
        .iter()
        .skip(skip)
        .for_each(|o| o.collect_reads(&mut out));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse;

    /// A loop bound (through a compare and a guarded branch) and an index into an address
    /// decide counts; a value only computed with and stored does not.
    #[test]
    fn parameters_that_decide_counts_are_those_reaching_guards_and_addresses() {
        let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
                   .visible .entry k(.param .u32 k_n, .param .u32 k_t, .param .u32 k_j, .param .u64 k_p)\n\
                   {\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
                   ld.param.u32 %r1, [k_n];\nld.param.u32 %r2, [k_t];\nld.param.u32 %r3, [k_j];\n\
                   ld.param.u64 %rd1, [k_p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r4, 0;\n\
                   LOOP:\nmul.lo.s32 %r5, %r2, 3;\nxor.b32 %r6, %r4, %r3;\n\
                   mul.wide.u32 %rd3, %r6, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r5;\n\
                   add.s32 %r4, %r4, 1;\nsetp.lt.s32 %p1, %r4, %r1;\n@%p1 bra LOOP;\nret;\n}\n";
        let m = parse(src).unwrap();
        let deciding = params_deciding_counts(&m.functions[0]);
        // n bounds the loop, j indexes the store, p is its base; t is only stored
        assert_eq!(deciding, BTreeSet::from([0, 2, 3]));
    }

    fn taint(body: &str) -> (Cfg, Taint) {
        let src = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 k_n, .param .u64 k_p)\n{{\n.reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\nld.param.u32 %r1, [k_n];\nld.param.u64 %rd1, [k_p];\n{body}\n}}\n"
        );
        let m = parse(&src).unwrap();
        let cfg = Cfg::build(&m.functions[0]);
        let t = Taint::new(&cfg);
        (cfg, t)
    }

    #[test]
    fn products_of_the_launch_are_not_data_but_loads_and_what_they_decide_are() {
        let (_, t) = taint(
            "
            mov.u32 %r2, %ctaid.y;
            mul.lo.s32 %r3, %r2, %r1;
            setp.lt.s32 %p1, %r3, 7;
            ld.global.u32 %r4, [%rd1];
            setp.eq.s32 %p2, %r4, 0;
            @%p2 bra $L__skip;
            mov.u32 %r5, 1;
        $L__skip:
            mov.u32 %r6, %clock;
            ret;",
        );
        for r in ["%r1", "%rd1", "%r2", "%r3", "%p1"] {
            assert!(!t.reg(r), "{r}");
        }
        for r in ["%r4", "%p2", "%r5", "%r6"] {
            assert!(t.reg(r), "{r}");
        }
    }
}
