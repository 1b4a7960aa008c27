//! Floating-point operations as Nsight Compute counts them: on the SASS the GPU runs, where a
//! `div.rn.f32` is a reciprocal (MUFU, no FLOP) refined by five FFMAs (10 FLOPs), a `sqrt.rn.f32`
//! two FMULs and two FFMAs, a `div.rn.f64` seven DFMAs, a DMUL and one FP32 FFMA, and a `mov`,
//! `min` or `max` no FLOP at all. The profiler's FP32 count is `fadd + fmul + 2 × ffma` over the
//! threads whose predicate is on (FP64 likewise with dadd/dmul/dfma; half precision with
//! hadd/hmul/hfma, per lane of a packed pair).
//!
//! **How: per-architecture expansion tables, derived by compiling probe kernels.** For every
//! floating-point PTX instruction form (`div.rn.f32`, `sqrt.approx.ftz.f32`, `rcp.rn.f64` …)
//! kerncast compiles a probe kernel that loads its operands, runs the one instruction and stores
//! the result, with the real `ptxas` for the architecture, disassembles it with `nvdisasm`, and
//! counts the FADD/FMUL/FFMA, DADD/DMUL/DFMA and HADD2/HMUL2/HFMA2 of the path every thread
//! runs: the out-of-line slow path (`$__internal_…_slowpath`, taken for denormal or special
//! operands) and the predicated range fix-ups (`@!P0 FMUL`, taken for inputs beyond 2^±126) are
//! left out, as Nsight leaves them out for ordinary data. [`generate`] writes the table
//! (`kerncast flop-table --arch sm_86`); `devices/sass/<arch>.toml` ships it with the ptxas
//! version that made it. The FLOPs of a launch are then the table's per-instruction values
//! weighted by the symbolic (or emulated) execution count of each instruction's PTX block, so
//! closed forms still apply at any size.
//!
//! **In context (`--sass-in-context`, and `realcode`), where ptxas assembles for the
//! architecture counted:** the module's own SASS, each instruction marked with its PTX line
//! (`ptxas -lineinfo`, `nvdisasm -gp`), gives each PTX block's FLOPs per execution
//! ([`in_context`], [`block_in_context`]), weighted by the same PTX execution counts: where
//! ptxas makes other code for an instruction in its kernel than in its probe (hexciton-cuda's
//! kernels: 0.15 % fewer FLOPs on their SASS than by the table, as Nsight measured them). A
//! block is the table's where the SASS cannot say (a line of several instructions, a simple
//! operation ptxas predicated, no floating-point SASS at all), and wherever ptxas assembled for
//! another architecture. nvdisasm costs about 0.3 s of CPU a module whatever its size, so a
//! build does without it.
//!
//! The table's rules: the PTX to SASS expansion of an arithmetic instruction does not depend
//! on its neighbours, with three exceptions:
//! - a `neg`/`abs` is folded into the operand modifier of the instruction that reads it (no
//!   FLOP) unless its value is stored, moved into a register with several definitions, or read
//!   by a division or square root, where ptxas materialises it with an `FADD x, -y, -RZ` (one
//!   FLOP); probed on sm_86;
//! - a value only ever chosen by a `selp` when a range check finds its input denormal or not
//!   finite (libdevice's `logf`: `x * 2^23`, `x * inf + inf`) is computed by an instruction
//!   ptxas predicates on that check, off for ordinary data: no FLOP, as the table leaves out
//!   the probes' own predicated range fix-ups;
//! - a `mul` without a rounding modifier read only by such `add`s and `sub`s is fused into them
//!   (each an FFMA, two FLOPs; the product none), as [`contract`] says where.
//!
//! An instruction with a guard counts the threads whose guard is on, where the counter decided
//! it (`BoundStats::guarded_execs`: CUB's `@p add` after a shuffle), as Nsight does.
//!
//! Known limit of the table (haccmk-cuda, measured 34 FP32 FLOPs per loop iteration, the table
//! 33): the probe of a non-ftz `sqrt.approx.f32` pre-scales small inputs with a predicated
//! `@!P0 FMUL` (no FLOP for ordinary data), while in haccmk's loop ptxas scales unconditionally
//! (one FLOP every time). Known limit of both: an instruction ptxas moves out of a loop
//! (invariant code) runs once on the GPU and as often as its PTX block in the counts.

use kerncast_passes::cfg::Cfg;
use kerncast_passes::ptx::{Function, Inst, Operand, PtxType};
use kerncast_passes::stats::BoundStats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What one PTX instruction becomes on the SASS fast path.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Expansion {
    /// FP32 FLOPs: FADD + FMUL + 2 × FFMA.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub f32: f64,
    /// FP64 FLOPs: DADD + DMUL + 2 × DFMA.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub f64: f64,
    /// Half-precision FLOPs per lane: HADD2 + HMUL2 + 2 × HFMA2 (× 2 for a packed pair).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub f16: f64,
    /// The SASS of the fast path (floating-point and MUFU instructions), for the record.
    #[serde(default)]
    pub sass: String,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// One architecture's expansion table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlopTable {
    pub arch: String,
    /// How the table was made (tool versions, the rule).
    pub source: String,
    /// By form key ([`form_key`]).
    pub forms: BTreeMap<String, Expansion>,
}

/// The sm_86 table shipped with kerncast (`kerncast flop-table --arch sm_86`).
pub const SM_86: &str = include_str!("../../devices/sass/sm_86.toml");
/// The sm_90 table (Hopper: `kerncast flop-table --arch sm_90`).
pub const SM_90: &str = include_str!("../../devices/sass/sm_90.toml");
/// Every shipped table, by the architecture's number.
const SHIPPED: &[(u32, &str)] = &[(86, SM_86), (90, SM_90)];

/// `86` of `sm_86`.
fn arch_number(arch: &str) -> Option<u32> {
    arch.strip_prefix("sm_")?
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .ok()
}

impl FlopTable {
    pub fn parse(text: &str) -> Result<FlopTable, String> {
        toml::from_str(text).map_err(|e| format!("a FLOP expansion table: {e}"))
    }

    /// The table for `arch`: a shipped one, else the nearest older shipped one (the oldest for an
    /// older or unknown architecture) with a note.
    pub fn for_arch(arch: &str) -> Result<(&'static FlopTable, Option<String>), String> {
        // each table parsed once, and only the one asked for (a parse is a visible share of a
        // one-block `predict`): every kernel of every workload asks
        static PARSED: [std::sync::OnceLock<Result<FlopTable, String>>; SHIPPED.len()] =
            [const { std::sync::OnceLock::new() }; SHIPPED.len()];
        let want = arch_number(arch);
        let i = SHIPPED
            .iter()
            .rposition(|(n, _)| want.is_some_and(|w| *n <= w))
            .unwrap_or(0);
        let t = PARSED[i]
            .get_or_init(|| FlopTable::parse(SHIPPED[i].1))
            .as_ref()
            .map_err(Clone::clone)?;
        if t.arch == arch {
            Ok((t, None))
        } else {
            let note = format!(
                "SASS FLOPs from the {} expansion table (no table for {arch} ships; `kerncast flop-table --arch {arch}` makes one)",
                t.arch
            );
            Ok((t, Some(note)))
        }
    }

    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| e.to_string())
    }
}

/// An instruction's key in the table: opcode, its modifiers sorted (the order PTX writes them
/// in does not change the instruction), its types: `div.rn.f32`, `ex2.approx.ftz.f32`.
pub fn form_key(inst: &Inst) -> String {
    let mut mods: Vec<&str> = inst.modifiers.iter().map(String::as_str).collect();
    mods.sort_unstable();
    let mut s = inst.opcode.clone();
    for m in mods {
        s.push('.');
        s.push_str(m);
    }
    for t in &inst.types {
        s.push('.');
        s.push_str(t.as_str());
    }
    s
}

fn is_float_type(t: PtxType) -> bool {
    matches!(
        t,
        PtxType::F16
            | PtxType::F16x2
            | PtxType::Bf16
            | PtxType::Bf16x2
            | PtxType::F32
            | PtxType::F64
    )
}

/// Opcodes whose float forms the table describes (the rest produce no floating-point SASS:
/// moves, loads, stores, compares, selects and min/max, which are FMNMX).
const FLOAT_OPCODES: &[&str] = &[
    "add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos",
    "tanh", "neg", "abs", "cvt",
];

/// Whether the table has (or should have) a form for this instruction.
pub fn is_float_op(inst: &Inst) -> bool {
    FLOAT_OPCODES.contains(&inst.opcode.as_str()) && inst.types.iter().copied().any(is_float_type)
}

/// The PTX-level rule, for a form the table lacks: add/sub/mul one operation per lane, fma two,
/// everything else none (its expansion is unknown: the caller lists it).
fn ptx_rule(inst: &Inst) -> Expansion {
    let per = match inst.opcode.as_str() {
        "add" | "sub" | "mul" => 1.0,
        "fma" | "mad" => 2.0,
        _ => 0.0,
    };
    let mut e = Expansion::default();
    match inst.types.first() {
        Some(PtxType::F32) => e.f32 = per,
        Some(PtxType::F64) => e.f64 = per,
        Some(PtxType::F16 | PtxType::Bf16) => e.f16 = per,
        Some(PtxType::F16x2 | PtxType::Bf16x2) => e.f16 = 2.0 * per,
        _ => {}
    }
    e
}

/// A form without its rounding, flush and saturation modifiers (`add.rn.sat.f32` → `add.f32`):
/// they do not change what the instruction becomes.
fn base_key(inst: &Inst) -> String {
    let mut i = inst.clone();
    i.modifiers
        .retain(|m| !matches!(m.as_str(), "rn" | "rz" | "rm" | "rp" | "ftz" | "sat"));
    form_key(&i)
}

/// FLOPs of a launch as Nsight counts them on SASS, with the PTX-level counts beside them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SassFlops {
    pub f32: f64,
    pub f64: f64,
    pub f16: f64,
    /// The PTX-level counts (add/sub/mul 1, fma 2, div/sqrt/rcp/special 1), as before.
    pub ptx_f32: f64,
    pub ptx_f64: f64,
    /// Executions of forms the table lacks, by form (counted by the PTX rule).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub unlisted: BTreeMap<String, f64>,
    /// Thread executions of guarded (`@p`) floating-point instructions, counted as often as
    /// their block runs.
    #[serde(skip_serializing_if = "is_zero")]
    pub guarded: f64,
    /// Thread executions counted on ptxas's own SASS of their line, not the table.
    #[serde(skip_serializing_if = "is_zero")]
    pub in_context: f64,
}

/// An instruction's place in a CFG: (block, index in the block).
type Pos = (usize, usize);

/// Where every register is read and written in a function, by instruction place.
struct DefUse<'a> {
    cfg: &'a Cfg,
    uses: BTreeMap<&'a str, Vec<Pos>>,
    defs: BTreeMap<&'a str, Vec<Pos>>,
}

/// The destination of an instruction that writes a register (operand 0), if any.
fn dest(inst: &Inst) -> Option<&str> {
    if matches!(
        inst.opcode.as_str(),
        "st" | "red"
            | "bar"
            | "barrier"
            | "bra"
            | "ret"
            | "exit"
            | "call"
            | "membar"
            | "fence"
            | "prefetch"
            | "trap"
            | "sust"
            | "sured"
            | "stmatrix"
            | "cp"
    ) {
        return None;
    }
    match inst.operands.first()? {
        Operand::Reg(r) => Some(r.as_str()),
        _ => None,
    }
}

fn regs_of<'a>(o: &'a Operand, out: &mut Vec<&'a str>) {
    match o {
        Operand::Reg(r) => out.push(r),
        Operand::Addr {
            base: kerncast_passes::ptx::AddrBase::Reg(r),
            ..
        } => out.push(r),
        Operand::AddrList(v) | Operand::Vector(v) | Operand::List(v) => {
            for x in v {
                regs_of(x, out);
            }
        }
        Operand::Pair(a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
        Operand::Not(a) => regs_of(a, out),
        _ => {}
    }
}

impl<'a> DefUse<'a> {
    fn of(cfg: &'a Cfg) -> DefUse<'a> {
        let mut uses: BTreeMap<&str, Vec<Pos>> = BTreeMap::new();
        let mut defs: BTreeMap<&str, Vec<Pos>> = BTreeMap::new();
        for (b, block) in cfg.blocks.iter().enumerate() {
            for (k, inst) in block.insts.iter().enumerate() {
                let d = dest(inst);
                if let Some(d) = d {
                    defs.entry(d).or_default().push((b, k));
                }
                let mut rs = Vec::new();
                for o in inst.operands.iter().skip(usize::from(d.is_some())) {
                    regs_of(o, &mut rs);
                }
                for r in rs {
                    uses.entry(r).or_default().push((b, k));
                }
            }
        }
        DefUse { cfg, uses, defs }
    }

    fn at(&self, (b, k): Pos) -> &'a Inst {
        &self.cfg.blocks[b].insts[k]
    }

    /// The instructions that read `reg`.
    fn readers(&self, reg: &str) -> impl Iterator<Item = &'a Inst> + '_ {
        self.insts_at(self.uses.get(reg))
    }

    /// The instructions that write `reg`.
    fn writers(&self, reg: &str) -> impl Iterator<Item = &'a Inst> + '_ {
        self.insts_at(self.defs.get(reg))
    }

    fn insts_at<'s>(&'s self, places: Option<&'s Vec<Pos>>) -> impl Iterator<Item = &'a Inst> + 's {
        places.into_iter().flatten().map(|p| self.at(*p))
    }

    /// Whether ptxas must materialise the value of `reg` (the result of a `neg`/`abs`): some
    /// reader takes no operand modifier (a store, a division or square root that hands it to
    /// the slow path, a move into a register written elsewhere too).
    fn materialised(&self, reg: &str, depth: u32) -> bool {
        self.readers(reg).any(|u| match u.opcode.as_str() {
            "st" | "atom" | "red" | "shfl" | "call" | "ret" | "sust" | "stmatrix" => true,
            "div" | "sqrt" | "rcp" => u.modifiers.iter().any(|m| m == "rn" || m == "full"),
            "mov" => match dest(u) {
                Some(d) if self.defs.get(d).map_or(0, Vec::len) <= 1 && depth < 8 => {
                    self.materialised(d, depth + 1)
                }
                _ => true,
            },
            _ => false,
        })
    }

    /// Whether the value of `reg` (a floating-point result) is only ever chosen by a `selp`
    /// on a range check: libdevice's `logf` computes `x * 2^23` and `x * inf + inf` and selects
    /// them when `x` is below FLT_MIN or not finite. ptxas if-converts such a computation into
    /// an instruction predicated on the check, which is off for ordinary data, so Nsight counts
    /// no FLOP for it (measured: srad-cuda's `compress`, one `logf` a thread, 25 FP32 FLOPs,
    /// not the 28 the instructions give; scel-cuda's loop, 3 fewer per `logf`), as the table
    /// leaves out the probes' predicated range fix-ups.
    fn range_fixup(&self, reg: &str) -> bool {
        if !self.uses.contains_key(reg) {
            return false;
        }
        self.readers(reg).all(|u| {
            let [_, a, b, Operand::Reg(p)] = u.operands.as_slice() else {
                return false;
            };
            // selp d, a, b, p: a where p holds, b where it does not
            let chosen_when = match (mentions(a, reg), mentions(b, reg)) {
                (true, false) => true,
                (false, true) => false,
                _ => return false,
            };
            u.opcode == "selp" && self.out_of_range_when(p) == Some(chosen_when)
        })
    }

    /// For a predicate `p` that every write of makes a `setp` of a value against a float range
    /// limit: the value of `p` that says the value is out of the normal, finite range.
    fn out_of_range_when(&self, p: &str) -> Option<bool> {
        if !self.defs.contains_key(p) {
            return None;
        }
        let mut when = None;
        for d in self.writers(p) {
            if d.opcode != "setp" || d.pred.is_some() || d.operands.len() != 3 {
                return None;
            }
            let (value, limit, flipped) = match (&d.operands[1], &d.operands[2]) {
                (v, l) if range_limit(l).is_some() => (v, range_limit(l)?, false),
                (l, v) if range_limit(l).is_some() => (v, range_limit(l)?, true),
                _ => return None,
            };
            // an integer limit is one only against a float's bits (`mov.b32 %r, %f`), not
            // against a count that happens to be 2^23
            if matches!(d.operands[1..], [Operand::Imm(_), _] | [_, Operand::Imm(_)])
                && !self.holds_float_bits(value)
            {
                return None;
            }
            let cmp = d.modifiers.first()?.trim_end_matches('u');
            // the comparison as `value cmp limit`
            let cmp = match (cmp, flipped) {
                ("lt", true) => "gt",
                ("le", true) => "ge",
                ("gt", true) => "lt",
                ("ge", true) => "le",
                (c, _) => c,
            };
            let outside = match (limit, cmp) {
                (Limit::Low, "lt" | "le") | (Limit::High, "gt" | "ge" | "eq") => true,
                (Limit::Low, "gt" | "ge") | (Limit::High, "lt" | "le" | "ne") => false,
                _ => return None,
            };
            if when.is_some_and(|w| w != outside) {
                return None;
            }
            when = Some(outside);
        }
        when
    }

    /// Whether `o` is a register every write of which moves a float's bits into it.
    fn holds_float_bits(&self, o: &Operand) -> bool {
        let Operand::Reg(r) = o else {
            return false;
        };
        self.defs.contains_key(r.as_str())
            && self.writers(r).all(|d| {
                d.opcode == "mov"
                    && matches!(d.types.first(), Some(PtxType::B32 | PtxType::B64))
                    && matches!(d.operands.get(1), Some(Operand::Reg(_)))
            })
    }
}

/// Which end of the normal, finite range a limit is.
#[derive(Clone, Copy)]
enum Limit {
    /// The smallest normal magnitude (below it: denormals and zero).
    Low,
    /// The largest finite magnitude or infinity (beyond it: infinities and NaNs).
    High,
}

fn mentions(o: &Operand, reg: &str) -> bool {
    let mut rs = Vec::new();
    regs_of(o, &mut rs);
    rs.contains(&reg)
}

/// The bounds of the normal, finite floating-point numbers, as a float or as its bits (or an
/// f64's high word): FLT_MIN, FLT_MAX and infinity, and their f64 counterparts.
fn range_limit(o: &Operand) -> Option<Limit> {
    let of_f32 = |b: u32| match b & 0x7FFF_FFFF {
        0x0080_0000 => Some(Limit::Low),
        0x7F7F_FFFF | 0x7F80_0000 => Some(Limit::High),
        _ => None,
    };
    let of_f64_high = |b: u32| match b {
        0x0010_0000 => Some(Limit::Low),
        0x7FEF_FFFF | 0x7FF0_0000 => Some(Limit::High),
        _ => None,
    };
    match o {
        Operand::ImmF32(b) => of_f32(*b),
        Operand::ImmF64(b) | Operand::ImmFloat(b) => {
            let b = b & 0x7FFF_FFFF_FFFF_FFFF;
            if b == 0x0010_0000_0000_0000 {
                Some(Limit::Low)
            } else if b == 0x7FEF_FFFF_FFFF_FFFF || b == 0x7FF0_0000_0000_0000 {
                Some(Limit::High)
            } else {
                None
            }
        }
        Operand::Imm(i) => u32::try_from(*i).ok().and_then(|b| {
            of_f32(b)
                .filter(|_| b < 0x8000_0000)
                .or_else(|| of_f64_high(b))
        }),
        _ => None,
    }
}

/// What one floating-point instruction of a kernel becomes on SASS, in context.
enum Expanded {
    /// No SASS of its own: a `mul` fused into the adds that read it, a `neg` folded into the
    /// operand that reads it, a range fix-up off for ordinary data.
    Gone,
    /// From the table (or an FFMA/DFMA where a product was fused into it).
    Table(Expansion),
    /// A form the table lacks, counted by the PTX rule.
    Unlisted(Expansion),
}

/// The per-instruction context [`Expanded`] needs: where registers are read and written, and
/// which multiplies fuse into adds.
struct Context<'a> {
    du: DefUse<'a>,
    contracted: contract::Contracted,
}

impl<'a> Context<'a> {
    fn of(cfg: &'a Cfg) -> Context<'a> {
        let du = DefUse::of(cfg);
        let contracted = contract::Contracted::of(&du);
        Context { du, contracted }
    }

    /// Whether the instruction computes a value only selected when a range check finds its
    /// input denormal or not finite: ptxas predicates it on that check, off for ordinary data.
    fn range_fixup(&self, inst: &Inst) -> bool {
        inst.pred.is_none() && dest(inst).is_some_and(|d| self.du.range_fixup(d))
    }

    /// What the instruction at block `b`, index `k` becomes under `table`.
    fn expand(&self, inst: &Inst, b: usize, k: usize, table: &FlopTable) -> Expanded {
        let ptx = ptx_rule(inst);
        if self.range_fixup(inst) || self.contracted.gone_muls.contains(&(b, k)) {
            return Expanded::Gone;
        }
        if self.contracted.fused_adds.contains(&(b, k)) {
            // an FFMA or DFMA
            return Expanded::Table(Expansion {
                f32: 2.0 * ptx.f32,
                f64: 2.0 * ptx.f64,
                sass: if ptx.f64 > 0.0 { "DFMA" } else { "FFMA" }.into(),
                ..Expansion::default()
            });
        }
        let found = if matches!(inst.opcode.as_str(), "neg" | "abs") {
            if !dest(inst).is_some_and(|d| self.du.materialised(d, 0)) {
                return Expanded::Gone;
            }
            table.forms.get(&form_key(inst))
        } else {
            table
                .forms
                .get(&form_key(inst))
                .or_else(|| table.forms.get(&base_key(inst)))
        };
        match found {
            Some(e) => Expanded::Table(e.clone()),
            None => Expanded::Unlisted(ptx),
        }
    }
}

impl Expansion {
    /// The instructions it issues to the FP64 pipe: its DADD, DMUL and DFMA (a `div.rn.f64`
    /// is seven DFMAs and a DMUL). The branch to the slow path, in parentheses, is not run.
    pub fn fp64_insts(&self) -> f64 {
        let run = self.sass.split('(').next().unwrap_or_default();
        run.split_whitespace()
            .filter(|t| {
                let op = t.split('.').next().unwrap_or_default();
                matches!(op, "DADD" | "DMUL" | "DFMA")
            })
            .count() as f64
    }
}

/// The Nsight-style FLOPs of `stats` (counts of the kernel `f`, whose CFG blocks its
/// `block_execs` index): from ptxas's own SASS of each PTX block where `lines` has it
/// ([`in_context`], [`block_in_context`]), else under `table`.
pub fn count(
    f: &Function,
    stats: &BoundStats,
    table: &FlopTable,
    lines: Option<&in_context::SassLines>,
) -> SassFlops {
    let cfg = Cfg::build(f);
    let cx = Context::of(&cfg);
    let owners = lines.map(|_| line_owners(&cfg));
    let mut out = SassFlops::default();
    for (b, block) in cfg.blocks.iter().enumerate() {
        if stats.block_execs.get(&b).is_none_or(|e| e.threads == 0.0) {
            continue;
        }
        let by_table: Vec<Expanded> = block
            .insts
            .iter()
            .enumerate()
            .map(|(k, inst)| {
                if is_float_op(inst) {
                    cx.expand(inst, b, k, table)
                } else {
                    Expanded::Gone
                }
            })
            .collect();
        let in_context = lines
            .zip(owners.as_ref())
            .and_then(|(l, o)| block_in_context(&block.insts, &by_table, &cx, l, o));
        for (k, inst) in block.insts.iter().enumerate() {
            // Nsight counts the threads whose predicate is on
            let execs = stats.inst_execs(b, k).map_or(0.0, |e| e.threads);
            if is_float_op(inst) {
                let ptx = ptx_rule(inst);
                // the PTX level: div, sqrt, rcp and the special functions one operation each
                let ptx_per = if is_expansion(inst) { 1.0 } else { 0.0 };
                match inst.types.first() {
                    Some(PtxType::F32) => out.ptx_f32 += execs * (ptx.f32 + ptx_per),
                    Some(PtxType::F64) => out.ptx_f64 += execs * (ptx.f64 + ptx_per),
                    _ => {}
                }
                if inst.pred.is_some() {
                    out.guarded += execs;
                }
            }
            let e = match (&in_context, &by_table[k]) {
                (Some(per), _) => {
                    let p = per[k];
                    out.in_context += execs;
                    Expansion {
                        f32: p.f32,
                        f64: p.f64,
                        f16: p.f16,
                        sass: String::new(),
                    }
                }
                (None, Expanded::Gone) => continue,
                (None, Expanded::Table(e)) => e.clone(),
                (None, Expanded::Unlisted(e)) => {
                    *out.unlisted.entry(form_key(inst)).or_default() += execs;
                    e.clone()
                }
            };
            out.f32 += execs * e.f32;
            out.f64 += execs * e.f64;
            out.f16 += execs * e.f16;
        }
    }
    out
}

/// The FLOPs per execution of each instruction of a PTX block on ptxas's own SASS, or `None`
/// where the block is the table's. Taken a block at a time because ptxas credits an
/// instruction to the line of a neighbour now and then (ace-cuda: the `DADD` that materialises
/// a stored negation, to the store): within a block the total holds. The table keeps a block where a line holds more than one instruction, where
/// a simple operation's SASS is predicated although its PTX is not (a value only a select
/// keeps: the data decides), where a range fix-up has SASS, and where the block has no
/// floating-point SASS at all while the table counts some (ptxas merged it with the same code
/// of another block, whose lines carry the SASS).
fn block_in_context(
    insts: &[Inst],
    by_table: &[Expanded],
    cx: &Context,
    lines: &in_context::SassLines,
    owners: &BTreeMap<u32, std::collections::BTreeSet<usize>>,
) -> Option<Vec<in_context::Flops>> {
    let mut per = Vec::with_capacity(insts.len());
    let mut any_sass = false;
    for inst in insts {
        let line = inst.span.line;
        if owners.get(&line).is_none_or(|s| s.len() != 1) {
            return None;
        }
        let Some(sass) = lines.lines.get(&line) else {
            per.push(in_context::Flops::default());
            continue;
        };
        if cx.range_fixup(inst) {
            return None;
        }
        let p = sass.per_execution(is_expansion(inst), inst.pred.is_some())?;
        any_sass |= p.f32 + p.f64 + p.f16 > 0.0;
        per.push(p);
    }
    let table_counts = by_table.iter().any(|e| match e {
        Expanded::Gone => false,
        Expanded::Table(e) | Expanded::Unlisted(e) => e.f32 + e.f64 + e.f16 > 0.0,
    });
    if table_counts && !any_sass {
        return None;
    }
    Some(per)
}

/// Whether the instruction is one the SASS expands into a sequence: a division, root or
/// special function (one `MUFU` and its refinement).
fn is_expansion(inst: &Inst) -> bool {
    matches!(
        inst.opcode.as_str(),
        "div" | "rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh"
    )
}

/// The instructions (by where their text starts) on each PTX line of a kernel: a line is
/// counted on its SASS only where it holds one instruction (the inliner's copies of a device
/// function's instruction are the same one).
fn line_owners(cfg: &Cfg) -> BTreeMap<u32, std::collections::BTreeSet<usize>> {
    let mut owners: BTreeMap<u32, std::collections::BTreeSet<usize>> = BTreeMap::new();
    for inst in cfg.blocks.iter().flat_map(|b| &b.insts) {
        owners
            .entry(inst.span.line)
            .or_default()
            .insert(inst.span.start);
    }
    owners
}

/// How a kernel's SASS differs on the FP64 pipe from one instruction per PTX f64 operation,
/// per PTX instruction: counted once per kernel, weighted by each workload's executions
/// ([`Fp64Pipe::extra_warp_insts`]). Why: a `div.rn.f64` is eight instructions on the pipe
/// (seven DFMAs and a DMUL), a `sqrt.rn.f64` eight, a `rcp.rn.f64` five, while a multiply
/// fused into the add that reads it is one DFMA for both, and a negation folded into an
/// operand none; counted one per PTX op, a kernel dividing in double precision came out at
/// half its measured time (burger-cuda 0.42x, ddbp's division 0.38x by the roofline on an
/// RTX 3080). Only arithmetic the expansion table describes is corrected: compares, min/max
/// and conversions stay one instruction each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fp64Pipe {
    /// (block, index in the block) and the SASS's FP64-pipe instructions less one.
    per_inst: Vec<((usize, usize), f64)>,
}

/// The arithmetic opcodes whose f64 forms the table expands into DADD, DMUL and DFMA.
const FP64_ARITHMETIC: &[&str] = &[
    "add", "sub", "mul", "fma", "mad", "div", "rcp", "sqrt", "rsqrt", "neg", "abs",
];

impl Fp64Pipe {
    /// The correction for the f64 arithmetic of the kernel whose CFG is `cfg` under `table`; a
    /// form the table lacks stays one instruction.
    pub fn of(cfg: &Cfg, table: &FlopTable) -> Fp64Pipe {
        let cx = Context::of(cfg);
        let mut per_inst = Vec::new();
        for (b, block) in cfg.blocks.iter().enumerate() {
            for (k, inst) in block.insts.iter().enumerate() {
                let f64_arithmetic = FP64_ARITHMETIC.contains(&inst.opcode.as_str())
                    && inst.types.first() == Some(&PtxType::F64);
                if !f64_arithmetic {
                    continue;
                }
                let sass = match cx.expand(inst, b, k, table) {
                    Expanded::Gone => 0.0,
                    Expanded::Table(e) => e.fp64_insts(),
                    Expanded::Unlisted(_) => 1.0,
                };
                if sass != 1.0 {
                    per_inst.push(((b, k), sass - 1.0));
                }
            }
        }
        Fp64Pipe { per_inst }
    }

    /// The warp instructions the SASS adds to the FP64 pipe (negative where it fuses or folds
    /// more than it expands) over one per PTX f64 operation, for the executions `stats` counts.
    pub fn extra_warp_insts(&self, stats: &BoundStats) -> f64 {
        self.per_inst
            .iter()
            .map(|((b, k), n)| n * stats.inst_execs(*b, *k).map_or(0.0, |e| e.warps))
            .sum()
    }
}

mod contract;
pub mod in_context;
pub mod probe;

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::ptx::Module;
    use kerncast_passes::stats::BlockExecs;

    fn table() -> FlopTable {
        FlopTable::parse(SM_86).expect("the shipped table parses")
    }

    /// The SASS FLOPs of the first kernel of `ptx`, a single block run by `threads` threads.
    fn count_one_block(ptx: &str, threads: f64, warps: f64) -> SassFlops {
        let m = Module::parse(ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let mut s = BoundStats::default();
        s.block_execs.insert(0, BlockExecs { threads, warps });
        count(f, &s, &table(), None)
    }

    #[test]
    fn the_shipped_table_has_the_expansions_nsight_counts() {
        let t = table();
        assert_eq!(t.arch, "sm_86");
        let f = |k: &str| t.forms.get(k).cloned().unwrap_or_default();
        // MUFU.RCP and five FFMAs
        assert_eq!(f("div.rn.f32").f32, 10.0);
        // MUFU.RSQ, two FMULs, two FFMAs
        assert_eq!(f("sqrt.rn.f32").f32, 6.0);
        assert_eq!(f("fma.rn.f32").f32, 2.0);
        assert_eq!(f("add.f32").f32, 1.0);
        // MUFU alone
        assert_eq!(f("ex2.approx.ftz.f32").f32, 0.0);
        // seven DFMAs and a DMUL, and an FP32 FFMA on the exponent
        assert_eq!(f("div.rn.f64").f64, 15.0);
        assert_eq!(f("div.rn.f64").f32, 2.0);
    }

    /// A one-parameter sm_86 kernel: `%f1` and `%f2` loaded from its buffer, then `body`, whose
    /// first line is the PTX's line 11.
    fn kernel(body: &str) -> String {
        format!(
            ".version 8.5\n.target sm_86\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0)\n{{\n\
             .reg .f32 %f<9>;\n.reg .b64 %rd<3>;\n\
             ld.param.u64 %rd1, [k_param_0];\n\
             ld.global.f32 %f1, [%rd1];\n\
             ld.global.f32 %f2, [%rd1+4];\n\
             {body}ret;\n}}\n"
        )
    }

    /// A small kernel: one block of a division, an fma, a negation folded into an add, an
    /// absolute value stored, and a move; counted as the SASS runs them.
    #[test]
    fn a_small_kernel_counts_as_its_sass() {
        let ptx = kernel(
            "div.rn.f32 %f3, %f1, %f2;\n\
            fma.rn.f32 %f4, %f3, %f2, %f1;\n\
            neg.f32 %f5, %f4;\n\
            add.rn.f32 %f6, %f5, %f1;\n\
            abs.f32 %f7, %f6;\n\
            mov.f32 %f8, %f7;\n\
            st.global.f32 [%rd1], %f8;\n\
            max.f32 %f8, %f1, %f2;\n",
        );
        let c = count_one_block(&ptx, 100.0, 4.0);
        // div 10 + fma 2 + add 1 + abs (stored through a move) 1; neg folded; max none
        assert_eq!(c.f32, 100.0 * 14.0, "{c:?}");
        // the PTX level: div 1 + fma 2 + add 1
        assert_eq!(c.ptx_f32, 100.0 * 4.0);
        assert!(c.unlisted.is_empty(), "{c:?}");
    }

    /// `nvdisasm -gp` lines for `(PTX line, SASS instruction)` pairs.
    fn listing(sass: &[(u32, &str)]) -> in_context::SassLines {
        let text: String = sass
            .iter()
            .map(|(line, inst)| {
                format!("\t//## File \".nv_debug_ptx_txt\", line {line}\n  /*0040*/  {inst} ;\n")
            })
            .collect();
        in_context::parse(&text, "sm_86")
    }

    /// Where ptxas's own SASS of a block is known, the block counts it: here a product kept for
    /// a store beside an FFMA that fuses it into its add (three FLOPs where the table sees two),
    /// and a stored negation whose `FADD` ptxas credits to the store. A block with a line of two
    /// instructions, which the SASS cannot tell apart, is the table's, as is one with a simple
    /// operation ptxas predicated and one with no floating-point SASS at all.
    #[test]
    fn a_block_counts_its_own_sass_where_ptxas_made_it() {
        let ptx = kernel(
            "mul.f32 %f3, %f1, %f2;\n\
            add.f32 %f4, %f3, %f1;\n\
            neg.f32 %f8, %f4;\n\
            st.global.f32 [%rd1], %f3;\n\
            st.global.f32 [%rd1+4], %f8;\n\
            bra.uni $L1;\n\
            $L1:\n\
            add.f32 %f5, %f1, %f2; mul.f32 %f6, %f5, %f5;\n\
            sub.f32 %f7, %f6, %f6;\n\
            st.global.f32 [%rd1+8], %f7;\n",
        );
        let m = Module::parse(&ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let mut s = BoundStats::default();
        for b in 0..2 {
            s.block_execs.insert(
                b,
                BlockExecs {
                    threads: 10.0,
                    warps: 1.0,
                },
            );
        }
        let first = [
            (11, "FMUL R0, R2, R3"),
            (12, "FFMA R4, R2, R3, R2"),
            (15, "FADD R5, -R4, -RZ"),
        ];
        let second = [(19, "FADD R6, R5, -R5")];
        let count_with = |sass: &[(u32, &str)]| count(f, &s, &table(), Some(&listing(sass)));
        let by_table = count(f, &s, &table(), None);
        // the first block: mul 1, add 1, the stored negation 1; the second: add, mul, sub
        assert_eq!(by_table.f32, 10.0 * 6.0, "{by_table:?}");
        assert_eq!(by_table.in_context, 0.0);
        let c = count_with(&[&first[..], &second[..]].concat());
        // FMUL 1 + FFMA 2 + the negation's FADD 1; the second block by the table
        assert_eq!(c.f32, 10.0 * 7.0, "{c:?}");
        assert_eq!(
            c.in_context,
            10.0 * 9.0,
            "the first block's nine instructions: {c:?}"
        );
        // the PTX level has no FLOP in a negation
        assert_eq!(c.ptx_f32, 10.0 * 5.0);
        // the multiply predicated: the data decides; no SASS: merged elsewhere
        let predicated = [(11, "@P0 FMUL R0, R2, R3"), first[1], first[2]];
        assert_eq!(count_with(&predicated).f32, 10.0 * 6.0);
        assert_eq!(count_with(&second).f32, 10.0 * 6.0);
    }

    /// The FP64 pipe runs a double division as its SASS does (seven DFMAs and a DMUL) and a
    /// multiply fused into its add as one DFMA with it: the correction over one instruction
    /// per PTX f64 op. An fma and the f32 instructions need none.
    #[test]
    fn a_double_division_is_eight_instructions_on_the_fp64_pipe() {
        let ptx = ".version 8.5\n.target sm_86\n.address_size 64\n\
            .visible .entry k(.param .u64 k_param_0)\n{\n\
            .reg .f64 %fd<8>;\n.reg .f32 %f<3>;\n.reg .b64 %rd<3>;\n\
            ld.param.u64 %rd1, [k_param_0];\n\
            ld.global.f64 %fd1, [%rd1];\n\
            ld.global.f64 %fd2, [%rd1+8];\n\
            div.rn.f64 %fd3, %fd1, %fd2;\n\
            fma.rn.f64 %fd4, %fd3, %fd2, %fd1;\n\
            mul.f64 %fd5, %fd4, %fd2;\n\
            add.f64 %fd6, %fd5, %fd1;\n\
            st.global.f64 [%rd1], %fd6;\n\
            ld.global.f32 %f1, [%rd1+16];\n\
            add.f32 %f2, %f1, %f1;\n\
            st.global.f32 [%rd1+16], %f2;\n\
            ret;\n}\n";
        let m = Module::parse(ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let pipe = Fp64Pipe::of(&Cfg::build(f), &table());
        let mut s = BoundStats::default();
        s.block_execs.insert(
            0,
            BlockExecs {
                threads: 100.0,
                warps: 4.0,
            },
        );
        // per warp, the division's 8 for its 1 and the multiply fused into the add 1 for 2; the
        // fma and the f32 add as they were
        assert_eq!(pipe.extra_warp_insts(&s), 4.0 * (7.0 - 1.0));
        let e = |k: &str| {
            table()
                .forms
                .get(k)
                .cloned()
                .unwrap_or_default()
                .fp64_insts()
        };
        assert_eq!(
            (e("sqrt.rn.f64"), e("rcp.rn.f64"), e("div.rn.f32")),
            (8.0, 5.0, 0.0)
        );
    }

    /// CUB's warp sum: five `shfl.sync.down` each followed by an add guarded by the shuffle's
    /// in-range predicate. Nsight counts the lanes whose predicate is on, 31 + 30 + 28 + 24 + 16
    /// = 129 of a warp's 160, and so must the FLOPs, whether the counter or the emulator
    /// counted the kernel.
    #[test]
    fn a_guarded_add_counts_the_lanes_whose_predicate_is_on() {
        use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
        use kerncast_passes::emu::{self, KernelArg};
        use kerncast_passes::stats::Launch;
        let mut body = String::new();
        for (i, off) in [1, 2, 4, 8, 16].iter().enumerate() {
            body += &format!(
                "{{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, %f{i}, {off}, 31, -1; \
                 @p add.f32 r0, r0, %f{i}; mov.f32 %f{}, r0; }}\n",
                i + 1
            );
        }
        let ptx = format!(
            ".version 8.5\n.target sm_86\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0)\n{{\n\
             .reg .f32 %f<8>;\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\n\
             mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd2, %rd2, %rd3;\n\
             ld.global.f32 %f0, [%rd2];\n{body}st.global.f32 [%rd2], %f5;\nret;\n}}\n"
        );
        let m = Module::parse(&ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let block = [64, 1, 1];
        let ks = analyze_kernel_with(
            &m,
            "k",
            &Options {
                block: Some(block),
                ..Default::default()
            },
        )
        .expect("counts");
        let symbolic = ks
            .bind(&Workload {
                grid: [2, 1, 1],
                block,
                params: Default::default(),
                hints: Default::default(),
                reuse: false,
            })
            .expect("binds");
        let launch = Launch {
            grid: [2, 1, 1],
            block,
        };
        let emulated = emu::run(&m, "k", &launch, &[KernelArg::f32s(&[1.0; 128])])
            .expect("runs")
            .stats;
        // four warps
        for stats in [symbolic, emulated] {
            let c = count(f, &stats, &table(), None);
            assert_eq!(c.f32, 4.0 * 129.0, "{:?}", stats.guarded_execs);
            assert_eq!(c.ptx_f32, 4.0 * 129.0);
        }
    }

    /// `logf`'s range fix-ups as clang emits them from libdevice: a product selected for
    /// denormal inputs and an `x * inf + inf` selected for non-finite bits run predicated on
    /// the check in SASS and count nothing for ordinary data; a product selected where the
    /// check says the value is in range runs for ordinary data and counts.
    #[test]
    fn a_value_selected_only_out_of_range_counts_no_flops() {
        let ptx = ".version 8.5\n.target sm_86\n.address_size 64\n\
            .visible .entry k(.param .u64 k_param_0)\n{\n\
            .reg .pred %p<4>;\n.reg .f32 %f<12>;\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
            ld.param.u64 %rd1, [k_param_0];\n\
            ld.global.f32 %f1, [%rd1];\n\
            setp.lt.f32 %p1, %f1, 0f00800000;\n\
            mul.f32 %f2, %f1, 0f4B000000;\n\
            selp.f32 %f3, %f2, %f1, %p1;\n\
            mov.b32 %r1, %f3;\n\
            setp.gt.u32 %p2, %r1, 2139095039;\n\
            fma.rn.f32 %f4, %f3, 0f7F800000, 0f7F800000;\n\
            add.f32 %f5, %f3, 0fBF800000;\n\
            selp.f32 %f6, %f4, %f5, %p2;\n\
            mul.f32 %f7, %f6, %f6;\n\
            selp.f32 %f8, %f6, %f7, %p1;\n\
            ld.global.u32 %r2, [%rd1+8];\n\
            setp.lt.s32 %p3, %r2, 8388608;\n\
            mul.f32 %f9, %f1, %f1;\n\
            selp.f32 %f10, %f9, %f8, %p3;\n\
            st.global.f32 [%rd1], %f10;\n\
            ret;\n}\n";
        let c = count_one_block(ptx, 10.0, 1.0);
        // the add, the product chosen where %p1 is off (ordinary data), and the one chosen by
        // a count below 2^23, which is no float's bits; not the first product nor the fma
        assert_eq!(c.f32, 10.0 * 3.0, "{c:?}");
        // the PTX level counts every instruction
        assert_eq!(c.ptx_f32, 10.0 * 6.0);
    }

    #[test]
    fn modifiers_in_any_order_make_one_key() {
        let m = Module::parse(
            ".version 8.5\n.target sm_86\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<3>;\nex2.approx.ftz.f32 %f1, %f2;\nret;\n}\n",
        )
        .expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let i = f.instructions().next().expect("an instruction");
        assert_eq!(form_key(i), "ex2.approx.ftz.f32");
    }

    /// The lookup: a form the table lists is taken as listed; one it lists only without a
    /// rounding modifier is taken from that base form; one it lacks entirely is counted by
    /// the PTX rule and named in `unlisted`; another architecture gets sm_86's table and says so.
    #[test]
    fn a_form_is_looked_up_by_its_key_then_its_base_form_then_the_ptx_rule() {
        let mut t = FlopTable {
            arch: "sm_86".into(),
            source: "test".into(),
            forms: BTreeMap::new(),
        };
        t.forms.insert(
            "mul.f32".into(),
            Expansion {
                f32: 5.0,
                ..Expansion::default()
            },
        );
        let ptx = ".version 8.5\n.target sm_86\n.address_size 64\n\
            .visible .entry k(.param .u64 k_param_0)\n{\n\
            .reg .f32 %f<5>;\n.reg .b64 %rd<3>;\n\
            ld.param.u64 %rd1, [k_param_0];\n\
            ld.global.f32 %f1, [%rd1];\n\
            mul.rz.f32 %f2, %f1, %f1;\n\
            fma.rn.f32 %f3, %f2, %f1, %f1;\n\
            add.f32 %f4, %f3, %f1;\n\
            st.global.f32 [%rd1], %f4;\n\
            ret;\n}\n";
        let m = Module::parse(ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let mut s = BoundStats::default();
        s.block_execs.insert(
            0,
            BlockExecs {
                threads: 10.0,
                warps: 1.0,
            },
        );
        let c = count(f, &s, &t, None);
        // mul.rz through its base form (5), fma and add by the PTX rule (2 + 1)
        assert_eq!(c.f32, 10.0 * 8.0, "{c:?}");
        assert_eq!(
            c.unlisted.keys().cloned().collect::<Vec<_>>(),
            vec!["add.f32".to_string(), "fma.rn.f32".to_string()]
        );
        assert_eq!(c.unlisted["fma.rn.f32"], 10.0);
        let (own, note) = FlopTable::for_arch("sm_86").unwrap();
        assert_eq!((own.arch.as_str(), note), ("sm_86", None));
        let (hopper, note) = FlopTable::for_arch("sm_90").unwrap();
        assert_eq!((hopper.arch.as_str(), note), ("sm_90", None));
        let (other, note) = FlopTable::for_arch("sm_89").unwrap();
        assert_eq!(other.arch, "sm_86");
        assert!(note.is_some_and(|n| n.contains("sm_89")));
        let (newer, _) = FlopTable::for_arch("sm_120").unwrap();
        assert_eq!(newer.arch, "sm_90");
        let (older, _) = FlopTable::for_arch("sm_70").unwrap();
        assert_eq!(older.arch, "sm_86");
    }
}
