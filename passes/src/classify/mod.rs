//! The ONE instruction classification shared by every producer of counts: the static counter
//! (`count*`) and the emulator (`emu`) both map an instruction to feature keys through these
//! functions, so the oracle test compares like with like. Counting engineers: use
//! [`op_feature`], [`mem_access`], [`is_cta_barrier`] and [`counts_when_guard_false`], and the
//! warp metrics in [`warp`] (stride class, sectors, lines, shared wavefronts).
//!
//! Counting convention (both producers):
//! - An instruction *executes* in a thread when the thread reaches it and its guard predicate
//!   (`@p` / `@!p`) holds. Control instructions (`bra`, `ret`, `exit`, `call` …) execute whenever
//!   they are reached: the guard only selects the path ([`counts_when_guard_false`]).
//! - Thread-granular keys count executing threads; warp-granular keys count warps with at least
//!   one executing lane, once per warp-level issue.
//! - `op_feature` gives the `Feature::Op` key of every instruction except pure memory moves
//!   (`ld`, `ldu`, `st`, `prefetch`, `cp.async` …), which are counted only under `Feature::Mem`.
//!   Atomics (`atom`, `red`) count under both (`OpKind::Atomic` and `Dir::Atomic`).
//! - An opcode the table does not know gives `(OpKind::Other, ty)` and must also be counted under
//!   `Feature::Unknown { opcode }` (the emulator refuses to run it instead).
//! - `Feature::Barrier` counts CTA barriers ([`is_cta_barrier`]): `bar`/`barrier` `.sync`,
//!   `.red`, `.arrive`; not `bar.warp.sync`, `membar`, `fence` (those are `OpKind::Barrier` ops).
//! - Memory keys: `mem_access` gives the space written in the instruction (`Space::Generic` for
//!   plain `ld`/`st`/`atom`); the emulator reports the space it resolved at run time, so a static
//!   counter should resolve generic addresses (through `cvta`) wherever it can.
//! - Sectors and lines are counted for `Space::Global` and `Space::Local` accesses, wavefronts for
//!   `Space::Shared` ([`counts_sectors`]).

pub mod stride;
pub mod warp;

use crate::ptx::{Inst, PtxType};
use crate::stats::{DType, Dir, OpKind, Space};

/// Op kind and data type of an instruction; `None` for pure memory moves (see the module doc).
///
/// The type is the destination type for `cvt`/`cvta` (the first type suffix) and the last type
/// suffix otherwise (`mul.wide.s32` → S32, `setp.lt.f32` → F32); no suffix gives `DType::None`.
pub fn op_feature(inst: &Inst) -> Option<(OpKind, DType)> {
    let op = inst.opcode.as_str();
    if is_memory_move(inst) {
        return None;
    }
    let kind = op_kind(op);
    let ty = match op {
        "cvt" | "cvta" => inst.types.first(),
        _ => inst.types.last(),
    };
    Some((kind, ty.map_or(DType::None, |t| dtype(*t))))
}

/// The shared-vocabulary dtype of a PTX type (pred → `Pred`, opaque → `Bits`).
pub fn dtype(t: PtxType) -> DType {
    match t {
        PtxType::Pred => DType::Pred,
        t => t.to_stats().unwrap_or(DType::Bits),
    }
}

fn is_memory_move(inst: &Inst) -> bool {
    matches!(
        inst.opcode.as_str(),
        "ld" | "ldu" | "st" | "prefetch" | "prefetchu" | "cp" | "stmatrix" | "ldmatrix"
    )
}

fn op_kind(op: &str) -> OpKind {
    match op {
        "add" | "sub" | "addc" | "subc" => OpKind::AddSub,
        "mul" | "mul24" => OpKind::Mul,
        "fma" | "mad" | "mad24" | "madc" => OpKind::Fma,
        "div" => OpKind::Div,
        "rem" => OpKind::Rem,
        "rcp" => OpKind::Rcp,
        "sqrt" => OpKind::Sqrt,
        "rsqrt" => OpKind::Rsqrt,
        "ex2" | "lg2" | "sin" | "cos" | "tanh" => OpKind::Special,
        "min" | "max" => OpKind::MinMax,
        "abs" => OpKind::Abs,
        "neg" => OpKind::Neg,
        "setp" | "set" | "selp" | "slct" | "testp" | "isspacep" => OpKind::CmpSel,
        "and" | "or" | "xor" | "not" | "cnot" | "shl" | "shr" | "shf" | "bfe" | "bfi" | "popc"
        | "clz" | "brev" | "prmt" | "lop3" | "bfind" | "fns" | "copysign" | "bmsk" | "szext" => {
            OpKind::LogicShift
        }
        "cvt" | "cvta" => OpKind::Convert,
        "mov" => OpKind::Move,
        "atom" | "red" => OpKind::Atomic,
        "shfl" | "vote" | "match" | "redux" | "activemask" => OpKind::ShuffleVote,
        "mma" | "wmma" | "wgmma" => OpKind::Mma,
        "bra" | "brx" | "call" | "ret" | "exit" | "trap" | "brkpt" | "nanosleep" | "pmevent" => {
            OpKind::Control
        }
        "bar" | "barrier" | "membar" | "fence" => OpKind::Barrier,
        _ => OpKind::Other,
    }
}

/// Whether the instruction's guard is ignored for counting (control instructions).
pub fn counts_when_guard_false(inst: &Inst) -> bool {
    op_kind(&inst.opcode) == OpKind::Control
}

/// Whether the instruction is a CTA-wide barrier counted under `Feature::Barrier`.
pub fn is_cta_barrier(inst: &Inst) -> bool {
    matches!(inst.opcode.as_str(), "bar" | "barrier") && !inst.modifiers.iter().any(|m| m == "warp")
}

/// The memory access of an instruction: (space as written, direction, bits per lane including
/// vectors, non-coherent path). `None` for instructions that do not access memory.
pub fn mem_access(inst: &Inst) -> Option<(Space, Dir, u16, bool)> {
    let dir = match inst.opcode.as_str() {
        "ld" | "ldu" => Dir::Load,
        "st" => Dir::Store,
        "atom" | "red" => Dir::Atomic,
        _ => return None,
    };
    let mut space = Space::Generic;
    let mut vec = 1u32;
    let mut nc = inst.opcode == "ldu";
    for m in &inst.modifiers {
        match m.split("::").next().unwrap_or(m) {
            "global" => space = Space::Global,
            "shared" => space = Space::Shared,
            "local" => space = Space::Local,
            "const" => space = Space::Const,
            "param" => space = Space::Param,
            "nc" => nc = true,
            "v2" => vec = 2,
            "v4" => vec = 4,
            "v8" => vec = 8,
            _ => {}
        }
    }
    if space == Space::Const {
        nc = true;
    }
    let elem = inst.types.last().map_or(32, |t| t.bits());
    Some((space, dir, (elem * vec) as u16, nc))
}

/// Whether accesses of a space count sectors and lines (global, local) — shared counts wavefronts.
pub fn counts_sectors(space: Space) -> bool {
    matches!(space, Space::Global | Space::Local)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::Span;

    fn inst(op: &str, mods: &[&str], types: &[PtxType]) -> Inst {
        Inst {
            pred: None,
            opcode: op.into(),
            modifiers: mods.iter().map(|s| s.to_string()).collect(),
            types: types.to_vec(),
            type_pos: mods.len(),
            operands: vec![],
            span: Span::default(),
            loc: None,
        }
    }

    #[test]
    fn ops_classify() {
        use PtxType::*;
        assert_eq!(
            op_feature(&inst("fma", &["rn"], &[F32])),
            Some((OpKind::Fma, DType::F32))
        );
        assert_eq!(
            op_feature(&inst("mul", &["wide"], &[S32])),
            Some((OpKind::Mul, DType::S32))
        );
        assert_eq!(
            op_feature(&inst("cvt", &["rn"], &[F64, S32])),
            Some((OpKind::Convert, DType::F64))
        );
        assert_eq!(
            op_feature(&inst("bar", &["sync"], &[])),
            Some((OpKind::Barrier, DType::None))
        );
        assert_eq!(op_feature(&inst("ld", &["global"], &[F32])), None);
        assert_eq!(
            op_feature(&inst("frobnicate", &[], &[B32])),
            Some((OpKind::Other, DType::Bits))
        );
        assert!(counts_when_guard_false(&inst("bra", &["uni"], &[])));
        assert!(!counts_when_guard_false(&inst("add", &[], &[S32])));
        assert!(is_cta_barrier(&inst("barrier", &["sync"], &[])));
        assert!(!is_cta_barrier(&inst("bar", &["warp", "sync"], &[])));
    }

    #[test]
    fn mem_classify() {
        use PtxType::*;
        assert_eq!(
            mem_access(&inst("ld", &["global", "nc", "v4"], &[F32])),
            Some((Space::Global, Dir::Load, 128, true))
        );
        assert_eq!(
            mem_access(&inst("st", &["shared"], &[U8])),
            Some((Space::Shared, Dir::Store, 8, false))
        );
        assert_eq!(
            mem_access(&inst("atom", &["add"], &[U32])),
            Some((Space::Generic, Dir::Atomic, 32, false))
        );
        assert_eq!(
            mem_access(&inst("ld", &["const"], &[F64])),
            Some((Space::Const, Dir::Load, 64, true))
        );
        assert_eq!(mem_access(&inst("add", &[], &[S32])), None);
    }
}
