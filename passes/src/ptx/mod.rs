//! PTX front end: lexer (logos), recursive-descent parser into a generic IR, and a printer such
//! that parse → print → parse is the identity (modulo spans).
//!
//! Why our own parser (crates.io checked 2026-11-21 against this bar: every directive nvcc 12/13
//! and clang 19/22 emit, one generic instruction form to match opcode families on, spans on every
//! node, `.loc` mapped to files, a round-tripping printer, >= 100 MB/s):
//! - `ptx-90-parser` 0.5.0 (deprecated for `ptx-syntax` 0.5.0, same author): lexer, spans and an
//!   unparser, but a "heavy AST" with one generated type per instruction of the PTX 9.0 spec, so
//!   analyses would match hundreds of types, and any spelling outside its generated grammar fails
//!   the whole module; five breaking 0.x releases so far.
//! - `singe-ptx` 0.1.0-alpha.7 (nom): an alpha, PTX 9.1 opcode metadata, no printer documented.
//! - `ptx-parser` 0.1.6 (nom, 2023): "syntax is subject to change", no release since.
//!
//! None meets the bar, so the front end is written here (logos lexer, hand-written parser).
//!
//! Entry points: [`parse`] / [`Module::parse`], [`Module`]'s `Display` (the printer), and the
//! helper accessors below that the counting passes and the emulator use.

mod error;
mod ir;
mod lexer;
mod param_address;
mod parser;
mod printer;
mod scopes;
mod verify;

pub use error::ParseError;
pub use ir::*;
pub use param_address::{ParamAddress, ParamOffset};
pub use parser::parse;
pub use verify::verify;

/// Shared memory of one kernel; see [`Module::kernel_shared`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelShared {
    pub static_bytes: u64,
    /// Unsized shared arrays (dynamic shared memory): their bytes are the launch's.
    pub dynamic: Vec<String>,
}

impl Module {
    /// Parses PTX text.
    pub fn parse(src: &str) -> Result<Module, ParseError> {
        parse(src)
    }

    /// A copy with every span zeroed, for comparing modules parsed from different texts.
    pub fn without_spans(&self) -> Module {
        let mut m = self.clone();
        let z = Span::default();
        for g in &mut m.globals {
            g.span = z;
        }
        for f in &mut m.files {
            f.span = z;
        }
        for d in &mut m.directives {
            d.span = z;
        }
        for f in &mut m.functions {
            f.span = z;
            for p in f.params.iter_mut().chain(f.ret_params.iter_mut()) {
                p.span = z;
            }
            for p in &mut f.perf {
                p.span = z;
            }
            zero_body(&mut f.body);
        }
        m
    }

    /// The function (kernel or device function) with this name, preferring a definition.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .filter(|f| f.name == name)
            .min_by_key(|f| f.is_declaration)
    }

    /// The shared memory kernel `f` declares or names: the bytes of its sized arrays (in its
    /// body, or at module level where nvcc puts `__shared__` variables of file scope), and the
    /// unsized (`extern __shared__`) arrays, whose size the launch sets.
    pub fn kernel_shared(&self, f: &Function) -> KernelShared {
        let mut out = KernelShared::default();
        let mut add = |d: &VarDecl| match d.size_bytes().filter(|s| *s > 0) {
            Some(s) => out.static_bytes += s,
            None => out.dynamic.push(d.name.clone()),
        };
        f.var_decls()
            .filter(|d| d.space == StateSpace::Shared)
            .for_each(&mut add);
        let named = f.symbols_named();
        self.globals
            .iter()
            .filter(|g| g.space == StateSpace::Shared && named.contains(g.name.as_str()))
            .for_each(&mut add);
        out
    }

    /// Kernels (`.entry`) with a body, in text order.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions
            .iter()
            .filter(|f| f.is_entry && !f.is_declaration)
    }

    /// The name of `.file` entry `index`.
    pub fn file_name(&self, index: u32) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.index == index)
            .map(|f| f.name.as_str())
    }
}

fn zero_body(body: &mut [Statement]) {
    let z = Span::default();
    for s in body {
        match s {
            Statement::Inst(i) => i.span = z,
            Statement::Label(l) => l.span = z,
            Statement::Decl(d) => d.span = z,
            Statement::Loc(l) => l.span = z,
            Statement::Pragma(p) => p.span = z,
            Statement::Directive(d) => d.span = z,
            Statement::Block(b) => {
                b.span = z;
                zero_body(&mut b.body);
            }
        }
    }
}

/// One register declaration as the emulator needs it: `.reg .f32 %f<5>` is prefix `%f`, count 5.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    /// The name prefix (or the full name when `count` is `None`).
    pub prefix: String,
    /// `Some(n)` for `%f<n>` (registers `%f0` … `%f{n-1}`), `None` for a single named register.
    pub count: Option<u32>,
    pub ty: PtxType,
    pub vector: Option<u32>,
}

impl RegDecl {
    /// Whether this declaration declares register `name` (`%r7` of `%r<8>`).
    pub fn covers(&self, name: &str) -> bool {
        match self.count {
            None => self.prefix == name,
            Some(n) => name
                .strip_prefix(self.prefix.as_str())
                .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|k| k.parse::<u32>().ok())
                .is_some_and(|k| k < n),
        }
    }
}

/// A field of a by-value aggregate parameter (a struct, a `float3`) that the body reads with
/// `ld.param.T d, [NAME+offset]`; each element of a vector load (`ld.param.v2.u32`) is a field.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ParamField {
    /// The parameter's position.
    pub param: usize,
    /// Byte offset within the parameter.
    pub offset: u64,
    /// The type the body reads it as.
    pub ty: PtxType,
}

impl VarDecl {
    /// A parameter passed as bytes (`.param .align 4 .b8 p[16]`): a struct or vector type by
    /// value, whose fields the body reads at offsets.
    pub fn is_aggregate(&self) -> bool {
        !self.array.is_empty()
    }
}

impl Function {
    /// Index of the parameter with this name.
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// Indices of the parameters that hold a global buffer's address: declared `.ptr .global`
    /// (clang's OpenCL kernels), converted to a global address (`cvta.to.global`, as nvcc and
    /// clang write the pointers they dereference), or the one parameter behind the base of a
    /// global or generic access through pointer arithmetic alone (`add`, `sub`, `and`, `or`,
    /// `mov`: offsets and alignment masks). A size is scaled (`mul`, `shl`, `mad`) or widened
    /// (`cvt`) on its way into an address, and so is not taken for one; a base two parameters
    /// make unscaled (`char *p` plus `size_t i`) names neither.
    pub fn global_pointer_params(&self) -> Vec<usize> {
        use std::collections::{BTreeMap, BTreeSet};
        let mut out: BTreeSet<usize> = self
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.ptr
                    .as_ref()
                    .is_some_and(|a| a.space == Some(StateSpace::Global))
            })
            .map(|(k, _)| k)
            .collect();
        let insts: Vec<&Inst> = self.instructions().collect();
        // the parameters whose value a register may hold, plus offsets and masks
        let mut holds: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        loop {
            let mut changed = false;
            for i in &insts {
                let from: BTreeSet<usize> = match (i.opcode.as_str(), i.operands.as_slice()) {
                    (
                        "ld",
                        [Operand::Reg(_), Operand::Addr {
                            base: AddrBase::Symbol(s),
                            offset: 0,
                        }],
                    ) if i.state_space() == Some(StateSpace::Param) => self
                        .param_index(s)
                        .filter(|&k| self.params[k].ty.bits() == 64)
                        .into_iter()
                        .collect(),
                    (
                        "add" | "sub" | "and" | "or" | "mov" | "cvta",
                        [Operand::Reg(_), rest @ ..],
                    ) => rest
                        .iter()
                        .filter_map(|o| match o {
                            Operand::Reg(r) => holds.get(r.as_str()),
                            _ => None,
                        })
                        .flatten()
                        .copied()
                        .collect(),
                    _ => continue,
                };
                let Some(Operand::Reg(d)) = i.operands.first() else {
                    continue;
                };
                if from.is_empty() {
                    continue;
                }
                let set = holds.entry(d.as_str()).or_default();
                let before = set.len();
                set.extend(from);
                changed |= set.len() != before;
            }
            if !changed {
                break;
            }
        }
        for i in &insts {
            let converted = i.opcode == "cvta"
                && i.modifiers.iter().any(|m| m == "to")
                && i.state_space() == Some(StateSpace::Global);
            let global_access =
                i.opcode != "cvta" && matches!(i.state_space(), None | Some(StateSpace::Global));
            for o in &i.operands {
                let held = match o {
                    Operand::Reg(r) if converted => holds.get(r.as_str()),
                    Operand::Addr {
                        base: AddrBase::Reg(r),
                        ..
                    } if global_access => holds.get(r.as_str()).filter(|h| h.len() == 1),
                    _ => continue,
                };
                out.extend(held.into_iter().flatten());
            }
        }
        out.into_iter().collect()
    }

    /// The fields of aggregate parameters that the body reads, by parameter then offset (the
    /// first type read at an offset stands for it).
    pub fn param_fields(&self) -> Vec<ParamField> {
        let mut out: Vec<ParamField> = Vec::new();
        let held = self.param_addresses();
        for i in self.instructions() {
            if !i.is_load() || i.state_space() != Some(StateSpace::Param) {
                continue;
            }
            let (Some(Operand::Addr { base, offset }), Some(ty)) =
                (i.operands.get(1), i.types.last().copied())
            else {
                continue;
            };
            let (param, offset) = match base {
                AddrBase::Symbol(s) => match self
                    .param_index(s)
                    .filter(|&k| self.params[k].is_aggregate())
                {
                    Some(k) => (k, *offset),
                    None => continue,
                },
                AddrBase::Reg(r) => match held.get(r.as_str()) {
                    Some(ParamAddress {
                        param,
                        offset: ParamOffset::Constant(o),
                    }) => (*param, o + offset),
                    _ => continue,
                },
                AddrBase::None => continue,
            };

            let lanes = match i.operands.first() {
                Some(Operand::Vector(v)) => v.len() as u64,
                _ => 1,
            };
            let width = (ty.bits() as u64).div_ceil(8);
            for lane in 0..lanes {
                let Ok(offset) = u64::try_from(offset) else {
                    continue;
                };
                let offset = offset + lane * width;
                if !out.iter().any(|f| f.param == param && f.offset == offset) {
                    out.push(ParamField { param, offset, ty });
                }
            }
        }
        out.sort();
        out
    }

    /// Every statement of the body, nested blocks flattened depth-first in text order.
    pub fn statements(&self) -> Vec<&Statement> {
        fn walk<'a>(b: &'a [Statement], out: &mut Vec<&'a Statement>) {
            for s in b {
                out.push(s);
                if let Statement::Block(bl) = s {
                    walk(&bl.body, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// Every instruction in text order, nested blocks included.
    pub fn instructions(&self) -> impl Iterator<Item = &Inst> {
        self.statements().into_iter().filter_map(|s| match s {
            Statement::Inst(i) => Some(i),
            _ => None,
        })
    }

    /// Every declaration in the body (nested blocks included).
    pub fn var_decls(&self) -> impl Iterator<Item = &VarDecl> {
        self.statements().into_iter().filter_map(|s| match s {
            Statement::Decl(d) => Some(d),
            _ => None,
        })
    }

    /// The `.reg` declarations of the body.
    pub fn reg_decls(&self) -> Vec<RegDecl> {
        self.var_decls()
            .filter(|d| d.space == StateSpace::Reg)
            .map(|d| RegDecl {
                prefix: d.name.clone(),
                count: d.range,
                ty: d.ty,
                vector: d.vector,
            })
            .collect()
    }

    /// The symbols the body's operands name (variables, not labels or registers).
    pub fn symbols_named(&self) -> std::collections::BTreeSet<&str> {
        let mut out = std::collections::BTreeSet::new();
        for i in self.instructions() {
            for o in i.operands.iter().flat_map(|o| o.leaves()) {
                match o {
                    Operand::Symbol(n) | Operand::SymOffset { name: n, .. } => {
                        out.insert(n.as_str());
                    }
                    Operand::Addr {
                        base: AddrBase::Symbol(n),
                        ..
                    } => {
                        out.insert(n.as_str());
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Static shared memory declared in the body (bytes; unsized `extern` arrays count 0).
    pub fn shared_bytes(&self) -> u64 {
        self.var_decls()
            .filter(|d| d.space == StateSpace::Shared)
            .map(|d| d.size_bytes().unwrap_or(0))
            .sum()
    }

    /// Values of a performance directive such as `maxntid`, `reqntid`, `minnctapersm`.
    pub fn perf_values(&self, name: &str) -> Option<&[u64]> {
        self.perf
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.values.as_slice())
    }
}

impl Inst {
    /// The state space named by a suffix (`ld.global`, `st.shared::cta`, `cvta.to.global`).
    pub fn state_space(&self) -> Option<StateSpace> {
        self.modifiers.iter().find_map(|m| StateSpace::from_name(m))
    }
    pub fn is_load(&self) -> bool {
        matches!(self.opcode.as_str(), "ld" | "ldu")
    }
    pub fn is_store(&self) -> bool {
        self.opcode == "st"
    }
    pub fn is_atomic(&self) -> bool {
        matches!(self.opcode.as_str(), "atom" | "red")
    }
    /// The instruction's (first) type suffix: the destination type of `cvt`, the operand type elsewhere.
    pub fn dtype(&self) -> Option<PtxType> {
        self.types.first().copied()
    }
    pub fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x == m)
    }
    /// `.v2` / `.v4` / `.v8` vector width, else 1.
    pub fn vector_width(&self) -> u32 {
        self.modifiers
            .iter()
            .find_map(|m| m.strip_prefix('v').and_then(|v| v.parse().ok()))
            .unwrap_or(1)
    }
    /// A branch (`bra`, `brx.idx`).
    pub fn is_branch(&self) -> bool {
        matches!(self.opcode.as_str(), "bra" | "brx")
    }
    /// Ends the thread's execution of the function (`ret`, `exit`, `trap`).
    pub fn is_exit(&self) -> bool {
        matches!(self.opcode.as_str(), "ret" | "exit" | "trap")
    }
    /// The target label of a `bra`.
    pub fn branch_target(&self) -> Option<&str> {
        if self.opcode != "bra" {
            return None;
        }
        self.operands.iter().find_map(|o| match o {
            Operand::Label(l) => Some(l.as_str()),
            _ => None,
        })
    }
    /// The full dotted opcode as written, e.g. `ld.global.nc.f32`.
    pub fn full_opcode(&self) -> String {
        let mut s = self.opcode.clone();
        for (i, m) in self.modifiers.iter().enumerate() {
            if i == self.type_pos {
                for t in &self.types {
                    s.push('.');
                    s.push_str(t.as_str());
                }
            }
            s.push('.');
            s.push_str(m);
        }
        if self.type_pos >= self.modifiers.len() {
            for t in &self.types {
                s.push('.');
                s.push_str(t.as_str());
            }
        }
        s
    }
}

#[cfg(test)]
mod tests;
