//! Affine recovery over PTX: the value of every integer register as a polynomial (usually a
//! quasi-affine expression) in the launch symbols, kernel parameters and loop counters, and of
//! every predicate as a boolean formula over affine comparisons.
//!
//! Why polynomials rather than affine forms only: addresses such as `row * n + col` multiply a
//! thread index by a parameter; they are not affine, but their lane stride (the coefficient of
//! `tid_x`) is still exact. Guards and loop bounds must be affine to become isl constraints; a
//! non-affine one is reported by the domain pass.
//!
//! The block size is fixed (`ntid` are constants), which makes `ctaid.x * ntid.x + tid.x`
//! affine. Symbols: `tid_x…`, `ctaid_x…`, `nctaid_x…`, kernel parameters `p0, p1, …` (by
//! position), loop counters `k0, k1, …` (by loop index in the CFG).
//!
//! Method: forward abstract interpretation over the CFG in reverse postorder, ignoring back edges;
//! a join keeps a register's value only where all predecessors agree. Loops take two passes: the
//! first gives every register written in the loop a symbolic header value `h`; a register whose
//! latch value is `h + s` with `s` loop-invariant is an induction variable, `init + s·k`; the
//! second pass uses those forms (other loop-written registers are unknown).
//!
//! A min, max or select (`selp`) of quasi-affine values is a named symbol `mmN` whose definition
//! is the tree of its arguments ([`crate::named`]): arithmetic on it stays quasi-affine, and the
//! definition is put back where domains are counted. A bit operation that is not arithmetic on
//! its operands is kept by its sign and its zeros alone ([`Val::Bits`]) when a test reads them.
//!
//! Simplification rule: `shr.s` by width−1 (the sign of a value, in signed-division idioms) is
//! taken as 0, i.e. the dividend is assumed non-negative; nvcc guards its loop-trip computations
//! so that this holds.

use crate::cfg::{Cfg, EdgeKind};
use crate::cond::Cond;
use crate::loop_exit;
use crate::named;
use crate::piecewise::Piecewise;
use crate::poly::{Atom, LinExpr, Poly};
use crate::ptx::{AddrBase, Function, Inst, Operand, SReg, StateSpace};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;

/// Largest predicate formula (nodes) a register may hold; see [`Cond::size_exceeds`].
pub const MAX_COND_NODES: usize = 512;
/// Largest polynomial (terms, degree) a register may hold.
pub const MAX_POLY_TERMS: usize = 256;
pub const MAX_POLY_DEGREE: u32 = 16;

/// An abstract register value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Num(Poly),
    Pred(Cond),
    /// An integer known only by its sign and, where known, where it is zero: negative exactly
    /// where `negative` holds, zero exactly where `zero` does. nvcc tests `a < 0 || b < 0` as
    /// the sign of `a | b`, and `a == 0 && b == 0` as `a | b` against 0, neither an affine value.
    Bits {
        negative: Cond,
        zero: Option<Cond>,
    },
    Unknown,
}

pub type Env = BTreeMap<String, Val>;

/// Result of the analysis of one function.
#[derive(Clone, Debug, Default)]
pub struct Values {
    /// Register values at the entry of each block.
    pub entry: Vec<Env>,
    /// Register values at the end of each block (before its terminator's effect on control).
    pub exit: Vec<Env>,
    /// Induction variables per loop: register → step.
    pub ivs: BTreeMap<usize, BTreeMap<String, Poly>>,
}

thread_local! {
    /// Kernel parameters read as numbers rather than symbols (see [`with_param_values`]).
    static PARAM_VALUES: std::cell::RefCell<BTreeMap<String, i128>> = Default::default();
}

/// Run `f` with the named parameters (`p<index>` → value) read as constants: an address such as
/// `(tid * stride) % 8192` is a polynomial only once `stride` is a number.
pub fn with_param_values<T>(vals: BTreeMap<String, i128>, f: impl FnOnce() -> T) -> T {
    let old = PARAM_VALUES.with(|p| std::mem::replace(&mut *p.borrow_mut(), vals));
    let out = f();
    PARAM_VALUES.with(|p| *p.borrow_mut() = old);
    out
}

thread_local! {
    /// The grid size read as numbers rather than symbols (see [`with_grid`]).
    static GRID: std::cell::Cell<Option<[u64; 3]>> = const { std::cell::Cell::new(None) };
}

/// Run `f` with `%nctaid` read as the constants `grid` (symbols `nctaid_*` when `None`): a
/// grid-stride loop steps by `ntid·nctaid`, a constant only once the grid is fixed.
pub fn with_grid<T>(grid: Option<[u64; 3]>, f: impl FnOnce() -> T) -> T {
    let old = GRID.with(|g| g.replace(grid));
    let out = f();
    GRID.with(|g| g.set(old));
    out
}

/// Symbol of a kernel parameter: `p<index>`.
pub fn param_symbol(f: &Function, name: &str) -> String {
    match f.param_index(name) {
        Some(i) => format!("p{i}"),
        None => name.replace(['.', '$'], "_"),
    }
}

/// Symbol of the field at byte `offset` of the aggregate parameter `index`: `p<index>_<offset>`.
pub fn param_field_symbol(index: usize, offset: u64) -> String {
    format!("p{index}_{offset}")
}

/// Whether `v` is a parameter symbol: `p<index>` or a field's `p<index>_<offset>`.
pub fn is_param_symbol(v: &str) -> bool {
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    v.strip_prefix('p')
        .is_some_and(|rest| match rest.split_once('_') {
            Some((i, off)) => digits(i) && digits(off),
            None => digits(rest),
        })
}

/// The symbol an `ld.param` of `name` at byte `offset` reads: the parameter's own for a scalar,
/// the field's for an aggregate (a struct by value); `None` for what is neither.
fn param_read_symbol(f: &Function, name: &str, offset: i64) -> Option<String> {
    let i = f.param_index(name)?;
    match (f.params[i].is_aggregate(), u64::try_from(offset)) {
        (true, Ok(off)) => Some(param_field_symbol(i, off)),
        (false, Ok(0)) => Some(param_symbol(f, name)),
        _ => None,
    }
}

/// The parameter and byte offset an `ld.param` address reads: `[k_param_0+8]`, or a register
/// holding an aggregate's address (`mov.b64 %rd1, k_param_0;` then `[%rd1+8]`, as LLVM's
/// NVPTX back end reads a struct passed by value).
fn param_read<'a>(f: &'a Function, addr: Option<&'a Operand>, env: &Env) -> Option<(&'a str, i64)> {
    match addr? {
        Operand::Addr {
            base: AddrBase::Symbol(s),
            offset,
        } => Some((s.as_str(), *offset)),
        Operand::Addr {
            base: AddrBase::Reg(r),
            offset,
        } => {
            let Some(Val::Num(p)) = env.get(r) else {
                return None;
            };
            f.params.iter().filter(|q| q.is_aggregate()).find_map(|q| {
                let rest = p.sub(&Poly::var(&format!("sym_{}", sanitize(&q.name))));
                let c = konst(&rest)?;
                Some((q.name.as_str(), i64::try_from(c).ok()? + offset))
            })
        }
        _ => None,
    }
}

/// The aggregate parameter and offset of a vector `ld.param`.
fn aggregate_vector_read<'a>(f: &'a Function, i: &'a Inst, env: &Env) -> Option<(&'a str, i64)> {
    if i.opcode != "ld" || i.state_space() != Some(StateSpace::Param) {
        return None;
    }
    if !matches!(i.operands.first(), Some(Operand::Vector(_))) {
        return None;
    }
    param_read(f, i.operands.get(1), env)
        .filter(|(s, _)| f.param_index(s).is_some_and(|k| f.params[k].is_aggregate()))
}

fn param_value(sym: &str) -> Val {
    match PARAM_VALUES.with(|p| p.borrow().get(sym).copied()) {
        Some(v) => Val::Num(Poly::constant(crate::poly::poly::rat(v))),
        None => Val::Num(Poly::var(sym)),
    }
}

pub fn counter(loop_index: usize) -> String {
    format!("k{loop_index}")
}

/// Recover register values; `ntid` is the fixed block size.
pub fn analyze(f: &Function, cfg: &Cfg, ntid: [u64; 3]) -> Values {
    let phis = run(f, cfg, ntid, None, None);
    // induction variables from pass 1
    let mut ivs: BTreeMap<usize, BTreeMap<String, Poly>> = BTreeMap::new();
    for (li, l) in cfg.loops.iter().enumerate() {
        let written = written_in(cfg, &l.blocks);
        let mut m = BTreeMap::new();
        'reg: for r in &written {
            let h = Poly::var(&phi_name(li, r));
            let mut step: Option<Poly> = None;
            for &lat in &l.latches {
                let Some(Val::Num(v)) = phis.exit[lat].get(r) else {
                    continue 'reg;
                };
                let s = v.sub(&h);
                let mut vars = BTreeSet::new();
                s.vars(&mut vars);
                named::close(&mut vars);
                if vars
                    .iter()
                    .any(|v| v.starts_with("h") || v.starts_with('k'))
                {
                    continue 'reg;
                }
                if step.as_ref().is_some_and(|p| *p != s) {
                    continue 'reg;
                }
                step = Some(s);
            }
            if let Some(s) = step {
                m.insert(r.clone(), s);
            }
        }
        ivs.insert(li, m);
    }
    let mut v = run(f, cfg, ntid, Some(&ivs), None);
    v.ivs = ivs.clone();
    // Exit iterations and path-aware joins need the domains, which need the values: iterate
    // from what the previous round knew, until nothing more is learnt (each loop's exit can
    // only feed what comes after it, so the loop count bounds the rounds).
    let prover = loop_exit::Prover::new(cfg, ntid);
    for _ in 0..=cfg.loops.len() {
        let paths = loop_exit::Paths::new(cfg, &v, &prover);
        let mut next = run(f, cfg, ntid, Some(&ivs), Some(&paths));
        next.ivs = ivs.clone();
        let stable = next.entry == v.entry && next.exit == v.exit;
        v = next;
        if stable {
            break;
        }
    }
    v
}

fn phi_name(li: usize, reg: &str) -> String {
    format!("h{li}_{}", reg.trim_start_matches('%'))
}

fn written_in(cfg: &Cfg, blocks: &[usize]) -> BTreeSet<String> {
    let mut w = BTreeSet::new();
    for &b in blocks {
        for i in &cfg.blocks[b].insts {
            for d in dests(i) {
                w.insert(d);
            }
        }
    }
    w
}

/// Registers an instruction writes.
pub fn dests(i: &Inst) -> Vec<String> {
    if matches!(
        i.opcode.as_str(),
        "st" | "bra" | "ret" | "exit" | "bar" | "barrier" | "membar" | "fence" | "red" | "prefetch"
    ) {
        return vec![];
    }
    match i.operands.first() {
        Some(Operand::Reg(r)) => vec![r.clone()],
        Some(Operand::Vector(v)) | Some(Operand::List(v)) => {
            v.iter().filter_map(|o| o.reg().map(String::from)).collect()
        }
        Some(Operand::Pair(a, b)) => [a, b]
            .iter()
            .filter_map(|o| o.reg().map(String::from))
            .collect(),
        _ => vec![],
    }
}

/// Reverse postorder of the blocks reachable from the entry. Iterative (an explicit stack of
/// (block, next successor)), since a kernel's blocks can be many more than the stack is deep.
fn rpo(cfg: &Cfg) -> Vec<usize> {
    let n = cfg.blocks.len();
    let mut seen = vec![false; n];
    let mut order = Vec::new();
    if n == 0 {
        return order;
    }
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in &cfg.edges {
        if let Some(s) = succs.get_mut(e.from) {
            s.push(e.to);
        }
    }
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, next)) = stack.last_mut() {
        if let Some(&to) = succs[*b].get(*next) {
            *next += 1;
            if !seen[to] {
                seen[to] = true;
                stack.push((to, 0));
            }
        } else {
            order.push(*b);
            stack.pop();
        }
    }
    order.reverse();
    order
}

fn is_back_edge(cfg: &Cfg, from: usize, to: usize) -> bool {
    cfg.dominates(to, from)
}

fn run(
    f: &Function,
    cfg: &Cfg,
    ntid: [u64; 3],
    ivs: Option<&BTreeMap<usize, BTreeMap<String, Poly>>>,
    paths: Option<&loop_exit::Paths>,
) -> Values {
    let n = cfg.blocks.len();
    let mut entry: Vec<Env> = vec![Env::new(); n];
    let mut exit: Vec<Env> = vec![Env::new(); n];
    for b in rpo(cfg) {
        let preds: Vec<usize> = cfg
            .predecessors(b)
            .filter(|e| !is_back_edge(cfg, e.from, b))
            .map(|e| e.from)
            .collect();
        let mut env = merge(cfg, b, &preds, &exit, ivs.is_some(), paths);
        if let Some((li, _)) = cfg.loops.iter().enumerate().find(|(_, l)| l.header == b) {
            for r in written_in(cfg, &cfg.loops[li].blocks) {
                let v = match ivs {
                    None => Val::Num(Poly::var(&phi_name(li, &r))),
                    Some(ivs) => match (ivs.get(&li).and_then(|m| m.get(&r)), env.get(&r)) {
                        (Some(step), Some(Val::Num(init))) => {
                            Val::Num(init.add(&step.mul(&Poly::var(&counter(li)))))
                        }
                        _ => Val::Unknown,
                    },
                };
                env.insert(r, v);
            }
        }
        entry[b] = env.clone();
        for i in &cfg.blocks[b].insts {
            transfer(f, i, &mut env, ntid);
        }
        exit[b] = env;
    }
    Values {
        entry,
        exit,
        ivs: BTreeMap::new(),
    }
}

/// Join the values at the end of `b`'s forward predecessors. Pass 1 (`leave` false: symbolic
/// header values, no counters yet) keeps a register only where all agree. Later passes also
/// replace, on an edge that leaves a loop, the loop's counter by its exit iteration (or forget
/// what depends on it), and with `paths` keep differing values that are provably equal.
fn merge(
    cfg: &Cfg,
    b: usize,
    preds: &[usize],
    exit: &[Env],
    leave: bool,
    paths: Option<&loop_exit::Paths>,
) -> Env {
    if !leave {
        return loop_exit::plain_join(preds.iter().map(|p| &exit[*p]));
    }
    let incoming: Vec<(usize, &Env, Env)> = preds
        .iter()
        .map(|&p| {
            let e = match paths {
                Some(x) => x.along(p, b, &exit[p]),
                None => loop_exit::along(cfg, p, b, &exit[p], None),
            };
            (p, &exit[p], e)
        })
        .collect();
    match paths {
        Some(x) => x.join(b, &incoming),
        None => loop_exit::plain_join(incoming.iter().map(|(_, _, e)| e)),
    }
}

fn sreg(s: &SReg, ntid: [u64; 3]) -> Val {
    let d = |n: &str, dim: &crate::ptx::Dim| format!("{n}_{}", dim.as_str());
    match s {
        SReg::Tid(dim) => Val::Num(Poly::var(&d("tid", dim))),
        SReg::Ctaid(dim) => Val::Num(Poly::var(&d("ctaid", dim))),
        SReg::Nctaid(dim) => Val::Num(Poly::var(&d("nctaid", dim))),
        SReg::Ntid(dim) => Val::Num(Poly::constant(crate::poly::poly::rat(
            ntid[dim.index()] as i128,
        ))),
        SReg::Laneid => Val::Num(Poly::from_lin(&lane_id(ntid))),
        _ => Val::Unknown,
    }
}

/// A cluster special register of a kernel compiled for one cluster shape (`.reqnctapercluster X,
/// Y, Z`, what `__cluster_dims__` writes): the grid is cut into clusters of that shape, so each
/// register is the block index, or the grid size, split by it. `None` for any other register, or
/// where the shape is set at launch (`cudaLaunchKernelEx`), which the PTX does not say.
fn cluster_sreg(f: &Function, s: &SReg) -> Option<Poly> {
    let shape = f.perf_values("reqnctapercluster")?;
    let c = |d: usize| shape.get(d).copied().unwrap_or(1).max(1) as i128;
    let (base, suffix) = s.cluster_register()?;
    let dim = || ["x", "y", "z"].iter().position(|d| *d == suffix);
    let ctaid = |d: usize| LinExpr::var(&format!("ctaid_{}", ["x", "y", "z"][d]));
    let in_cluster = |d: usize| ctaid(d).sub(&ctaid(d).floor_div(c(d)).scale(c(d)));
    let lin = match base {
        "cluster_ctaid" => in_cluster(dim()?),
        "cluster_nctaid" => LinExpr::constant(c(dim()?)),
        "clusterid" => {
            let d = dim()?;
            ctaid(d).floor_div(c(d))
        }
        "nclusterid" => {
            let d = dim()?;
            let n = match GRID.with(|g| g.get()) {
                Some(g) => LinExpr::constant(g[d] as i128),
                None => LinExpr::var(&format!("nctaid_{}", ["x", "y", "z"][d])),
            };
            n.floor_div(c(d))
        }
        "cluster_ctarank" => in_cluster(0)
            .add(&in_cluster(1).scale(c(0)))
            .add(&in_cluster(2).scale(c(0) * c(1))),
        "cluster_nctarank" => LinExpr::constant(c(0) * c(1) * c(2)),
        "is_explicit_cluster" => LinExpr::constant(1),
        _ => return None,
    };
    Some(Poly::from_lin(&lin))
}

/// `%laneid`: the thread's linear index in its block, modulo the warp size (warps are cut from
/// the linear index).
fn lane_id(ntid: [u64; 3]) -> LinExpr {
    let (nx, ny) = (ntid[0] as i128, ntid[1] as i128);
    let linear = LinExpr::var("tid_x")
        .add(&LinExpr::var("tid_y").scale(nx))
        .add(&LinExpr::var("tid_z").scale(nx * ny));
    linear.sub(&linear.floor_div(32).scale(32))
}

/// The predicate `p` of `shfl.sync.mode.b32 d|p, a, b, c, mask`: whether the source lane is in
/// range, per the PTX ISA's semantics (lane offsets `b[4:0]`, clamp `c[4:0]`, segment mask
/// `c[12:8]`). It depends on the lane and on `b` and `c` only, never on the shuffled data, so
/// CUB's and cooperative groups' `@p add` after a shuffle is counted exactly. Segment masks
/// other than a power-of-two width, and `bfly`/`idx` with a lane-varying `b`, stay unknown.
fn shfl_in_range(i: &Inst, b: Option<&Poly>, c: Option<&Poly>, ntid: [u64; 3]) -> Option<Cond> {
    let c = c.and_then(konst)?;
    let (cval, seg) = (c & 31, (c >> 8) & 31);
    let lane = lane_id(ntid);
    // A segment of width w = 2^k masks the lane's bits k..4: seg = 32 - w.
    let width = 32 - seg;
    if width & (width - 1) != 0 {
        return None;
    }
    let min_lane = lane.floor_div(width).scale(width);
    let top = cval & (width - 1); // cval & !seg
    let max_lane = min_lane.add_const(top);
    let b_lin = b.and_then(lin)?;
    let bval = match konst(&Poly::from_lin(&b_lin)) {
        Some(k) => LinExpr::constant(k & 31),
        None => b_lin.sub(&b_lin.floor_div(32).scale(32)),
    };
    let has = |m: &str| i.modifiers.iter().any(|x| x == m);
    if has("up") {
        compare("ge", &lane.sub(&bval), &max_lane)
    } else if has("down") {
        compare("le", &lane.add(&bval), &max_lane)
    } else {
        let k = konst(&Poly::from_lin(&bval))?;
        let in_range = if has("bfly") {
            // lane ^ k stays in the lane's segment; it is in range for every lane when the clamp
            // is the segment's last lane.
            (k & seg == 0 && top == width - 1).then_some(true)?
        } else {
            // idx: j = min_lane | (k & !seg), in range when its offset is at most the clamp.
            (k & (width - 1)) <= top
        };
        Some(if in_range {
            Cond::True
        } else {
            Cond::True.not()
        })
    }
}

/// Value of an operand.
pub fn operand(f: &Function, o: &Operand, env: &Env, ntid: [u64; 3]) -> Val {
    match o {
        Operand::Reg(r) => env.get(r).cloned().unwrap_or(Val::Unknown),
        Operand::Imm(v) => Val::Num(Poly::constant(crate::poly::poly::rat(*v as i128))),
        Operand::SpecialReg(SReg::Nctaid(d)) if GRID.with(|g| g.get()).is_some() => {
            let g = GRID.with(|g| g.get()).unwrap_or([1; 3]);
            Val::Num(Poly::constant(crate::poly::poly::rat(g[d.index()] as i128)))
        }
        Operand::SpecialReg(s) if s.cluster_register().is_some() => {
            cluster_sreg(f, s).map_or(Val::Unknown, Val::Num)
        }
        Operand::SpecialReg(s) => sreg(s, ntid),
        Operand::Symbol(s) => Val::Num(Poly::var(&format!("sym_{}", sanitize(s)))),
        Operand::Not(inner) => match operand(f, inner, env, ntid) {
            Val::Pred(c) => Val::Pred(c.not()),
            _ => Val::Unknown,
        },
        _ => Val::Unknown,
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Address of the memory operand that `classify::mem_access` describes, as a polynomial (base
/// register or symbol plus offset): the operand `classify::access_operand` names (the first
/// address, the global source of `cp.async`, none for `wmma`, whose operand is a tile base).
pub fn address(f: &Function, inst: &Inst, env: &Env, ntid: [u64; 3]) -> Option<Poly> {
    let _ = ntid;
    operand_address(
        f,
        inst.operands.get(crate::classify::access_operand(inst)?)?,
        env,
    )
}

/// The tile base of a `wmma.load` / `wmma.store` (its one `[…]` operand), as a polynomial. The
/// ISA requires it to be the same in every lane of the warp.
pub fn wmma_base(f: &Function, inst: &Inst, env: &Env) -> Option<Poly> {
    let op = inst
        .operands
        .iter()
        .find(|o| matches!(o, Operand::Addr { .. }))?;
    operand_address(f, op, env)
}

/// Bytes from one row of a `wmma` tile to the next: its last operand, `ldm`, in elements.
pub fn wmma_pitch(f: &Function, inst: &Inst, env: &Env, ntid: [u64; 3]) -> Option<Poly> {
    let ldm = match operand(f, inst.operands.last()?, env, ntid) {
        Val::Num(p) => p,
        _ => return None,
    };
    let bits = inst.types.last()?.bits() as i128;
    Some(ldm.scale(&(crate::poly::poly::rat(bits) / crate::poly::poly::rat(8))))
}

fn operand_address(f: &Function, op: &Operand, env: &Env) -> Option<Poly> {
    let Operand::Addr { base, offset } = op else {
        return None;
    };
    let b = match base {
        AddrBase::Reg(r) => match env.get(r) {
            Some(Val::Num(p)) => p.clone(),
            _ => return None,
        },
        // a kernel parameter's slot: the same address in every lane
        AddrBase::Symbol(s) if f.param_index(s).is_some() => Poly::var(&param_symbol(f, s)),
        AddrBase::Symbol(s) => Poly::var(&format!("sym_{}", sanitize(s))),
        AddrBase::None => Poly::zero(),
    };
    Some(b.add(&Poly::constant(crate::poly::poly::rat(*offset as i128))))
}

fn lin(p: &Poly) -> Option<LinExpr> {
    let mut e = LinExpr::default();
    for (m, c) in &p.terms {
        if !c.is_integer() {
            return None;
        }
        let c: i128 = num_traits::ToPrimitive::to_i128(&c.to_integer())?;
        match m.as_slice() {
            [] => e.constant += c,
            [(a, 1)] => e.add_term(a.clone(), c),
            _ => return None,
        }
    }
    Some(e)
}

/// A polynomial as a quasi-affine expression, when it is one.
pub fn as_lin(p: &Poly) -> Option<LinExpr> {
    lin(p)
}

fn num(v: &Val) -> Option<&Poly> {
    match v {
        Val::Num(p) => Some(p),
        _ => None,
    }
}

/// The largest power of two (up to 2^62) that divides every value of `p` because it divides
/// every coefficient (all integers); `None` when a coefficient is not an integer. The zero
/// polynomial gives 2^62.
fn power_of_two_dividing(p: &Poly) -> Option<i128> {
    let mut k = 62u32;
    for c in p.terms.values() {
        if !c.is_integer() {
            return None;
        }
        let c = num_traits::ToPrimitive::to_i128(&c.to_integer())?;
        if c != 0 {
            k = k.min(c.trailing_zeros());
        }
    }
    Some(1i128 << k)
}

fn konst(p: &Poly) -> Option<i128> {
    let c = p.as_constant()?;
    if !c.is_integer() {
        return None;
    }
    num_traits::ToPrimitive::to_i128(&c.to_integer())
}

/// The transfer function of one instruction on the register environment.
pub fn transfer(f: &Function, i: &Inst, env: &mut Env, ntid: [u64; 3]) {
    let ds = dests(i);
    if ds.is_empty() {
        return;
    }
    let mut ops: Vec<Val> = i
        .operands
        .iter()
        .skip(1)
        .map(|o| operand(f, o, env, ntid))
        .collect();
    let is_float = i.types.iter().any(|t| t.is_float());
    let bits = i.types.last().map_or(32, |t| t.bits());
    // A negative immediate of an unsigned widening or high multiply (`mul.wide.u32 %rd, %r,
    // -1431655765`) is its unsigned value: the product is taken on the integers.
    let unsigned = i.types.iter().any(|t| t.as_str().starts_with('u'));
    let widening = i.modifiers.iter().any(|m| m == "wide" || m == "hi");
    if matches!(i.opcode.as_str(), "mul" | "mad") && unsigned && widening && bits < 64 {
        for (o, v) in i.operands.iter().skip(1).zip(ops.iter_mut()) {
            if let Operand::Imm(x) = o {
                if *x < 0 {
                    let u = *x as i128 + (1i128 << bits);
                    *v = Val::Num(Poly::constant(crate::poly::poly::rat(u)));
                }
            }
        }
    }
    let a = ops.first().and_then(num);
    let b = ops.get(1).and_then(num);
    let c = ops.get(2).and_then(num);
    let mulc = |x: &Poly, y: &Poly| -> Option<Poly> { Some(x.mul(y)) };
    let v: Val = if is_float && !matches!(i.opcode.as_str(), "mov" | "setp" | "selp" | "cvt") {
        Val::Unknown
    } else {
        match i.opcode.as_str() {
            // `mov.pred p, 0|1`
            "mov" if i.types.iter().any(|t| t.as_str() == "pred") => match a.and_then(konst) {
                Some(c) if c != 0 => Val::Pred(Cond::True),
                Some(_) => Val::Pred(Cond::True.not()),
                None => ops.first().cloned().unwrap_or(Val::Unknown),
            },
            "mov" | "cvta" => ops.first().cloned().unwrap_or(Val::Unknown),
            // `mapa.shared::cluster d, a, rank`: the address of `a`'s byte in another block of
            // the cluster, a window per block. Counted at `a`'s offset, which sets the banks.
            "mapa" => ops.first().cloned().unwrap_or(Val::Unknown),
            "cvt" if !is_float => ops.first().cloned().unwrap_or(Val::Unknown),
            "ld" if i.modifiers.iter().any(|m| m == "param") => {
                match param_read(f, i.operands.get(1), env) {
                    Some((s, offset)) => param_read_symbol(f, s, offset)
                        .map_or(Val::Unknown, |sym| param_value(&sym)),
                    None => Val::Unknown,
                }
            }
            "add" => opt(a.zip(b).map(|(x, y)| x.add(y))),
            "sub" => opt(a.zip(b).map(|(x, y)| x.sub(y))),
            "neg" => opt(a.map(|x| x.scale(&crate::poly::poly::rat(-1)))),
            // an unsigned high product by a constant: floor(M·x / 2^bits)
            "mul" if i.modifiers.iter().any(|m| m == "hi") => {
                let x = a.and_then(lin).zip(b.and_then(konst));
                let x = x.or_else(|| b.and_then(lin).zip(a.and_then(konst)));
                match x {
                    Some((e, m)) if unsigned && m > 0 => {
                        Val::Num(Poly::from_lin(&floor_div_magic(&e.scale(m), 1i128 << bits)))
                    }
                    _ => Val::Unknown,
                }
            }
            "mul" => opt(a.zip(b).and_then(|(x, y)| mulc(x, y))),
            "mad" if i.modifiers.iter().any(|m| m == "hi") => Val::Unknown,
            "mad" => opt(a
                .zip(b)
                .and_then(|(x, y)| mulc(x, y))
                .zip(c)
                .map(|(p, z)| p.add(z))),
            "shl" => opt(a.zip(b.and_then(konst)).and_then(|(x, k)| {
                (0..63)
                    .contains(&k)
                    .then(|| x.scale(&crate::poly::poly::rat(1i128 << k)))
            })),
            "shr" => match (a, b.and_then(konst)) {
                (Some(_), Some(k))
                    if k == bits as i128 - 1
                        && i.types.iter().any(|t| t.as_str().starts_with('s')) =>
                {
                    Val::Num(Poly::zero())
                }
                (Some(x), Some(k)) if (0..62).contains(&k) => {
                    opt(lin(x).map(|e| Poly::from_lin(&floor_div_magic(&e, 1i128 << k))))
                }
                _ => Val::Unknown,
            },
            // bit field extract: floor(a/2^pos) mod 2^len; the whole rest of the value when
            // the field reaches the top bit (then also for a signed, sign-extended field)
            "bfe" => match (a.and_then(lin), b.and_then(konst), c.and_then(konst)) {
                (Some(e), Some(pos), Some(len))
                    if (0..bits as i128).contains(&pos) && len > 0 && pos + len >= bits as i128 =>
                {
                    Val::Num(Poly::from_lin(&e.floor_div(1i128 << pos)))
                }
                (Some(e), Some(pos), Some(len))
                    if unsigned && pos >= 0 && len > 0 && pos + len < 64 =>
                {
                    Val::Num(Poly::from_lin(
                        &e.floor_div(1i128 << pos)
                            .sub(&e.floor_div(1i128 << (pos + len)).scale(1i128 << len)),
                    ))
                }
                _ => Val::Unknown,
            },
            "div" => match (a.and_then(lin), b.and_then(konst)) {
                (Some(e), Some(m)) if m > 0 => Val::Num(Poly::from_lin(&e.floor_div(m))),
                _ => Val::Unknown,
            },
            "rem" => match (a.and_then(lin), b.and_then(konst)) {
                (Some(e), Some(m)) if m > 0 => {
                    Val::Num(Poly::from_lin(&e.sub(&e.floor_div(m).scale(m))))
                }
                _ => Val::Unknown,
            },
            "and" if !matches!(ops.first(), Some(Val::Pred(_))) => {
                match (a.and_then(lin), b.and_then(konst)) {
                    (Some(e), Some(m)) if m > 0 && (m + 1) & m == 0 => {
                        let md = m + 1;
                        Val::Num(Poly::from_lin(&e.sub(&e.floor_div(md).scale(md))))
                    }
                    // `x & -2^k` clears the low k bits: 2^k·floor(x / 2^k) in two's complement.
                    (Some(e), Some(m)) if m < 0 && (-m) & (-m - 1) == 0 => {
                        Val::Num(Poly::from_lin(&e.floor_div(-m).scale(-m)))
                    }
                    // A run of ones, bits lo..hi-1 (`x & 0x3fffe000` in a signed `%`):
                    // 2^lo·floor(x / 2^lo) − 2^hi·floor(x / 2^hi).
                    (Some(e), Some(m))
                        if m > 0 && {
                            let low = m & -m;
                            (m + low) & (m + low - 1) == 0
                        } =>
                    {
                        let lo = m & -m;
                        let hi = m + lo;
                        Val::Num(Poly::from_lin(
                            &e.floor_div(lo).scale(lo).sub(&e.floor_div(hi).scale(hi)),
                        ))
                    }
                    _ => Val::Unknown,
                }
            }
            "and" | "or" | "xor" => match (ops.first(), ops.get(1)) {
                (Some(Val::Pred(x)), Some(Val::Pred(y))) => Val::Pred(match i.opcode.as_str() {
                    "and" => Cond::And(Box::new(x.clone()), Box::new(y.clone())),
                    "or" => Cond::Or(Box::new(x.clone()), Box::new(y.clone())),
                    _ => x.clone().xor(y.clone()),
                }),
                // `x | c` and `x ^ c` with x a multiple of 2^k and 0 <= c < 2^k set bits that x
                // has clear: x + c (`(m << 1) | 1` is how compilers write 2m + 1). A numeric
                // `and` was taken above.
                (Some(Val::Num(x)), Some(Val::Num(y))) if i.opcode != "and" => {
                    let disjoint = |x: &Poly, c: i128| {
                        c >= 0 && power_of_two_dividing(x).is_some_and(|d| c < d)
                    };
                    match (konst(x), konst(y)) {
                        (_, Some(c)) if disjoint(x, c) => Val::Num(x.add(y)),
                        (Some(c), _) if disjoint(y, c) => Val::Num(x.add(y)),
                        _ => Val::Unknown,
                    }
                }
                _ => Val::Unknown,
            },
            "not" => match ops.first() {
                Some(Val::Pred(x)) => Val::Pred(x.clone().not()),
                // two's complement: !x = -x - 1
                Some(Val::Num(x)) => Val::Num(
                    x.scale(&crate::poly::poly::rat(-1))
                        .add(&Poly::constant(crate::poly::poly::rat(-1))),
                ),
                _ => Val::Unknown,
            },
            "selp" => match (ops.first(), ops.get(1), ops.get(2)) {
                (Some(x), Some(y), _) if x == y => x.clone(),
                (Some(Val::Num(x)), Some(Val::Num(y)), Some(Val::Pred(c))) if !is_float => {
                    match (lin(x), lin(y)) {
                        (Some(x), Some(y)) if too_deep(&[&x, &y]) => Val::Unknown,
                        (Some(x), Some(y)) => {
                            Val::Num(Poly::from_lin(&named::name(Piecewise::Select(
                                Box::new(c.clone()),
                                Box::new(Piecewise::Leaf(x)),
                                Box::new(Piecewise::Leaf(y)),
                            ))))
                        }
                        _ => Val::Unknown,
                    }
                }
                _ => Val::Unknown,
            },
            "min" | "max" => match (a.and_then(lin), b.and_then(lin)) {
                (Some(x), Some(y)) if too_deep(&[&x, &y]) => Val::Unknown,
                (Some(x), Some(y)) => Val::Num(Poly::from_lin(&extremum(i.opcode == "max", x, y))),
                _ => Val::Unknown,
            },
            // |x| = max(x, -x)
            "abs" => match a.and_then(lin) {
                Some(x) => {
                    let nx = x.scale(-1);
                    Val::Num(Poly::from_lin(&extremum(true, x, nx)))
                }
                None => Val::Unknown,
            },
            // `setp.cmp.s32 p, a, b` and `setp.cmp.bop.s32 p, a, b, q` (p = (a cmp b) bop q)
            "setp" if !is_float && matches!(i.modifiers.len(), 1 | 2) => {
                let cmp = i.modifiers[0].as_str();
                let c = match (a.and_then(lin), b.and_then(lin)) {
                    (Some(x), Some(y)) => compare(cmp, &x, &y),
                    _ => None,
                };
                match (c, i.modifiers.get(1).map(String::as_str), ops.get(2)) {
                    (Some(c), None, _) => Val::Pred(c),
                    (Some(c), Some("and"), Some(Val::Pred(q))) => Val::Pred(c.and(q.clone())),
                    (Some(c), Some("or"), Some(Val::Pred(q))) => Val::Pred(c.or(q.clone())),
                    (Some(c), Some("xor"), Some(Val::Pred(q))) => Val::Pred(c.xor(q.clone())),
                    _ => Val::Unknown,
                }
            }
            _ => Val::Unknown,
        }
    };
    let v = match v {
        Val::Unknown if !is_float => by_sign(i, &ops).unwrap_or(Val::Unknown),
        v => v,
    };
    // Each instruction may double a formula (`and.pred p, q, q`; `mul x, y, y`), so a short
    // chain would grow past any memory; past these sizes a value is unknown (then listed as an
    // assumption where it decides control flow), which bounds the work by construction.
    let v = match v {
        Val::Pred(c) if c.size_exceeds(MAX_COND_NODES) => Val::Unknown,
        Val::Bits { negative, zero }
            if negative.size_exceeds(MAX_COND_NODES)
                || zero
                    .as_ref()
                    .is_some_and(|z| z.size_exceeds(MAX_COND_NODES)) =>
        {
            Val::Unknown
        }
        Val::Num(p) if p.terms.len() > MAX_POLY_TERMS || p.degree() > MAX_POLY_DEGREE => {
            Val::Unknown
        }
        v => v,
    };
    if i.opcode == "shfl" {
        if let Some(Operand::Pair(d, p)) = i.operands.first() {
            if let (Some(d), Some(p)) = (d.reg(), p.reg()) {
                let in_range = shfl_in_range(i, b, c, ntid).map_or(Val::Unknown, Val::Pred);
                env.insert(d.to_string(), Val::Unknown);
                env.insert(p.to_string(), in_range);
                return;
            }
        }
    }
    // setp p|q: q is the negation
    if i.opcode == "setp" {
        if let Some(Operand::Pair(p, q)) = i.operands.first() {
            if let (Some(p), Some(q)) = (p.reg(), q.reg()) {
                let nq = match &v {
                    Val::Pred(c) => Val::Pred(c.clone().not()),
                    _ => Val::Unknown,
                };
                env.insert(p.to_string(), v);
                env.insert(q.to_string(), nq);
                return;
            }
        }
    }
    if ds.len() == 1 {
        env.insert(ds[0].clone(), v);
    } else if let Some((s, offset)) = aggregate_vector_read(f, i, env).filter(|_| !is_float) {
        // `ld.param.v2.u32 {%r1, %r2}, [p]`: consecutive fields of an aggregate
        let width = bits.div_ceil(8) as i64;
        for (k, d) in ds.into_iter().enumerate() {
            let v = param_read_symbol(f, s, offset + k as i64 * width)
                .map_or(Val::Unknown, |sym| param_value(&sym));
            env.insert(d, v);
        }
    } else {
        for d in ds {
            env.insert(d, Val::Unknown);
        }
    }
}

/// Bit operations and tests that only the signs and zeros of their operands decide: the sign
/// bit of `a | b` is set where `a` or `b` is negative, of `a & b` where both are, of `a ^ b`
/// where one is, of `~a` where `a` is not; `x < 0` (signed) reads it back. `a | b` is zero where
/// both are, and `a ^ b` of two affine values where they are equal; `x == 0` reads that back.
fn by_sign(i: &Inst, ops: &[Val]) -> Option<Val> {
    let neg = |v: &Val| match v {
        Val::Bits { negative, .. } => Some(negative.clone()),
        Val::Num(p) => lin(p).map(|e| Cond::Ge(e.scale(-1).add_const(-1))),
        _ => None,
    };
    let zero = |v: &Val| match v {
        Val::Bits { zero, .. } => zero.clone(),
        Val::Num(p) => lin(p).map(Cond::Eq),
        _ => None,
    };
    let c = |k: usize| ops.get(k).and_then(num).and_then(konst);
    match i.opcode.as_str() {
        "and" | "or" | "xor" => {
            let (a, b) = (ops.first()?, ops.get(1)?);
            let (x, y) = (neg(a)?, neg(b)?);
            let (negative, zero) = match i.opcode.as_str() {
                "and" => (x.and(y), None),
                "or" => (x.or(y), zero(a).zip(zero(b)).map(|(p, q)| p.and(q))),
                _ => (
                    x.xor(y),
                    match (a, b) {
                        (Val::Num(p), Val::Num(q)) => {
                            lin(p).zip(lin(q)).map(|(p, q)| Cond::Eq(p.sub(&q)))
                        }
                        _ => None,
                    },
                ),
            };
            Some(Val::Bits { negative, zero })
        }
        "not" => match ops.first()? {
            Val::Bits { negative, .. } => Some(Val::Bits {
                negative: negative.clone().not(),
                zero: None,
            }),
            _ => None,
        },
        "setp" if matches!(i.modifiers.first().map(String::as_str), Some("eq" | "ne")) => {
            let z = match (ops.first()?, ops.get(1)?) {
                (Val::Bits { zero: Some(z), .. }, _) if c(1) == Some(0) => z,
                (_, Val::Bits { zero: Some(z), .. }) if c(0) == Some(0) => z,
                _ => return None,
            };
            let p = if i.modifiers[0] == "eq" {
                z.clone()
            } else {
                z.clone().not()
            };
            combine(p, i.modifiers.get(1).map(String::as_str), ops.get(2))
        }
        "setp" if i.types.iter().any(|t| t.as_str().starts_with('s')) => {
            // (sign test, whether it reads "negative")
            let test = match (ops.first()?, ops.get(1)?, i.modifiers.first()?.as_str()) {
                (Val::Bits { negative: s, .. }, _, "lt") if c(1) == Some(0) => (s, true),
                (Val::Bits { negative: s, .. }, _, "le") if c(1) == Some(-1) => (s, true),
                (Val::Bits { negative: s, .. }, _, "ge") if c(1) == Some(0) => (s, false),
                (Val::Bits { negative: s, .. }, _, "gt") if c(1) == Some(-1) => (s, false),
                (_, Val::Bits { negative: s, .. }, "gt") if c(0) == Some(0) => (s, true),
                (_, Val::Bits { negative: s, .. }, "ge") if c(0) == Some(-1) => (s, true),
                (_, Val::Bits { negative: s, .. }, "le") if c(0) == Some(0) => (s, false),
                (_, Val::Bits { negative: s, .. }, "lt") if c(0) == Some(-1) => (s, false),
                _ => return None,
            };
            let p = if test.1 {
                test.0.clone()
            } else {
                test.0.clone().not()
            };
            combine(p, i.modifiers.get(1).map(String::as_str), ops.get(2))
        }
        _ => None,
    }
}

/// `setp`'s result `p`, combined with its optional predicate operand (`setp.cmp.bop`).
fn combine(p: Cond, bop: Option<&str>, q: Option<&Val>) -> Option<Val> {
    match (bop, q) {
        (None, _) => Some(Val::Pred(p)),
        (Some("and"), Some(Val::Pred(q))) => Some(Val::Pred(p.and(q.clone()))),
        (Some("or"), Some(Val::Pred(q))) => Some(Val::Pred(p.or(q.clone()))),
        (Some("xor"), Some(Val::Pred(q))) => Some(Val::Pred(p.xor(q.clone()))),
        _ => None,
    }
}

fn opt(p: Option<Poly>) -> Val {
    p.map_or(Val::Unknown, Val::Num)
}

/// `floor(e / m)`, read as a compiler's division by a constant where it is one: a shift of a
/// floor composes (`floor((floor(a/m) + c)/n) = floor((a + c·m)/(m·n))`), and
/// `floor(M·y / 2^k)` with `d = ceil(2^k / M)` and `M·d − 2^k ≤ 2^(k−32)` equals `floor(y / d)`
/// for every 32-bit `y` (Granlund and Montgomery's multiply-high division).
fn floor_div_magic(e: &LinExpr, m: i128) -> LinExpr {
    let (raw, m) = match (e.terms.len(), e.terms.iter().next()) {
        (1, Some((Atom::Floor(inner, m0), 1))) => (inner.add_const(e.constant * m0), m0 * m),
        _ => (e.clone(), m),
    };
    let k = m.trailing_zeros() as i128;
    let g = raw
        .terms
        .values()
        .fold(raw.constant, |g, c| num_integer::Integer::gcd(&g, c));
    if m.count_ones() == 1 && (32..=96).contains(&k) && g >= 2 {
        let d = (m + g - 1) / g;
        let err = g * d - m;
        if d >= 2 && err <= 1i128 << (k - 32) {
            let y = LinExpr {
                terms: raw.terms.iter().map(|(a, c)| (a.clone(), c / g)).collect(),
                constant: raw.constant / g,
            };
            return y.floor_div(d);
        }
    }
    raw.floor_div(m)
}

/// `max(x, y)` (`want_max`) or `min(x, y)` as a named value ([`crate::named`]); an argument
/// that is itself a named extremum of the same kind, plus a constant, lends its arguments, so
/// nested bounds stay one flat tree.
/// Whether a min, max or select of these would nest named values past [`named::MAX_DEPTH`].
fn too_deep(args: &[&LinExpr]) -> bool {
    args.iter().any(|e| named::depth(e) >= named::MAX_DEPTH)
}

fn extremum(want_max: bool, x: LinExpr, y: LinExpr) -> LinExpr {
    let unfold = |e: &LinExpr| -> Piecewise {
        let syms: Vec<(&Atom, &i128)> = e
            .terms
            .iter()
            .filter(|(a, _)| matches!(a, Atom::Var(v) if named::is_symbol(v)))
            .collect();
        if let [(Atom::Var(s), 1)] = syms.as_slice() {
            let rest = e.sub(&LinExpr::var(s));
            match named::definition(s) {
                Some(t @ Piecewise::Max(_)) if want_max => {
                    return t.map_monotone(&|l| l.add(&rest))
                }
                Some(t @ Piecewise::Min(_)) if !want_max => {
                    return t.map_monotone(&|l| l.add(&rest))
                }
                _ => {}
            }
        }
        Piecewise::Leaf(e.clone())
    };
    let t = Piecewise::extremum(want_max, unfold(&x), unfold(&y)).unwrap_or_else(|| {
        let v = vec![Piecewise::Leaf(x), Piecewise::Leaf(y)];
        if want_max {
            Piecewise::Max(v)
        } else {
            Piecewise::Min(v)
        }
    });
    named::name(t)
}

/// `x cmp y` as a condition (unsigned comparisons are taken on the mathematical integers).
fn compare(cmp: &str, x: &LinExpr, y: &LinExpr) -> Option<Cond> {
    let d = x.sub(y); // x - y
    Some(match cmp {
        "lt" | "lo" => Cond::Ge(d.scale(-1).add_const(-1)),
        "le" | "ls" => Cond::Ge(d.scale(-1)),
        "gt" | "hi" => Cond::Ge(d.add_const(-1)),
        "ge" | "hs" => Cond::Ge(d),
        "eq" => Cond::Eq(d),
        "ne" => Cond::Eq(d).not(),
        _ => return None,
    })
}

/// The condition under which control follows `edge` out of block `from` (None: unconditional;
/// Some(None): data dependent).
pub fn edge_cond(cfg: &Cfg, vals: &Values, from: usize, kind: EdgeKind) -> Option<Option<Cond>> {
    let t = cfg.blocks[from].terminator()?;
    let g = t.pred.as_ref()?;
    if !matches!(kind, EdgeKind::Taken | EdgeKind::NotTaken) {
        return None;
    }
    let c = match vals.exit[from].get(&g.reg) {
        Some(Val::Pred(c)) => c.clone(),
        _ => return Some(None),
    };
    let c = if g.negated { c.not() } else { c };
    Some(Some(if kind == EdgeKind::Taken { c } else { c.not() }))
}

#[allow(dead_code)]
fn atom_is(a: &Atom, name: &str) -> bool {
    matches!(a, Atom::Var(v) if &**v == name)
}
