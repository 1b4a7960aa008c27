//! The interpreter: launch setup (parameters, module variables, buffers), cooperative block
//! scheduling with barriers, min-PC warp stepping, and the counting of what each step executed.

use super::alu::Ty;
use super::decode::{self, DInst, Dst, Op, Program, Sr, Src, Symbols};
use super::mem::{self, Global};
use super::{ops, EmuError, EmuResult, KernelArg, Options};
use crate::classify::{
    self,
    warp::{LaneAccess, StrideEvidence},
};
use crate::ptx::{Function, Initializer, Module, Operand, StateSpace, VarDecl};
use crate::stats::{BlockExecs, Dir, Feature, Granularity, Launch, OpKind, Space};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

const F_ADD: u32 = decode::flag("add");
const F_ALL: u32 = decode::flag("all");
const F_AND: u32 = decode::flag("and");
const F_ANY: u32 = decode::flag("any");
const F_BALLOT: u32 = decode::flag("ballot");
const F_BFLY: u32 = decode::flag("bfly");
const F_CAS: u32 = decode::flag("cas");
const F_DEC: u32 = decode::flag("dec");
const F_DOWN: u32 = decode::flag("down");
const F_EXCH: u32 = decode::flag("exch");
const F_INC: u32 = decode::flag("inc");
const F_MAX: u32 = decode::flag("max");
const F_MIN: u32 = decode::flag("min");
const F_OR: u32 = decode::flag("or");
const F_TO: u32 = decode::flag("to");
const F_UP: u32 = decode::flag("up");
const F_XOR: u32 = decode::flag("xor");

const NONE: usize = usize::MAX;

/// One entry of a warp's reconvergence stack: lanes `mask` run from `pc` until `rpc`.
struct Entry {
    pc: u32,
    mask: u32,
    rpc: u32,
    /// The barrier these lanes arrived at while others of their warp ran elsewhere, until it
    /// releases ([`park_or_wait`]).
    parked: Option<usize>,
}

/// Per-lane state of one warp.
struct Warp {
    regs: Vec<u64>,
    stack: Vec<Entry>,
    live: u32,
    tid: [[u64; 3]; 32],
    waiting: Option<usize>,
    local: Vec<Vec<u8>>,
    prev_block: [usize; 32],
    id: u64,
    /// Instructions this warp has executed (its progress, for the traced touches).
    steps: u64,
}

/// Counters accumulated over the launch.
#[derive(Default)]
struct Counts {
    /// Per instruction: (thread executions, warp executions).
    per_inst: Vec<(u64, u64)>,
    // Fx hashing: these maps take an entry per warp step that enters a block or accesses
    // memory; their order is not kept (`finish` sums and sorts them)
    features: FxHashMap<Feature, u64>,
    block_execs: Vec<(u64, u64)>,
    edges: FxHashMap<(usize, usize), u64>,
    entries: u64,
    touches: Vec<crate::reuse::profile::Touch>,
    /// Per memory instruction and resolved space: its executions and what they show of its
    /// lane stride; the class is decided once the launch is done (`stats::StrideClass`).
    mem_sites: FxHashMap<(u32, Space), MemSite>,
}

#[derive(Default)]
struct MemSite {
    threads: u64,
    warps: u64,
    evidence: StrideEvidence,
}

impl Counts {
    fn add(&mut self, f: Feature, n: u64) {
        *self.features.entry(f).or_insert(0) += n;
    }
}

/// Everything one block's warps share.
struct Ctx<'a> {
    prog: &'a Program,
    block_of: &'a [usize],
    reconv: &'a [u32],
    launch: &'a Launch,
    ctaid: [u64; 3],
    global: &'a mut Global,
    konst: &'a mut Vec<u8>,
    param: &'a mut Vec<u8>,
    shared: Vec<u8>,
    arrived: [u64; 16],
    expected: [Option<u64>; 16],
    counts: &'a mut Counts,
    steps: u64,
    max_steps: u64,
    /// Global sectors this block's warp accesses touched when tracing: (the warp's step,
    /// sector as a touch names it, warp, writes), turned into `Counts::touches` when the block
    /// ends. 24 bytes: a long block's trace holds tens of millions.
    trace: Option<Vec<(u64, i64, u32, bool)>>,
    /// Thread-level instruction executions of this block (a step counts its active lanes).
    lane_execs: u64,
    /// Finished blocks' warp registers, zeroed again for the next block's warps: a fresh
    /// allocation per block gave its pages back and faulted them in again, a tenth of a run.
    spare_regs: &'a mut Vec<Vec<u64>>,
}

/// Run a kernel with options (see [`super::run`]).
pub fn run_with(
    module: &Module,
    kernel: &str,
    launch: &Launch,
    args: &[KernelArg],
    opts: &Options,
) -> Result<EmuResult, EmuError> {
    run_observed(module, kernel, launch, args, opts, &mut |_, _| {})
}

/// [`run_with`], calling `block_done(done, total)` after each block: a whole launch can take
/// seconds, and a command that waits on it can show how far it is.
pub fn run_observed(
    module: &Module,
    kernel: &str,
    launch: &Launch,
    args: &[KernelArg],
    opts: &Options,
    block_done: &mut dyn FnMut(u64, u64),
) -> Result<EmuResult, EmuError> {
    let f = module
        .kernels()
        .find(|k| k.name == kernel)
        .ok_or_else(|| EmuError::NoKernel(kernel.to_string()))?;
    if args.len() != f.params.len() {
        return Err(EmuError::Args(format!(
            "kernel `{kernel}` takes {} parameters, {} arguments given",
            f.params.len(),
            args.len()
        )));
    }
    if launch.threads_per_block() == 0 || launch.blocks() == 0 {
        return Err(EmuError::Args("empty launch".into()));
    }
    let arg_bytes = args.iter().fold(0u64, |n, a| {
        n.saturating_add(match a {
            KernelArg::Buffer(b) => b.len() as u64,
            KernelArg::Struct { bytes, buffers } => {
                buffers.iter().fold(bytes.len() as u64, |m, (_, b)| {
                    m.saturating_add(b.len() as u64)
                })
            }
            KernelArg::Bytes(b) => b.len() as u64,
            KernelArg::Local(n) => *n,
            // paid for by the pages the run touches ([`Global::alloc_zeroed`])
            KernelArg::Zeros(_) => 0,
            _ => 8,
        })
    });
    let zeroed_bytes = args.iter().fold(0u64, |n, a| match a {
        KernelArg::Zeros(z) => n.saturating_add(*z),
        _ => n,
    });
    super::check_zeroed("the zero-filled buffers", zeroed_bytes)?;
    let module_bytes = module
        .globals
        .iter()
        .filter(|g| matches!(g.space, StateSpace::Global | StateSpace::Const))
        .fold(0u64, |n, g| n.saturating_add(g.size_bytes().unwrap_or(0)));
    // the run holds a copy of every buffer beside the caller's
    super::check_bytes(
        "buffers and module variables",
        arg_bytes.saturating_add(module_bytes),
        opts.max_bytes,
    )?;
    let mut global = Global::new();
    let mut konst = Vec::new();
    let mut syms = Symbols::new();
    let mut shared_top = 0u64;
    let mut extern_shared = Vec::new();
    for g in &module.globals {
        match g.space {
            StateSpace::Global => {
                let a = global.alloc(init_bytes(g), &g.name);
                syms.insert(g.name.clone(), (Space::Global, a));
            }
            StateSpace::Const => {
                let a = align(konst.len() as u64, g.align.unwrap_or(8) as u64);
                konst.resize(a as usize, 0);
                konst.extend(init_bytes(g));
                syms.insert(g.name.clone(), (Space::Const, a));
            }
            StateSpace::Shared if g.size_bytes().is_some_and(|s| s > 0) => {
                let a = align(shared_top, g.align.unwrap_or(16) as u64);
                syms.insert(g.name.clone(), (Space::Shared, a));
                shared_top = a + g.size_bytes().unwrap_or(0);
            }
            StateSpace::Shared => extern_shared.push(g.name.clone()),
            _ => {}
        }
    }
    let prog = decode::decode(f, &syms, shared_top, &extern_shared)?;
    // one block at a time: its shared memory and each warp's registers and local memory
    let per_block = (prog.shared_bytes.saturating_add(opts.dynamic_shared)).saturating_add(
        launch.threads_per_block().saturating_mul(
            (prog.nregs as u64)
                .saturating_mul(8)
                .saturating_add(prog.local_bytes),
        ),
    );
    let held = arg_bytes.saturating_add(module_bytes);
    super::check_bytes(
        "shared, local and register memory per block",
        per_block.saturating_add(prog.param_bytes),
        opts.max_bytes.saturating_sub(held),
    )?;
    global.limit_touched(
        opts.max_bytes
            .saturating_sub(held)
            .saturating_sub(per_block.saturating_add(prog.param_bytes)),
    );
    // Parameters.
    let mut param = vec![0u8; prog.param_bytes as usize];
    let mut buffers = Vec::new();
    // `__local` arguments follow the static and the dynamic shared memory.
    let mut shared_top = prog.shared_bytes + opts.dynamic_shared;
    for (k, (a, (name, off, size))) in args.iter().zip(&prog.params).enumerate() {
        let bytes = match a {
            KernelArg::Buffer(b) => {
                let addr = global.alloc(b.clone(), name);
                buffers.push((k, addr, b.len()));
                addr.to_le_bytes().to_vec()
            }
            KernelArg::Zeros(n) => {
                // zeroed by the allocator, not written: untouched pages stay unmapped
                let addr = global.alloc_zeroed(*n, name)?;
                buffers.push((k, addr, *n as usize));
                addr.to_le_bytes().to_vec()
            }
            KernelArg::Local(n) => {
                let at = align(shared_top, 16);
                shared_top = at + n;
                at.to_le_bytes().to_vec()
            }
            KernelArg::Struct { bytes, buffers } => {
                let mut bytes = bytes.clone();
                for (field, b) in buffers {
                    let addr = global.alloc(b.clone(), &format!("{name}+{field}"));
                    if let Some(slot) = bytes.get_mut(*field as usize..*field as usize + 8) {
                        slot.copy_from_slice(&addr.to_le_bytes());
                    }
                }
                bytes
            }
            other => other.scalar_bytes().unwrap_or_default(),
        };
        let n = (*size as usize).min(bytes.len());
        param[*off as usize..*off as usize + n].copy_from_slice(&bytes[..n]);
    }
    let blocks = super::blocks::of(f, prog.insts.len());
    let block_of = &blocks.start;
    let mut counts = Counts {
        per_inst: vec![(0, 0); prog.insts.len()],
        block_execs: vec![(0, 0); blocks.nblocks],
        ..Counts::default()
    };
    let mut steps = 0;
    let mut done = 0;
    let last = opts.blocks_of(launch);
    let every = opts.every.max(1);
    let mut block_steps = Vec::new();
    // each block's thread-level executions: lanes a guard or a bound switches off do no work,
    // although the warp steps the same
    let mut block_lanes = Vec::new();
    // the most pages of zero-filled buffers one block has touched for the first time
    let mut block_pages = 0;
    let mut spare_regs = Vec::new();
    for i in sample_order(last, opts.spread_order) {
        if done >= opts.trace_blocks
            && (stops_here(opts, steps, done, last)
                || settled(opts, &block_steps, &block_lanes, last))
        {
            break;
        }
        // A sampled run (one whose blocks are scaled to the launch) starts no block that could
        // take the pages it touched past their limit: it has its sample, where running on
        // would end the run in an error; nor one that, at the mean steps of those it ran,
        // would end past the step limit. A run of every block still runs into the error.
        let (touched, limit) = global.touched();
        let pages_over = touched + block_pages > limit;
        let steps_over = steps + steps / done.max(1) > opts.max_steps;
        if opts.soft_steps.is_some() && done > 0 && (pages_over || steps_over) {
            break;
        }
        // the `i`-th chosen block's dispatch index, x fastest
        let lin = i * every;
        let (gx, gy) = (launch.grid[0], launch.grid[1]);
        let ctaid = [lin % gx, lin / gx % gy, lin / (gx * gy)];
        let mut ctx = Ctx {
            prog: &prog,
            block_of,
            reconv: &blocks.reconv,
            launch,
            ctaid,
            global: &mut global,
            konst: &mut konst,
            param: &mut param,
            shared: vec![0; shared_top as usize],
            arrived: [0; 16],
            expected: [None; 16],
            counts: &mut counts,
            steps,
            max_steps: opts.max_steps,
            trace: (done < opts.trace_blocks).then(Vec::new),
            lane_execs: 0,
            spare_regs: &mut spare_regs,
        };
        if let Err(e) = ctx.run_block() {
            // a block's touches are kept when it finishes: these are the finished ones'
            return Err(match e {
                EmuError::StepLimit { steps, .. } => EmuError::StepLimit {
                    steps,
                    blocks_done: done,
                    traced: std::mem::take(&mut counts.touches),
                },
                e => e,
            });
        }
        block_steps.push(ctx.steps - steps);
        block_lanes.push(ctx.lane_execs);
        steps = ctx.steps;
        block_pages = block_pages.max(global.touched().0 - touched);
        done += 1;
        block_done(done, last);
    }
    if !opts.keep_buffers {
        buffers.clear();
    }
    let mut r = finish(f, &prog, &blocks, launch, counts, &mut global, &buffers)?;
    r.blocks_run = done;
    r.blocks_traced = done.min(opts.trace_blocks);
    r.block_steps = block_steps;
    r.outside = std::mem::take(&mut global.outside);
    Ok(r)
}

/// Whether a run that has run `done` of its `last` blocks in `steps` warp steps, and those it
/// traces, starts no further block ([`Options::soft_steps`], [`Options::stop_when_over`]).
fn stops_here(opts: &Options, steps: u64, done: u64, last: u64) -> bool {
    let projected = (steps as f64 / done.max(1) as f64) * last as f64;
    opts.soft_steps.is_some_and(|soft| {
        steps >= soft || (opts.stop_when_over && done > 0 && projected > 2.0 * soft as f64)
    })
}

/// Whether a spread run's blocks so far estimate all `last` of its blocks' work closely
/// enough that it starts no further one ([`Options::stop_when_settled`]): their warp steps and
/// their thread-level executions both (boundary blocks whose lanes past the data are off take
/// the same warp steps but do less, and a FLOP count is of lanes). Only a run that
/// `soft_steps` would cut short anyway settles (at its blocks' mean, all `last` take more): one
/// that can run every block, exactly, does. Checked at powers of two only, so the checks cost
/// as much as the blocks' steps once more.
fn settled(opts: &Options, block_steps: &[u64], block_lanes: &[u64], last: u64) -> bool {
    let n = block_steps.len() as u64;
    // the sums only at the checks: this runs before every block
    let cut_short = || {
        opts.soft_steps.is_some_and(|soft| {
            let mean = block_steps.iter().sum::<u64>() as f64 / n.max(1) as f64;
            mean * last as f64 > soft as f64
        })
    };
    opts.stop_when_settled
        && opts.spread_order
        && n >= super::SETTLE_MIN_BLOCKS
        && n.is_power_of_two()
        && cut_short()
        && super::sample_rel_se(block_steps, last) <= super::SETTLED_REL_SE
        && super::sample_rel_se(block_lanes, last) <= super::SETTLED_REL_SE
}

/// The indices `0..n` in the order a run visits them: as they come, or, `spread`, by steps of
/// the golden section of `n` (0, P, 2P, … mod n, for the P nearest 0.618 n that is prime to
/// n), so that every prefix is spread evenly over them (by the three-distance theorem its gaps
/// take at most three lengths). Why not the bit-reversed counter (0, n/2, n/4, …): its
/// prefixes of a power of two are multiples of one stride, so a sample of them never sees the
/// odd blocks, or the last column of a 2-D grid, where the work may differ.
fn sample_order(n: u64, spread: bool) -> Box<dyn Iterator<Item = u64>> {
    if !spread || n <= 2 {
        return Box::new(0..n);
    }
    let ideal = n as f64 * (5f64.sqrt() - 1.0) / 2.0;
    let step = (0..n)
        .flat_map(|d| {
            let near = ideal.round() as u64;
            [near.saturating_sub(d), near + d]
        })
        .find(|p| (1..n).contains(p) && gcd(*p, n) == 1)
        .unwrap_or(1);
    Box::new((0..n).map(move |i| ((u128::from(i) * u128::from(step)) % u128::from(n)) as u64))
}

fn gcd(a: u64, b: u64) -> u64 {
    match b {
        0 => a,
        _ => gcd(b, a % b),
    }
}

fn finish(
    f: &Function,
    prog: &Program,
    blocks: &super::blocks::Blocks,
    launch: &Launch,
    c: Counts,
    global: &mut Global,
    buffers: &[(usize, u64, usize)],
) -> Result<EmuResult, EmuError> {
    let mut feats: BTreeMap<Feature, u64> = c.features.into_iter().collect();
    for ((pc, space), site) in &c.mem_sites {
        // The same fallback as `memory`, so no execution is dropped.
        let (_, dir, bits, nc) = prog.insts.get(*pc as usize).and_then(|i| i.mem).unwrap_or((
            Space::Generic,
            Dir::Load,
            32,
            false,
        ));
        let stride = site.evidence.class((bits as u64).div_ceil(8));
        for (gran, n) in [
            (Granularity::Thread, site.threads),
            (Granularity::Warp, site.warps),
        ] {
            let k = Feature::Mem {
                space: *space,
                dir,
                bits,
                stride,
                nc,
                gran,
            };
            *feats.entry(k).or_insert(0) += n;
        }
    }
    for (i, (t, w)) in prog.insts.iter().zip(&c.per_inst) {
        if let (Some((kind, ty)), true) = (i.op_feat, *w > 0) {
            for (gran, n) in [(Granularity::Thread, *t), (Granularity::Warp, *w)] {
                *feats.entry(Feature::Op { kind, ty, gran }).or_insert(0) += n;
            }
            // what runs but is classified nowhere is shown, as the counter shows it
            if kind == OpKind::Other {
                let opcode = i.text.clone();
                *feats.entry(Feature::Unknown { opcode }).or_insert(0) += *t;
            }
        }
    }
    feats.insert(Feature::Blocks, launch.blocks());
    feats.insert(Feature::Warps, launch.blocks() * launch.warps_per_block());
    feats.insert(
        Feature::Threads,
        launch.blocks() * launch.threads_per_block(),
    );
    let mut stats = crate::stats::BoundStats {
        kernel: f.name.clone(),
        launch: Some(*launch),
        shared_bytes_per_block: Some(prog.shared_bytes),
        local_bytes_per_thread: Some(prog.local_bytes),
        features: feats.into_iter().map(|(k, v)| (k, v as f64)).collect(),
        ..Default::default()
    };
    for (b, (t, w)) in c.block_execs.iter().enumerate() {
        stats.block_execs.insert(
            b,
            BlockExecs {
                threads: *t as f64,
                warps: *w as f64,
            },
        );
    }
    // a guarded instruction runs on the lanes whose predicate is on, which the block's count
    // does not say (blocks partition the instructions in text order)
    let mut block_at = (usize::MAX, 0);
    for (pc, (i, (t, w))) in prog.insts.iter().zip(&c.per_inst).enumerate() {
        if let Some(&b) = blocks.start.get(pc).filter(|b| **b != usize::MAX) {
            block_at = (b, pc);
        }
        if i.guard.is_some() && !i.always && block_at.0 != usize::MAX {
            stats.guarded_execs.entry(block_at.0).or_default().insert(
                pc - block_at.1,
                BlockExecs {
                    threads: *t as f64,
                    warps: *w as f64,
                },
            );
        }
    }
    let insts: Vec<&crate::ptx::Inst> = f.instructions().collect();
    let mut lines: Vec<(u32, Option<String>)> = blocks.at.iter().map(|a| (0, a.clone())).collect();
    for (pc, b) in blocks.start.iter().enumerate() {
        if let (Some(slot), Some(i)) = (lines.get_mut(*b), insts.get(pc)) {
            slot.0 = i.span.line;
        }
    }
    let threads: Vec<u64> = c.block_execs.iter().map(|e| e.0).collect();
    let edges: BTreeMap<(usize, usize), u64> = c.edges.into_iter().collect();
    let loops = super::loops::from_edges(
        &blocks.loop_headers,
        &blocks.back_edges,
        &edges,
        &threads,
        &lines,
    );
    let mut out = BTreeMap::new();
    for (k, addr, len) in buffers {
        out.insert(*k, global.slice(*addr, *len)?.to_vec());
    }
    Ok(EmuResult {
        stats,
        buffers: out,
        edges,
        entries: c.entries,
        loops,
        touches: c.touches,
        ..EmuResult::default()
    })
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Initial bytes of a module variable (zero where there is no initializer).
fn init_bytes(g: &VarDecl) -> Vec<u8> {
    let size = g.size_bytes().unwrap_or(0) as usize;
    let mut out = Vec::with_capacity(size);
    let elem = (g.ty.bits() as usize).div_ceil(8).max(1);
    fn walk(i: &Initializer, elem: usize, float: bool, out: &mut Vec<u8>) {
        match i {
            Initializer::List(v) => v.iter().for_each(|x| walk(x, elem, float, out)),
            Initializer::Value(o) => {
                let bits = match o {
                    Operand::Imm(v) if float && elem == 4 => (*v as f32).to_bits() as u64,
                    Operand::Imm(v) if float => (*v as f64).to_bits(),
                    Operand::Imm(v) => *v as u64,
                    Operand::ImmF32(b) if elem == 8 => (f32::from_bits(*b) as f64).to_bits(),
                    Operand::ImmF32(b) => *b as u64,
                    Operand::ImmF64(b) | Operand::ImmFloat(b) if elem == 4 => {
                        (f64::from_bits(*b) as f32).to_bits() as u64
                    }
                    Operand::ImmF64(b) | Operand::ImmFloat(b) => *b,
                    _ => 0,
                };
                out.extend(&bits.to_le_bytes()[..elem.min(8)]);
            }
            Initializer::Generic(_) => out.extend(std::iter::repeat_n(0, elem)),
        }
    }
    if let Some(i) = &g.init {
        walk(i, elem, g.ty.is_float(), &mut out);
    }
    out.resize(size.max(out.len()), 0);
    out
}

/// Lanes of `w` that reached barrier `id` while others of the warp run elsewhere (the far side
/// of a branch, or waiting to reconverge with these lanes) wait for it on their own, as the
/// hardware's independent thread scheduling lets them: the others go on (an early `return` of
/// the threads past the data exits; others may arrive too), and these lanes resume past the
/// barrier once it releases, apart from the rest of the warp to its end. Their warp-level
/// counts past the barrier are then those of a warp of their own. Where every other live lane
/// of the warp is at a barrier already, or some lanes of the entry skipped this one, the warp
/// waits at once.
fn park_or_wait(w: &mut Warp, id: usize, exec: u32) {
    let parked = w
        .stack
        .iter()
        .filter(|e| e.parked.is_some())
        .fold(0u32, |m, e| m | e.mask);
    let whole_entry = w.stack.last().is_some_and(|t| t.mask & w.live == exec);
    let detach = whole_entry && w.live & !exec & !parked != 0;
    let top = match w.stack.pop() {
        Some(top) if detach => top,
        kept => {
            w.stack.extend(kept);
            w.waiting = Some(id);
            return;
        }
    };
    for e in &mut w.stack {
        e.mask &= !exec;
    }
    w.stack.insert(
        0,
        Entry {
            pc: top.pc,
            mask: exec,
            rpc: u32::MAX,
            parked: Some(id),
        },
    );
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 == 1)
}

impl Ctx<'_> {
    fn run_block(&mut self) -> Result<(), EmuError> {
        let l = self.launch;
        let nt = l.threads_per_block();
        let nw = l.warps_per_block();
        let nregs = self.prog.nregs as usize;
        let mut warps: Vec<Warp> = (0..nw)
            .map(|w| {
                let mut regs = self.spare_regs.pop().unwrap_or_default();
                regs.clear();
                regs.resize(nregs * 32, 0);
                let mut tid = [[0u64; 3]; 32];
                let mut live = 0u32;
                for (lane, t) in tid.iter_mut().enumerate() {
                    let lin = w * 32 + lane as u64;
                    if lin < nt {
                        live |= 1 << lane;
                        *t = [
                            lin % l.block[0],
                            lin / l.block[0] % l.block[1],
                            lin / (l.block[0] * l.block[1]),
                        ];
                    }
                }
                Warp {
                    regs,
                    stack: vec![Entry {
                        pc: 0,
                        mask: live,
                        rpc: u32::MAX,
                        parked: None,
                    }],
                    live,
                    tid,
                    waiting: None,
                    local: vec![vec![0; self.prog.local_bytes as usize]; 32],
                    prev_block: [NONE; 32],
                    id: w,
                    steps: 0,
                }
            })
            .collect();
        self.counts.entries += nt;
        loop {
            for w in warps.iter_mut() {
                while w.waiting.is_none() && w.live != 0 {
                    self.step(w)?;
                }
            }
            if warps.iter().all(|w| w.live == 0) {
                self.close_trace(&warps);
                self.spare_regs
                    .extend(warps.iter_mut().map(|w| std::mem::take(&mut w.regs)));
                return Ok(());
            }
            let live: u64 = warps.iter().map(|w| w.live.count_ones() as u64).sum();
            let mut released = false;
            for b in 0..16 {
                let expected = self.expected[b].unwrap_or(live).min(live);
                if warps.iter().any(|w| w.waiting == Some(b)) && self.arrived[b] >= expected {
                    for w in warps.iter_mut().filter(|w| w.waiting == Some(b)) {
                        w.waiting = None;
                        for e in w.stack.iter_mut().filter(|e| e.parked == Some(b)) {
                            e.parked = None;
                        }
                    }
                    self.arrived[b] = 0;
                    self.expected[b] = None;
                    released = true;
                }
            }
            if !released {
                let b = warps.iter().find_map(|w| w.waiting).unwrap_or(0);
                return Err(EmuError::Deadlock {
                    block: self.ctaid,
                    arrived: self.arrived[b],
                    expected: self.expected[b].unwrap_or(live),
                });
            }
        }
    }

    /// The block's traced touches, with each warp's steps as the share of its lifetime.
    fn close_trace(&mut self, warps: &[Warp]) {
        let Some(raw) = self.trace.take() else {
            return;
        };
        let g = self.launch.grid;
        let block = self.ctaid[0] + g[0] * (self.ctaid[1] + g[1] * self.ctaid[2]);
        self.counts.touches.reserve(raw.len());
        for (step, sector, warp, writes) in raw {
            let total = warps.get(warp as usize).map_or(1, |w| w.steps.max(1));
            let progress =
                (step as f64 / total as f64 * crate::reuse::profile::PROGRESS_SCALE) as u32;
            self.counts
                .touches
                .push((block, progress, sector, writes, 0));
        }
    }

    fn step(&mut self, w: &mut Warp) -> Result<(), EmuError> {
        w.steps += 1;
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(EmuError::StepLimit {
                steps: self.max_steps,
                blocks_done: 0,
                traced: Vec::new(),
            });
        }
        // Pop finished entries: reconverged, or every lane exited.
        while let Some(top) = w.stack.last() {
            if top.mask & w.live == 0 || top.pc == top.rpc {
                w.stack.pop();
            } else {
                break;
            }
        }
        let Some(top) = w.stack.last() else {
            w.live = 0;
            return Ok(());
        };
        if let Some(b) = top.parked {
            // the sibling path is done: these lanes wait at their barrier
            w.waiting = Some(b);
            return Ok(());
        }
        let (pc, group) = (top.pc, top.mask & w.live);
        let prog = self.prog;
        let Some(inst) = prog.insts.get(pc as usize) else {
            w.live &= !group; // falling off the end is an exit
            return Ok(());
        };
        let b = self.block_of[pc as usize];
        if b != NONE {
            let e = &mut self.counts.block_execs[b];
            e.0 += group.count_ones() as u64;
            e.1 += 1;
            // lanes that come from the same block (mostly all of them) are one map entry
            let mut from: Option<(usize, u64)> = None;
            for l in lanes(group) {
                let p = w.prev_block[l];
                match &mut from {
                    Some((q, n)) if *q == p => *n += 1,
                    _ => {
                        if let Some((q, n)) = from.replace((p, 1)) {
                            *self.counts.edges.entry((q, b)).or_insert(0) += n;
                        }
                    }
                }
                w.prev_block[l] = b;
            }
            if let Some((q, n)) = from {
                *self.counts.edges.entry((q, b)).or_insert(0) += n;
            }
        }
        let exec = match inst.guard {
            None => group,
            Some((r, neg)) => lanes(group)
                .filter(|l| (w.regs[r as usize * 32 + l] & 1 == 1) != neg)
                .fold(0u32, |m, l| m | 1 << l),
        };
        let counted = if inst.always { group } else { exec };
        if counted != 0 {
            let c = &mut self.counts.per_inst[pc as usize];
            c.0 += counted.count_ones() as u64;
            c.1 += 1;
            self.lane_execs += counted.count_ones() as u64;
        }
        let next = |w: &mut Warp| {
            if let Some(t) = w.stack.last_mut() {
                t.pc = pc + 1;
            }
        };
        let fault = |why: String| EmuError::Fault {
            line: inst.line,
            inst: inst.text.clone(),
            why,
        };
        match inst.op {
            Op::Unsupported if exec != 0 => {
                return Err(EmuError::Unsupported {
                    line: inst.line,
                    inst: inst.text.clone(),
                    why: inst.refused.clone().unwrap_or_default(),
                })
            }
            Op::Unsupported => {}
            Op::Bra => {
                let taken = exec;
                let not = group & !taken;
                let r = self.reconv.get(pc as usize).copied().unwrap_or(u32::MAX);
                if let Some(t) = w.stack.last_mut() {
                    if not == 0 {
                        t.pc = inst.target;
                    } else if taken == 0 {
                        t.pc = pc + 1;
                    } else {
                        t.pc = r;
                        w.stack.push(Entry {
                            pc: inst.target,
                            mask: taken,
                            rpc: r,
                            parked: None,
                        });
                        w.stack.push(Entry {
                            pc: pc + 1,
                            mask: not,
                            rpc: r,
                            parked: None,
                        });
                    }
                }
                return Ok(());
            }
            Op::Exit => {
                next(w);
                w.live &= !exec;
                return Ok(());
            }
            Op::Bar | Op::BarArrive => {
                next(w);
                if exec != 0 {
                    let id = self.val(
                        w,
                        lanes(exec).next().unwrap_or(0),
                        inst.src.first(),
                        Ty::U32,
                    ) as usize;
                    if id >= 16 {
                        return Err(fault(format!("barrier id {id} out of range")));
                    }
                    if let Some(s) = inst.src.get(1) {
                        self.expected[id] = Some(self.val(w, 0, Some(s), Ty::U32));
                    }
                    self.arrived[id] += exec.count_ones() as u64;
                    if inst.cta_barrier {
                        self.counts.add(
                            Feature::Barrier {
                                gran: Granularity::Thread,
                            },
                            exec.count_ones() as u64,
                        );
                        self.counts.add(
                            Feature::Barrier {
                                gran: Granularity::Warp,
                            },
                            1,
                        );
                    }
                    if inst.op == Op::Bar {
                        park_or_wait(w, id, exec);
                    }
                }
                return Ok(());
            }
            Op::Nop => {}
            Op::Ld | Op::St | Op::Atom | Op::Red => {
                self.memory(w, pc, inst, exec).map_err(|e| match e {
                    EmuError::OutOfBounds { .. } => fault(e.to_string()),
                    e => e,
                })?
            }
            Op::CpAsync => self.cp_async(w, pc, inst, exec).map_err(|e| match e {
                EmuError::OutOfBounds { .. } => fault(e.to_string()),
                e => e,
            })?,
            Op::Shfl | Op::Vote | Op::Activemask | Op::Redux | Op::Match => {
                self.collective(w, inst, exec)
            }
            Op::Mov | Op::Cvta => {
                // a scalar copy into a register: a source's lanes as they are
                if let (Op::Mov, Some(Dst::Reg(r)), Some(src)) =
                    (inst.op, inst.dst.first(), inst.src.first())
                {
                    if !matches!(src, Src::Vec(_)) {
                        let mut v = [0u64; 32];
                        self.warp_val(w, exec, src, inst.ty, &mut v);
                        let at = *r as usize * 32;
                        for l in lanes(exec) {
                            w.regs[at + l] = v[l];
                        }
                        next(w);
                        return Ok(());
                    }
                }
                for l in lanes(exec) {
                    let v = match &inst.src.first() {
                        Some(Src::Vec(v)) => {
                            let ew = inst.ty.bits() / v.len() as u32;
                            v.iter().enumerate().fold(0u64, |acc, (k, s)| {
                                let x = self.val(w, l, Some(s), inst.ty) & ((1u64 << ew) - 1);
                                acc | x << (ew * k as u32)
                            })
                        }
                        s => self.val(w, l, *s, inst.ty),
                    };
                    let v = if inst.op == Op::Cvta {
                        cvta(inst, v)
                    } else {
                        v
                    };
                    write(w, l, inst.dst.first(), v, inst.ty);
                }
            }
            _ => {
                // Each source is read for the whole warp first (a register's 32 lanes lie side
                // by side), then each lane computed: a lane's result goes to its own slot of
                // the destination, which no other lane reads, so the order changes nothing.
                let n = inst.src.len().min(4);
                let mut s = [[0u64; 32]; 4];
                for (k, src) in inst.src.iter().take(4).enumerate() {
                    self.warp_val(w, exec, src, inst.ty, &mut s[k]);
                }
                let dst = inst.dst.first();
                if let (Some(f), Some(Dst::Reg(r))) = (ops::fast(inst), dst) {
                    let at = *r as usize * 32;
                    for l in lanes(exec) {
                        w.regs[at + l] = f(inst.ty, s[0][l], s[1][l], s[2][l]);
                    }
                    next(w);
                    return Ok(());
                }
                if let (Op::Setp, 2, Some(Dst::Reg(r))) = (inst.op, n, dst) {
                    // one predicate, no second source to combine with: the comparison itself
                    let at = *r as usize * 32;
                    for l in lanes(exec) {
                        w.regs[at + l] = ops::setp(inst, s[0][l], s[1][l]);
                    }
                    next(w);
                    return Ok(());
                }
                for l in lanes(exec) {
                    let args = [s[0][l], s[1][l], s[2][l], s[3][l]];
                    let (v, q) = ops::eval(inst, &args[..n]).map_err(fault)?;
                    match (dst, q) {
                        (Some(Dst::Reg(r)), _) => w.regs[*r as usize * 32 + l] = v,
                        (Some(Dst::Vec(d)), Some(q)) => {
                            write(w, l, d.first(), v, inst.ty);
                            write(w, l, d.get(1), q, inst.ty);
                        }
                        (d, _) => write(w, l, d, v, inst.ty),
                    }
                }
            }
        }
        next(w);
        Ok(())
    }

    /// Values of a source operand in the lanes of `exec` (the other lanes of `out` are left
    /// as they are, or get the register's).
    fn warp_val(&self, w: &Warp, exec: u32, s: &Src, ty: Ty, out: &mut [u64; 32]) {
        match s {
            Src::Reg(r) => {
                let at = *r as usize * 32;
                out.copy_from_slice(&w.regs[at..at + 32]);
            }
            _ => {
                for l in lanes(exec) {
                    out[l] = self.val(w, l, Some(s), ty);
                }
            }
        }
    }

    /// Value of a source operand in one lane.
    fn val(&self, w: &Warp, l: usize, s: Option<&Src>, ty: Ty) -> u64 {
        let l64 = l as u64;
        match s {
            None => 0,
            Some(Src::Reg(r)) => w.regs[*r as usize * 32 + l],
            Some(Src::NotReg(r)) => !w.regs[*r as usize * 32 + l] & 1,
            Some(Src::Imm(v)) => *v & ty.mask(),
            Some(Src::Sym(_, a)) => *a,
            Some(Src::Addr { .. }) | Some(Src::Vec(_)) => 0,
            Some(Src::Sreg(r)) => match *r {
                Sr::Tid(d) => w.tid[l][d],
                Sr::Ntid(d) => self.launch.block[d],
                Sr::Ctaid(d) => self.ctaid[d],
                Sr::Nctaid(d) => self.launch.grid[d],
                Sr::Laneid => l64,
                Sr::Warpid => w.id,
                Sr::Nwarpid => self.launch.warps_per_block(),
                Sr::Zero => 0,
                Sr::Clock => self.steps,
                Sr::LanemaskEq => 1 << l,
                Sr::LanemaskLe => (2u64 << l) - 1,
                Sr::LanemaskLt => (1u64 << l) - 1,
                Sr::LanemaskGe => 0xffff_ffff & !((1u64 << l) - 1),
                Sr::LanemaskGt => 0xffff_ffff & !((2u64 << l) - 1),
            },
        }
    }

    /// (space, address in that space) of a memory operand in one lane.
    fn address(&self, w: &Warp, l: usize, inst: &DInst) -> Result<(Space, u64), EmuError> {
        self.address_at(w, l, inst, 0, inst.space)
    }

    /// (space, address in that space) of source operand `k`, an address in `space` as written
    /// (generic addresses are resolved by their window).
    fn address_at(
        &self,
        w: &Warp,
        l: usize,
        inst: &DInst,
        k: usize,
        space: Space,
    ) -> Result<(Space, u64), EmuError> {
        let Some(Src::Addr { base, sym, off }) = inst.src.get(k) else {
            return Err(EmuError::Fault {
                line: inst.line,
                inst: inst.text.clone(),
                why: format!("expected an address as source operand {k}"),
            });
        };
        let mut a = base.map_or(0, |r| w.regs[r as usize * 32 + l]);
        let mut sym_space = None;
        if let Some((sp, s)) = sym {
            a = a.wrapping_add(*s);
            sym_space = Some(*sp);
        }
        a = a.wrapping_add(*off as u64);
        Ok(match (space, sym_space) {
            (Space::Generic, Some(sp)) => (sp, a),
            (Space::Generic, None) => mem::resolve_generic(a),
            (sp, _) => (sp, a),
        })
    }

    fn memory(&mut self, w: &mut Warp, pc: u32, inst: &DInst, exec: u32) -> Result<(), EmuError> {
        let (_, dir, bits, _) = inst.mem.unwrap_or((Space::Generic, Dir::Load, 32, false));
        let elem = (inst.ty.bits() as usize).div_ceil(8);
        let width = (bits as usize).div_ceil(8);
        let mut by_space: Vec<(Space, Vec<LaneAccess>)> = Vec::with_capacity(1);
        for l in lanes(exec) {
            let (space, addr) = self.address(w, l, inst)?;
            let acc = LaneAccess {
                lane: l as u32,
                tid: w.tid[l],
                addr,
            };
            match by_space.iter_mut().find(|(s, _)| *s == space) {
                Some((_, v)) => v.push(acc),
                None => {
                    // room for every lane at once: grown a push at a time, a warp's every
                    // access reallocated its list five times
                    let mut v = Vec::with_capacity(exec.count_ones() as usize);
                    v.push(acc);
                    by_space.push((space, v));
                }
            }
            match inst.op {
                Op::Ld => {
                    let dsts: &[Dst] = match inst.dst.first() {
                        Some(Dst::Vec(v)) => v,
                        Some(d) => std::slice::from_ref(d),
                        None => &[],
                    };
                    // the elements read out before the registers are written (the bytes
                    // borrow the warp's local memory)
                    let mut raws = [0u64; 8];
                    let src = self.bytes(w, l, space, addr, width, false)?;
                    for (k, raw) in raws.iter_mut().enumerate().take(dsts.len()) {
                        *raw = src.get(k * elem..(k + 1) * elem).map_or(0, mem::read_le);
                    }
                    for (d, &raw) in dsts.iter().zip(&raws) {
                        let v = if inst.ty.signed() {
                            inst.ty.int(raw) as u64
                        } else {
                            raw
                        };
                        write(w, l, Some(d), v, inst.ty);
                    }
                }
                Op::St => {
                    // a vector store has at most eight elements: no list per lane
                    let mut vals = [0u64; 8];
                    let n = match inst.src.get(1) {
                        Some(Src::Vec(v)) => {
                            for (slot, s) in vals.iter_mut().zip(v) {
                                *slot = self.val(w, l, Some(s), inst.ty);
                            }
                            v.len().min(vals.len())
                        }
                        s => {
                            vals[0] = self.val(w, l, s, inst.ty);
                            1
                        }
                    };
                    let buf = self.bytes(w, l, space, addr, width, true)?;
                    for (k, v) in vals[..n].iter().enumerate() {
                        mem::write_le(&mut buf[k * elem..(k + 1) * elem], *v);
                    }
                }
                _ => {
                    let b = self.val(w, l, inst.src.get(1), inst.ty);
                    let c = self.val(w, l, inst.src.get(2), inst.ty);
                    let buf = self.bytes(w, l, space, addr, elem, true)?;
                    let old = mem::read_le(buf);
                    let new = atomic(inst, old, b, c).map_err(|why| EmuError::Fault {
                        line: inst.line,
                        inst: inst.text.clone(),
                        why,
                    })?;
                    mem::write_le(buf, new);
                    if inst.op == Op::Atom {
                        write(w, l, inst.dst.first(), old, inst.ty);
                    }
                }
            }
        }
        for (space, acc) in by_space {
            if let (Some(t), Space::Global) = (self.trace.as_mut(), space) {
                let mut sectors: Vec<i128> = acc
                    .iter()
                    .flat_map(|a| crate::reuse::profile::lane_sectors(a.addr as i128, width as u64))
                    .collect();
                sectors.sort_unstable();
                sectors.dedup();
                let writes = dir != Dir::Load;
                let warp = w.id as u32;
                t.extend(
                    sectors
                        .into_iter()
                        .map(|s| (w.steps, crate::reuse::touch_sector(s), warp, writes)),
                );
            }
            self.record(pc, space, dir, width as u64, &acc);
        }
        Ok(())
    }

    /// Count one warp-level access of the lanes `acc` in `space` (resolved) by instruction `pc`.
    fn record(&mut self, pc: u32, space: Space, dir: Dir, width: u64, acc: &[LaneAccess]) {
        let site = self.counts.mem_sites.entry((pc, space)).or_default();
        site.threads += acc.len() as u64;
        site.warps += 1;
        site.evidence.observe(acc);
        if classify::counts_sectors(space) {
            let (s, li) = if space == Space::Local {
                (
                    classify::warp::local_sectors(acc, width),
                    classify::warp::local_lines(acc, width),
                )
            } else {
                classify::warp::sectors_and_lines(acc, width)
            };
            self.counts.add(Feature::Sectors { space, dir }, s);
            self.counts.add(Feature::Lines { space, dir }, li);
        }
        if space == Space::Shared {
            let wf = classify::warp::shared_wavefronts(acc, width);
            self.counts.add(Feature::SharedWavefronts { dir }, wf);
        }
    }

    /// Non-bulk `cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}`:
    /// the copy completes at once (bytes past src-size, or all of them when ignore-src holds, are
    /// zero), so `commit_group` / `wait_group` / `wait_all` have nothing left to wait for. Counted
    /// as `classify::mem_access` describes it: a global load of cp-size bytes per executing lane
    /// at the source address, whatever src-size says; the shared write is not counted.
    fn cp_async(&mut self, w: &mut Warp, pc: u32, inst: &DInst, exec: u32) -> Result<(), EmuError> {
        let Some((space, dir, bits, _)) = inst.mem else {
            return Err(EmuError::Fault {
                line: inst.line,
                inst: inst.text.clone(),
                why: "cp.async without a memory access".into(),
            });
        };
        let size = (bits as usize).div_ceil(8).min(16);
        let mut acc = Vec::with_capacity(exec.count_ones() as usize);
        for l in lanes(exec) {
            let (dsp, dst) = self.address_at(w, l, inst, 0, Space::Shared)?;
            let (ssp, src) = self.address_at(w, l, inst, 1, space)?;
            let n = match inst.src.get(3) {
                None => size,
                Some(s) if inst.ty2 == Ty::Pred => {
                    if self.val(w, l, Some(s), Ty::Pred) & 1 == 1 {
                        0
                    } else {
                        size
                    }
                }
                Some(s) => (self.val(w, l, Some(s), Ty::U32) as usize).min(size),
            };
            let mut buf = [0u8; 16];
            if n > 0 {
                buf[..n].copy_from_slice(self.bytes(w, l, ssp, src, n, false)?);
            }
            self.bytes(w, l, dsp, dst, size, true)?
                .copy_from_slice(&buf[..size]);
            acc.push(LaneAccess {
                lane: l as u32,
                tid: w.tid[l],
                addr: src,
            });
        }
        if !acc.is_empty() {
            self.record(pc, space, dir, size as u64, &acc);
        }
        Ok(())
    }

    fn bytes<'b>(
        &'b mut self,
        w: &'b mut Warp,
        l: usize,
        space: Space,
        addr: u64,
        len: usize,
        writes: bool,
    ) -> Result<&'b mut [u8], EmuError> {
        match space {
            Space::Global | Space::Generic => self.global.access(addr, len, writes),
            Space::Shared => mem::flat(&mut self.shared, "shared", addr, len),
            Space::Local => mem::flat(&mut w.local[l], "local", addr, len),
            Space::Const => mem::flat(self.konst, "const", addr, len),
            Space::Param => mem::flat(self.param, "param", addr, len),
        }
    }

    /// shfl, vote, activemask, redux, match: every executing lane reads the others' values
    /// first.
    fn collective(&mut self, w: &mut Warp, inst: &DInst, exec: u32) {
        let a: Vec<u64> = (0..32)
            .map(|l| self.val(w, l, inst.src.first(), inst.ty))
            .collect();
        match inst.op {
            Op::Shfl => {
                for l in lanes(exec) {
                    let b = self.val(w, l, inst.src.get(1), Ty::U32) as i64 & 31;
                    let c = self.val(w, l, inst.src.get(2), Ty::U32) as i64;
                    let (cval, seg) = (c & 31, (c >> 8) & 31);
                    let lane = l as i64;
                    let max = (lane & seg) | (cval & !seg);
                    let min = lane & seg;
                    let (j, ok) = if inst.has(F_UP) {
                        (lane - b, lane - b >= max)
                    } else if inst.has(F_DOWN) {
                        (lane + b, lane + b <= max)
                    } else if inst.has(F_BFLY) {
                        (lane ^ b, (lane ^ b) <= max)
                    } else {
                        let j = min | (b & !seg);
                        (j, j <= max)
                    };
                    let j = if ok { j as usize } else { l };
                    match inst.dst.first() {
                        Some(Dst::Vec(d)) => {
                            write(w, l, d.first(), a[j], inst.ty);
                            write(w, l, d.get(1), ok as u64, Ty::Pred);
                        }
                        d => write(w, l, d, a[j], inst.ty),
                    }
                }
            }
            Op::Vote => {
                let set = lanes(exec)
                    .filter(|l| a[*l] & 1 == 1)
                    .fold(0u32, |m, l| m | 1 << l);
                let v = if inst.has(F_BALLOT) {
                    set as u64
                } else if inst.has(F_ALL) {
                    (set == exec) as u64
                } else if inst.has(F_ANY) {
                    (set != 0) as u64
                } else {
                    (set == 0 || set == exec) as u64
                };
                lanes(exec).for_each(|l| write(w, l, inst.dst.first(), v, inst.ty));
            }
            Op::Activemask => {
                lanes(exec).for_each(|l| write(w, l, inst.dst.first(), exec as u64, Ty::B32))
            }
            // `match.any.sync.type d, a, membermask`: the lanes of the member mask holding the
            // same `a` as this one; `match.all.sync.type d|p, a, membermask`: the member mask
            // (p true) when all its lanes hold the same `a`, else 0 (p false). The members are
            // the lanes executing here, as for `vote`.
            Op::Match => {
                let ty = inst.ty;
                for l in lanes(exec) {
                    let members = self.val(w, l, inst.src.get(1), Ty::U32) as u32 & exec;
                    let same = lanes(members)
                        .filter(|k| a[*k] & ty.mask() == a[l] & ty.mask())
                        .fold(0u32, |m, k| m | 1 << k);
                    let (d, p) = match inst.has(F_ALL) {
                        true if same == members => (members, true),
                        true => (0, false),
                        false => (same, true),
                    };
                    match inst.dst.first() {
                        Some(Dst::Vec(ds)) => {
                            write(w, l, ds.first(), d as u64, Ty::B32);
                            write(w, l, ds.get(1), p as u64, Ty::Pred);
                        }
                        dst => write(w, l, dst, d as u64, Ty::B32),
                    }
                }
            }
            _ => {
                let ty = inst.ty;
                let vals: Vec<u64> = lanes(exec).map(|l| a[l]).collect();
                let fold = |f: &dyn Fn(i128, i128) -> i128| {
                    vals.iter().map(|v| ty.int(*v)).reduce(f).unwrap_or(0)
                };
                let v = if inst.has(F_ADD) {
                    ty.wrap(fold(&|x, y| x + y))
                } else if inst.has(F_MIN) {
                    ty.wrap(fold(&|x, y| x.min(y)))
                } else if inst.has(F_MAX) {
                    ty.wrap(fold(&|x, y| x.max(y)))
                } else if inst.has(F_AND) {
                    vals.iter().fold(ty.mask(), |x, y| x & y)
                } else if inst.has(F_OR) {
                    vals.iter().fold(0, |x, y| x | y)
                } else {
                    vals.iter().fold(0, |x, y| x ^ y)
                };
                lanes(exec).for_each(|l| write(w, l, inst.dst.first(), v, ty));
            }
        }
    }
}

/// Write a destination in one lane (vector destinations unpack the value by element width).
fn write(w: &mut Warp, l: usize, d: Option<&Dst>, v: u64, ty: Ty) {
    match d {
        Some(Dst::Reg(r)) => w.regs[*r as usize * 32 + l] = v,
        Some(Dst::Vec(ds)) => {
            let ew = (ty.bits() / ds.len() as u32).max(1);
            let m = if ew >= 64 { u64::MAX } else { (1u64 << ew) - 1 };
            for (k, d) in ds.iter().enumerate() {
                let sh = ew * k as u32;
                let x = if sh >= 64 { 0 } else { (v >> sh) & m };
                write(w, l, Some(d), x, ty);
            }
        }
        Some(Dst::Sink) | None => {}
    }
}

/// `cvta`: generic ↔ state-space addresses.
fn cvta(inst: &DInst, v: u64) -> u64 {
    let to = inst.has(F_TO);
    let r = match (to, inst.space) {
        (_, Space::Global) | (_, Space::Generic) => v,
        (true, _) => mem::resolve_generic(v).1,
        (false, sp) => mem::to_generic(sp, v),
    };
    r & inst.ty.mask()
}

/// New memory value of an atomic read-modify-write.
fn atomic(inst: &DInst, old: u64, b: u64, c: u64) -> Result<u64, String> {
    let ty = inst.ty;
    let m = ty.mask();
    let f = ty.is_float();
    Ok(if inst.has(F_ADD) {
        if f {
            ty.from_float(ty.float(old) + ty.float(b))
        } else {
            ty.wrap(ty.int(old) + ty.int(b))
        }
    } else if inst.has(F_MIN) || inst.has(F_MAX) {
        let mx = inst.has(F_MAX);
        if f {
            let (x, y) = (ty.float(old), ty.float(b));
            ty.from_float(if mx { x.max(y) } else { x.min(y) })
        } else {
            let (x, y) = (ty.int(old), ty.int(b));
            ty.wrap(if mx { x.max(y) } else { x.min(y) })
        }
    } else if inst.has(F_EXCH) {
        b & m
    } else if inst.has(F_CAS) {
        if old & m == b & m {
            c & m
        } else {
            old & m
        }
    } else if inst.has(F_AND) {
        old & b & m
    } else if inst.has(F_OR) {
        (old | b) & m
    } else if inst.has(F_XOR) {
        (old ^ b) & m
    } else if inst.has(F_INC) {
        if old & m >= b & m {
            0
        } else {
            (old + 1) & m
        }
    } else if inst.has(F_DEC) {
        if old & m == 0 || old & m > b & m {
            b & m
        } else {
            (old - 1) & m
        }
    } else {
        return Err("unknown atomic operation".into());
    })
}

#[cfg(test)]
mod tests {
    use super::super::{run_with, KernelArg, Options};
    use crate::ptx::Module;
    use crate::stats::Launch;

    /// `y[i] = 1` over four blocks of 64 threads.
    const STORE: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_y)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_y];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    mad.lo.s32 %r3, %r1, 64, %r2;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], 1;
    ret;
}
"#;

    /// Every third block of seven runs when asked: blocks 0, 3 and 6, and only their words.
    #[test]
    fn blocks_spread_over_the_launch_run_when_asked() {
        let m = Module::parse(STORE).unwrap();
        let launch = Launch {
            grid: [7, 1, 1],
            block: [64, 1, 1],
        };
        let opts = Options {
            every: 3,
            ..Options::default()
        };
        assert_eq!(opts.blocks_of(&launch), 3);
        let r = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 7 * 256])],
            &opts,
        )
        .unwrap();
        assert_eq!(r.blocks_run, 3);
        let written: Vec<usize> = r.buffers[&0]
            .chunks(256)
            .enumerate()
            .filter(|(_, block)| block.iter().step_by(4).all(|b| *b == 1))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(written, [0, 3, 6]);
    }

    /// Sixteen blocks in spread order, cut by a soft budget of one block's steps after the
    /// first: the blocks that ran are the grid's 0 and 9 (the first two of 0, 9, 2, 11, …, by
    /// steps of 9, the golden section of 16 made prime to it), not 0 and 1, and the run ends
    /// with them instead of an error. Each block's steps are kept.
    #[test]
    fn a_soft_budget_ends_a_spread_run_with_blocks_spread_over_the_grid() {
        let m = Module::parse(STORE).unwrap();
        let launch = Launch {
            grid: [16, 1, 1],
            block: [64, 1, 1],
        };
        let whole = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 16 * 256])],
            &Options::default(),
        )
        .unwrap();
        let per_block = whole.block_steps[0];
        assert_eq!(whole.block_steps, vec![per_block; 16]);
        let opts = Options {
            soft_steps: Some(per_block + 1),
            spread_order: true,
            ..Options::default()
        };
        let r = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 16 * 256])],
            &opts,
        )
        .unwrap();
        assert_eq!((r.blocks_run, r.block_steps.len()), (2, 2));
        let written: Vec<usize> = r.buffers[&0]
            .chunks(256)
            .enumerate()
            .filter(|(_, block)| block[0] == 1)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(written, [0, 9]);
        // the order visits every block once, spread at every prefix
        let order: Vec<u64> = super::sample_order(10, true).collect();
        assert_eq!(order, [0, 7, 4, 1, 8, 5, 2, 9, 6, 3]);
    }

    /// [`STORE`], and in the blocks from 512 on a second store: blocks of two kinds.
    fn store_twice_past_512() -> String {
        STORE.replace(".reg .b32", ".reg .pred %p<2>;\n    .reg .b32").replace(
            "    ret;",
            "    setp.lt.u32 %p1, %r1, 512;\n    @%p1 bra DONE;\n    st.global.u32 [%rd3], 2;\nDONE:\n    ret;",
        )
    }

    /// [`STORE`] with the store of the second warp switched off by its guard in the blocks
    /// from 512 on: every block takes the same warp steps, but those blocks store half as much.
    fn store_guarded_past_512() -> String {
        STORE
            .replace(".reg .b32", ".reg .pred %p<4>;\n    .reg .b32")
            .replace(
                "    st.global.u32 [%rd3], 1;",
                "    setp.lt.u32 %p1, %r2, 32;\n    setp.lt.u32 %p2, %r1, 512;\n    or.pred %p3, %p1, %p2;\n    @%p3 st.global.u32 [%rd3], 1;",
            )
    }

    /// A spread run that may stop once settled, under a budget of 1000 blocks' steps, stops at
    /// the least number of blocks where every block does the same work (1024 blocks of
    /// `y[i] = 1`: 256 run), and runs to the budget where half the blocks do more: the spread
    /// order's first 256 hold blocks of both kinds. So it does where half the blocks switch
    /// half their lanes off, in the same warp steps. Under a budget the whole launch fits, it
    /// runs every block.
    #[test]
    fn a_spread_run_stops_once_its_blocks_agree_on_the_work() {
        let launch = Launch {
            grid: [1024, 1, 1],
            block: [64, 1, 1],
        };
        let run = |ptx: &str, opts: &Options| {
            let m = Module::parse(ptx).unwrap();
            let y = KernelArg::Buffer(vec![0; 1024 * 256]);
            run_with(&m, "k", &launch, &[y], opts).unwrap()
        };
        let per_block = run(STORE, &Options::default()).block_steps[0];
        let settled = Options {
            spread_order: true,
            stop_when_settled: true,
            keep_buffers: false,
            soft_steps: Some(1000 * per_block),
            ..Options::default()
        };
        let alike = run(STORE, &settled);
        assert_eq!(alike.blocks_run, super::super::SETTLE_MIN_BLOCKS);
        let unsettled = Options {
            stop_when_settled: false,
            ..settled
        };
        assert_eq!(run(STORE, &unsettled).blocks_run, 1000);
        let room = Options {
            soft_steps: Some(2000 * per_block),
            ..settled
        };
        assert_eq!(run(STORE, &room).blocks_run, 1024);
        let two_kinds = run(&store_twice_past_512(), &settled);
        assert!(two_kinds.blocks_run > 512, "{}", two_kinds.blocks_run);
        let kinds: std::collections::BTreeSet<u64> =
            two_kinds.block_steps[..256].iter().copied().collect();
        assert_eq!(kinds.len(), 2, "{kinds:?}");
        // the same warp steps everywhere, but not the same work: no early stop either
        let guarded = run(&store_guarded_past_512(), &settled);
        let steps: std::collections::BTreeSet<u64> = guarded.block_steps.iter().copied().collect();
        assert_eq!(steps.len(), 1, "{steps:?}");
        // to the budget: 1000 of STORE's blocks' steps are 728 of these longer ones
        let per_guarded = guarded.block_steps[0];
        assert_eq!(guarded.blocks_run, (1000 * per_block).div_ceil(per_guarded));
    }

    /// Each block stores into a page of its own (64 KiB apart) of a zero-filled buffer. Under a
    /// byte budget whose share for such pages holds 40.5 of them, a sampled run stops before
    /// the block that would touch a 41st and keeps the 40 it ran; a run of every block ends in
    /// the error, as before.
    #[test]
    fn a_sampled_run_stops_before_its_pages_outgrow_the_budget() {
        use super::super::mem::PAGE;
        use super::super::EmuError;
        let ptx = STORE.replace(
            "mad.lo.s32 %r3, %r1, 64, %r2;",
            "mad.lo.s32 %r3, %r1, 16384, %r2;",
        );
        let m = Module::parse(&ptx).unwrap();
        let launch = Launch {
            grid: [1024, 1, 1],
            block: [64, 1, 1],
        };
        let y = [KernelArg::Zeros(1024 * PAGE)];
        let run = |opts: &Options| run_with(&m, "k", &launch, &y, opts);
        let per_block = run(&Options::default()).unwrap().block_steps[0];
        // what the budget keeps for other memory: the rest of it is the pages' share
        let probe = 64 * PAGE;
        let Err(EmuError::Budget { budget: share, .. }) = run(&Options {
            max_bytes: probe,
            keep_buffers: false,
            ..Options::default()
        }) else {
            panic!("1024 pages fit in 64");
        };
        let max_bytes = probe - share + 40 * PAGE + PAGE / 2;
        let sampled = Options {
            spread_order: true,
            soft_steps: Some(1000 * per_block),
            max_bytes,
            keep_buffers: false,
            ..Options::default()
        };
        let r = run(&sampled).unwrap();
        assert_eq!((r.blocks_run, r.block_steps.len()), (40, 40));
        let whole = run(&Options {
            max_bytes,
            keep_buffers: false,
            ..Options::default()
        });
        assert!(matches!(whole, Err(EmuError::Budget { .. })), "{whole:?}");
    }

    /// The last block's threads past the data return early (`if (i >= n) return;`, a branch to
    /// the end) and the others meet at `__syncthreads()`: on the hardware the returning half of
    /// the warp exits and the barrier releases; so here, where the half at the barrier used to
    /// wait for lanes that had yet to run their side of the branch. Each thread then reads its
    /// neighbour's word, which the barrier makes visible: `y[i] = i + 1` below `n`.
    #[test]
    fn threads_returning_before_a_barrier_do_not_hold_it() {
        let text = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_y, .param .u32 k_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 sh[256];
    ld.param.u64 %rd1, [k_y];
    ld.param.u32 %r1, [k_n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra $L_end;
    mov.u32 %r3, sh;
    shl.b32 %r4, %r2, 2;
    add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r2;
    bar.sync 0;
    add.s32 %r6, %r2, 1;
    rem.u32 %r6, %r6, %r1;
    shl.b32 %r6, %r6, 2;
    add.s32 %r6, %r3, %r6;
    ld.shared.u32 %r7, [%r6];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
$L_end:
    ret;
}
"#;
        let m = Module::parse(text).unwrap();
        let launch = Launch {
            grid: [1, 1, 1],
            block: [64, 1, 1],
        };
        // 40 of 64 threads: the second warp splits at lane 8
        let args = [KernelArg::Buffer(vec![0; 256]), KernelArg::U32(40)];
        let r = run_with(&m, "k", &launch, &args, &Options::default()).unwrap();
        let y = r.u32s(0);
        let want: Vec<u32> = (0..64)
            .map(|i| if i < 40 { (i + 1) % 40 } else { 0 })
            .collect();
        assert_eq!(y, want);
        let barriers = |gran| {
            r.stats
                .features
                .get(&crate::stats::Feature::Barrier { gran })
                .copied()
        };
        assert_eq!(barriers(crate::stats::Granularity::Thread), Some(40.0));
        assert_eq!(barriers(crate::stats::Granularity::Warp), Some(2.0));
    }

    /// A run that will not finish within its budget stops once it has run the blocks it traces
    /// (`stop_when_over`), where it would go on to the budget; one that may finish goes on.
    #[test]
    fn a_run_past_its_budget_stops_once_it_has_traced() {
        let m = Module::parse(STORE).unwrap();
        let run = |grid: u64, opts: &Options| {
            let launch = Launch {
                grid: [grid, 1, 1],
                block: [64, 1, 1],
            };
            let out = vec![0; grid as usize * 256];
            run_with(&m, "k", &launch, &[KernelArg::Buffer(out)], opts).unwrap()
        };
        let per_block = run(1, &Options::default()).block_steps[0];
        // 16 blocks at 4 blocks' budget: past twice the budget, so it stops after the 2 traced
        let traced = Options {
            soft_steps: Some(4 * per_block),
            trace_blocks: 2,
            ..Options::default()
        };
        assert_eq!(run(16, &traced).blocks_run, 4, "without the projection");
        let projected = Options {
            stop_when_over: true,
            ..traced
        };
        assert_eq!(run(16, &projected).blocks_run, 2);
        // 8 blocks at 4 blocks' budget: not past twice the budget, so it runs to the budget
        assert_eq!(run(8, &projected).blocks_run, 4);
    }

    /// A sampling run that traces more blocks than fit its hard limit stops with the blocks
    /// it finished once the next would, at their mean, end past the limit, where it ran into
    /// the limit with an error; a run of every block still does.
    #[test]
    fn a_sampling_run_starts_no_block_that_would_end_past_its_limit() {
        let m = Module::parse(STORE).unwrap();
        let launch = Launch {
            grid: [16, 1, 1],
            block: [64, 1, 1],
        };
        let run = |opts: &Options| {
            run_with(
                &m,
                "k",
                &launch,
                &[KernelArg::Buffer(vec![0; 16 * 256])],
                opts,
            )
        };
        let one = Launch {
            grid: [1, 1, 1],
            ..launch
        };
        let per_block = run_with(
            &m,
            "k",
            &one,
            &[KernelArg::Buffer(vec![0; 256])],
            &Options::default(),
        )
        .unwrap()
        .block_steps[0];
        // room for 3.5 blocks, every block traced
        let sampling = Options {
            max_steps: 7 * per_block / 2,
            soft_steps: Some(per_block),
            trace_blocks: u64::MAX,
            ..Options::default()
        };
        let r = run(&sampling).unwrap();
        assert_eq!((r.blocks_run, r.blocks_traced), (3, 3));
        let whole = Options {
            soft_steps: None,
            ..sampling
        };
        assert!(matches!(
            run(&whole),
            Err(crate::emu::EmuError::StepLimit { blocks_done: 3, .. })
        ));
    }

    /// `y[i] = x[i + 1]` over 64 threads and 64 words of `x`: the last thread reads one word
    /// past the end, which a GPU tolerates within its allocation; the emulator reads it as zero
    /// and counts it. An address far from every buffer is still an error.
    #[test]
    fn a_load_just_past_a_buffer_reads_zero_and_is_counted() {
        let text = STORE
            .replace(".param .u64 k_y)", ".param .u64 k_y, .param .u64 k_x)")
            .replace(
                "st.global.u32 [%rd3], 1;",
                "ld.param.u64 %rd4, [k_x];\n    add.s64 %rd5, %rd4, %rd2;\n    \
                 ld.global.u32 %r4, [%rd5+4];\n    st.global.u32 [%rd3], %r4;",
            )
            .replace(".reg .b64 %rd<4>;", ".reg .b64 %rd<8>;")
            .replace(".reg .b32 %r<4>;", ".reg .b32 %r<8>;");
        let m = Module::parse(&text).unwrap();
        let launch = Launch {
            grid: [1, 1, 1],
            block: [64, 1, 1],
        };
        let x: Vec<u32> = (1..=64).collect();
        let args = [KernelArg::Buffer(vec![0; 256]), KernelArg::u32s(&x)];
        let r = run_with(&m, "k", &launch, &args, &Options::default()).unwrap();
        let y = r.u32s(0);
        assert_eq!((y[0], y[62], y[63]), (2, 64, 0));
        assert_eq!(
            r.outside,
            crate::emu::mem::Outside {
                loads: 1,
                stores: 0,
                bytes: 4,
                near: vec!["k_x".into()],
            }
        );
        // 64 MiB past the end: no allocation is near
        let far = text.replace("[%rd5+4]", "[%rd5+67108864]");
        let m = Module::parse(&far).unwrap();
        let e = run_with(&m, "k", &launch, &args, &Options::default()).unwrap_err();
        assert!(e.to_string().contains("out of bounds"), "{e}");
    }

    /// `match.any` gives each lane the lanes holding its value (`tid % 4` here: every fourth
    /// lane); `match.all` gives the member mask and true where all agree (a value every lane
    /// holds), 0 and false where they do not. Each lane stores the three masks and the
    /// predicate.
    #[test]
    fn match_sync_gives_the_lanes_that_hold_the_same_value() {
        let text = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_y)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [k_y];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    cvt.u64.u32 %rd4, %r2;
    match.any.sync.b64 %r3, %rd4, -1;
    mov.u64 %rd5, 7;
    match.all.sync.b64 %r4|%p1, %rd5, -1;
    match.all.sync.b32 %r5|%p1, %r2, -1;
    selp.u32 %r6, 1, 0, %p1;
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
    ret;
}
"#;
        let m = Module::parse(text).unwrap();
        let launch = Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
        };
        let r = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 32 * 16])],
            &Options::default(),
        )
        .unwrap();
        let y = r.u32s(0);
        for lane in 0..32 {
            let row = &y[lane * 4..lane * 4 + 4];
            assert_eq!(
                row,
                [0x1111_1111 << (lane % 4), u32::MAX, 0, 0],
                "lane {lane}"
            );
        }
    }

    /// A zero-filled buffer given by its size runs as the same buffer given by its bytes.
    #[test]
    fn a_buffer_of_zeros_given_by_its_size_runs_as_its_bytes() {
        let m = Module::parse(STORE).unwrap();
        let launch = Launch {
            grid: [4, 1, 1],
            block: [64, 1, 1],
        };
        let opts = Options::default();
        let bytes = run_with(&m, "k", &launch, &[KernelArg::Buffer(vec![0; 1024])], &opts);
        let sized = run_with(&m, "k", &launch, &[KernelArg::Zeros(1024)], &opts);
        let (bytes, sized) = (bytes.unwrap(), sized.unwrap());
        assert_eq!(sized.buffers[&0], bytes.buffers[&0]);
        assert!(sized.buffers[&0].iter().all(|b| *b <= 1));
        assert_eq!(sized.stats.features, bytes.stats.features);
    }

    /// A struct's pointer field receives the address of its buffer: a store through it lands
    /// there, where a field left at 0 would fault.
    #[test]
    fn a_struct_s_pointer_field_points_at_its_buffer() {
        let src = STORE
            .replace(".param .u64 k_y", ".param .align 8 .b8 k_s[16]")
            .replace("[k_y]", "[k_s+8]");
        let m = Module::parse(&src).unwrap();
        let launch = Launch {
            grid: [1, 1, 1],
            block: [64, 1, 1],
        };
        let opts = Options::default();
        let bare = run_with(&m, "k", &launch, &[KernelArg::Bytes(vec![0; 16])], &opts);
        assert!(bare.is_err());
        let arg = KernelArg::Struct {
            bytes: vec![0; 16],
            buffers: vec![(8, vec![0; 256])],
        };
        let r = run_with(&m, "k", &launch, &[arg], &opts).unwrap();
        assert_eq!(r.blocks_run, 1);
    }

    /// Only the first blocks run when asked, and the trace holds each warp's sectors once
    /// per access, by block, as writes.
    #[test]
    fn the_first_blocks_run_and_their_sectors_are_traced() {
        let m = Module::parse(STORE).unwrap();
        let launch = Launch {
            grid: [4, 1, 1],
            block: [64, 1, 1],
        };
        let opts = Options {
            max_blocks: Some(2),
            trace_blocks: u64::MAX,
            ..Options::default()
        };
        let r = run_with(&m, "k", &launch, &[KernelArg::Buffer(vec![0; 1024])], &opts).unwrap();
        assert_eq!((r.blocks_run, r.blocks_traced), (2, 2));
        // two warps a block, 32 lanes x 4 bytes = 4 sectors a warp
        assert_eq!(r.touches.len(), 2 * 2 * 4);
        assert!(r.touches.iter().all(|t| t.0 < 2 && t.3));
        // the same trace from a run of every block that traces the first two
        let whole = Options {
            trace_blocks: 2,
            ..Options::default()
        };
        let all = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 1024])],
            &whole,
        )
        .unwrap();
        assert_eq!((all.blocks_run, all.blocks_traced), (4, 2));
        assert_eq!(all.touches, r.touches);
        // a traced run that stops at its step budget in the third block keeps the touches of
        // the two it finished: those a run of the two alone records
        let stopped = Options {
            max_steps: 40,
            trace_blocks: u64::MAX,
            ..Options::default()
        };
        match run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 1024])],
            &stopped,
        ) {
            Err(crate::emu::EmuError::StepLimit {
                blocks_done,
                traced,
                ..
            }) => assert_eq!((blocks_done, &traced), (2, &r.touches)),
            other => panic!("{other:?}"),
        }
        let written = r.buffers[&0].iter().filter(|b| **b == 1).count();
        assert_eq!(written, 128, "two blocks of 64 threads stored");
        let untraced = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 1024])],
            &Options::default(),
        )
        .unwrap();
        assert_eq!((untraced.blocks_run, untraced.touches.len()), (4, 0));
        let counts_only = Options {
            keep_buffers: false,
            ..Options::default()
        };
        let r = run_with(
            &m,
            "k",
            &launch,
            &[KernelArg::Buffer(vec![0; 1024])],
            &counts_only,
        );
        assert!(r.unwrap().buffers.is_empty());
    }
}
