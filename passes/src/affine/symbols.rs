//! The symbols register values are written in: the launch (`tid_x`, `ctaid_x`, `nctaid_x`, the
//! cluster registers), kernel parameters (`p<index>`, an aggregate's fields `p<index>_<offset>`)
//! and module symbols; and the per-thread switches that read some of them as numbers
//! ([`with_param_values`], [`with_grid`]).

use super::value::{konst, Env, Val};
use crate::poly::{LinExpr, Poly};
use crate::ptx::{AddrBase, Function, Inst, Operand, SReg, StateSpace};
use std::collections::BTreeMap;

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

/// The grid [`with_grid`] fixed, if any.
pub(super) fn grid() -> Option<[u64; 3]> {
    GRID.with(|g| g.get())
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
pub(super) fn param_read_symbol(f: &Function, name: &str, offset: i64) -> Option<String> {
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
pub(super) fn param_read<'a>(
    f: &'a Function,
    addr: Option<&'a Operand>,
    env: &Env,
) -> Option<(&'a str, i64)> {
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
pub(super) fn aggregate_vector_read<'a>(
    f: &'a Function,
    i: &'a Inst,
    env: &Env,
) -> Option<(&'a str, i64)> {
    if i.opcode != "ld" || i.state_space() != Some(StateSpace::Param) {
        return None;
    }
    if !matches!(i.operands.first(), Some(Operand::Vector(_))) {
        return None;
    }
    param_read(f, i.operands.get(1), env)
        .filter(|(s, _)| f.param_index(s).is_some_and(|k| f.params[k].is_aggregate()))
}

pub(super) fn param_value(sym: &str) -> Val {
    match PARAM_VALUES.with(|p| p.borrow().get(sym).copied()) {
        Some(v) => Val::Num(Poly::constant(crate::poly::poly::rat(v))),
        None => Val::Num(Poly::var(sym)),
    }
}

pub(super) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

pub(super) fn sreg(s: &SReg, ntid: [u64; 3]) -> Val {
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
pub(super) fn cluster_sreg(f: &Function, s: &SReg) -> Option<Poly> {
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
pub(super) fn lane_id(ntid: [u64; 3]) -> LinExpr {
    let (nx, ny) = (ntid[0] as i128, ntid[1] as i128);
    let linear = LinExpr::var("tid_x")
        .add(&LinExpr::var("tid_y").scale(nx))
        .add(&LinExpr::var("tid_z").scale(nx * ny));
    linear.sub(&linear.floor_div(32).scale(32))
}
