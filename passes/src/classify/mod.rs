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
//!   (`ld`, `ldu`, `st`, non-bulk `cp.async`, `ldmatrix`, `stmatrix`, `wmma.load`, `wmma.store`),
//!   which are counted only under `Feature::Mem`: a memory move is exactly an instruction with a
//!   load or store [`mem_access`], so none is dropped. Atomics (`atom`, `red`) count under both
//!   (`OpKind::Atomic` and `Dir::Atomic`). What moves memory but has no access the counts can
//!   describe (`prefetch`, bulk and tensor copies `cp.async.bulk*`, `cp.reduce.async.bulk*`) is
//!   `OpKind::Other`, hence `Feature::Unknown`. The `cp.async` group and mbarrier operations
//!   (`commit_group`, `wait_group`, `wait_all`, `cp.async.mbarrier.arrive`) are `OpKind::Barrier`
//!   ops, not CTA barriers, and so are `wgmma`'s (`fence`, `commit_group`, `wait_group`).
//! - Byte dot products (`dp4a`, `dp2a`) are `OpKind::Fma` of their integer type, one per
//!   instruction as they issue; `sad` is `OpKind::AddSub`; launch control and register hints
//!   (`griddepcontrol`, `setmaxnreg`, `nanosleep`, `pmevent`) are `OpKind::Control`.
//! - An opcode the table does not know gives `(OpKind::Other, ty)` and must also be counted under
//!   `Feature::Unknown { opcode }` (the emulator refuses to run it instead).
//! - `Feature::Barrier` counts CTA barriers ([`is_cta_barrier`]): `bar`/`barrier` `.sync`,
//!   `.red`, `.arrive`; not `bar.warp.sync`, `membar`, `fence` (those are `OpKind::Barrier` ops).
//! - Memory keys: `mem_access` gives the space written in the instruction (`Space::Generic` for
//!   plain `ld`/`st`/`atom`); the emulator reports the space it resolved at run time, so a static
//!   counter should resolve generic addresses (through `cvta`) wherever it can.
//! - Sectors and lines are counted for `Space::Global` and `Space::Local` accesses, wavefronts for
//!   `Space::Shared` ([`counts_sectors`]).

mod shape_walk;
pub mod stride;
pub mod warp;

use crate::ptx::{Inst, Operand, PtxType};
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
    let kind = inst_kind(inst);
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

/// A memory move is an instruction whose only effect the counts see is a load or a store: it is
/// defined by [`mem_access`], so every memory move has an access (and is never dropped).
fn is_memory_move(inst: &Inst) -> bool {
    matches!(mem_access(inst), Some((_, Dir::Load | Dir::Store, _, _)))
}

/// The op kind of an instruction that is not a memory move: [`op_kind`] of the opcode, except
/// for the opcodes whose modifiers decide (`cp`, `wmma`, `wgmma`).
fn inst_kind(inst: &Inst) -> OpKind {
    match inst.opcode.as_str() {
        "cp" => match cp_form(inst) {
            CpForm::Sync => OpKind::Barrier,
            // a `cp.async` copy is a memory move; a bulk or tensor copy or reduction is not
            // resolved (counted under `Feature::Unknown`)
            CpForm::Copy(_) | CpForm::Other => OpKind::Other,
        },
        // `wmma.load` / `wmma.store` are memory moves; one without a fragment operand to size
        // its access is not resolved
        "wmma" if wmma_dir(inst).is_some() => OpKind::Other,
        // `wgmma.fence`, `.commit_group` and `.wait_group` order a warpgroup's mma, as
        // `cp.async`'s groups order its copies
        "wgmma" if inst.modifiers.first().is_none_or(|m| m != "mma_async") => OpKind::Barrier,
        op => op_kind(op),
    }
}

/// What a `cp` instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CpForm {
    /// Non-bulk `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size …`: copies cp-size
    /// bytes (the immediate) from global to shared memory.
    Copy(u32),
    /// Completion of asynchronous copies: `cp.async.commit_group`, `.wait_group N`, `.wait_all`,
    /// `cp.async.mbarrier.arrive{.noinc}…`, and the bulk groups' `commit_group` / `wait_group`.
    Sync,
    /// Bulk and tensor copies (`cp.async.bulk*`), their reductions (`cp.reduce.async.bulk*`),
    /// bulk prefetches, and any other form.
    Other,
}

fn cp_form(inst: &Inst) -> CpForm {
    let has = |m: &str| inst.modifiers.iter().any(|x| x == m);
    let group = has("commit_group") || has("wait_group") || has("wait_all");
    if has("bulk") || has("reduce") {
        // a bulk copy's modifiers may name an mbarrier (`.mbarrier::complete_tx::bytes`): only
        // its group operations are synchronisation
        return if group { CpForm::Sync } else { CpForm::Other };
    }
    if group || has("mbarrier") {
        return CpForm::Sync;
    }
    match inst.operands.as_slice() {
        [Operand::Addr { .. }, Operand::Addr { .. }, Operand::Imm(n @ (4 | 8 | 16)), ..]
            if has("async") =>
        {
            CpForm::Copy(*n as u32)
        }
        _ => CpForm::Other,
    }
}

/// `wmma.load` (Load) or `wmma.store` (Store); `None` for `wmma.mma` and other forms.
fn wmma_dir(inst: &Inst) -> Option<Dir> {
    match inst.modifiers.first().map(String::as_str) {
        Some("load") => Some(Dir::Load),
        Some("store") => Some(Dir::Store),
        _ => None,
    }
}

/// Registers of a fragment operand (`{%r1, …}`, or one plain register).
fn fragment_regs(op: Option<&Operand>) -> Option<u32> {
    match op? {
        Operand::Vector(v) if !v.is_empty() => Some(v.len() as u32),
        Operand::Reg(_) => Some(1),
        _ => None,
    }
}

/// The index of the address operand whose access [`mem_access`] describes, the address each
/// lane accesses: the global source of `cp.async` (operand 1, `[dst]` is the shared
/// destination), the first address operand otherwise. Both producers take the address of the
/// access from this operand. `None` for `wmma.load` / `wmma.store`: their operand is the warp's
/// tile base, and the element each lane moves is at an offset the fragment layout hides, so the
/// lane stride is unknown; their sectors and lines come from the tile's rows ([`wmma_tile`])
/// rather than from one address shared by every lane.
pub fn access_operand(inst: &Inst) -> Option<usize> {
    match inst.opcode.as_str() {
        "cp" => {
            return match cp_form(inst) {
                CpForm::Copy(_) => Some(1),
                _ => None,
            }
        }
        "wmma" => return None,
        _ => {}
    }
    inst.operands
        .iter()
        .position(|o| matches!(o, Operand::Addr { .. }))
}

/// The tile a warp-wide `wmma.load` / `wmma.store` moves, as (rows, bytes per row) in memory:
/// matrix `a` is m×k, `b` k×n, `c`/`d` m×n (`.mMnNkK` shape), rows as laid out (`.row`: a
/// matrix row per memory row; `.col`: a column). Every row is contiguous; the rows are `ldm`
/// elements apart. `None` for other instructions or a form it cannot read.
pub fn wmma_tile(inst: &Inst) -> Option<(u32, u32)> {
    if inst.opcode != "wmma" || wmma_dir(inst).is_none() {
        return None;
    }
    let has = |m: &str| inst.modifiers.iter().any(|x| x == m);
    let (m, n, k) = mma_shape(inst)?;
    let (rows, cols) = match inst.modifiers.get(1).map(String::as_str)? {
        "a" => (m, k),
        "b" => (k, n),
        "c" | "d" => (m, n),
        _ => return None,
    };
    let (rows, cols) = if has("col") {
        (cols, rows)
    } else if has("row") {
        (rows, cols)
    } else {
        return None;
    };
    let bits = inst.types.last()?.bits();
    Some((rows, (cols * bits).div_ceil(8)))
}

/// The `.mMnNkK` shape modifier of a `wmma` or `mma` instruction.
fn mma_shape(inst: &Inst) -> Option<(u32, u32, u32)> {
    inst.modifiers.iter().find_map(|m| {
        let rest = m.strip_prefix('m')?;
        let (mm, rest) = rest.split_once('n')?;
        let (nn, kk) = rest.split_once('k')?;
        Some((
            mm.parse::<u32>().ok()?,
            nn.parse::<u32>().ok()?,
            kk.parse::<u32>().ok()?,
        ))
    })
}

/// The multiply–adds one warp's `wmma.mma`, `mma.sync` or `wgmma.mma_async` does, with the
/// type of its inputs and of its accumulator: `(input, accumulator, fmas)`. A warp's `wmma` or
/// `mma` does m·n·k of its shape; `wgmma` is executed by the four warps of a warpgroup
/// together, so each warp's share is a quarter of m·n·k. `wmma.mma` of f16 names only
/// `.dtype.ctype` (its inputs are f16), `mma` names `.dtype.atype.btype.ctype` and `wgmma`
/// `.dtype.atype.btype`. `None` for other instructions.
pub fn tensor_fmas(inst: &Inst) -> Option<(DType, DType, u32)> {
    let is_mma = match inst.opcode.as_str() {
        "wmma" => inst.modifiers.first().is_some_and(|m| m == "mma"),
        "mma" => true,
        "wgmma" => inst.modifiers.first().is_some_and(|m| m == "mma_async"),
        _ => false,
    };
    if !is_mma {
        return None;
    }
    let (m, n, k) = mma_shape(inst)?;
    let (input, acc) = match (inst.opcode.as_str(), inst.types.as_slice()) {
        ("wmma", [_, c]) => (DType::F16, dtype(*c)),
        ("mma", [_, a, _, c]) => (dtype(*a), dtype(*c)),
        ("wgmma", [d, a, _]) => (dtype(*a), dtype(*d)),
        _ => return None,
    };
    let per_warp = if inst.opcode == "wgmma" {
        m * n * k / WARPS_PER_WARPGROUP
    } else {
        m * n * k
    };
    Some((input, acc, per_warp))
}

/// The warps that execute one `wgmma` together (PTX ISA, "Warpgroup": four contiguous warps).
const WARPS_PER_WARPGROUP: u32 = 4;

fn op_kind(op: &str) -> OpKind {
    match op {
        "add" | "sub" | "addc" | "subc" | "sad" => OpKind::AddSub,
        "mul" | "mul24" => OpKind::Mul,
        // a byte dot product issues as one integer multiply-add
        "fma" | "mad" | "mad24" | "madc" | "dp4a" | "dp2a" => OpKind::Fma,
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
        "bra" | "brx" | "call" | "ret" | "exit" | "trap" | "brkpt" | "nanosleep" | "pmevent"
        | "griddepcontrol" | "setmaxnreg" => OpKind::Control,
        // an opaque cache policy value for the hints of later loads and stores
        "createpolicy" => OpKind::Move,
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
///
/// Beyond `ld`/`ldu`/`st`/`atom`/`red`:
/// - `cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}`: a global load of
///   cp-size × 8 bits. The write of the same bytes to shared memory is not a second access: this
///   function gives one access per instruction, and the global read is the DRAM-relevant side.
///   The whole cp-size is counted even where a smaller src-size reads fewer bytes (the rest is
///   zero-filled); the address is operand 1 ([`access_operand`]).
/// - `ldmatrix` / `stmatrix`: shared load / store of 32 bits per fragment register (`.x1`, `.x2`,
///   `.x4` give 1, 2, 4 registers).
/// - `wmma.load.{a,b,c}` / `wmma.store.d`: load / store in the space written (generic when none)
///   of the fragment's registers × max(32, type bits) per lane. Lanes of a warp may hold the
///   same element (an `.f16` A fragment holds each element in two lanes), so the bytes are the
///   registers the lanes transfer, not the size of the tile.
pub fn mem_access(inst: &Inst) -> Option<(Space, Dir, u16, bool)> {
    let dir = match inst.opcode.as_str() {
        "ld" | "ldu" => Dir::Load,
        "st" => Dir::Store,
        "atom" | "red" => Dir::Atomic,
        "cp" => {
            return match cp_form(inst) {
                CpForm::Copy(bytes) => Some((Space::Global, Dir::Load, (bytes * 8) as u16, false)),
                CpForm::Sync | CpForm::Other => None,
            }
        }
        "ldmatrix" => {
            let regs = fragment_regs(inst.operands.first())?;
            return Some((Space::Shared, Dir::Load, (32 * regs) as u16, false));
        }
        "stmatrix" => {
            let regs = fragment_regs(inst.operands.get(1))?;
            return Some((Space::Shared, Dir::Store, (32 * regs) as u16, false));
        }
        "wmma" => {
            // `wmma.load… r, [p], ldm` and `wmma.store… [p], r, ldm`
            let dir = wmma_dir(inst)?;
            let frag = match dir {
                Dir::Load => inst.operands.first(),
                _ => inst.operands.get(1),
            };
            let regs = fragment_regs(frag)?;
            let reg_bits = inst.types.last().map_or(32, |t| t.bits().max(32));
            let space = written_space(inst).unwrap_or(Space::Generic);
            return Some((space, dir, (regs * reg_bits) as u16, false));
        }
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

/// The state space written among the modifiers (`.global`, `.shared::cta` …), if any.
fn written_space(inst: &Inst) -> Option<Space> {
    inst.modifiers
        .iter()
        .find_map(|m| match m.split("::").next().unwrap_or(m) {
            "global" => Some(Space::Global),
            "shared" => Some(Space::Shared),
            "local" => Some(Space::Local),
            "const" => Some(Space::Const),
            "param" => Some(Space::Param),
            _ => None,
        })
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
    fn wmma_tiles_follow_matrix_shape_and_layout() {
        use PtxType::*;
        let load = |mods: &[&str], ty| inst("wmma", mods, &[ty]);
        // a 16×16 f16 tile: 16 rows of 32 bytes, whatever the layout
        let a = load(
            &["load", "a", "sync", "aligned", "row", "m16n16k16", "global"],
            F16,
        );
        assert_eq!(wmma_tile(&a), Some((16, 32)));
        // b of m32n8k16 is 16×8, stored by columns: 8 rows of 16 halves
        let b = load(&["load", "b", "sync", "aligned", "col", "m32n8k16"], F16);
        assert_eq!(wmma_tile(&b), Some((8, 32)));
        // the f32 accumulator of m32n8k16 is 32×8 by rows: 32 rows of 32 bytes
        let d = load(
            &["store", "d", "sync", "aligned", "row", "m32n8k16", "global"],
            F32,
        );
        assert_eq!(wmma_tile(&d), Some((32, 32)));
        let mma = load(&["mma", "sync", "aligned", "row", "col", "m16n16k16"], F32);
        assert_eq!(wmma_tile(&mma), None);
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

    /// The instructions of `body`, parsed inside a kernel.
    fn parsed(body: &str) -> Vec<Inst> {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
        );
        let m = crate::ptx::Module::parse(&text).expect("test PTX parses");
        let f = m.kernels().next().expect("one kernel");
        f.instructions().cloned().collect()
    }

    fn one(line: &str) -> Inst {
        let v = parsed(line);
        assert_eq!(v.len(), 1, "{line}");
        v.into_iter().next().expect("one instruction")
    }

    #[test]
    fn cp_async_is_a_global_load_of_cp_size() {
        for (line, bits) in [
            ("cp.async.ca.shared.global [%r1], [%rd1], 4, 4;", 32),
            ("cp.async.ca.shared.global [%r1], [%rd1], 8;", 64),
            ("cp.async.cg.shared.global [%r1], [%rd1], 16, 8;", 128),
            (
                "cp.async.cg.shared::cta.global.L2::128B [%r1], [%rd1], 16, %r2;",
                128,
            ),
            (
                "cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 16, %rd5;",
                128,
            ),
        ] {
            let i = one(line);
            assert_eq!(
                mem_access(&i),
                Some((Space::Global, Dir::Load, bits, false)),
                "{line}"
            );
            assert_eq!(op_feature(&i), None, "{line}");
            assert!(!is_cta_barrier(&i), "{line}");
            // the global source, not the shared destination
            assert_eq!(access_operand(&i), Some(1), "{line}");
        }
    }

    #[test]
    fn cp_async_and_wgmma_groups_are_barrier_ops() {
        for line in [
            "cp.async.commit_group;",
            "cp.async.wait_group 0;",
            "cp.async.wait_group 3;",
            "cp.async.wait_all;",
            "cp.async.mbarrier.arrive.b64 [%rd1];",
            "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];",
            "cp.async.bulk.commit_group;",
            "cp.async.bulk.wait_group.read 0;",
            "wgmma.fence.sync.aligned;",
            "wgmma.commit_group.sync.aligned;",
            "wgmma.wait_group.sync.aligned 1;",
        ] {
            let i = one(line);
            assert_eq!(mem_access(&i), None, "{line}");
            assert_eq!(
                op_feature(&i).map(|(k, _)| k),
                Some(OpKind::Barrier),
                "{line}"
            );
            assert!(!is_cta_barrier(&i), "{line}");
            assert!(!counts_when_guard_false(&i), "{line}");
        }
    }

    #[test]
    fn bulk_copies_are_unknown_not_dropped() {
        for line in [
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];",
            "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 256;",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r1], 256;",
            "cp.async.bulk.prefetch.L2.global [%rd1], 256;",
            "prefetch.global.L2 [%rd1];",
            "prefetchu.L1 [%rd1];",
        ] {
            let i = one(line);
            assert_eq!(mem_access(&i), None, "{line}");
            assert_eq!(
                op_feature(&i).map(|(k, _)| k),
                Some(OpKind::Other),
                "{line}"
            );
        }
    }

    #[test]
    fn ldmatrix_and_stmatrix_are_shared_accesses() {
        for (line, dir, bits) in [
            (
                "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r5];",
                Dir::Load,
                32,
            ),
            (
                "ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%r1, %r2}, [%r5];",
                Dir::Load,
                64,
            ),
            (
                "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5+64];",
                Dir::Load,
                128,
            ),
            (
                "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r5], {%r1, %r2, %r3, %r4};",
                Dir::Store,
                128,
            ),
            (
                "stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [%r5], {%r1, %r2};",
                Dir::Store,
                64,
            ),
        ] {
            let i = one(line);
            assert_eq!(
                mem_access(&i),
                Some((Space::Shared, dir, bits, false)),
                "{line}"
            );
            assert_eq!(op_feature(&i), None, "{line}");
        }
    }

    #[test]
    fn wmma_load_and_store_are_memory_moves_and_mma_is_mma() {
        for (line, space, dir, bits) in [
            (
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, [%rd8], %r3;",
                Space::Global,
                Dir::Load,
                256,
            ),
            (
                "wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, [%r1], %r3;",
                Space::Shared,
                Dir::Load,
                256,
            ),
            (
                "wmma.load.c.sync.aligned.row.m16n16k16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1], %r3;",
                Space::Generic,
                Dir::Load,
                256,
            ),
            (
                "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%fd1}, [%rd1], %r3;",
                Space::Global,
                Dir::Load,
                64,
            ),
            (
                "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd10], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, %r3;",
                Space::Global,
                Dir::Store,
                256,
            ),
            (
                "wmma.store.d.sync.aligned.col.m8n8k4.shared::cta.f64 [%r1], {%fd1, %fd2};",
                Space::Shared,
                Dir::Store,
                128,
            ),
        ] {
            let i = one(line);
            assert_eq!(mem_access(&i), Some((space, dir, bits, false)), "{line}");
            assert_eq!(op_feature(&i), None, "{line}");
            // the tile base is no lane's address
            assert_eq!(access_operand(&i), None, "{line}");
        }
        let mma = one(
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, {%r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
        );
        assert_eq!(mem_access(&mma), None);
        assert_eq!(op_feature(&mma), Some((OpKind::Mma, DType::F32)));
    }

    /// A warp's tensor-core multiply–adds are its shape's m·n·k, with the input and accumulator
    /// types as each form writes them.
    #[test]
    fn tensor_mma_counts_its_shape_with_its_types() {
        let cases = [
            (
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, {%r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
                Some((DType::F16, DType::F32, 4096)),
            ),
            (
                "wmma.mma.sync.aligned.row.col.m32n8k16.f16.f16 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12}, {%r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20}, {%r21, %r22, %r23, %r24};",
                Some((DType::F16, DType::F16, 4096)),
            ),
            (
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
                Some((DType::Bf16, DType::F32, 2048)),
            ),
            (
                "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
                Some((DType::S8, DType::S32, 4096)),
            ),
            (
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, [%rd8], %r3;",
                None,
            ),
            // a warpgroup's four warps share 64·64·16 multiply–adds
            (
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17, %f18, %f19, %f20, %f21, %f22, %f23, %f24, %f25, %f26, %f27, %f28, %f29, %f30, %f31, %f32}, %rd1, %rd2, 1, 1, 1, 0, 1;",
                Some((DType::F16, DType::F32, 16384)),
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;",
                Some((DType::Bf16, DType::F32, 2048)),
            ),
            (
                "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, %rd1, %rd2, 1;",
                Some((DType::S8, DType::S32, 8192)),
            ),
            ("wgmma.fence.sync.aligned;", None),
            ("wgmma.commit_group.sync.aligned;", None),
        ];
        for (line, want) in cases {
            assert_eq!(tensor_fmas(&one(line)), want, "{line}");
        }
    }

    /// Every instruction is counted somewhere: an op key, or a load/store access (a memory
    /// move), never neither; and a memory move always has its access.
    #[test]
    fn memory_moves_and_accesses_agree() {
        let lines = [
            "ld.global.f32 %f1, [%rd1];",
            "ldu.global.f32 %f1, [%rd1];",
            "st.shared.v4.f32 [%r1], {%f1, %f2, %f3, %f4};",
            "atom.global.add.u32 %r1, [%rd1], 1;",
            "red.global.add.u32 [%rd1], 1;",
            "prefetch.global.L2 [%rd1];",
            "prefetchu.L1 [%rd1];",
            "cp.async.ca.shared.global [%r1], [%rd1], 4;",
            "cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;",
            "cp.async.commit_group;",
            "cp.async.wait_group 1;",
            "cp.async.wait_all;",
            "cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];",
            "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r2}], [%r1];",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r1], 256;",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];",
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1};",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, [%rd8], %r3;",
            "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd10], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, %r3;",
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, {%r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
            "mbarrier.arrive.shared.b64 %rd1, [%r1];",
            "bar.sync 0;",
            "fence.proxy.async.shared::cta;",
        ];
        for line in lines {
            let i = one(line);
            let op = op_feature(&i);
            let mem = mem_access(&i);
            let moves = matches!(mem, Some((_, Dir::Load | Dir::Store, _, _)));
            match op {
                None => assert!(moves, "{line}: no op key and no load/store access"),
                Some((OpKind::Atomic, _)) => {
                    assert!(matches!(mem, Some((_, Dir::Atomic, _, _))), "{line}")
                }
                Some(_) => assert!(!moves, "{line}: a memory move with an op key"),
            }
            if let Some((_, _, bits, _)) = mem {
                assert!(bits > 0, "{line}");
                if i.opcode != "wmma" {
                    assert!(access_operand(&i).is_some(), "{line}: no address operand");
                }
            }
            if matches!(
                i.opcode.as_str(),
                "ld" | "ldu" | "st" | "ldmatrix" | "stmatrix"
            ) || (i.opcode == "wmma" && i.modifiers[0] != "mma")
            {
                assert!(moves, "{line}: a memory move without an access");
            }
        }
    }
}
