//! The PTX module IR: one generic shape for every directive and instruction, so analyses match on
//! opcode families instead of a closed instruction enum that would lag behind each PTX ISA release.
//!
//! Everything carries a [`Span`]; instructions also carry the source location of the last `.loc`
//! before them. Equality compares spans too; use [`Module::without_spans`] to compare modules
//! that came from different texts (the printer round trip).

use serde::Serialize;
use std::sync::Arc;

/// A byte range in the PTX text plus the 1-based line and column of its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub col: u32,
}

impl Span {
    /// The span covering `self` and `other` (line/col of `self`).
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start,
            end: other.end.max(self.end),
            line: self.line,
            col: self.col,
        }
    }
}

/// `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

/// Linkage / visibility of a module-level symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

impl Linkage {
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Visible => "visible",
            Linkage::Extern => "extern",
            Linkage::Weak => "weak",
            Linkage::Common => "common",
        }
    }
    pub fn from_name(s: &str) -> Option<Linkage> {
        Some(match s {
            "visible" => Linkage::Visible,
            "extern" => Linkage::Extern,
            "weak" => Linkage::Weak,
            "common" => Linkage::Common,
            _ => return None,
        })
    }
}

/// A PTX state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
}

impl StateSpace {
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Sreg => "sreg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::Shared => "shared",
            StateSpace::Tex => "tex",
        }
    }
    /// Parses a state-space name as written after the dot, including qualified forms
    /// (`shared::cta`, `shared::cluster`, `param::entry`, `param::func`).
    pub fn from_name(s: &str) -> Option<StateSpace> {
        let base = s.split("::").next().unwrap_or(s);
        Some(match base {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }
    /// The matching memory space of the shared feature vocabulary.
    pub fn to_stats(self) -> Option<crate::stats::Space> {
        use crate::stats::Space;
        Some(match self {
            StateSpace::Global => Space::Global,
            StateSpace::Shared => Space::Shared,
            StateSpace::Local => Space::Local,
            StateSpace::Const => Space::Const,
            StateSpace::Param => Space::Param,
            _ => return None,
        })
    }
}

macro_rules! ptx_types {
    ($($v:ident = $s:literal, $bits:expr;)*) => {
        /// A PTX fundamental (or opaque) type, as written after a dot.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum PtxType { $($v,)* }

        impl PtxType {
            /// The name without the dot, e.g. `f32`.
            pub fn as_str(self) -> &'static str {
                match self { $(PtxType::$v => $s,)* }
            }
            /// Parses a type name without the dot; `None` for anything that is not a type.
            pub fn from_name(s: &str) -> Option<PtxType> {
                match s { $($s => Some(PtxType::$v),)* _ => None }
            }
            /// Width in bits (packed types count the whole pack; opaque types 64; pred 1).
            pub fn bits(self) -> u32 {
                match self { $(PtxType::$v => $bits,)* }
            }
        }
    };
}

ptx_types! {
    Pred = "pred", 1;
    B1 = "b1", 1;
    B8 = "b8", 8;
    B16 = "b16", 16;
    B32 = "b32", 32;
    B64 = "b64", 64;
    B128 = "b128", 128;
    U4 = "u4", 4;
    U8 = "u8", 8;
    U16 = "u16", 16;
    U32 = "u32", 32;
    U64 = "u64", 64;
    S4 = "s4", 4;
    S8 = "s8", 8;
    S16 = "s16", 16;
    S32 = "s32", 32;
    S64 = "s64", 64;
    U16x2 = "u16x2", 32;
    S16x2 = "s16x2", 32;
    F16 = "f16", 16;
    F16x2 = "f16x2", 32;
    Bf16 = "bf16", 16;
    Bf16x2 = "bf16x2", 32;
    Tf32 = "tf32", 32;
    F32 = "f32", 32;
    F64 = "f64", 64;
    E4m3 = "e4m3", 8;
    E5m2 = "e5m2", 8;
    E4m3x2 = "e4m3x2", 16;
    E5m2x2 = "e5m2x2", 16;
    E4m3x4 = "e4m3x4", 32;
    E5m2x4 = "e5m2x4", 32;
    E2m1 = "e2m1", 4;
    E2m1x2 = "e2m1x2", 8;
    E2m1x4 = "e2m1x4", 16;
    E2m3 = "e2m3", 6;
    E3m2 = "e3m2", 6;
    E2m3x2 = "e2m3x2", 16;
    E3m2x2 = "e3m2x2", 16;
    Ue8m0 = "ue8m0", 8;
    Ue8m0x2 = "ue8m0x2", 16;
    Texref = "texref", 64;
    Samplerref = "samplerref", 64;
    Surfref = "surfref", 64;
}

impl PtxType {
    /// The element type of the shared feature vocabulary (`None` for pred and opaque types).
    pub fn to_stats(self) -> Option<crate::stats::DType> {
        use crate::stats::DType;
        Some(match self {
            PtxType::F16 | PtxType::F16x2 => DType::F16,
            PtxType::Bf16 | PtxType::Bf16x2 => DType::Bf16,
            PtxType::F32 | PtxType::Tf32 => DType::F32,
            PtxType::F64 => DType::F64,
            PtxType::S8 | PtxType::S4 => DType::S8,
            PtxType::U8 | PtxType::U4 => DType::U8,
            PtxType::S16 | PtxType::S16x2 => DType::S16,
            PtxType::U16 | PtxType::U16x2 => DType::U16,
            PtxType::S32 => DType::S32,
            PtxType::U32 => DType::U32,
            PtxType::S64 => DType::S64,
            PtxType::U64 => DType::U64,
            PtxType::B1
            | PtxType::B8
            | PtxType::B16
            | PtxType::B32
            | PtxType::B64
            | PtxType::B128 => DType::Bits,
            PtxType::E4m3
            | PtxType::E5m2
            | PtxType::E4m3x2
            | PtxType::E5m2x2
            | PtxType::E4m3x4
            | PtxType::E5m2x4
            | PtxType::E2m1
            | PtxType::E2m1x2
            | PtxType::E2m1x4
            | PtxType::E2m3
            | PtxType::E3m2
            | PtxType::E2m3x2
            | PtxType::E3m2x2
            | PtxType::Ue8m0
            | PtxType::Ue8m0x2 => DType::Bits,
            PtxType::Pred | PtxType::Texref | PtxType::Samplerref | PtxType::Surfref => {
                return None
            }
        })
    }
    pub fn is_float(self) -> bool {
        matches!(
            self,
            PtxType::F16
                | PtxType::F16x2
                | PtxType::Bf16
                | PtxType::Bf16x2
                | PtxType::Tf32
                | PtxType::F32
                | PtxType::F64
        )
    }
}

/// A whole PTX module. `order` records how the module-level items interleave in the text so the
/// printer can reproduce declaration-before-use order; analyses read the typed vectors.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Module {
    pub version: Option<Version>,
    /// `.target` entries, e.g. `["sm_80"]` or `["sm_90a", "debug"]`.
    pub target: Vec<String>,
    pub address_size: Option<u32>,
    /// Module-level variables (`.global`, `.const`, `.shared`, `.extern .shared` …).
    pub globals: Vec<VarDecl>,
    /// Kernels (`.entry`) and device functions (`.func`), definitions and declarations.
    pub functions: Vec<Function>,
    /// The `.file` table.
    pub files: Vec<FileDecl>,
    /// Other module-level directives kept as text (`.alias`, `.pragma`, `.section` …).
    pub directives: Vec<Directive>,
    /// Text order of the items above.
    pub order: Vec<ItemRef>,
}

/// Index of one module-level item in its vector of [`Module`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "index")]
pub enum ItemRef {
    Global(usize),
    Function(usize),
    File(usize),
    Directive(usize),
}

/// `.file N "name" [, timestamp, size]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileDecl {
    pub index: u32,
    pub name: String,
    /// Trailing `, timestamp, size` as written (without the leading comma), if any.
    pub extra: Option<String>,
    pub span: Span,
}

/// A directive kept as text: `.{name} {text}` (`;` terminated unless `braced`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Directive {
    /// Name without the dot, e.g. `alias`, `section`, `callprototype`.
    pub name: String,
    /// Arguments as written, trimmed. For `.section` the section name.
    pub text: String,
    /// For `.section NAME { … }`: the text between the braces, trimmed.
    pub braced: Option<String>,
    pub span: Span,
}

/// A kernel (`.entry`) or device function (`.func`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    pub name: String,
    pub is_entry: bool,
    pub linkage: Option<Linkage>,
    /// `.func (.param .b32 retval) name(...)`: the return parameters.
    pub ret_params: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// Performance tuning and attribute directives between the header and the body
    /// (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`, `.pragma` …), in order.
    pub perf: Vec<PerfDirective>,
    /// True for a prototype without a body (`.extern .func f(...);`).
    pub is_declaration: bool,
    pub body: Vec<Statement>,
    pub span: Span,
}

/// A directive between a function's header and its body.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfDirective {
    /// Name without the dot, e.g. `maxntid`.
    pub name: String,
    /// Numeric arguments (`.maxntid 256, 1, 1` gives `[256, 1, 1]`).
    pub values: Vec<u64>,
    /// String arguments (`.pragma "nounroll"`).
    pub strings: Vec<String>,
    pub span: Span,
}

/// A variable, parameter or register declaration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VarDecl {
    pub linkage: Option<Linkage>,
    pub space: StateSpace,
    pub align: Option<u32>,
    /// `.v2` / `.v4` / `.v8`.
    pub vector: Option<u32>,
    pub ty: PtxType,
    /// `.ptr [.space] [.align N]` on kernel parameters.
    pub ptr: Option<PtrAttr>,
    /// What `.attribute(…)` says of a global (`.managed` for a `__managed__` variable): where
    /// it lives, nothing a thread executes; kept so that printing gives the same module.
    pub attribute: Option<String>,
    pub name: String,
    /// `%r<35>`: 35 registers `%r0` … `%r34`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for an unsized `[]`.
    pub array: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

impl VarDecl {
    /// Size in bytes of the whole variable (array and vector included); `None` for unsized arrays.
    pub fn size_bytes(&self) -> Option<u64> {
        let elem = (self.ty.bits() as u64).div_ceil(8) * self.vector.unwrap_or(1) as u64;
        let mut n = elem;
        for d in &self.array {
            n = n.checked_mul((*d)?)?;
        }
        Some(n)
    }
    /// Number of registers declared (the `<N>` range, else 1).
    pub fn count(&self) -> u32 {
        self.range.unwrap_or(1)
    }
}

/// The `.ptr` attribute of a kernel parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// Initializer of a module-level variable.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Initializer {
    Value(Operand),
    /// `generic(sym)`.
    Generic(String),
    List(Vec<Initializer>),
}

/// One statement of a function body.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "stmt")]
pub enum Statement {
    Inst(Inst),
    Label(Label),
    /// `.reg`, `.shared`, `.local`, `.param` … declared inside a body.
    Decl(VarDecl),
    Loc(Loc),
    /// `.pragma "a", "b";`
    Pragma(Pragma),
    /// Any other directive, kept as text (e.g. `.callprototype`).
    Directive(Directive),
    /// A nested `{ … }` scope (call sequences).
    Block(Block),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Label {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pragma {
    pub strings: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    pub body: Vec<Statement>,
    pub span: Span,
}

/// `.loc file line col [, function_name …, inlined_at …]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    /// Anything after the column, as written (without the leading comma).
    pub extra: Option<String>,
    pub span: Span,
}

/// Source position of an instruction, from the last `.loc` before it and the `.file` table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceLoc {
    pub file_index: u32,
    /// The `.file` entry's name; `None` when the table has no such index.
    #[serde(serialize_with = "ser_opt_arc")]
    pub file_name: Option<Arc<str>>,
    pub line: u32,
    pub col: u32,
}

fn ser_opt_arc<S: serde::Serializer>(v: &Option<Arc<str>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(a) => s.serialize_some(&**a),
        None => s.serialize_none(),
    }
}

/// `@%p` or `@!%p`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Guard {
    pub negated: bool,
    pub reg: String,
}

/// One instruction in generic form: `[@guard] opcode{.modifier}{.type} operands;`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inst {
    pub pred: Option<Guard>,
    /// The base opcode, e.g. `ld`, `fma`, `bar`.
    pub opcode: String,
    /// Non-type suffixes in order, without dots (`["global", "nc"]`, `["rn"]`, `["sync", "aligned"]`).
    pub modifiers: Vec<String>,
    /// Type suffixes in order (`cvt.rn.f32.s32` gives `[F32, S32]`).
    pub types: Vec<PtxType>,
    /// Index into `modifiers` before which the types are written (`modifiers.len()` when the
    /// types come last, as in nearly every instruction; `prmt.b32.f4e` has 0).
    pub type_pos: usize,
    pub operands: Vec<Operand>,
    pub span: Span,
    pub loc: Option<SourceLoc>,
}

/// A special (read-only, predefined) register.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SReg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Gridid,
    Clock,
    Clock64,
    Globaltimer,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    DynamicSmemSize,
    TotalSmemSize,
    /// Any other `%name[.suffix]` the ISA predefines, as written (e.g. `%clusterid.x`, `%envreg3`).
    Other(String),
}

/// The cluster registers, by name without `%` or axis: a block's place in its cluster, or the
/// cluster's shape (`%cluster_ctarank`, `%clusterid.x` …). The launch sets them, as it sets
/// `%ctaid`.
pub const CLUSTER_REGISTERS: [&str; 7] = [
    "clusterid",
    "nclusterid",
    "cluster_ctaid",
    "cluster_nctaid",
    "cluster_ctarank",
    "cluster_nctarank",
    "is_explicit_cluster",
];

impl SReg {
    /// A cluster register as (name, axis): `%clusterid.x` gives ("clusterid", "x"),
    /// `%cluster_ctarank` ("cluster_ctarank", "").
    pub fn cluster_register(&self) -> Option<(&str, &str)> {
        let SReg::Other(written) = self else {
            return None;
        };
        let written = written.trim_start_matches('%');
        let (name, axis) = written.split_once('.').unwrap_or((written, ""));
        CLUSTER_REGISTERS.contains(&name).then_some((name, axis))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    pub fn as_str(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }
    /// 0, 1, 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Base of an address operand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddrBase {
    Reg(String),
    Symbol(String),
    /// `[imm]`: an absolute address (the offset holds it).
    None,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operand {
    Reg(String),
    SpecialReg(SReg),
    /// Integer immediate; hex literals above `i64::MAX` wrap to their two's complement.
    Imm(i64),
    /// `0fXXXXXXXX`: f32 bits.
    ImmF32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: f64 bits.
    ImmF64(u64),
    /// Decimal floating literal (`1.5`), as f64 bits.
    ImmFloat(u64),
    /// `[base+offset]`.
    Addr {
        base: AddrBase,
        offset: i64,
    },
    /// `[a, b, …]` that is not a plain address (texture/surface operands).
    AddrList(Vec<Operand>),
    /// `{a, b, …}`.
    Vector(Vec<Operand>),
    /// `(a, b, …)`: call return/argument lists.
    List(Vec<Operand>),
    /// `a|b`: the two destinations of `setp`/`shfl`.
    Pair(Box<Operand>, Box<Operand>),
    /// `!p`: a negated predicate source.
    Not(Box<Operand>),
    /// `_`: the sink.
    Sink,
    Symbol(String),
    /// `sym+offset` outside brackets.
    SymOffset {
        name: String,
        offset: i64,
    },
    /// A branch target.
    Label(String),
}

impl Operand {
    /// The register name when this is a plain register.
    pub fn reg(&self) -> Option<&str> {
        match self {
            Operand::Reg(r) => Some(r),
            _ => None,
        }
    }

    /// The operands nested in this one, depth first: the elements of vectors, lists and address
    /// lists, both halves of a pair, a negated predicate; any other operand is its own leaf.
    pub fn leaves(&self) -> Vec<&Operand> {
        fn walk<'a>(o: &'a Operand, out: &mut Vec<&'a Operand>) {
            match o {
                Operand::AddrList(v) | Operand::Vector(v) | Operand::List(v) => {
                    v.iter().for_each(|o| walk(o, out))
                }
                Operand::Pair(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Operand::Not(a) => walk(a, out),
                leaf => out.push(leaf),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// Calls `f` on every leaf of [`Operand::leaves`], mutably.
    pub fn for_each_leaf_mut(&mut self, f: &mut dyn FnMut(&mut Operand)) {
        match self {
            Operand::AddrList(v) | Operand::Vector(v) | Operand::List(v) => {
                v.iter_mut().for_each(|o| o.for_each_leaf_mut(f))
            }
            Operand::Pair(a, b) => {
                a.for_each_leaf_mut(f);
                b.for_each_leaf_mut(f);
            }
            Operand::Not(a) => a.for_each_leaf_mut(f),
            leaf => f(leaf),
        }
    }

    /// Adds the registers this operand reads, as a source: itself, an address's base register,
    /// the elements of vectors, lists and pairs, a negated predicate.
    pub fn collect_reads(&self, out: &mut std::collections::BTreeSet<String>) {
        for leaf in self.leaves() {
            if let Operand::Reg(r)
            | Operand::Addr {
                base: AddrBase::Reg(r),
                ..
            } = leaf
            {
                out.insert(r.clone());
            }
        }
    }
}
