//! The host code as the interpreter reads it: an owned tree lowered from clang's AST
//! ([`crate::clang::lower`]), with every expression's C type as clang computed it (implicit
//! conversions are explicit [`ExprKind::Cast`] nodes), so that the interpreter needs no C
//! semantics of its own beyond "compute, then convert to the node's type".

use std::sync::Arc;

/// Where a node is in the program's sources (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A declaration's identity across the translation units of a program: clang's USR (unified
/// symbol resolution) string, interned. Two units that declare the same external function
/// give it the same key; a local variable's key is unique to its declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeclKey(pub u32);

/// C types, as far as the interpreter tells them apart.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Void,
    Bool,
    /// Integers and enums, by width in bits and signedness.
    Int {
        bits: u8,
        signed: bool,
    },
    /// `float` (32), `double` (64), `long double` (treated as 64).
    Float {
        bits: u8,
    },
    Pointer(Box<Ty>),
    /// A fixed-size array (`int s[4]`), or one of unknown size.
    Array(Box<Ty>, Option<u64>),
    /// A struct, class or union by its qualified name (`dim3`, `std::vector<int>`), with the
    /// size clang gives it.
    Record {
        name: Arc<str>,
        size: Option<u64>,
    },
    /// A function or function pointer.
    Function,
    /// What the interpreter need not tell apart (references are seen through).
    Other(Arc<str>),
}

impl Ty {
    /// Bytes a value of the type occupies, where the type says (a record's as clang lays it
    /// out, an array's elements times their size).
    pub fn bytes(&self) -> Option<u64> {
        match self {
            Ty::Bool => Some(1),
            Ty::Int { bits, .. } | Ty::Float { bits } => Some(u64::from(*bits) / 8),
            Ty::Pointer(_) => Some(8),
            Ty::Array(elem, Some(n)) => elem.bytes().map(|b| b * n),
            Ty::Record { size, .. } => *size,
            Ty::Void | Ty::Array(_, None) | Ty::Function | Ty::Other(_) => None,
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Int { .. } | Ty::Bool)
    }
    pub fn record_name(&self) -> Option<&str> {
        match self {
            Ty::Record { name, .. } => Some(name),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Xor,
    Or,
    LAnd,
    LOr,
    Comma,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    PostInc,
    PostDec,
    PreInc,
    PreDec,
    AddrOf,
    Deref,
    Plus,
    Minus,
    Not,
    LNot,
}

/// A kernel as the host code names it: the declaration clang resolved (namespace, overload,
/// template instance).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KernelRef {
    /// The device-side symbol (`_ZN4fp324axpyEPfi`), as in the PTX.
    pub mangled: String,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i128),
    Float(f64),
    Str(Arc<str>),
    Null,
    /// A variable or parameter.
    Var(DeclKey, Arc<str>),
    /// A function named as a value (`(void*)kernel`, a callback); a kernel carries its symbol.
    Function {
        key: DeclKey,
        name: Arc<str>,
        kernel: Option<KernelRef>,
    },
    /// A value clang's constant evaluator computed (enum constants, `sizeof`, `constexpr`).
    Const(ConstValue),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a = b` and `a op= b` (op `None` for plain assignment).
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A conversion to the node's type (implicit or written).
    Cast(Box<Expr>),
    Call(Call),
    /// `kernel<<<config…>>>(args…)`.
    Launch {
        kernel: KernelRef,
        config: Vec<Expr>,
        args: Vec<Expr>,
        params: Vec<Arc<str>>,
    },
    /// `kernel<<<config…>>>(args…)` where `kernel` is a value (a function pointer parameter
    /// of a generic launcher): which kernel is known when the program runs.
    LaunchVia {
        callee: Box<Expr>,
        config: Vec<Expr>,
        args: Vec<Expr>,
    },
    Member {
        base: Box<Expr>,
        field: Arc<str>,
        arrow: bool,
    },
    /// A member of `this` named without it (inside a method).
    ThisMember(Arc<str>),
    This,
    Index(Box<Expr>, Box<Expr>),
    /// `{a, b, c}`: a record's fields in declaration order where `fields` names them, else
    /// an array's elements.
    InitList {
        fields: Option<Vec<Arc<str>>>,
        elems: Vec<Expr>,
    },
    Lambda(Arc<Function>),
    /// `new T(args)` or `new T[n]`: the node's type is the pointer.
    New {
        array_len: Option<Box<Expr>>,
        init: Option<Box<Expr>>,
    },
    /// A default argument, taken from the callee's declaration.
    DefaultArg,
    /// What the lowering could not read, with what it was.
    Unsupported(Arc<str>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Int(i128),
    Float(f64),
}

#[derive(Clone, Debug)]
pub struct Call {
    pub callee: Callee,
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub enum Callee {
    /// A function clang resolved: its key (for a definition in any unit), its qualified name
    /// (for the library models), and whether it is declared in a system header.
    Direct {
        key: DeclKey,
        name: Arc<str>,
        system: bool,
        /// Names of the declared parameters (for default arguments and messages).
        params: Vec<Param>,
    },
    /// A method called on an object: `obj.f(…)`, `p->f(…)`, or an overloaded operator whose
    /// first operand is the object.
    Method {
        object: Box<Expr>,
        key: DeclKey,
        name: Arc<str>,
        system: bool,
        params: Vec<Param>,
        /// A `const` method, which does not change its object.
        is_const: bool,
    },
    /// A constructor making a value of the node's type.
    Construct {
        key: DeclKey,
        name: Arc<str>,
        system: bool,
        params: Vec<Param>,
    },
    /// A call through a value: a function pointer, a lambda, a functor, or a call in a
    /// template that names a function clang resolves only per instance. The parameters are
    /// what the arguments say of them, where they say it (a pointer to `const` is read only).
    Value(Box<Expr>, Vec<Param>),
}

#[derive(Clone, Debug)]
pub struct Param {
    pub key: DeclKey,
    pub name: Arc<str>,
    pub ty: Ty,
    /// A C++ reference parameter: the argument's variable itself, not a copy.
    pub by_ref: bool,
    /// A reference or pointer to non-`const`, through which the callee may write the
    /// argument (a reference) or what it points at (a pointer).
    pub writes: bool,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub key: DeclKey,
    pub name: Arc<str>,
    pub ty: Ty,
    pub init: Option<Expr>,
    pub is_static: bool,
    /// A C++ reference (`int& n = cfg.n;`): another name for its initialiser's variable.
    pub by_ref: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Block(Vec<Stmt>),
    Decl(Vec<VarDecl>),
    Expr(Expr),
    If {
        init: Option<Box<Stmt>>,
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        inc: Option<Expr>,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    RangeFor {
        var: VarDecl,
        range: Expr,
        body: Box<Stmt>,
    },
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    Case {
        value: Expr,
        body: Box<Stmt>,
    },
    Default(Box<Stmt>),
    Return(Option<Expr>),
    Break,
    Continue,
    /// `goto name;`
    Goto(Arc<str>),
    /// `name: statement`
    Label(Arc<str>, Box<Stmt>),
    /// `try { body } catch (T e) { handler } …`: each handler with the record type it
    /// catches (`None`: `catch (...)`; an empty name: a type that is not a record).
    Try {
        body: Box<Stmt>,
        handlers: Vec<(Option<Arc<str>>, Stmt)>,
    },
    Null,
    Unsupported(Arc<str>),
}

/// A function with a body the interpreter can run.
#[derive(Debug)]
pub struct Function {
    pub key: DeclKey,
    pub name: Arc<str>,
    pub params: Vec<Param>,
    pub body: Stmt,
    /// A constructor's member initialisers (`: x(vx), y(vy)`), by field name.
    pub member_inits: Vec<(Arc<str>, Expr)>,
    /// A constructor's base-class (or delegated) constructor calls (`: Base(256)`), run
    /// before the members are initialised.
    pub base_inits: Vec<Expr>,
    /// Whether it is a method (reads `this`).
    pub is_method: bool,
    /// A lambda's captures (empty for other functions).
    pub captures: Captures,
    /// Whether it returns a reference (`int& n() { return m_n; }`).
    pub returns_ref: bool,
    pub span: Span,
}

/// How a lambda captures the variables of the function it is made in.
#[derive(Clone, Debug, Default)]
pub struct Captures {
    /// `[=]`: the variables the body reads are copied when the lambda is made; otherwise
    /// (`[&]`, or none named) they are the enclosing function's own.
    pub default_copy: bool,
    /// The captures the list names, in order.
    pub list: Vec<Capture>,
}

/// A capture the list names: `n` (a copy), `&n`, or `bs = block * 2` (a variable of the
/// lambda's own, initialised when it is made).
#[derive(Clone, Debug)]
pub struct Capture {
    /// The captured variable, or the init capture's own.
    pub key: DeclKey,
    pub by_ref: bool,
    pub init: Option<Expr>,
}
