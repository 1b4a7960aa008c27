//! Which registers hold a value that depends on data where an instruction reads them, given
//! that the instruction runs: the question a memory address asks.
//!
//! [`Taint::new`] calls a register data from the moment a block that a branch on data decides
//! writes it: whether the write ran depends on the data. Past the branch's join that is what
//! it means (`x = a; if (d) x = b;` leaves data in `x`), but inside the blocks the branch
//! decides, a value made only of launch values is the same whatever the data: `if (valid)
//! h = p[i + 1] - p[i - 1]` reads where `i` says whenever it reads at all. The emulator runs on
//! zero-filled buffers, so which accesses run may differ from the real run (the counts say
//! so), but an access whose address is a value of this kind touches the sectors it would.
//!
//! So a write leaves its register tagged with the branches on data that decide its block, and
//! a read is data where the value came from data (a load, a guard on data, state the launch
//! does not set) or where a tag of it does not decide the reading block: the read lies past
//! that branch's join, where which write reached it depends on the data. A join takes the
//! union of what its paths bring. Which branches are on data is [`Taint::new`]'s answer.
//!
//! Only the registers an address is made of are followed (those read by an address operand,
//! and what their writes read, guards included): the rest can not change an answer, and in a
//! kernel of long arithmetic they are most of the work.

use super::{has, set, Code, Regs, Taint};
use crate::cfg::Cfg;
use crate::ptx::{AddrBase, Operand};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

/// Branches on data by index into the fixpoint's list, sorted; shared, since a block's writes
/// all take the block's own.
type Tags = Rc<[u32]>;

/// What may hold data at a point: registers whose value came from data, and per register the
/// branches on data (indices into the fixpoint's list, sorted) that decide its last writes.
#[derive(Clone)]
struct State {
    data: Regs,
    tags: BTreeMap<usize, Tags>,
}

/// The union of two sorted lists, `a` itself where `b` adds nothing to it.
fn union(a: &Tags, b: &Tags) -> Tags {
    if Rc::ptr_eq(a, b) || b.iter().all(|t| a.binary_search(t).is_ok()) {
        return a.clone();
    }
    let mut out: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
    out.sort_unstable();
    out.dedup();
    out.into()
}

impl State {
    /// Adds what `other` brings to a join; whether anything was new.
    fn join(&mut self, other: &State) -> bool {
        let mut grew = false;
        for (w, add) in self.data.iter_mut().zip(&other.data) {
            grew |= *add & !*w != 0;
            *w |= add;
        }
        for (&r, tags) in &other.tags {
            match self.tags.get_mut(&r) {
                Some(mine) => {
                    let both = union(mine, tags);
                    grew |= both.len() != mine.len();
                    *mine = both;
                }
                None => {
                    self.tags.insert(r, tags.clone());
                    grew = true;
                }
            }
        }
        grew
    }
}

impl Taint {
    /// Per instruction, the registers it reads that an address is made of and whose value
    /// may depend on data where it runs (see the module's doc); [`Taint::reg`] names those
    /// read so somewhere.
    pub fn addresses(cfg: &Cfg) -> Taint {
        let (code, fixpoint) = Code::fixpoint(cfg);
        let post_dominators = cfg.warnings.is_empty().then(|| cfg.post_dominators());
        let mut deciding: Vec<Vec<u32>> = vec![Vec::new(); code.blocks.len()];
        for (j, &b) in fixpoint.tainted_branches.iter().enumerate() {
            for d in super::decided_blocks(cfg, post_dominators.as_deref(), b) {
                deciding[d].push(j as u32);
            }
        }
        let values = Values {
            code: &code,
            deciding: deciding.into_iter().map(Tags::from).collect(),
            slice: address_slice(cfg, &code),
        };
        values.answer(&values.flow())
    }
}

struct Values<'a> {
    code: &'a Code,
    /// Per block, the branches on data that decide whether it runs, sorted.
    deciding: Vec<Tags>,
    /// By register number, whether an address is made of it.
    slice: Vec<bool>,
}

/// By register number, the registers an address is made of: those an address operand reads,
/// and what the instructions that write them read, guards included, to a fixpoint.
fn address_slice(cfg: &Cfg, code: &Code) -> Vec<bool> {
    let number: BTreeMap<&str, usize> = code
        .names
        .iter()
        .enumerate()
        .map(|(k, n)| (n.as_str(), k))
        .collect();
    let mut slice = vec![false; code.names.len()];
    for i in cfg.blocks.iter().flat_map(|bb| &bb.insts) {
        for o in &i.operands {
            for l in o.leaves() {
                if let Operand::Addr {
                    base: AddrBase::Reg(r),
                    ..
                } = l
                {
                    if let Some(&k) = number.get(r.as_str()) {
                        slice[k] = true;
                    }
                }
            }
        }
    }
    loop {
        let mut grew = false;
        for step in code.blocks.iter().flatten() {
            if step.writes.iter().any(|&d| slice[d]) {
                for &r in step.reads.iter().chain(&step.guard) {
                    grew |= !std::mem::replace(&mut slice[r], true);
                }
            }
        }
        if !grew {
            return slice;
        }
    }
}

impl Values<'_> {
    fn empty(&self) -> State {
        State {
            data: self.code.empty(),
            tags: BTreeMap::new(),
        }
    }

    /// Whether register `r` read in block `b` may hold data there.
    fn reads_data(&self, b: usize, st: &State, r: usize) -> bool {
        has(&st.data, r)
            || st.tags.get(&r).is_some_and(|tags| {
                tags.iter()
                    .any(|t| self.deciding[b].binary_search(t).is_err())
            })
    }

    /// Block `b` run from `st`, showing the state before each instruction to `before`.
    fn run_block(&self, b: usize, st: &mut State, before: &mut dyn FnMut(usize, &State)) {
        for (k, step) in self.code.blocks[b].iter().enumerate() {
            before(k, st);
            if !step.writes.iter().any(|&d| self.slice[d]) {
                continue;
            }
            let guard_data = step.guard.is_some_and(|g| self.reads_data(b, st, g));
            let data = guard_data
                || step.reads_state
                || step.reads.iter().any(|&r| self.reads_data(b, st, r));
            let may_skip = step.guard.is_some();
            let mut next = Vec::with_capacity(step.writes.len());
            for &d in &step.writes {
                let lane_only = step.lane_only(d, |r| self.reads_data(b, st, r));
                let on = data && (guard_data || !lane_only);
                // a guarded write may not happen: the register may keep what it held
                let tags = match st.tags.get(&d).filter(|_| may_skip) {
                    Some(kept) => union(&self.deciding[b], kept),
                    None => self.deciding[b].clone(),
                };
                next.push((d, on || (may_skip && has(&st.data, d)), tags));
            }
            for (d, on, tags) in next {
                set(&mut st.data, d, on);
                if tags.is_empty() {
                    st.tags.remove(&d);
                } else {
                    st.tags.insert(d, tags);
                }
            }
        }
    }

    /// The state at each block's entry: the join of its predecessors', to a fixpoint.
    fn flow(&self) -> Vec<State> {
        let n = self.code.blocks.len();
        let mut entry = vec![self.empty(); n];
        let mut queued = vec![true; n];
        let mut work: VecDeque<usize> = (0..n).collect();
        while let Some(b) = work.pop_front() {
            queued[b] = false;
            let mut st = entry[b].clone();
            self.run_block(b, &mut st, &mut |_, _| {});
            for &s in &self.code.successors[b] {
                if entry[s].join(&st) && !queued[s] {
                    queued[s] = true;
                    work.push_back(s);
                }
            }
        }
        entry
    }

    fn answer(&self, entry: &[State]) -> Taint {
        let mut ever = BTreeSet::new();
        let mut reads = Vec::with_capacity(self.code.blocks.len());
        for (b, steps) in self.code.blocks.iter().enumerate() {
            let mut per_inst = Vec::with_capacity(steps.len());
            let mut st = entry[b].clone();
            self.run_block(b, &mut st, &mut |k, st| {
                let step = &steps[k];
                let data: BTreeSet<String> = step
                    .reads
                    .iter()
                    .chain(&step.guard)
                    .filter(|&&r| self.slice[r] && self.reads_data(b, st, r))
                    .map(|&r| self.code.names[r].clone())
                    .collect();
                ever.extend(data.iter().cloned());
                per_inst.push(data);
            });
            reads.push(per_inst);
        }
        Taint { regs: ever, reads }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parse;

    fn values(body: &str) -> (Cfg, Taint, Taint) {
        let src = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 k_p)\n{{\n\
             .reg .pred %p<9>; .reg .b32 %r<20>; .reg .b64 %rd<20>;\n\
             ld.param.u64 %rd1, [k_p];\nmov.u32 %r1, %tid.x;\n{body}\n}}\n"
        );
        let m = parse(&src).unwrap();
        let cfg = Cfg::build(&m.functions[0]);
        let (all, values) = (Taint::new(&cfg), Taint::addresses(&cfg));
        (cfg, all, values)
    }

    /// The instruction of block `b` that is a load or store (the first).
    fn access(cfg: &Cfg, b: usize) -> usize {
        cfg.blocks[b]
            .insts
            .iter()
            .position(|i| i.opcode == "ld" || i.opcode == "st")
            .unwrap()
    }

    /// `if (p[i] < 200) s = p[i + 1] - p[i - 1]`: the neighbours' address, made in the block
    /// the branch on data decides, is the same whatever the data; [`Taint::new`] calls it data.
    #[test]
    fn an_address_made_inside_a_branch_on_data_is_no_data_there() {
        let (cfg, all, values) = values(
            "
            mul.wide.u32 %rd2, %r1, 4;
            add.s64 %rd3, %rd1, %rd2;
            ld.global.u32 %r2, [%rd3];
            setp.ge.u32 %p1, %r2, 200;
            @%p1 bra $L__join;
            add.s64 %rd4, %rd3, 4;
            ld.global.u32 %r3, [%rd4];
            st.global.u32 [%rd3], %r3;
        $L__join:
            ret;",
        );
        let b = 1;
        let k = access(&cfg, b);
        assert!(all.reads_tainted(b, k, "%rd4"), "Taint::new: data");
        assert!(
            !values.reads_tainted(b, k, "%rd4"),
            "its value is the launch's"
        );
        // the loaded value is data, but no address is made of it: not followed
        assert!(all.reg("%r2") && !values.reg("%r2"));
    }

    /// `if (isnan(p[i])) return; … if (x > 1) s = p[i - 1];`: the early return on data decides
    /// the rest of the kernel, the address made after it is read in a block only a branch on
    /// the launch decides, and is no data there either.
    #[test]
    fn a_branch_on_data_decides_the_blocks_after_those_it_decides_directly() {
        let (cfg, all, values) = values(
            "
            mul.wide.u32 %rd2, %r1, 4;
            add.s64 %rd3, %rd1, %rd2;
            ld.global.u32 %r2, [%rd3];
            setp.eq.u32 %p1, %r2, 0;
            @%p1 bra $L__out;
            add.s64 %rd4, %rd3, -4;
            setp.lt.u32 %p2, %r1, 2;
            @%p2 bra $L__out;
            ld.global.u32 %r3, [%rd4];
            st.global.u32 [%rd3], %r3;
        $L__out:
            ret;",
        );
        let b = 2;
        let k = access(&cfg, b);
        assert!(all.reads_tainted(b, k, "%rd4"));
        assert!(!values.reads_tainted(b, k, "%rd4"));
    }

    /// `lo = 0; while (…) { if (z < a[mid]) hi = mid; else lo = mid; mid = (lo + hi) / 2; }`
    /// in the form of a join: past the branch on data, which write reached `%r4` depends on
    /// the data, and so does the address made of it.
    #[test]
    fn past_its_join_a_value_a_branch_on_data_chose_is_data() {
        let (cfg, _, values) = values(
            "
            ld.global.u32 %r2, [%rd1];
            mov.u32 %r4, 0;
            setp.eq.u32 %p1, %r2, 0;
            @%p1 bra $L__join;
            mov.u32 %r4, 8;
        $L__join:
            mul.wide.u32 %rd5, %r4, 4;
            add.s64 %rd6, %rd1, %rd5;
            ld.global.u32 %r5, [%rd6];
            ret;",
        );
        let join = cfg.blocks.len() - 1;
        let k = access(&cfg, join);
        assert!(values.reads_tainted(join, k, "%rd6"));
        assert!(values.reg("%r4"));
    }
}
