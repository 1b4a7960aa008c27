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
//! A register is tainted where its value may come from data: an instruction that writes it
//! from memory (other than the parameter space), from a special register the launch does not
//! decide (`%clock`, `%smid`, …), from a tainted operand, under a tainted guard, or in a block
//! that a tainted branch decides whether to run. Those blocks are the ones control dependent on
//! the branch: from each of its successors up the post-dominator tree to where its paths meet
//! again. A block after that meeting point runs whatever the data, so a loop counter stepped
//! there is not data (the loop over a state word's bits in curand's skip-ahead, with a
//! data-dependent `if` inside). Where the graph is incomplete (an unresolved branch target) or a
//! path never ends, every block reachable from the branch is taken instead, which only ever
//! says "data" too often.
//!
//! It is a forward data flow over the CFG, so taint follows values, not names: an untainted
//! write clears its register (unless a guard may skip it), and a join takes the union of what
//! its paths bring. nvcc reuses a register that later sums data as the zero that starts a
//! counter; the counter is not data. A register written on a data-dependent path is data at
//! the join.

use crate::affine::transfer::dests;
use crate::cfg::Cfg;
use crate::ptx::{AddrBase, Function, Inst, Operand, ParamOffset, SReg};
use std::collections::{BTreeMap, BTreeSet};

mod values;

pub struct Taint {
    /// Registers tainted somewhere in the function.
    regs: BTreeSet<String>,
    /// Per block, per instruction: the registers it reads (guard included) that are tainted there.
    reads: Vec<Vec<BTreeSet<String>>>,
}

impl Taint {
    pub fn new(cfg: &Cfg) -> Taint {
        let (code, fixpoint) = Code::fixpoint(cfg);
        code.taint(&fixpoint.entry, &fixpoint.influenced)
    }

    /// Whether the branch that ends block `b` may depend on data.
    pub fn branch(&self, cfg: &Cfg, b: usize) -> bool {
        let Some(g) = cfg.blocks[b].terminator().and_then(|t| t.pred.as_ref()) else {
            return false;
        };
        self.reads_tainted(b, cfg.blocks[b].insts.len() - 1, &g.reg)
    }

    /// Whether register `r`, read by instruction `k` of block `b`, may hold data there.
    pub fn reads_tainted(&self, b: usize, k: usize, r: &str) -> bool {
        self.reads
            .get(b)
            .and_then(|block| block.get(k))
            .is_some_and(|regs| regs.contains(r))
    }

    /// Whether register `r` may hold data somewhere in the function.
    pub fn reg(&self, r: &str) -> bool {
        self.regs.contains(r)
    }
}

/// The data flow at its fixpoint: the registers that may hold data at each block's entry, the
/// blocks a branch on data decides whether to run, and those branches (by the block they end).
struct Fixpoint {
    entry: Vec<Regs>,
    influenced: BTreeSet<usize>,
    tainted_branches: Vec<usize>,
}

/// A set of registers by number.
type Regs = Vec<u64>;

fn has(regs: &Regs, r: usize) -> bool {
    regs[r / 64] & (1 << (r % 64)) != 0
}

fn set(regs: &mut Regs, r: usize, on: bool) {
    if on {
        regs[r / 64] |= 1 << (r % 64);
    } else {
        regs[r / 64] &= !(1 << (r % 64));
    }
}

/// What the taint of one instruction depends on, with registers by number.
struct Step {
    guard: Option<usize>,
    reads: Vec<usize>,
    writes: Vec<usize>,
    reads_state: bool,
    /// A `shfl`'s in-range predicate and the lane operands it depends on, and whether one of
    /// them is state the launch does not decide.
    shfl_range: Option<(usize, Vec<usize>, bool)>,
}

impl Step {
    /// Whether `d` is a `shfl`'s in-range predicate whose lane operands hold no data, by
    /// `data`: it depends on the lane, not on the shuffled value.
    fn lane_only(&self, d: usize, data: impl Fn(usize) -> bool) -> bool {
        self.shfl_range
            .as_ref()
            .is_some_and(|(p, lanes, unlaunched)| {
                *p == d && !unlaunched && !lanes.iter().any(|&r| data(r))
            })
    }
}

/// The function's blocks as the data flow runs them.
struct Code {
    names: Vec<String>,
    blocks: Vec<Vec<Step>>,
    successors: Vec<Vec<usize>>,
}

impl Code {
    fn new(cfg: &Cfg) -> Code {
        let mut numbers: BTreeMap<String, usize> = BTreeMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut number = |r: &str| {
            *numbers.entry(r.to_string()).or_insert_with(|| {
                names.push(r.to_string());
                names.len() - 1
            })
        };
        let blocks = cfg
            .blocks
            .iter()
            .map(|bb| {
                bb.insts
                    .iter()
                    .map(|i| {
                        let writes: Vec<usize> = dests(i).iter().map(|d| number(d)).collect();
                        let shfl_range = shfl_range_predicate(i).map(|(d, lanes, unlaunched)| {
                            (
                                number(&d),
                                lanes.iter().map(|r| number(r)).collect(),
                                unlaunched,
                            )
                        });
                        Step {
                            guard: i.pred.as_ref().map(|g| number(&g.reg)),
                            reads: sources(i).iter().map(|r| number(r)).collect(),
                            writes,
                            reads_state: reads_state(i),
                            shfl_range,
                        }
                    })
                    .collect()
            })
            .collect();
        let successors = (0..cfg.blocks.len())
            .map(|b| cfg.successors(b).map(|e| e.to).collect())
            .collect();
        Code {
            names,
            blocks,
            successors,
        }
    }

    /// The taint of every register at every point, with the branches on data and the blocks
    /// they decide worked out together: a block a branch on data decides taints what it
    /// writes, which may make more branches data.
    fn fixpoint(cfg: &Cfg) -> (Code, Fixpoint) {
        let post_dominators = cfg.warnings.is_empty().then(|| cfg.post_dominators());
        let code = Code::new(cfg);
        let mut influenced = BTreeSet::new();
        loop {
            let entry = code.flow(&influenced);
            let tainted_branches: Vec<usize> = (0..code.blocks.len())
                .filter(|&b| code.ends_in_tainted_guard(b, &entry[b], &influenced))
                .collect();
            let next = controlled_blocks(cfg, post_dominators.as_deref(), &tainted_branches);
            if next == influenced {
                let fixpoint = Fixpoint {
                    entry,
                    influenced,
                    tainted_branches,
                };
                return (code, fixpoint);
            }
            influenced = next;
        }
    }

    fn empty(&self) -> Regs {
        vec![0; self.names.len().div_ceil(64)]
    }

    /// Block `b` run from `state`, showing the state before each instruction to `before`. A
    /// write taints its register when the instruction is tainted and clears it otherwise,
    /// unless a guard may skip it.
    fn run_block(
        &self,
        b: usize,
        state: &mut Regs,
        influenced: &BTreeSet<usize>,
        before: &mut dyn FnMut(usize, &Regs),
    ) {
        let decided_by_block = influenced.contains(&b);
        for (k, step) in self.blocks[b].iter().enumerate() {
            before(k, state);
            let decided = decided_by_block || step.guard.is_some_and(|g| has(state, g));
            let tainted = decided || step.reads_state || step.reads.iter().any(|&r| has(state, r));
            let mut next = Vec::with_capacity(step.writes.len());
            for &d in &step.writes {
                let lane_only = step.lane_only(d, |r| has(state, r));
                let on = tainted && (decided || !lane_only);
                // a guarded write may not happen: the register may keep what it held
                next.push((d, on || (step.guard.is_some() && has(state, d))));
            }
            for (d, on) in next {
                set(state, d, on);
            }
        }
    }

    /// Whether block `b`'s last instruction (its branch, if it has one) is guarded by a
    /// register that may hold data there.
    fn ends_in_tainted_guard(&self, b: usize, entry: &Regs, influenced: &BTreeSet<usize>) -> bool {
        let Some(guard) = self.blocks[b].last().and_then(|step| step.guard) else {
            return false;
        };
        let last = self.blocks[b].len() - 1;
        let mut state = entry.clone();
        let mut tainted = false;
        self.run_block(b, &mut state, influenced, &mut |k, st| {
            tainted |= k == last && has(st, guard)
        });
        tainted
    }

    /// The registers that may hold data at each block's entry: the union over its predecessors,
    /// to a fixpoint.
    fn flow(&self, influenced: &BTreeSet<usize>) -> Vec<Regs> {
        let n = self.blocks.len();
        let mut entry = vec![self.empty(); n];
        let mut queued = vec![true; n];
        let mut work: std::collections::VecDeque<usize> = (0..n).collect();
        while let Some(b) = work.pop_front() {
            queued[b] = false;
            let mut state = entry[b].clone();
            self.run_block(b, &mut state, influenced, &mut |_, _| {});
            for &s in &self.successors[b] {
                let mut grew = false;
                for (w, add) in entry[s].iter_mut().zip(&state) {
                    grew |= *add & !*w != 0;
                    *w |= add;
                }
                if grew && !queued[s] {
                    queued[s] = true;
                    work.push_back(s);
                }
            }
        }
        entry
    }

    /// The answer: per instruction, which registers it reads may hold data, from the states
    /// at the blocks' entries.
    fn taint(&self, entry: &[Regs], influenced: &BTreeSet<usize>) -> Taint {
        let mut ever = self.empty();
        let mut reads = Vec::with_capacity(self.blocks.len());
        for (b, steps) in self.blocks.iter().enumerate() {
            let mut per_inst = Vec::with_capacity(steps.len());
            let mut state = entry[b].clone();
            self.run_block(b, &mut state, influenced, &mut |k, st| {
                let step = &steps[k];
                let tainted: BTreeSet<String> = step
                    .reads
                    .iter()
                    .chain(&step.guard)
                    .filter(|&&r| has(st, r))
                    .map(|&r| self.names[r].clone())
                    .collect();
                per_inst.push(tainted);
                for (e, w) in ever.iter_mut().zip(st) {
                    *e |= w;
                }
            });
            for (e, w) in ever.iter_mut().zip(&state) {
                *e |= w;
            }
            reads.push(per_inst);
        }
        let regs = (0..self.names.len())
            .filter(|&r| has(&ever, r))
            .map(|r| self.names[r].clone())
            .collect();
        Taint { regs, reads }
    }
}

/// Indices of the parameters whose value may decide a guard, a branch or a memory address: the
/// ways a scalar changes what is counted. One that only enters arithmetic whose result is
/// stored (a time step's index, a scale factor) changes no count. Flow-insensitive: a
/// register holds every parameter any write to it derives from (a struct's fields count as
/// their parameter).
pub fn params_deciding_counts(f: &Function) -> BTreeSet<usize> {
    deciding(f, |s, _| f.param_index(s))
}

/// The fields (parameter, byte offset) of by-value struct parameters whose value may decide a
/// guard, a branch or a memory address, as [`params_deciding_counts`] tells parameters: a
/// size or a stride does, a scale factor does not.
pub fn fields_deciding_counts(f: &Function) -> BTreeSet<(usize, i64)> {
    deciding(f, |s, offset| {
        f.param_index(s)
            .filter(|&k| f.params[k].is_aggregate())
            .map(|k| (k, offset))
    })
}

/// The by-value struct parameters read at offsets the body computes
/// ([`Function::params_read_at_computed_offsets`]) whose values so read may decide a guard, a
/// branch or a memory address: a kernel that only stores such a value does not depend on it.
pub fn computed_param_reads_deciding(f: &Function) -> BTreeSet<usize> {
    let held = f.param_addresses();
    if !held.values().any(|a| a.offset == ParamOffset::Computed) {
        return BTreeSet::new();
    }
    deciding_with(
        f,
        |_, _| None,
        |i| {
            let is_param_load = i.opcode == "ld" && i.modifiers.iter().any(|m| m == "param");
            match i.operands.get(1) {
                Some(Operand::Addr {
                    base: AddrBase::Reg(r),
                    ..
                }) if is_param_load => held
                    .get(r.as_str())
                    .filter(|a| a.offset == ParamOffset::Computed)
                    .map(|a| a.param),
                _ => None,
            }
        },
    )
}

/// What `origin` names at each parameter load (its symbol and offset) that may decide a
/// guard, a branch or a memory address.
fn deciding<K: Ord + Copy>(f: &Function, origin: impl Fn(&str, i64) -> Option<K>) -> BTreeSet<K> {
    deciding_with(f, origin, |_| None)
}

/// [`deciding`], with `through` naming the parameter load at a register address an origin.
fn deciding_with<K: Ord + Copy>(
    f: &Function,
    origin: impl Fn(&str, i64) -> Option<K>,
    through: impl Fn(&Inst) -> Option<K>,
) -> BTreeSet<K> {
    let insts: Vec<&Inst> = f.instructions().collect();
    let mut from: BTreeMap<String, BTreeSet<K>> = BTreeMap::new();
    loop {
        let mut changed = false;
        for i in &insts {
            let mut origins: BTreeSet<K> = BTreeSet::new();
            origins.extend(through(i));
            if i.opcode == "ld" && i.modifiers.iter().any(|m| m == "param") {
                if let Some(Operand::Addr {
                    base: AddrBase::Symbol(s),
                    offset,
                }) = i.operands.get(1)
                {
                    // a vector load (`ld.param.v2.u32 {%r1, %r2}, [p+16]`) reads one field
                    // per register
                    if let Some(Operand::Vector(regs)) = i.operands.first() {
                        let step = i.types.last().map_or(4, |t| i64::from(t.bits() / 8));
                        for (k, r) in regs.iter().enumerate() {
                            let (Operand::Reg(r), Some(o)) =
                                (r, origin(s, offset + k as i64 * step))
                            else {
                                continue;
                            };
                            changed |= from.entry(r.clone()).or_default().insert(o);
                        }
                        continue;
                    }
                    origins.extend(origin(s, *offset));
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

/// Blocks whose running a branch on a tainted predicate decides.
fn controlled_blocks(
    cfg: &Cfg,
    post_dominators: Option<&[Option<usize>]>,
    tainted_branches: &[usize],
) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    for &b in tainted_branches {
        match post_dominators.and_then(|pd| control_dependent(cfg, pd, b)) {
            Some(blocks) => seen.extend(blocks),
            None => seen.extend(reachable_after(cfg, b)),
        }
    }
    seen
}

/// The blocks whose running the branch ending block `b` decides: from each successor up the
/// post-dominator tree to `b`'s own post-dominator. `None` where a path from there never ends.
fn control_dependent(cfg: &Cfg, post_dominators: &[Option<usize>], b: usize) -> Option<Vec<usize>> {
    let meet = post_dominators[b]?;
    let mut out = Vec::new();
    for e in cfg.successors(b) {
        let mut cur = e.to;
        while cur != meet {
            out.push(cur);
            cur = (*post_dominators.get(cur)?)?;
        }
    }
    Some(out)
}

/// The blocks whose running the branch ending block `b` decides, directly or through a block
/// it decides: those reachable from it before its paths meet again (its post-dominator, of
/// `post_dominators` where the graph is complete enough to have them), or every block
/// reachable from it where they never do.
pub fn decided_blocks(
    cfg: &Cfg,
    post_dominators: Option<&[Option<usize>]>,
    b: usize,
) -> BTreeSet<usize> {
    let Some(meet) = post_dominators.and_then(|pd| pd.get(b).copied().flatten()) else {
        return reachable_after(cfg, b);
    };
    let mut seen = BTreeSet::new();
    let mut todo: Vec<usize> = cfg.successors(b).map(|e| e.to).collect();
    while let Some(c) = todo.pop() {
        if c != meet && seen.insert(c) {
            todo.extend(cfg.successors(c).map(|e| e.to));
        }
    }
    seen
}

fn reachable_after(cfg: &Cfg, b: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<usize> = cfg.successors(b).map(|e| e.to).collect();
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

/// The in-range predicate of a `shfl` (`shfl.sync.mode.b32 d|p, a, b, c, mask`), the registers
/// of the lane operands `b`, `c` and `mask` it depends on, and whether one of them is state the
/// launch does not decide: the predicate depends on the lane and those, not on the shuffled
/// value `a`.
fn shfl_range_predicate(i: &Inst) -> Option<(String, BTreeSet<String>, bool)> {
    let Some(Operand::Pair(_, p)) = i.operands.first() else {
        return None;
    };
    if i.opcode != "shfl" {
        return None;
    }
    let mut lanes = BTreeSet::new();
    i.operands
        .iter()
        .skip(2)
        .for_each(|o| o.collect_reads(&mut lanes));
    let unlaunched = i.operands.iter().skip(2).any(unlaunched);
    Some((p.reg()?.to_string(), lanes, unlaunched))
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

    /// A struct's fields, as an accessor's: its pointer and its stride decide the store's
    /// address and its size the guard; a scale factor beside them, only stored, does not.
    #[test]
    fn struct_fields_that_decide_counts_are_told_apart() {
        let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
                   .visible .entry k(.param .align 8 .b8 k_a[24])\n\
                   {\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
                   ld.param.v2.u32 {%r1, %r2}, [k_a+8];\nld.param.u32 %r3, [k_a+16];\n\
                   ld.param.u64 %rd1, [k_a];\ncvta.to.global.u64 %rd2, %rd1;\n\
                   mov.u32 %r4, %tid.x;\nsetp.ge.s32 %p1, %r4, %r1;\n@%p1 bra DONE;\n\
                   mul.lo.s32 %r5, %r4, %r2;\nmul.wide.s32 %rd3, %r5, 4;\n\
                   add.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r3;\nDONE:\nret;\n}\n";
        let m = parse(src).unwrap();
        let f = &m.functions[0];
        assert_eq!(
            fields_deciding_counts(f),
            BTreeSet::from([(0, 0), (0, 8), (0, 12)])
        );
        assert_eq!(params_deciding_counts(f), BTreeSet::from([0]));
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

    /// A branch on data decides the blocks between it and the join, not those after: a loop's
    /// counter stepped after a data-dependent `if` in its body is not data, and so neither is an
    /// address made of it; a value set in the `if` is. A data-dependent early return decides
    /// everything after it, and a loop whose exit reads data decides its own counter.
    #[test]
    fn a_branch_on_data_decides_only_the_blocks_before_its_join() {
        let (_, t) = taint(
            "
            ld.global.u32 %r2, [%rd1];
            mov.u32 %r3, 0;
            mov.u32 %r4, 0;
        $L__loop:
            shl.b32 %r5, 1, %r3;
            and.b32 %r6, %r2, %r5;
            mul.wide.u32 %rd2, %r3, 4;
            add.s64 %rd3, %rd1, %rd2;
            setp.eq.s32 %p1, %r6, 0;
            @%p1 bra $L__join;
            ld.global.u32 %r7, [%rd3];
            xor.b32 %r4, %r4, %r7;
            mov.u32 %r8, 1;
        $L__join:
            add.s32 %r3, %r3, 1;
            setp.lt.u32 %p2, %r3, 32;
            @%p2 bra $L__loop;
            st.global.u32 [%rd1], %r4;
            ret;",
        );
        for r in ["%r3", "%r5", "%rd2", "%rd3", "%p2"] {
            assert!(!t.reg(r), "{r}");
        }
        for r in ["%r2", "%r6", "%p1", "%r7", "%r4", "%r8"] {
            assert!(t.reg(r), "{r}");
        }

        let (_, t) = taint(
            "
            ld.global.u32 %r2, [%rd1];
            setp.eq.s32 %p1, %r2, 0;
            @%p1 ret;
            mov.u32 %r3, %tid.x;
            mov.u32 %r4, 0;
        $L__scan:
            add.s32 %r4, %r4, 1;
            mul.wide.u32 %rd2, %r4, 4;
            add.s64 %rd3, %rd1, %rd2;
            ld.global.u32 %r5, [%rd3];
            setp.ne.s32 %p2, %r5, 0;
            @%p2 bra $L__scan;
            ret;",
        );
        // after a return on data, and a counter of a loop that data ends
        for r in ["%r3", "%r4", "%rd2"] {
            assert!(t.reg(r), "{r}");
        }
    }

    /// Taint follows the flow, not the name: nvcc reuses a register that later accumulates data
    /// as the zero that starts a counter, and the counter's address is no data; a guarded write
    /// may leave data in place, and a join merges what its paths bring.
    #[test]
    fn a_register_is_data_where_its_value_came_from_data() {
        let (cfg, t) = taint(
            "
            mov.u32 %r2, 0;
            mov.u32 %r3, %r2;
            ld.global.u32 %r4, [%rd1];
            xor.b32 %r2, %r2, %r4;
            mul.wide.u32 %rd2, %r3, 4;
            add.s64 %rd3, %rd1, %rd2;
            st.global.u32 [%rd3], %r2;
            setp.eq.s32 %p1, %r1, 0;
            @%p1 mov.u32 %r5, %r4;
            @%p1 bra $L__other;
            mov.u32 %r6, 7;
            bra.uni $L__join;
        $L__other:
            mov.u32 %r6, %r4;
        $L__join:
            st.global.u32 [%rd3], %r5;
            mul.wide.u32 %rd4, %r6, 4;
            add.s64 %rd5, %rd1, %rd4;
            st.global.u32 [%rd5], %r6;
            ret;",
        );
        let entry_block = &cfg.blocks[0].insts;
        let store = entry_block.len() - 4;
        assert!(entry_block[store].opcode == "st");
        assert!(!t.reads_tainted(0, store, "%rd3"), "the counter's address");
        assert!(t.reads_tainted(0, store, "%r2"), "the accumulated value");
        assert!(t.reg("%r2"), "data somewhere");
        // at the join: %r5 may hold data (a guarded copy), %r6 does on one path
        let join = cfg.blocks.len() - 1;
        assert!(t.reads_tainted(join, 0, "%r5"));
        assert!(t.reads_tainted(join, 1, "%r6"));
        assert!(!t.branch(&cfg, 0), "the branch on a parameter");
    }
}
