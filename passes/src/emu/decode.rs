//! Decoding a kernel once into a compact program: opcode families as an enum, registers as indices
//! into a per-lane file, labels and symbols resolved to numbers, feature keys precomputed. Why:
//! the interpreter then does no string work per executed instruction, and every instruction the
//! emulator cannot run is rejected here, before anything runs, with its opcode and line.

use super::alu::{Rnd, Ty};
use super::EmuError;
use crate::classify;
use crate::ptx::{AddrBase, Dim, Function, Inst, Operand, PtxType, SReg, Statement};
use crate::stats::{DType, Dir, OpKind, Space};
use std::collections::HashMap;

/// Opcode families the interpreter implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// An instruction the emulator cannot run: an error if it executes ([`DInst::refused`]).
    Unsupported,
    Add,
    Sub,
    Mul,
    Mad,
    Fma,
    Mul24,
    Mad24,
    /// `dp4a`/`dp2a`: integer dot products of packed bytes (and halves) plus an addend.
    Dp4a,
    Dp2a,
    /// `sad`: `c + |a − b|`.
    Sad,
    /// `createpolicy`: an opaque cache-eviction policy, only ever passed to loads and stores as a
    /// hint; its value is taken as 0.
    Policy,
    Div,
    Rem,
    Min,
    Max,
    Abs,
    Neg,
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Shl,
    Shr,
    Shf,
    Bfe,
    Bfi,
    Popc,
    Clz,
    Bfind,
    Brev,
    Prmt,
    Lop3,
    Copysign,
    Selp,
    Setp,
    Set,
    Cvt,
    Cvta,
    Mov,
    Rcp,
    Sqrt,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
    Testp,
    Ld,
    St,
    Atom,
    Red,
    /// Non-bulk `cp.async`: copied at once (see `exec`); src = [dst, src, cp-size, src-size or
    /// ignore-src (then `ty2` is `Pred`)].
    CpAsync,
    Bra,
    Exit,
    Bar,
    BarArrive,
    Nop,
    Shfl,
    Vote,
    Activemask,
    Redux,
    Match,
}

/// A source operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Src {
    Reg(u32),
    /// A negated predicate register (`!%p`).
    NotReg(u32),
    Imm(u64),
    Sreg(Sr),
    /// An address `[base + off]`; the base register, or a symbol's (space, address).
    Addr {
        base: Option<u32>,
        sym: Option<(Space, u64)>,
        off: i64,
    },
    /// A symbol used as a value: its address in its own space.
    Sym(Space, u64),
    Vec(Vec<Src>),
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Dst {
    Reg(u32),
    Sink,
    Vec(Vec<Dst>),
}

/// Special registers, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sr {
    Tid(usize),
    Ntid(usize),
    Ctaid(usize),
    Nctaid(usize),
    Laneid,
    Warpid,
    Nwarpid,
    Zero,
    Clock,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
}

/// Comparison of setp/set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct DInst {
    pub op: Op,
    /// Operand type (destination type for cvt).
    pub ty: Ty,
    /// Second type: cvt source, set destination; `Pred` for a `cp.async` whose fourth operand is
    /// the ignore-src predicate (else it is the src-size).
    pub ty2: Ty,
    /// [`FLAG_NAMES`] among the modifiers.
    pub flags: u32,
    pub rnd: Rnd,
    /// Integer rounding of float→integral conversions (`.rni` …).
    pub irnd: Option<Rnd>,
    pub cmp: Cmp,
    pub space: Space,
    pub dst: Vec<Dst>,
    pub src: Vec<Src>,
    pub guard: Option<(u32, bool)>,
    pub target: u32,
    /// Line of the instruction in the PTX text.
    pub line: u32,
    pub text: String,
    pub op_feat: Option<(OpKind, DType)>,
    pub mem: Option<(Space, Dir, u16, bool)>,
    pub cta_barrier: bool,
    pub always: bool,
    /// Why the emulator cannot run it (`Op::Unsupported`).
    pub refused: Option<String>,
}

/// The name of the hidden register that holds the carry flag (no PTX register can be named so).
const CARRY_FLAG: &str = "%%cc.cf";

/// Modifiers the interpreter tests per executed instruction, as bits of [`DInst::flags`] (bit
/// `i` is `FLAG_NAMES[i]`), so no string is compared while running.
pub const FLAG_NAMES: [&str; 30] = [
    "add",
    "all",
    "and",
    "any",
    "ballot",
    "bfly",
    // not a modifier: set for `addc`, `subc`, `madc` (the carry flag is a source)
    "carry",
    "cas",
    "cc",
    "dec",
    "down",
    "exch",
    "finite",
    "hi",
    "inc",
    "infinite",
    "l",
    "max",
    "min",
    "normal",
    "notanumber",
    "number",
    "or",
    "sat",
    "shiftamt",
    "to",
    "up",
    "wide",
    "wrap",
    "xor",
];

pub fn flags_of(mods: &[String]) -> u32 {
    FLAG_NAMES
        .iter()
        .enumerate()
        .filter(|(_, n)| mods.iter().any(|m| m == *n))
        .fold(0, |f, (i, _)| f | 1 << i)
}

const F_CARRY: u32 = flag("carry");

/// The bit of one flag name, for `const` items only: there an unknown name stops the build
/// (the panic is a compile-time error), so it never panics while kerncast runs.
#[allow(clippy::panic)]
pub const fn flag(name: &str) -> u32 {
    let mut i = 0;
    while i < FLAG_NAMES.len() {
        if const_eq(FLAG_NAMES[i], name) {
            return 1 << i;
        }
        i += 1;
    }
    panic!("unknown flag name")
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl DInst {
    /// Whether the instruction carries a modifier; `bit` from [`flag`] in a `const`.
    #[inline]
    pub fn has(&self, bit: u32) -> bool {
        self.flags & bit != 0
    }
}

/// A decoded kernel.
#[derive(Debug)]
pub struct Program {
    pub insts: Vec<DInst>,
    pub nregs: u32,
    /// Parameter name → (offset, size) in the param buffer, in declaration order.
    pub params: Vec<(String, u64, u64)>,
    pub param_bytes: u64,
    pub shared_bytes: u64,
    pub local_bytes: u64,
}

/// Module-level symbols (global/const variables) already laid out by the caller.
pub type Symbols = HashMap<String, (Space, u64)>;

fn ptx_ty(t: PtxType, line: u32, text: &str) -> Result<Ty, EmuError> {
    Ty::parse(t.as_str()).ok_or_else(|| EmuError::Unsupported {
        line,
        inst: text.to_string(),
        why: format!("type .{}", t.as_str()),
    })
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Decode a kernel. `globals` holds the module-level variables' addresses, `shared_base` the
/// bytes of module-level shared variables, `extern_shared` the module's unsized (dynamic) shared
/// arrays, which are placed after all static shared memory.
pub fn decode(
    f: &Function,
    globals: &Symbols,
    shared_base: u64,
    extern_shared: &[String],
) -> Result<Program, EmuError> {
    let mut syms: Symbols = globals.clone();
    // Parameters.
    let mut params = Vec::new();
    let mut off = 0u64;
    for p in &f.params {
        let size = p.size_bytes().unwrap_or(8).max(1);
        let elem = (p.ty.bits() as u64).div_ceil(8).max(1);
        off = align_up(off, p.align.map_or(elem, |a| a as u64));
        params.push((p.name.clone(), off, size));
        syms.insert(p.name.clone(), (Space::Param, off));
        off += size;
    }
    let param_bytes = off;
    // Body variables: shared and local.
    let (mut shared, mut local) = (shared_base, 0u64);
    let mut dynamic: Vec<String> = extern_shared.to_vec();
    for d in f.var_decls() {
        if d.space == crate::ptx::StateSpace::Shared && d.size_bytes().is_none_or(|s| s == 0) {
            dynamic.push(d.name.clone());
            continue;
        }
        let size = d.size_bytes().unwrap_or(0);
        let a = d
            .align
            .map_or((d.ty.bits() as u64).div_ceil(8), |a| a as u64);
        let (cur, space) = match d.space {
            crate::ptx::StateSpace::Shared => (&mut shared, Space::Shared),
            crate::ptx::StateSpace::Local => (&mut local, Space::Local),
            _ => continue,
        };
        *cur = align_up(*cur, a);
        syms.insert(d.name.clone(), (space, *cur));
        *cur += size;
    }
    shared = align_up(shared, 16);
    for name in dynamic {
        syms.insert(name, (Space::Shared, shared));
    }
    // Labels → instruction index.
    let stmts = f.statements();
    let mut labels = HashMap::new();
    let mut n = 0u32;
    for s in &stmts {
        match s {
            Statement::Label(l) => {
                labels.insert(l.name.clone(), n);
            }
            Statement::Inst(_) => n += 1,
            _ => {}
        }
    }
    let preds = f
        .reg_decls()
        .into_iter()
        .filter(|r| r.ty == PtxType::Pred)
        .map(|r| (r.prefix, r.count))
        .collect();
    let mut d = Decoder {
        regs: HashMap::new(),
        syms,
        labels,
        preds,
    };
    let left_calls = calls_left_by_argument(f);
    let mut insts = Vec::new();
    for s in &stmts {
        if let Statement::Inst(i) = s {
            let decoded = match left_calls.get(&insts.len()) {
                Some(why) => Err(EmuError::Unsupported {
                    line: i.span.line,
                    inst: i.full_opcode(),
                    why: why.clone(),
                }),
                None => d.inst(i),
            };
            insts.push(match decoded {
                Ok(di) => di,
                Err(EmuError::Unsupported { why, .. }) => d.refused(i, why),
                Err(e) => return Err(e),
            });
        }
    }
    Ok(Program {
        insts,
        nregs: d.regs.len() as u32,
        params,
        param_bytes,
        shared_bytes: shared,
        local_bytes: local,
    })
}

/// Why a call the inliner left cannot run: the emulator has no call stack.
fn left_call(callee: &str) -> String {
    format!(
        "a call to `{callee}` that was not inlined (recursive, indirect, without a body in \
         the module, or over the inlining limit): the emulator runs inlined code only"
    )
}

/// The instructions (by index) that store the arguments of a call the inliner left into its
/// call sequence's `.param` slots, with why they cannot run: the first of them runs before
/// the call, and should name it rather than a slot the emulator has no storage for.
fn calls_left_by_argument(f: &Function) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    let mut pending = Vec::new();
    let mut at = 0usize;
    for s in f.statements() {
        let Statement::Inst(i) = s else { continue };
        if i.opcode == "st" && i.state_space() == Some(crate::ptx::StateSpace::Param) {
            pending.push(at);
        } else if i.opcode == "call" {
            let why = left_call(&crate::inline::callee_name(i));
            out.extend(pending.drain(..).map(|k| (k, why.clone())));
        }
        at += 1;
    }
    out
}

struct Decoder {
    regs: HashMap<String, u32>,
    syms: Symbols,
    labels: HashMap<String, u32>,
    /// The `.reg .pred` declarations: (name or prefix, count of `%p<n>`).
    preds: Vec<(String, Option<u32>)>,
}

impl Decoder {
    /// Whether a register is declared `.pred`.
    fn is_pred(&self, name: &str) -> bool {
        self.preds.iter().any(|(prefix, count)| match count {
            None => name == prefix,
            Some(n) => name
                .strip_prefix(prefix.as_str())
                .and_then(|k| k.parse::<u32>().ok())
                .is_some_and(|k| k < *n),
        })
    }

    fn reg(&mut self, name: &str) -> u32 {
        let n = self.regs.len() as u32;
        *self.regs.entry(name.to_string()).or_insert(n)
    }

    fn inst(&mut self, i: &Inst) -> Result<DInst, EmuError> {
        let line = i.span.line;
        let text = i.full_opcode();
        let unsupported = |why: &str| EmuError::Unsupported {
            line,
            inst: text.clone(),
            why: why.to_string(),
        };
        let has = |m: &str| i.modifiers.iter().any(|x| x == m);
        let op = match i.opcode.as_str() {
            "add" | "addc" => Op::Add,
            "sub" | "subc" => Op::Sub,
            "mul" => Op::Mul,
            "mad" | "madc" => Op::Mad,
            "fma" => Op::Fma,
            "mul24" => Op::Mul24,
            "mad24" => Op::Mad24,
            "dp4a" => Op::Dp4a,
            "dp2a" => Op::Dp2a,
            "sad" => Op::Sad,
            "createpolicy" => Op::Policy,
            "div" => Op::Div,
            "rem" => Op::Rem,
            "min" => Op::Min,
            "max" => Op::Max,
            "abs" => Op::Abs,
            "neg" => Op::Neg,
            "and" => Op::And,
            "or" => Op::Or,
            "xor" => Op::Xor,
            "not" => Op::Not,
            "cnot" => Op::Cnot,
            "shl" => Op::Shl,
            "shr" => Op::Shr,
            "shf" => Op::Shf,
            "bfe" => Op::Bfe,
            "bfi" => Op::Bfi,
            "popc" => Op::Popc,
            "clz" => Op::Clz,
            "bfind" => Op::Bfind,
            "brev" => Op::Brev,
            "prmt" => Op::Prmt,
            "lop3" => Op::Lop3,
            "copysign" => Op::Copysign,
            "selp" => Op::Selp,
            "setp" => Op::Setp,
            "set" => Op::Set,
            "cvt" => Op::Cvt,
            "cvta" => Op::Cvta,
            "mov" => Op::Mov,
            "rcp" => Op::Rcp,
            "sqrt" => Op::Sqrt,
            "rsqrt" => Op::Rsqrt,
            "ex2" => Op::Ex2,
            "lg2" => Op::Lg2,
            "sin" => Op::Sin,
            "cos" => Op::Cos,
            "tanh" => Op::Tanh,
            "testp" => Op::Testp,
            "ld" | "ldu" => Op::Ld,
            "st" => Op::St,
            "atom" => Op::Atom,
            "red" => Op::Red,
            // the copy runs at once, so waiting for it is nothing; the group operations still
            // count as their Barrier op
            "cp" if !has("bulk")
                && (has("commit_group") || has("wait_group") || has("wait_all")) =>
            {
                Op::Nop
            }
            "cp" if classify::mem_access(i).is_some() => Op::CpAsync,
            "cp" => {
                return Err(unsupported(
                    "bulk and tensor copies and mbarrier-tracked cp.async",
                ))
            }
            "bra" => Op::Bra,
            "ret" | "exit" => Op::Exit,
            // the inliner leaves only the calls it cannot inline (recursion, an indirect
            // call, a callee without a body, the size limit): there is no callee to run
            "call" => return Err(unsupported(&left_call(&crate::inline::callee_name(i)))),
            "bar" | "barrier" if has("warp") => Op::Nop,
            "bar" | "barrier" if has("sync") || has("red") => {
                if has("red") {
                    return Err(unsupported("barrier reductions (bar.red)"));
                }
                Op::Bar
            }
            "bar" | "barrier" if has("arrive") => Op::BarArrive,
            "membar" | "fence" => Op::Nop,
            // hints that change no value: waiting, cache and launch control, register budgets
            "nanosleep" | "pmevent" | "griddepcontrol" | "setmaxnreg" | "prefetch"
            | "prefetchu" | "applypriority" | "discard" => Op::Nop,
            "shfl" => Op::Shfl,
            "vote" => Op::Vote,
            "activemask" => Op::Activemask,
            "redux" => Op::Redux,
            "match" => Op::Match,
            _ => return Err(unsupported("opcode not implemented by the emulator")),
        };
        let ty = match i.types.first() {
            Some(t) => ptx_ty(*t, line, &text)?,
            None => Ty::B32,
        };
        let ty2 = match i.types.get(1) {
            Some(t) => ptx_ty(*t, line, &text)?,
            None => ty,
        };
        let mut rnd = Rnd::Rn;
        let mut irnd = None;
        let mut cmp = Cmp::Eq;
        for m in &i.modifiers {
            match m.as_str() {
                "rn" => rnd = Rnd::Rn,
                "rz" => rnd = Rnd::Rz,
                "rm" => rnd = Rnd::Rm,
                "rp" => rnd = Rnd::Rp,
                "rni" => irnd = Some(Rnd::Rn),
                "rzi" => irnd = Some(Rnd::Rz),
                "rmi" => irnd = Some(Rnd::Rm),
                "rpi" => irnd = Some(Rnd::Rp),
                "eq" => cmp = Cmp::Eq,
                "ne" => cmp = Cmp::Ne,
                "lt" | "lo" => cmp = Cmp::Lt,
                "le" | "ls" => cmp = Cmp::Le,
                "gt" | "hi" => cmp = Cmp::Gt,
                "ge" | "hs" => cmp = Cmp::Ge,
                "equ" => cmp = Cmp::Equ,
                "neu" => cmp = Cmp::Neu,
                "ltu" => cmp = Cmp::Ltu,
                "leu" => cmp = Cmp::Leu,
                "gtu" => cmp = Cmp::Gtu,
                "geu" => cmp = Cmp::Geu,
                "num" => cmp = Cmp::Num,
                "nan" => cmp = Cmp::Nan,
                _ => {}
            }
        }
        let space = i
            .state_space()
            .and_then(|s| s.to_stats())
            .unwrap_or(Space::Generic);
        // Operands: which are destinations depends on the opcode.
        let ndst = match op {
            Op::St
            | Op::Red
            | Op::Bra
            | Op::Exit
            | Op::Bar
            | Op::BarArrive
            | Op::Nop
            | Op::CpAsync => 0,
            _ => 1,
        };
        let mut dst = Vec::new();
        let mut src = Vec::new();
        // Types of the source operands, for immediates.
        for (k, o) in i.operands.iter().enumerate() {
            if op == Op::Bra {
                break;
            }
            if k < ndst {
                dst.push(self.dst(o, line, &text)?);
            } else {
                let sty = src_ty(op, ty, ty2, k - ndst);
                src.push(self.src(o, sty, line, &text)?);
            }
        }
        // The carry flag CC.CF is a hidden register per lane: a source of `addc`/`subc`/`madc`
        // (their last), and a second destination of the `.cc` forms.
        let carry_in = matches!(i.opcode.as_str(), "addc" | "subc" | "madc");
        if carry_in {
            src.push(Src::Reg(self.reg(CARRY_FLAG)));
        }
        if has("cc") {
            if let Some(d) = dst.pop() {
                dst.push(Dst::Vec(vec![d, Dst::Reg(self.reg(CARRY_FLAG))]));
            }
        }
        let target = if op == Op::Bra {
            match i.operands.last() {
                Some(Operand::Label(l)) | Some(Operand::Symbol(l)) => *self
                    .labels
                    .get(l)
                    .ok_or_else(|| unsupported("unknown label"))?,
                _ => return Err(unsupported("indirect branch")),
            }
        } else {
            0
        };
        let mut ty2 = ty2;
        if op == Op::CpAsync {
            // `[dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`
            if has("L2::cache_hint") {
                src.truncate(src.len().saturating_sub(1));
            }
            if src.len() > 4 {
                return Err(unsupported("cp.async operands beyond src-size"));
            }
            let fourth = i.operands.get(3).filter(|_| src.len() == 4);
            ty2 = match fourth {
                Some(Operand::Not(_)) => Ty::Pred,
                Some(Operand::Reg(r)) if self.is_pred(r) => Ty::Pred,
                _ => Ty::U32,
            };
        }
        let guard = i.pred.as_ref().map(|g| (self.reg(&g.reg), g.negated));
        Ok(DInst {
            op,
            ty,
            ty2,
            flags: flags_of(&i.modifiers) | if carry_in { F_CARRY } else { 0 },
            rnd,
            irnd,
            cmp,
            space,
            dst,
            src,
            guard,
            target,
            line,
            op_feat: classify::op_feature(i),
            mem: classify::mem_access(i),
            cta_barrier: classify::is_cta_barrier(i),
            always: classify::counts_when_guard_false(i),
            text,
            refused: None,
        })
    }

    /// An instruction that runs as an error: refused where it executes, not where it is decoded,
    /// so a path the data never takes (a math library's slow path) does not stop the kernel.
    fn refused(&mut self, i: &Inst, why: String) -> DInst {
        DInst {
            op: Op::Unsupported,
            ty: Ty::B32,
            ty2: Ty::B32,
            flags: 0,
            rnd: Rnd::Rn,
            irnd: None,
            cmp: Cmp::Eq,
            space: Space::Generic,
            dst: Vec::new(),
            src: Vec::new(),
            guard: i.pred.as_ref().map(|g| (self.reg(&g.reg), g.negated)),
            target: 0,
            line: i.span.line,
            text: i.full_opcode(),
            op_feat: classify::op_feature(i),
            mem: classify::mem_access(i),
            cta_barrier: false,
            always: false,
            refused: Some(why),
        }
    }

    fn dst(&mut self, o: &Operand, line: u32, text: &str) -> Result<Dst, EmuError> {
        Ok(match o {
            Operand::Reg(r) => Dst::Reg(self.reg(r)),
            Operand::Sink => Dst::Sink,
            Operand::Vector(v) => Dst::Vec(
                v.iter()
                    .map(|x| self.dst(x, line, text))
                    .collect::<Result<_, _>>()?,
            ),
            Operand::Pair(a, b) => {
                Dst::Vec(vec![self.dst(a, line, text)?, self.dst(b, line, text)?])
            }
            _ => {
                return Err(EmuError::Unsupported {
                    line,
                    inst: text.to_string(),
                    why: format!("destination operand {o:?}"),
                })
            }
        })
    }

    fn src(&mut self, o: &Operand, ty: Ty, line: u32, text: &str) -> Result<Src, EmuError> {
        let bad = |why: String| EmuError::Unsupported {
            line,
            inst: text.to_string(),
            why,
        };
        Ok(match o {
            Operand::Reg(r) => Src::Reg(self.reg(r)),
            Operand::Not(x) => match &**x {
                Operand::Reg(r) => Src::NotReg(self.reg(r)),
                _ => return Err(bad(format!("negated operand {x:?}"))),
            },
            Operand::Imm(v) => Src::Imm(if ty.is_float() {
                ty.from_float(*v as f64)
            } else {
                *v as u64
            }),
            Operand::ImmF32(b) => Src::Imm(float_imm(f32::from_bits(*b) as f64, *b as u64, 32, ty)),
            Operand::ImmF64(b) | Operand::ImmFloat(b) => {
                Src::Imm(float_imm(f64::from_bits(*b), *b, 64, ty))
            }
            Operand::SpecialReg(s) => Src::Sreg(sreg(s).ok_or_else(|| bad(unknown_sreg(s)))?),
            Operand::Addr { base, offset } => {
                let (b, sym) = match base {
                    AddrBase::Reg(r) => match self.syms.get(r) {
                        Some(s) => (None, Some(*s)),
                        None => (Some(self.reg(r)), None),
                    },
                    AddrBase::Symbol(s) => (
                        None,
                        Some(
                            *self
                                .syms
                                .get(s)
                                .ok_or_else(|| bad(format!("unknown symbol {s}")))?,
                        ),
                    ),
                    AddrBase::None => (None, None),
                };
                Src::Addr {
                    base: b,
                    sym,
                    off: *offset,
                }
            }
            Operand::Symbol(s) | Operand::Label(s) => match self.syms.get(s) {
                Some((sp, a)) => Src::Sym(*sp, *a),
                None => return Err(bad(format!("unknown symbol {s}"))),
            },
            Operand::SymOffset { name, offset } => match self.syms.get(name) {
                Some((sp, a)) => Src::Sym(*sp, a.wrapping_add(*offset as u64)),
                None => return Err(bad(format!("unknown symbol {name}"))),
            },
            Operand::Vector(v) => Src::Vec(
                v.iter()
                    .map(|x| self.src(x, ty, line, text))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(bad(format!("operand {o:?}"))),
        })
    }
}

/// A float literal converted to the operand type (a `0f` literal is bits when the type is 32-bit).
fn float_imm(x: f64, bits: u64, width: u32, ty: Ty) -> u64 {
    if ty.is_float() {
        if ty.bits() == width {
            bits
        } else {
            ty.from_float(x)
        }
    } else {
        bits
    }
}

/// Type of source operand `k` (for typing immediates).
fn src_ty(op: Op, ty: Ty, ty2: Ty, k: usize) -> Ty {
    match op {
        Op::Cvt => ty2,
        Op::Dp4a | Op::Dp2a if k == 1 => ty2,
        Op::Shl | Op::Shr | Op::Bfe if k >= 1 => Ty::U32,
        Op::Bfi if k >= 2 => Ty::U32,
        Op::Shfl | Op::Vote | Op::Redux | Op::Match if k >= 1 => Ty::U32,
        Op::Set => ty2,
        _ => ty,
    }
}

/// Why a special register has no value in the emulator, in the user's terms.
fn unknown_sreg(s: &SReg) -> String {
    match s {
        SReg::Other(name) if name.starts_with("%envreg") => format!(
            "it reads `{name}`, which the driver sets at launch: cooperative groups find their \
             grid-wide barrier there (`grid.sync()`), and a grid-wide barrier needs every block \
             resident at once, which the emulator, running blocks in turn, does not model"
        ),
        _ => format!("the special register {s:?} has no value here"),
    }
}

fn sreg(s: &SReg) -> Option<Sr> {
    let d = |d: &Dim| d.index();
    Some(match s {
        SReg::Tid(x) => Sr::Tid(d(x)),
        SReg::Ntid(x) => Sr::Ntid(d(x)),
        SReg::Ctaid(x) => Sr::Ctaid(d(x)),
        SReg::Nctaid(x) => Sr::Nctaid(d(x)),
        SReg::Laneid => Sr::Laneid,
        SReg::Warpid => Sr::Warpid,
        SReg::Nwarpid => Sr::Nwarpid,
        SReg::Smid | SReg::Gridid => Sr::Zero,
        SReg::Clock | SReg::Clock64 | SReg::Globaltimer => Sr::Clock,
        SReg::LanemaskEq => Sr::LanemaskEq,
        SReg::LanemaskLe => Sr::LanemaskLe,
        SReg::LanemaskLt => Sr::LanemaskLt,
        SReg::LanemaskGe => Sr::LanemaskGe,
        SReg::LanemaskGt => Sr::LanemaskGt,
        _ => return None,
    })
}
