//! Device-function inlining: Module in, Module out, every direct call from a kernel to a `.func`
//! with a body in the same module replaced by that body. Without it the counter, the emulator and
//! the scheduler would see a `call` as one control instruction and miss all the callee's work
//! (a `__noinline__` helper's loop, libdevice's slow paths of `sin`/`cos` in double precision).
//!
//! A PTX call passes its arguments through `.param` variables declared in a `{ … }` call
//! sequence: `st.param [param0+off], v` before the call, `ld.param d, [f_param_0+off]` in the
//! callee, and the way back through the return parameters. Inlined, every (parameter, offset)
//! slot becomes a fresh register: each `st.param`/`ld.param` of a slot becomes a `mov`, so the
//! affine analysis follows a kernel parameter through the call into the callee's loop bounds.
//! Callee registers, labels and local variables are renamed with a per-call-site prefix; `ret`
//! becomes a branch to the end of the inlined body.
//!
//! What is not inlined is listed in [`Inlined::not_inlined`] with the reason (no body in the
//! module, such as `vprintf`; an indirect call; recursion; a parameter used other than through
//! `ld.param`/`st.param` at constant offsets; the size limit). Those calls stay, and the counter
//! records them as unclassified (`Feature::Unknown`), so their work is never dropped silently.

use crate::ptx::{
    AddrBase, Block, Guard, Inst, Label, Module, Operand, PtxType, SourceLoc, Span, StateSpace,
    Statement, VarDecl,
};
use std::collections::{BTreeMap, BTreeSet};

/// Nested inlining depth (a call chain deeper than this stays a call).
const MAX_DEPTH: usize = 16;
/// Instructions a kernel may grow to by inlining.
const MAX_INSTS: usize = 200_000;

/// The module with calls inlined, and the calls that were not.
#[derive(Clone, Debug)]
pub struct Inlined {
    pub module: Module,
    /// Call sites inlined, over all kernels (nested ones included).
    pub inlined: usize,
    pub not_inlined: Vec<NotInlined>,
}

/// A call that stays a call, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotInlined {
    pub kernel: String,
    pub callee: String,
    /// Source line of the call (from `.loc`), when known.
    pub line: Option<u32>,
    pub reason: String,
}

impl std::fmt::Display for NotInlined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "call to `{}` in `{}`", self.callee, self.kernel)?;
        if let Some(l) = self.line {
            write!(f, " (line {l})")?;
        }
        write!(f, " not inlined, {}: its work is not counted", self.reason)
    }
}

/// Inlines every direct call to a device function with a body, in every kernel.
pub fn inline_calls(m: &Module) -> Inlined {
    let mut out = m.clone();
    let mut inlined = 0;
    let mut not_inlined = Vec::new();
    for f in out.functions.iter_mut() {
        if !f.is_entry || f.is_declaration {
            continue;
        }
        let mut cx = Inliner {
            m,
            kernel: f.name.clone(),
            next_site: 0,
            stack: Vec::new(),
            insts: f.instructions().count(),
            inlined: 0,
            not_inlined: Vec::new(),
        };
        f.body = cx.body(&f.body);
        inlined += cx.inlined;
        not_inlined.extend(cx.not_inlined);
    }
    Inlined {
        module: out,
        inlined,
        not_inlined,
    }
}

struct Inliner<'a> {
    m: &'a Module,
    kernel: String,
    next_site: usize,
    /// Callees being inlined, outermost first (recursion check).
    stack: Vec<String>,
    /// Instructions of the kernel so far (size limit).
    insts: usize,
    inlined: usize,
    not_inlined: Vec<NotInlined>,
}

/// The parts of a `call` instruction.
struct Call<'a> {
    rets: Vec<String>,
    callee: &'a str,
    args: Vec<String>,
}

fn call_parts(inst: &Inst) -> Result<Call<'_>, String> {
    let names = |o: &Operand| -> Result<Vec<String>, String> {
        match o {
            Operand::List(v) => v
                .iter()
                .map(|a| match a {
                    Operand::Symbol(s) => Ok(s.clone()),
                    _ => Err("an argument that is not a .param variable".to_string()),
                })
                .collect(),
            _ => Err("an argument list that is not a list".into()),
        }
    };
    let ops = &inst.operands;
    let (rets, at) = match ops.first() {
        Some(o @ Operand::List(_)) => (names(o)?, 1),
        _ => (Vec::new(), 0),
    };
    let callee = match ops.get(at) {
        Some(Operand::Symbol(s)) => s.as_str(),
        Some(Operand::Reg(_)) => return Err("indirect call through a register".into()),
        _ => return Err("no callee name".into()),
    };
    let args = match ops.get(at + 1) {
        Some(o) => names(o)?,
        None => Vec::new(),
    };
    if ops.len() > at + 2 {
        return Err("indirect call with a prototype".into());
    }
    Ok(Call { rets, callee, args })
}

/// The callee of a `call` as written: a function name, or the register of an indirect call.
pub fn callee_name(inst: &Inst) -> String {
    inst.operands
        .iter()
        .find_map(|o| match o {
            Operand::Symbol(s) => Some(s.clone()),
            Operand::Reg(r) => Some(r.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "?".into())
}

/// A `.param` access at a constant offset: (variable, offset, element bits, elements).
fn param_access(inst: &Inst) -> Option<(&str, i64, u32, Vec<&Operand>)> {
    if inst.state_space() != Some(StateSpace::Param) || inst.pred.is_some() {
        return None;
    }
    let (addr, data) = match inst.opcode.as_str() {
        "ld" => (inst.operands.get(1)?, inst.operands.first()?),
        "st" => (inst.operands.first()?, inst.operands.get(1)?),
        _ => return None,
    };
    let Operand::Addr {
        base: AddrBase::Symbol(name),
        offset,
    } = addr
    else {
        return None;
    };
    let bits = inst.types.last()?.bits();
    let elems = match data {
        Operand::Vector(v) => v.iter().collect(),
        o => vec![o],
    };
    Some((name, *offset, bits, elems))
}

/// A register type wide enough for a slot of `bits` (PTX has no 8-bit registers).
fn slot_type(bits: u32) -> PtxType {
    match bits {
        0..=16 => PtxType::B16,
        17..=32 => PtxType::B32,
        _ => PtxType::B64,
    }
}

fn mov(dst: Operand, src: Operand, bits: u32, loc: Option<SourceLoc>) -> Statement {
    Statement::Inst(Inst {
        pred: None,
        opcode: "mov".into(),
        modifiers: Vec::new(),
        types: vec![slot_type(bits)],
        type_pos: 0,
        operands: vec![dst, src],
        span: Span::default(),
        loc,
    })
}

fn reg_decl(name: String, bits: u32) -> Statement {
    Statement::Decl(VarDecl {
        linkage: None,
        space: StateSpace::Reg,
        align: None,
        vector: None,
        ty: slot_type(bits),
        ptr: None,
        attribute: None,
        name,
        range: None,
        array: Vec::new(),
        init: None,
        span: Span::default(),
    })
}

/// The registers that carry the call's parameter slots: (variable, byte offset) → register.
#[derive(Default)]
struct Slots {
    regs: BTreeMap<(String, i64), (String, u32)>,
}

impl Slots {
    fn get_or_make(&mut self, site: usize, var: &str, off: i64, bits: u32) -> String {
        let n = self.regs.len();
        self.regs
            .entry((var.to_string(), off))
            .or_insert_with(|| (format!("%inl{site}_s{n}"), bits))
            .0
            .clone()
    }
}

impl Inliner<'_> {
    fn body(&mut self, stmts: &[Statement]) -> Vec<Statement> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            match s {
                Statement::Block(b) => {
                    let call = b.body.iter().find_map(|s| match s {
                        Statement::Inst(i) if i.opcode == "call" => Some(i),
                        _ => None,
                    });
                    match call {
                        Some(c) => out.push(self.call_site(b, c, s)),
                        None => out.push(Statement::Block(Block {
                            body: self.body(&b.body),
                            span: b.span,
                        })),
                    }
                }
                Statement::Inst(i) if i.opcode == "call" => {
                    // A call outside a call-sequence block has no parameters to pass.
                    let block = Block {
                        body: vec![s.clone()],
                        span: i.span,
                    };
                    // the call as the block holds it: the sequence is split at that instruction
                    if let Some(Statement::Inst(c)) = block.body.first() {
                        out.push(self.call_site(&block, c, s));
                    }
                }
                _ => out.push(s.clone()),
            }
        }
        out
    }

    /// The inlined call sequence `b` (around `call`), or `original` unchanged with the reason
    /// recorded.
    fn call_site(&mut self, b: &Block, call: &Inst, original: &Statement) -> Statement {
        match self.inline_call_block(b, call) {
            Ok(body) => Statement::Block(Block { body, span: b.span }),
            Err(reason) => {
                self.not_inlined.push(NotInlined {
                    kernel: self.kernel.clone(),
                    callee: callee_name(call),
                    line: call.loc.as_ref().map(|l| l.line),
                    reason,
                });
                original.clone()
            }
        }
    }

    /// The statements that replace one call-sequence block, or why it stays.
    fn inline_call_block(&mut self, b: &Block, call: &Inst) -> Result<Vec<Statement>, String> {
        let parts = call_parts(call)?;
        let f = self
            .m
            .function(parts.callee)
            .filter(|f| !f.is_declaration)
            .ok_or("an external function: no body in this module")?;
        if self.stack.iter().any(|s| s == parts.callee) {
            return Err("a recursive call".into());
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!("calls nested deeper than {MAX_DEPTH}"));
        }
        if f.params.len() != parts.args.len() || f.ret_params.len() != parts.rets.len() {
            return Err("argument count differs from the callee's parameters".into());
        }
        let body_insts = f.instructions().count();
        if self.insts + body_insts > MAX_INSTS {
            return Err(format!(
                "the kernel would grow past {MAX_INSTS} instructions"
            ));
        }
        let site = self.next_site;
        self.next_site += 1;

        // The callee, with its own calls inlined first.
        self.stack.push(parts.callee.to_string());
        let callee_body = self.body(&f.body);
        self.stack.pop();

        let local_params: BTreeSet<&str> = b
            .body
            .iter()
            .filter_map(|s| match s {
                Statement::Decl(d) if d.space == StateSpace::Param => Some(d.name.as_str()),
                _ => None,
            })
            .collect();
        let local_map: BTreeMap<&str, &str> = local_params.iter().map(|p| (*p, *p)).collect();
        let mut slots = Slots::default();
        let mut ret_reads: Vec<(String, i64)> = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut seen_call = false;
        for s in &b.body {
            match s {
                Statement::Decl(d) if d.space == StateSpace::Param => {}
                Statement::Inst(i) if std::ptr::eq(i, call) => seen_call = true,
                Statement::Inst(i) => match param_access(i) {
                    Some((var, off, bits, elems)) if local_params.contains(var) => {
                        let out = if seen_call { &mut after } else { &mut before };
                        for (k, e) in elems.into_iter().enumerate() {
                            let o = off + k as i64 * (bits as i64 / 8).max(1);
                            let slot = Operand::Reg(slots.get_or_make(site, var, o, bits));
                            out.push(if i.opcode == "st" {
                                mov(slot, e.clone(), bits, i.loc.clone())
                            } else {
                                ret_reads.push((var.to_string(), o));
                                mov(e.clone(), slot, bits, i.loc.clone())
                            });
                        }
                    }
                    _ if uses_any(i, &local_map) => {
                        return Err(
                            "the caller uses a call parameter other than by ld.param/st.param at a constant offset"
                                .into(),
                        )
                    }
                    _ if seen_call => after.push(s.clone()),
                    _ => before.push(s.clone()),
                },
                _ if seen_call => after.push(s.clone()),
                _ => before.push(s.clone()),
            }
        }

        // The callee's parameter names map onto the caller's argument variables.
        let mut param_of: BTreeMap<&str, &str> = BTreeMap::new();
        for (p, a) in f.params.iter().zip(&parts.args) {
            param_of.insert(p.name.as_str(), a.as_str());
        }
        for (p, r) in f.ret_params.iter().zip(&parts.rets) {
            param_of.insert(p.name.as_str(), r.as_str());
        }
        let locals: BTreeSet<String> = callee_locals(&callee_body);
        let ren = Renamer { site, locals };
        let ret_label = format!("$inl{site}_return");
        let mut ret_writes: BTreeSet<(String, i64)> = BTreeSet::new();
        let mut inlined = Vec::new();
        for s in &callee_body {
            match s {
                Statement::Inst(i) => {
                    if let Some((var, off, bits, elems)) = param_access(i) {
                        if let Some(arg) = param_of.get(var) {
                            for (k, e) in elems.into_iter().enumerate() {
                                let o = off + k as i64 * (bits as i64 / 8).max(1);
                                let e = ren.operand(e);
                                if i.opcode == "ld" {
                                    let slot = slots
                                        .regs
                                        .get(&(arg.to_string(), o))
                                        .map(|s| s.0.clone())
                                        .ok_or_else(|| {
                                            format!(
                                                "the callee reads parameter `{var}` at offset {o}, which the caller does not set"
                                            )
                                        })?;
                                    inlined.push(mov(e, Operand::Reg(slot), bits, i.loc.clone()));
                                } else {
                                    ret_writes.insert((arg.to_string(), o));
                                    let slot = slots.get_or_make(site, arg, o, bits);
                                    inlined.push(mov(Operand::Reg(slot), e, bits, i.loc.clone()));
                                }
                            }
                            continue;
                        }
                    }
                    if uses_any(i, &param_of) {
                        return Err(
                            "the callee uses a parameter other than by ld.param/st.param at a constant offset"
                                .into(),
                        );
                    }
                    if matches!(i.opcode.as_str(), "ret") {
                        inlined.push(Statement::Inst(Inst {
                            pred: i.pred.as_ref().map(|g| Guard {
                                negated: g.negated,
                                reg: ren.reg(&g.reg),
                            }),
                            opcode: "bra".into(),
                            modifiers: if i.pred.is_none() {
                                vec!["uni".into()]
                            } else {
                                Vec::new()
                            },
                            types: Vec::new(),
                            type_pos: 0,
                            operands: vec![Operand::Label(ret_label.clone())],
                            span: i.span,
                            loc: i.loc.clone(),
                        }));
                    } else {
                        inlined.push(Statement::Inst(ren.inst(i)));
                    }
                }
                Statement::Block(nested) if block_uses_any(&nested.body, &param_of) => {
                    return Err("the callee reads a parameter inside a nested scope".into());
                }
                other => inlined.push(ren.statement(other)),
            }
        }
        if let Some((var, off)) = ret_reads.iter().find(|r| !ret_writes.contains(*r)) {
            return Err(format!(
                "the caller reads return value `{var}` at offset {off}, which the callee does not set"
            ));
        }
        let mut out: Vec<Statement> = slots
            .regs
            .values()
            .map(|(n, bits)| reg_decl(n.clone(), *bits))
            .collect();
        out.extend(before);
        out.extend(inlined);
        out.push(Statement::Label(Label {
            name: ret_label,
            span: Span::default(),
        }));
        out.extend(after);
        self.insts += body_insts;
        self.inlined += 1;
        Ok(out)
    }
}

/// Names the callee declares in its body (registers, locals, its own call parameters).
fn callee_locals(body: &[Statement]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    fn walk(b: &[Statement], out: &mut BTreeSet<String>) {
        for s in b {
            match s {
                Statement::Decl(d) => {
                    out.insert(d.name.clone());
                }
                Statement::Block(bl) => walk(&bl.body, out),
                _ => {}
            }
        }
    }
    walk(body, &mut out);
    out
}

/// Whether an instruction of a nested scope names one of the parameters.
fn block_uses_any(body: &[Statement], params: &BTreeMap<&str, &str>) -> bool {
    body.iter().any(|s| match s {
        Statement::Inst(i) => {
            uses_any(i, params) || param_access(i).is_some_and(|a| params.contains_key(a.0))
        }
        Statement::Block(b) => block_uses_any(&b.body, params),
        _ => false,
    })
}

/// Whether an instruction names one of the callee's parameters (other than as handled above).
fn uses_any(i: &Inst, params: &BTreeMap<&str, &str>) -> bool {
    i.operands
        .iter()
        .flat_map(|o| o.leaves())
        .any(|leaf| match leaf {
            Operand::Symbol(s)
            | Operand::SymOffset { name: s, .. }
            | Operand::Addr {
                base: AddrBase::Symbol(s),
                ..
            } => params.contains_key(s.as_str()),
            _ => false,
        })
}

/// Renames one call site's callee registers, labels and local symbols.
struct Renamer {
    site: usize,
    /// Names the callee declares (registers without a `%` and local variables included).
    locals: BTreeSet<String>,
}

impl Renamer {
    fn reg(&self, r: &str) -> String {
        match r.strip_prefix('%') {
            Some(rest) => format!("%inl{}_{rest}", self.site),
            None => format!("inl{}_{r}", self.site),
        }
    }
    fn label(&self, l: &str) -> String {
        format!("$inl{}_{}", self.site, l.trim_start_matches('$'))
    }
    fn symbol(&self, s: &str) -> String {
        if self.locals.contains(s) {
            self.reg(s)
        } else {
            s.to_string()
        }
    }
    fn operand(&self, o: &Operand) -> Operand {
        let mut o = o.clone();
        o.for_each_leaf_mut(&mut |leaf| match leaf {
            Operand::Reg(r)
            | Operand::Addr {
                base: AddrBase::Reg(r),
                ..
            } => *r = self.reg(r),
            Operand::Symbol(s)
            | Operand::SymOffset { name: s, .. }
            | Operand::Addr {
                base: AddrBase::Symbol(s),
                ..
            } => *s = self.symbol(s),
            Operand::Label(l) => *l = self.label(l),
            _ => {}
        });
        o
    }
    fn inst(&self, i: &Inst) -> Inst {
        let mut out = i.clone();
        out.pred = i.pred.as_ref().map(|g| Guard {
            negated: g.negated,
            reg: self.reg(&g.reg),
        });
        out.operands = i.operands.iter().map(|o| self.operand(o)).collect();
        out
    }
    fn statement(&self, s: &Statement) -> Statement {
        match s {
            Statement::Inst(i) => Statement::Inst(self.inst(i)),
            Statement::Label(l) => Statement::Label(Label {
                name: self.label(&l.name),
                span: l.span,
            }),
            Statement::Decl(d) => {
                let mut d = d.clone();
                d.name = self.reg(&d.name);
                Statement::Decl(d)
            }
            Statement::Block(b) => Statement::Block(Block {
                body: b.body.iter().map(|s| self.statement(s)).collect(),
                span: b.span,
            }),
            other => other.clone(),
        }
    }
}
