//! clang's AST (through libclang cursors) lowered to the interpreter's tree ([`crate::ast`]).
//!
//! Only host code is lowered: functions reached from the unit's own (non-system) top-level
//! definitions, on demand, one function at a time from a worklist (a template instance when a
//! call names it), never device code (`__global__`/`__device__` bodies). Where libclang does
//! not expose a statement's parts (`for`, `if`), tokens between the children tell them apart.
//! Expressions nest at most [`MAX_DEPTH`] deep: deeper input is read as unsupported, not a
//! stack overflow.

use super::{Cursor, Evaluated, Type, Unit};
use crate::ast::*;
use clang_sys::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// How deep expressions and statements are followed.
const MAX_DEPTH: usize = 400;

/// A program's host code as lowered so far, across its translation units.
#[derive(Default)]
pub struct ProgramAst {
    pub functions: HashMap<DeclKey, Arc<Function>>,
    /// Globals and static locals, by declaration.
    pub globals: HashMap<DeclKey, VarDecl>,
    /// The program's own record types' members, in order, by the type's name.
    pub layouts: HashMap<Arc<str>, Arc<Vec<Field>>>,
    /// The members of library record types a kernel takes by value (`std::pair`), and of
    /// library records made of scalars alone (`double3`), by the type's name. The interpreter
    /// models library types itself, so they stay out of `layouts`; a kernel still reads their
    /// fields by offset, and host data copied to the device is laid out with them.
    pub param_layouts: HashMap<Arc<str>, Arc<Vec<Field>>>,
    /// The program's variables of namespace scope, in declaration order: C++ initialises
    /// them before main (across units in no order the language fixes).
    pub global_order: Vec<DeclKey>,
    /// Field names of the records the code builds by aggregate initialisation, in order.
    pub records: HashMap<Arc<str>, Vec<Arc<str>>>,
    /// Default member initialisers (`int n = 4096;`) by record type name, in declaration
    /// order: what a constructor or an aggregate initialisation leaves to them.
    pub record_defaults: HashMap<Arc<str>, Vec<(Arc<str>, Expr)>>,
    /// A record type's direct base classes, by name.
    pub bases: HashMap<Arc<str>, Vec<Arc<str>>>,
    /// The methods overriding a virtual method: the class each is in, and the method.
    pub overrides: HashMap<DeclKey, Vec<(Arc<str>, DeclKey)>>,
    /// Top-level host function definitions of the program's own files, in source order.
    pub roots: Vec<DeclKey>,
    /// Functions some lowered function calls.
    pub called: HashSet<DeclKey>,
    /// Kernels the host code names, by device symbol.
    pub kernels: HashMap<String, KernelDecl>,
    /// Every launch the code writes, in source order: what is reported when it is never reached.
    pub sites: Vec<StaticSite>,
    /// Globals the program's code defines (with or without an initialiser), and those it
    /// only declares `extern`: one of the second kind alone is defined outside the code read
    /// (a library's `extern char *optarg;`), not zero.
    pub defined_globals: HashSet<DeclKey>,
    pub extern_globals: HashSet<DeclKey>,
    usrs: HashMap<String, DeclKey>,
    files: HashMap<String, Arc<str>>,
}

/// A member of a record type (its initialiser, if any, is in `record_defaults`).
#[derive(Clone, Debug)]
pub struct Field {
    pub name: Arc<str>,
    pub ty: Ty,
    /// Bytes from the start of the record, as clang lays it out.
    pub offset: Option<u64>,
}

/// A kernel declaration as the host sees it.
#[derive(Clone, Debug)]
pub struct KernelDecl {
    pub mangled: String,
    /// Demangled with parameter types: `fp32::axpy(float, float*, int)`.
    pub signature: String,
    /// The name alone, as profilers list it: `axpy`.
    pub name: String,
    pub params: Vec<Arc<str>>,
    pub span: Span,
}

/// A launch written in the host code.
#[derive(Clone, Debug)]
pub struct StaticSite {
    pub span: Span,
    /// The kernel's symbol where the launch names it statically.
    pub kernel: Option<String>,
    /// The API it goes through (`<<<>>>`, `cudaLaunchKernel`, …).
    pub api: Arc<str>,
    /// The function it is in.
    pub function: Arc<str>,
}

/// Host functions whose calls launch a kernel, for the static inventory of launch sites.
pub const LAUNCH_APIS: &[&str] = &[
    "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
    "clEnqueueNDRangeKernel",
];

impl ProgramAst {
    /// The members of a record type as clang lays them out: the program's own, else a library
    /// record's that was recorded.
    pub fn record_layout(&self, name: &str) -> Option<&Arc<Vec<Field>>> {
        self.layouts
            .get(name)
            .or_else(|| self.param_layouts.get(name))
    }

    pub fn key(&mut self, usr: &str) -> DeclKey {
        let n = self.usrs.len() as u32;
        *self.usrs.entry(usr.to_string()).or_insert(DeclKey(n))
    }

    fn file(&mut self, name: &str) -> Arc<str> {
        self.files
            .entry(name.to_string())
            .or_insert_with(|| Arc::from(name))
            .clone()
    }

    /// Lowers what one unit contributes: its top-level host functions and everything they
    /// reach. `own_file` says which files are the program's (not libraries').
    pub fn add_unit(&mut self, unit: &Unit<'_>, own_file: &dyn Fn(&str) -> bool) {
        let mut l = Lowerer {
            unit,
            prog: self,
            pending: Vec::new(),
            queued: HashSet::new(),
            initialising: HashSet::new(),
            own_file,
            function: Arc::from(""),
            errors: unit
                .diagnostics()
                .into_iter()
                .filter(|d| d.severity >= super::Severity::Error)
                .collect(),
            library_records: HashSet::new(),
        };
        let top = unit.cursor().children();
        let mut roots = Vec::new();
        for c in &top {
            l.collect_top(c, &mut roots, 0);
        }
        while let Some((key, c)) = l.pending.pop() {
            l.lower_function(key, &c);
        }
        for r in roots {
            if !self.roots.contains(&r) {
                self.roots.push(r);
            }
        }
    }
}

struct Lowerer<'a, 'u> {
    unit: &'a Unit<'u>,
    prog: &'a mut ProgramAst,
    pending: Vec<(DeclKey, Cursor<'a>)>,
    queued: HashSet<DeclKey>,
    /// The globals whose initialisers are being lowered.
    initialising: HashSet<DeclKey>,
    own_file: &'a dyn Fn(&str) -> bool,
    /// The function being lowered (what a launch site is in).
    function: Arc<str>,
    /// The unit's compile errors: code around them is missing from the AST.
    errors: Vec<super::Diagnostic>,
    /// Library record types already looked at by [`Lowerer::scalar_library_layout`].
    library_records: HashSet<Arc<str>>,
}

/// Functions with bodies the lowering reads. A destructor is one (its launch sites are listed)
/// though the interpreter does not run it when an object goes out of scope.
fn is_function_kind(k: CXCursorKind) -> bool {
    matches!(
        k,
        CXCursor_FunctionDecl
            | CXCursor_CXXMethod
            | CXCursor_Constructor
            | CXCursor_Destructor
            | CXCursor_ConversionFunction
    )
}

/// The device-side symbol of a kernel from the host stub's mangled name and the kernel's
/// name: `_ZN4fp3219__device_stub__axpyEPfi` is `_ZN4fp324axpyEPfi`. The stub's identifier
/// is found by its length prefix, which the name fixes (a prefix's digits alone are ambiguous
/// after an identifier ending in digits, `fp32`).
pub fn device_symbol(stub: &str, name: &str) -> String {
    const STUB: &str = "__device_stub__";
    let mangled_stub = format!("{}{STUB}{name}", STUB.len() + name.len());
    if let Some(at) = stub.find(&mangled_stub) {
        return format!(
            "{}{}{name}{}",
            &stub[..at],
            name.len(),
            &stub[at + mangled_stub.len()..]
        );
    }
    // `extern "C"`: the stub is the plain name with the prefix.
    stub.replacen(STUB, "", 1)
}

/// The initialiser of `v` that did not compile: a value kerncast cannot know.
fn not_compiled(v: &VarDecl, error: &str) -> Expr {
    Expr {
        kind: ExprKind::Unsupported(Arc::from(format!(
            "an initialiser that does not compile ({error})"
        ))),
        ty: v.ty.clone(),
        span: v.span.clone(),
    }
}

/// A symbol demangled (`fp32::axpy(float*, int)`), and the plain name a profiler lists.
pub fn demangle(symbol: &str) -> (String, String) {
    let signature = cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| symbol.to_string());
    (signature.clone(), plain_name(&signature))
}

/// `void ns::fill<1, float>(int, float*)` → `fill`.
pub fn plain_name(signature: &str) -> String {
    // Cut at the parameter list's `(` (the first at template depth 0), then at template args.
    let mut depth = 0i32;
    let mut end = signature.len();
    for (i, ch) in signature.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let head = &signature[..end];
    let head = match head.find('<') {
        Some(p) => &head[..p],
        None => head,
    };
    let head = head.rsplit(' ').next().unwrap_or(head);
    head.rsplit("::").next().unwrap_or(head).to_string()
}

impl<'a, 'u> Lowerer<'a, 'u> {
    fn span(&mut self, c: &Cursor<'_>) -> Span {
        let loc = c.location();
        Span {
            file: self.prog.file(&loc.file),
            line: loc.line,
            col: loc.col,
        }
    }

    fn decl_key(&mut self, c: &Cursor<'_>) -> DeclKey {
        let usr = c.usr();
        let mut k = if usr.is_empty() {
            let loc = c.location();
            format!("loc:{}:{}:{}", loc.file, loc.offset, c.spelling())
        } else {
            usr
        };
        // The parameters a pack expands to (`Args... args`) share their USR and location:
        // the declaration itself tells them apart.
        if c.kind() == CXCursor_ParmDecl {
            k.push_str(&format!("#{}", c.hash()));
        }
        self.prog.key(&k)
    }

    fn is_host_function(c: &Cursor<'_>) -> bool {
        let global = c.has_attr(CXCursor_CUDAGlobalAttr);
        let device = c.has_attr(CXCursor_CUDADeviceAttr);
        let host = c.has_attr(CXCursor_CUDAHostAttr);
        !global && (!device || host)
    }

    fn collect_top(&mut self, c: &Cursor<'a>, roots: &mut Vec<DeclKey>, depth: usize) {
        if depth > 8 || c.in_system_header() || !(self.own_file)(&c.location().file) {
            return;
        }
        if matches!(c.kind(), CXCursor_StructDecl | CXCursor_ClassDecl) {
            self.record_bases(c);
        }
        match c.kind() {
            CXCursor_Namespace | CXCursor_LinkageSpec | CXCursor_StructDecl
            | CXCursor_ClassDecl => {
                for ch in c.children() {
                    self.collect_top(&ch, roots, depth + 1);
                }
            }
            k if is_function_kind(k) => {
                let has_body = c
                    .children()
                    .iter()
                    .any(|ch| ch.kind() == CXCursor_CompoundStmt);
                if has_body && Self::is_host_function(c) {
                    let key = self.decl_key(c);
                    roots.push(key);
                    self.queue(key, *c);
                }
            }
            // A host variable of namespace scope: initialised before main, in this order.
            CXCursor_VarDecl => {
                let device = c.has_attr(CXCursor_CUDADeviceAttr)
                    || c.has_attr(CXCursor_CUDAConstantAttr)
                    || c.has_attr(CXCursor_CUDASharedAttr);
                if !device && c.has_global_storage() {
                    let key = self.decl_key(c);
                    self.global(c, key);
                    if !self.prog.global_order.contains(&key) {
                        self.prog.global_order.push(key);
                    }
                }
            }
            _ => {}
        }
    }

    fn queue(&mut self, key: DeclKey, c: Cursor<'a>) {
        if self.prog.functions.contains_key(&key) || !self.queued.insert(key) {
            return;
        }
        self.pending.push((key, c));
    }

    /// Queues the definition of a function a call names, when this unit has it and it is the
    /// program's own code (library functions are modelled, not interpreted).
    fn reach(&mut self, decl: &Cursor<'_>) -> DeclKey {
        let key = self.decl_key(decl);
        self.prog.called.insert(key);
        if let Some(def) = decl.definition() {
            if is_function_kind(def.kind())
                && !def.in_system_header()
                && Self::is_host_function(&def)
            {
                // SAFETY of the lifetime: cursors of this unit live as long as the unit.
                let def: Cursor<'a> = Cursor::new(def.raw);
                self.queue(key, def);
            }
        }
        key
    }

    fn lower_function(&mut self, key: DeclKey, c: &Cursor<'_>) {
        // A defaulted copy or move has an empty body in libclang (the member-wise copy is
        // implicit): the interpreter copies the value itself, which running the empty body
        // would lose.
        if c.is_defaulted_copy_or_move() {
            return;
        }
        let span = self.span(c);
        let name: Arc<str> = Arc::from(c.qualified_name());
        self.function = name.clone();
        let params = self.params_of(c);
        let children = c.children();
        let mut member_inits = Vec::new();
        let mut base_inits = Vec::new();
        let mut body = None;
        let mut i = 0;
        while i < children.len() {
            let ch = &children[i];
            match ch.kind() {
                CXCursor_MemberRef => {
                    if let Some(init) = children.get(i + 1) {
                        let e = self.expr(init, 0);
                        member_inits.push((Arc::from(ch.spelling()), e));
                        i += 1;
                    }
                }
                // `: Base(256)` in a constructor: the base class named, then its constructor
                // call.
                CXCursor_TypeRef | CXCursor_TemplateRef if c.kind() == CXCursor_Constructor => {
                    if let Some(init) = children.get(i + 1).filter(|x| is_expr_kind(x.kind())) {
                        base_inits.push(self.expr(init, 0));
                        i += 1;
                    }
                }
                CXCursor_CompoundStmt => body = Some(self.stmt(ch, 0)),
                _ => {}
            }
            i += 1;
        }
        let Some(body) = body else {
            return;
        };
        let is_method =
            matches!(c.kind(), CXCursor_CXXMethod | CXCursor_Constructor) && !c.is_static_method();
        // A virtual method's overrides, for calls through a base to run the object's own.
        if c.kind() == CXCursor_CXXMethod {
            if let Some(class) = c.semantic_parent() {
                self.record_bases(&class);
                if let Ty::Record { name: cls, .. } = self.ty(&class.ty()) {
                    for o in c.overridden() {
                        let base = self.decl_key(&o);
                        let list = self.prog.overrides.entry(base).or_default();
                        if !list.contains(&(cls.clone(), key)) {
                            list.push((cls.clone(), key));
                        }
                    }
                }
            }
        }
        self.prog.functions.insert(
            key,
            Arc::new(Function {
                key,
                name,
                params,
                body,
                member_inits,
                base_inits,
                is_method,
                captures: Captures::default(),
                returns_ref: is_reference(&c.result_type()),
                span,
            }),
        );
    }

    fn params_of(&mut self, f: &Cursor<'_>) -> Vec<Param> {
        let decls = f.arguments().unwrap_or_else(|| {
            f.children()
                .into_iter()
                .filter(|c| c.kind() == CXCursor_ParmDecl)
                .collect()
        });
        decls
            .iter()
            .map(|p| {
                let default = p
                    .children()
                    .into_iter()
                    .rfind(|c| is_expr_kind(c.kind()))
                    .map(|d| self.expr(&d, 0));
                Param {
                    key: self.decl_key(p),
                    name: Arc::from(p.spelling()),
                    ty: self.ty(&p.ty()),
                    by_ref: is_reference(&p.ty()),
                    writes: writes_through(&p.ty()),
                    default,
                }
            })
            .collect()
    }

    fn ty(&mut self, t: &Type<'_>) -> Ty {
        self.ty_depth(t, 0)
    }

    fn ty_depth(&mut self, t: &Type<'_>, depth: usize) -> Ty {
        if depth > 16 {
            return Ty::Other(Arc::from("deeply nested type"));
        }
        let c = t.canonical();
        match c.kind() {
            CXType_Void => Ty::Void,
            CXType_Bool => Ty::Bool,
            CXType_Char_U | CXType_UChar | CXType_UShort | CXType_UInt | CXType_ULong
            | CXType_ULongLong | CXType_UInt128 | CXType_Char16 | CXType_Char32 => Ty::Int {
                bits: (c.size_of().unwrap_or(4) * 8).min(128) as u8,
                signed: false,
            },
            CXType_Char_S | CXType_SChar | CXType_WChar | CXType_Short | CXType_Int
            | CXType_Long | CXType_LongLong | CXType_Int128 => Ty::Int {
                bits: (c.size_of().unwrap_or(4) * 8).min(128) as u8,
                signed: true,
            },
            CXType_Float | CXType_Half | CXType_Float16 | CXType_BFloat16 => Ty::Float { bits: 32 },
            CXType_Double | CXType_LongDouble | CXType_Float128 => Ty::Float { bits: 64 },
            CXType_Enum => match c.enum_integer() {
                Some(i) if i.kind() != CXType_Invalid => self.ty_depth(&i, depth + 1),
                _ => Ty::Int {
                    bits: 32,
                    signed: true,
                },
            },
            CXType_Pointer => Ty::Pointer(Box::new(self.ty_depth(&c.pointee(), depth + 1))),
            CXType_ConstantArray => Ty::Array(
                Box::new(self.ty_depth(&c.element(), depth + 1)),
                c.array_size(),
            ),
            CXType_IncompleteArray | CXType_VariableArray => {
                Ty::Array(Box::new(self.ty_depth(&c.element(), depth + 1)), None)
            }
            CXType_Record => {
                let name: Arc<str> = Arc::from(record_name(&c.spelling()));
                self.layout(&c, &name, depth);
                Ty::Record {
                    name,
                    size: c.size_of(),
                }
            }
            CXType_FunctionProto | CXType_FunctionNoProto => Ty::Function,
            _ => Ty::Other(Arc::from(c.spelling())),
        }
    }

    /// Records the members of a program's own record type, once.
    fn layout(&mut self, t: &Type<'_>, name: &Arc<str>, depth: usize) {
        if self.prog.layouts.contains_key(name) {
            return;
        }
        let Some(decl) = t.declaration() else { return };
        if decl.in_system_header() {
            self.scalar_library_layout(t, name, depth);
            return;
        }
        // Placeholder first: a member of the record's own type (through a pointer) must not
        // recurse.
        self.prog.layouts.insert(name.clone(), Arc::new(Vec::new()));
        let fields = self.members(t, depth);
        self.prog.layouts.insert(name.clone(), Arc::new(fields));
    }

    /// Records the members of a library record made of scalars alone (CUDA's `double3`,
    /// `float4`) in `param_layouts`, once: the host's data copied to the device is laid out
    /// with them. Other library records (`std::vector`) are the interpreter's own models.
    fn scalar_library_layout(&mut self, t: &Type<'_>, name: &Arc<str>, depth: usize) {
        if !self.library_records.insert(name.clone()) || self.prog.param_layouts.contains_key(name)
        {
            return;
        }
        let fields = self.members(t, depth);
        let scalar = |f: &Field| matches!(f.ty, Ty::Bool | Ty::Int { .. } | Ty::Float { .. });
        if !fields.is_empty() && fields.iter().all(scalar) {
            self.prog
                .param_layouts
                .insert(name.clone(), Arc::new(fields));
        }
    }

    /// A record type's members as clang lays them out. The type's fields, not the
    /// declaration's children: an implicit template instance has none of those.
    fn members(&mut self, t: &Type<'_>, depth: usize) -> Vec<Field> {
        t.fields()
            .iter()
            .map(|f| Field {
                name: Arc::from(f.spelling()),
                ty: self.ty_depth(&f.ty(), depth + 1),
                offset: f.field_offset(),
            })
            .collect()
    }

    /// Records the members of a library record type a kernel parameter has, and of the
    /// library records inside it or inside the program's own records, once each.
    fn param_layout(&mut self, t: &Type<'_>, depth: usize) {
        let c = t.canonical();
        if c.kind() != CXType_Record || depth > 8 {
            return;
        }
        let Some(decl) = c.declaration() else { return };
        let name: Arc<str> = Arc::from(record_name(&c.spelling()));
        if !decl.in_system_header() {
            // the program's own record: in `layouts`, with the library records inside it here
            self.ty(&c);
            for f in c.fields() {
                self.param_layout(&f.ty(), depth + 1);
            }
            return;
        }
        if self.prog.param_layouts.contains_key(&name) {
            return;
        }
        self.prog
            .param_layouts
            .insert(name.clone(), Arc::new(Vec::new()));
        for f in c.fields() {
            self.param_layout(&f.ty(), depth + 1);
        }
        let fields = self.members(&c, depth);
        self.prog.param_layouts.insert(name, Arc::new(fields));
    }

    /// Records a class's direct bases, once per class.
    fn record_bases(&mut self, class: &Cursor<'_>) {
        let Ty::Record { name, .. } = self.ty(&class.ty()) else {
            return;
        };
        if self.prog.bases.contains_key(&name) {
            return;
        }
        let mut bases = Vec::new();
        for b in class.children() {
            if b.kind() == CXCursor_CXXBaseSpecifier {
                if let Ty::Record { name: base, .. } = self.ty(&b.ty()) {
                    bases.push(base);
                }
            }
        }
        self.prog.bases.insert(name, bases);
    }

    /// Lowers a class's default member initialisers, once per class (the program's own
    /// classes only: library classes are modelled).
    fn record_defaults(&mut self, class: &Cursor<'_>) {
        if class.in_system_header() {
            return;
        }
        let Ty::Record { name, .. } = self.ty(&class.ty()) else {
            return;
        };
        if self.prog.record_defaults.contains_key(&name) {
            return;
        }
        // Inserted first: an initialiser that names the class must not loop.
        self.prog.record_defaults.insert(name.clone(), Vec::new());
        let mut out = Vec::new();
        for f in class.children() {
            if f.kind() != CXCursor_FieldDecl {
                continue;
            }
            // A field's children also hold array sizes and bit-field widths: its initialiser
            // is the expression after the `=` or `{` that follows its name (past any `[…]`).
            let name_at = f.location().offset;
            let mut init_at = None;
            let mut brackets = 0i32;
            for (t, off) in self.unit.tokens_of(&f) {
                if off <= name_at {
                    continue;
                }
                match t.as_str() {
                    "[" => brackets += 1,
                    "]" => brackets -= 1,
                    "=" | "{" if brackets == 0 => {
                        init_at = Some(off);
                        break;
                    }
                    "," | ";" | ":" if brackets == 0 => break,
                    _ => {}
                }
            }
            let Some(at) = init_at else { continue };
            let init = f
                .children()
                .into_iter()
                .rev()
                .find(|x| is_expr_kind(x.kind()) && x.start_offset() >= at);
            if let Some(init) = init {
                let e = self.expr(&init, 0);
                out.push((Arc::from(f.spelling()), e));
            }
        }
        self.prog.record_defaults.insert(name, out);
    }

    /// The type of a record's field when it has exactly one and it is a fixed-size array.
    fn sole_array_field(&mut self, t: &Type<'_>) -> Option<Ty> {
        match t.canonical().fields().as_slice() {
            [f] if f.ty().canonical().kind() == CXType_ConstantArray => Some(self.ty(&f.ty())),
            _ => None,
        }
    }

    fn record_fields(&mut self, t: &Type<'_>) -> Option<Vec<Arc<str>>> {
        t.canonical().declaration()?;
        // The type's fields, not the declaration's children: an implicit template instance
        // (`Pair<int>{1, 2}`) has none of those.
        let fields: Vec<Arc<str>> = t
            .canonical()
            .fields()
            .iter()
            .map(|c| Arc::from(c.spelling()))
            .collect();
        Some(fields)
    }

    // ---- statements ----

    fn stmt(&mut self, c: &Cursor<'_>, depth: usize) -> Stmt {
        let span = self.span(c);
        let kind = if depth > MAX_DEPTH {
            StmtKind::Unsupported(Arc::from("statements nested too deep"))
        } else {
            self.stmt_kind(c, depth + 1)
        };
        Stmt { kind, span }
    }

    fn boxed(&mut self, c: &Cursor<'_>, depth: usize) -> Box<Stmt> {
        Box::new(self.stmt(c, depth))
    }

    fn stmt_kind(&mut self, c: &Cursor<'_>, depth: usize) -> StmtKind {
        let ch = c.children();
        match c.kind() {
            CXCursor_CompoundStmt => {
                StmtKind::Block(ch.iter().map(|s| self.stmt(s, depth)).collect())
            }
            CXCursor_DeclStmt => {
                // `extern char *optarg;` in a function names the global, it makes no local
                let decls: Vec<&Cursor<'_>> = ch
                    .iter()
                    .filter(|d| d.kind() == CXCursor_VarDecl && !d.is_extern())
                    .collect();
                let (file, _, end) = c.extent();
                let mut out = Vec::new();
                for (i, d) in decls.iter().enumerate() {
                    let mut v = self.var_decl(d, depth);
                    // An initialiser that does not compile (it names what a missing header
                    // declares) is not in the AST, nor in the declarator's extent: look up to
                    // the next declarator.
                    if v.init.is_none() {
                        let (_, from, _) = d.extent();
                        let to = decls.get(i + 1).map_or(end, |n| n.extent().1);
                        if let Some(e) = self.error_between(&file, from, to) {
                            v.init = Some(not_compiled(&v, &e));
                        }
                    }
                    out.push(v);
                }
                StmtKind::Decl(out)
            }
            CXCursor_VarDecl if c.is_extern() => StmtKind::Decl(Vec::new()),
            CXCursor_VarDecl => StmtKind::Decl(vec![self.var_decl(c, depth)]),
            CXCursor_IfStmt => self.if_stmt(c, &ch, depth),
            CXCursor_ForStmt => self.for_stmt(c, &ch, depth),
            CXCursor_WhileStmt if ch.len() >= 2 => {
                let body = self.boxed(&ch[ch.len() - 1], depth);
                StmtKind::While {
                    cond: self.expr(&ch[ch.len() - 2], depth),
                    body,
                }
            }
            CXCursor_DoStmt if ch.len() == 2 => StmtKind::DoWhile {
                body: self.boxed(&ch[0], depth),
                cond: self.expr(&ch[1], depth),
            },
            CXCursor_CXXForRangeStmt if ch.len() >= 3 => {
                let var = ch
                    .iter()
                    .find(|v| v.kind() == CXCursor_VarDecl)
                    .map(|v| self.var_decl_no_init(v));
                match var {
                    Some(var) => StmtKind::RangeFor {
                        var,
                        range: self.expr(&ch[ch.len() - 2], depth),
                        body: self.boxed(&ch[ch.len() - 1], depth),
                    },
                    None => StmtKind::Unsupported(Arc::from("range-for without a variable")),
                }
            }
            CXCursor_SwitchStmt if ch.len() >= 2 => StmtKind::Switch {
                cond: self.expr(&ch[ch.len() - 2], depth),
                body: self.boxed(&ch[ch.len() - 1], depth),
            },
            CXCursor_CaseStmt if ch.len() >= 2 => StmtKind::Case {
                value: self.expr(&ch[0], depth),
                body: self.boxed(&ch[ch.len() - 1], depth),
            },
            CXCursor_DefaultStmt if !ch.is_empty() => {
                StmtKind::Default(self.boxed(&ch[ch.len() - 1], depth))
            }
            CXCursor_ReturnStmt => StmtKind::Return(ch.first().map(|e| self.expr(e, depth))),
            CXCursor_BreakStmt => StmtKind::Break,
            CXCursor_ContinueStmt => StmtKind::Continue,
            CXCursor_NullStmt => StmtKind::Null,
            CXCursor_LabelStmt if !ch.is_empty() => StmtKind::Label(
                Arc::from(c.spelling()),
                self.boxed(&ch[ch.len() - 1], depth),
            ),
            CXCursor_CXXTryStmt if !ch.is_empty() => {
                let handlers = ch[1..]
                    .iter()
                    .filter(|h| h.kind() == CXCursor_CXXCatchStmt)
                    .filter_map(|h| {
                        let parts = h.children();
                        let body = parts.last()?;
                        let caught = parts
                            .iter()
                            .find(|p| p.kind() == CXCursor_VarDecl)
                            .map(|v| match self.ty(&v.ty()) {
                                Ty::Record { name, .. } => name,
                                _ => Arc::from(""),
                            });
                        Some((caught, self.stmt(body, depth)))
                    })
                    .collect();
                StmtKind::Try {
                    body: self.boxed(&ch[0], depth),
                    handlers,
                }
            }
            CXCursor_UnexposedStmt if ch.len() == 1 => self.stmt_kind(&ch[0], depth),
            CXCursor_GotoStmt => match ch.iter().find(|x| x.kind() == CXCursor_LabelRef) {
                Some(l) => StmtKind::Goto(Arc::from(l.spelling())),
                None => StmtKind::Unsupported(Arc::from("goto")),
            },
            CXCursor_AsmStmt | CXCursor_MSAsmStmt => StmtKind::Null,
            k if is_expr_kind(k) => StmtKind::Expr(self.expr(c, depth)),
            k if (CXCursor_OMPParallelDirective..=CXCursor_OMPAssumeDirective).contains(&k) => {
                self.omp_directive(c, &ch, depth)
            }
            _ => StmtKind::Unsupported(Arc::from(format!("statement `{}`", kind_name(c)))),
        }
    }

    /// An OpenMP directive. Its associated statement is its last child where libclang shows
    /// it; a loop directive's (`#pragma omp parallel for`) it does not show at all, only the
    /// clauses' variables, nor, in a unit parsed with `-fopenmp`, a region's (`#pragma omp
    /// parallel`, a captured statement whose body libclang does not visit). Such a statement is
    /// code kerncast cannot read: it runs as a branch it cannot decide that gives each variable
    /// the directive names an unknown value (its private copies and reductions, its counter),
    /// so none keeps the value from before the loop as if the loop had not run, and nothing it
    /// may draw from `rand()` is followed. What else its body does (an array it shares, a
    /// launch) is a gap kerncast cannot see; the reading's notes name the directive.
    fn omp_directive(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> StmtKind {
        let shown = ch.last().filter(|s| {
            matches!(
                s.kind(),
                CXCursor_CompoundStmt
                    | CXCursor_ForStmt
                    | CXCursor_CXXForRangeStmt
                    | CXCursor_WhileStmt
                    | CXCursor_DoStmt
                    | CXCursor_IfStmt
            )
        });
        if let Some(s) = shown {
            return self.stmt_kind(s, depth);
        }
        if ch.is_empty() {
            // A directive without a statement (`#pragma omp barrier`).
            return StmtKind::Null;
        }
        let span = self.span(c);
        let what = omp_construct(c.kind());
        let unread = |ty: Ty| Expr {
            kind: ExprKind::Unsupported(Arc::from(format!(
                "{what}, whose statement libclang does not show"
            ))),
            ty,
            span: span.clone(),
        };
        let mut writes = Vec::new();
        let mut named = Vec::new();
        // a region's variables are the captures of its captured statement, a level down
        let captured: Vec<Cursor<'_>> = ch
            .iter()
            .filter(|x| x.kind() == CXCursor_UnexposedStmt)
            .flat_map(|x| x.children())
            .collect();
        for x in ch.iter().chain(&captured) {
            if x.kind() != CXCursor_DeclRefExpr {
                continue;
            }
            let var = self.expr(x, depth);
            let ExprKind::Var(key, _) = &var.kind else {
                continue;
            };
            if named.contains(key) {
                continue;
            }
            named.push(*key);
            let value = unread(var.ty.clone());
            writes.push(Stmt {
                kind: StmtKind::Expr(Expr {
                    ty: var.ty.clone(),
                    span: span.clone(),
                    kind: ExprKind::Assign(None, Box::new(var), Box::new(value)),
                }),
                span: span.clone(),
            });
        }
        writes.push(Stmt {
            kind: StmtKind::Unsupported(Arc::from(format!(
                "{what}, whose statement libclang does not show"
            ))),
            span: span.clone(),
        });
        StmtKind::If {
            init: None,
            cond: unread(Ty::Bool),
            then: Box::new(Stmt {
                kind: StmtKind::Block(writes),
                span,
            }),
            els: None,
        }
    }

    fn var_decl(&mut self, d: &Cursor<'_>, depth: usize) -> VarDecl {
        let mut v = self.var_decl_no_init(d);
        v.init = d.var_initializer().map(|i| self.expr(&i, depth));
        v
    }

    /// The first compile error in `file` from `from` to `to` (line, column).
    fn error_between(&self, file: &str, from: (u32, u32), to: (u32, u32)) -> Option<String> {
        self.errors
            .iter()
            .find(|d| d.file == file && (from..=to).contains(&(d.line, d.col)))
            .map(|d| d.message.clone())
    }

    fn var_decl_no_init(&mut self, d: &Cursor<'_>) -> VarDecl {
        VarDecl {
            key: self.decl_key(d),
            name: Arc::from(d.spelling()),
            ty: self.ty(&d.ty()),
            init: None,
            is_static: d.is_static_storage(),
            by_ref: is_reference(&d.ty()),
            span: self.span(d),
        }
    }

    /// `if` children are [init?, cond, then, else?]; the token before the last child says
    /// whether it is an `else` branch.
    fn if_stmt(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> StmtKind {
        if ch.len() < 2 {
            return StmtKind::Unsupported(Arc::from("if without condition"));
        }
        let last = &ch[ch.len() - 1];
        let has_else = ch.len() >= 3 && {
            let prev = &ch[ch.len() - 2];
            // The token before the last child, as written (in a macro's definition for an
            // `if` a macro expands).
            let (file, from) = prev.spelled_start();
            let (last_file, to) = last.spelled_start();
            let written = if !c.in_macro() {
                Some((self.unit.tokens_between(prev, last), last.start_offset()))
            } else if file == last_file && from < to {
                Some((self.unit.tokens_spelled(&file, from, to), to))
            } else {
                None
            };
            match written {
                Some((toks, end)) => toks
                    .iter()
                    .rev()
                    .find(|(_, off)| *off < end)
                    .is_some_and(|(t, _)| t == "else"),
                // Without the tokens: three children are `cond, then, else` unless the
                // first is an initialiser (C++17's `if (init; cond)`), four always.
                None => {
                    ch.len() >= 4 || !matches!(ch[0].kind(), CXCursor_DeclStmt | CXCursor_VarDecl)
                }
            }
        };
        let (rest, then, els) = if has_else {
            (&ch[..ch.len() - 2], &ch[ch.len() - 2], Some(last))
        } else {
            (&ch[..ch.len() - 1], last, None)
        };
        let _ = c;
        let Some((cond, inits)) = rest.split_last() else {
            return StmtKind::Unsupported(Arc::from("if without condition"));
        };
        let init = match inits {
            [] => None,
            items => Some(Box::new(Stmt {
                span: self.span(&items[0]),
                kind: StmtKind::Block(items.iter().map(|s| self.stmt(s, depth)).collect()),
            })),
        };
        StmtKind::If {
            init,
            cond: self.expr(cond, depth),
            then: self.boxed(then, depth),
            els: els.map(|e| self.boxed(e, depth)),
        }
    }

    /// `for` children leave out the parts that are empty; the `;`s of the header say which
    /// part a child is.
    fn for_stmt(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> StmtKind {
        let Some((body, parts)) = ch.split_last() else {
            return StmtKind::Unsupported(Arc::from("for without body"));
        };
        // The header's tokens and the parts' starts, as written: inside a macro's definition
        // for a loop a macro expands (its expanded places are all the macro's use).
        let (toks, starts): (Vec<(String, u32)>, Option<Vec<u32>>) = if c.in_macro() {
            let (file, from) = c.spelled_start();
            let (body_file, to) = body.spelled_start();
            let starts: Vec<(String, u32)> = parts.iter().map(|p| p.spelled_start()).collect();
            let inside = body_file == file
                && from < to
                && starts
                    .iter()
                    .all(|(f, o)| *f == file && (from..to).contains(o));
            if inside {
                (
                    self.unit.tokens_spelled(&file, from, to),
                    Some(starts.into_iter().map(|(_, o)| o).collect()),
                )
            } else {
                (Vec::new(), None)
            }
        } else {
            (
                self.unit.tokens_between(c, body),
                Some(parts.iter().map(|p| p.start_offset()).collect()),
            )
        };
        let mut semis = Vec::new();
        let mut paren = 0i32;
        for (t, off) in &toks {
            match t.as_str() {
                "(" => paren += 1,
                ")" => paren -= 1,
                ";" if paren == 1 => semis.push(*off),
                _ => {}
            }
        }
        let (s1, s2, starts) = match (semis.as_slice(), starts) {
            ([a, b, ..], Some(st)) => (*a, *b, st),
            _ => {
                // A header kerncast cannot take apart: the body runs as a loop whose end it
                // cannot tell, never dropped.
                return StmtKind::For {
                    init: None,
                    cond: Some(self.unsupported(c, "a `for` header written through macros")),
                    inc: None,
                    body: self.boxed(body, depth),
                };
            }
        };
        let (mut init, mut cond, mut inc) = (None, None, None);
        for (p, at) in parts.iter().zip(starts) {
            if at < s1 {
                init = Some(self.boxed(p, depth));
            } else if at < s2 {
                cond = Some(match p.kind() {
                    // A condition variable (`for (; T x = f(); )`) is read as its value.
                    CXCursor_VarDecl => match p.var_initializer() {
                        Some(i) => self.expr(&i, depth),
                        None => self.unsupported(p, "condition variable"),
                    },
                    _ => self.expr(p, depth),
                });
            } else {
                inc = Some(self.expr(p, depth));
            }
        }
        StmtKind::For {
            init,
            cond,
            inc,
            body: self.boxed(body, depth),
        }
    }

    // ---- expressions ----

    fn unsupported(&mut self, c: &Cursor<'_>, what: &str) -> Expr {
        Expr {
            kind: ExprKind::Unsupported(Arc::from(what)),
            ty: self.ty(&c.ty()),
            span: self.span(c),
        }
    }

    fn expr(&mut self, c: &Cursor<'_>, depth: usize) -> Expr {
        let span = self.span(c);
        let ty = self.ty(&c.ty());
        let kind = if depth > MAX_DEPTH {
            ExprKind::Unsupported(Arc::from("expression nested too deep"))
        } else {
            self.expr_kind(c, &ty, depth + 1)
        };
        Expr { kind, ty, span }
    }

    fn bx(&mut self, c: &Cursor<'_>, depth: usize) -> Box<Expr> {
        Box::new(self.expr(c, depth))
    }

    fn constant(c: &Cursor<'_>) -> Option<ExprKind> {
        match c.evaluate()? {
            Evaluated::Int(v) => Some(ExprKind::Const(ConstValue::Int(v))),
            Evaluated::Float(v) => Some(ExprKind::Const(ConstValue::Float(v))),
            Evaluated::Str(s) => Some(ExprKind::Str(Arc::from(s))),
        }
    }

    fn expr_kind(&mut self, c: &Cursor<'_>, ty: &Ty, depth: usize) -> ExprKind {
        let ch = c.children();
        match c.kind() {
            CXCursor_IntegerLiteral | CXCursor_CharacterLiteral | CXCursor_CXXBoolLiteralExpr => {
                match c.evaluate() {
                    Some(Evaluated::Int(v)) => ExprKind::Int(v),
                    _ => ExprKind::Unsupported(Arc::from("literal")),
                }
            }
            CXCursor_FloatingLiteral => match c.evaluate() {
                Some(Evaluated::Float(v)) => ExprKind::Float(v),
                _ => ExprKind::Unsupported(Arc::from("literal")),
            },
            CXCursor_StringLiteral => match c.evaluate() {
                Some(Evaluated::Str(s)) => ExprKind::Str(Arc::from(s)),
                // where clang does not evaluate it, its tokens decoded as the compiler does
                _ => {
                    let tokens = self.unit.tokens_of(c);
                    let value = super::decode_literal(
                        tokens
                            .iter()
                            .map(|(s, _)| s.as_str())
                            .filter(|s| s.contains('"')),
                    );
                    ExprKind::Str(Arc::from(value))
                }
            },
            CXCursor_CXXNullPtrLiteralExpr | CXCursor_GNUNullExpr => ExprKind::Null,
            CXCursor_ParenExpr if ch.len() == 1 => self.expr_kind(&ch[0], ty, depth),
            CXCursor_UnexposedExpr => self.unexposed(c, &ch, ty, depth),
            CXCursor_DeclRefExpr => self.decl_ref(c),
            CXCursor_UnaryOperator if ch.len() == 1 => {
                let op = match c.unary_operator() {
                    CXUnaryOperator_PostInc => UnOp::PostInc,
                    CXUnaryOperator_PostDec => UnOp::PostDec,
                    CXUnaryOperator_PreInc => UnOp::PreInc,
                    CXUnaryOperator_PreDec => UnOp::PreDec,
                    CXUnaryOperator_AddrOf => UnOp::AddrOf,
                    CXUnaryOperator_Deref => UnOp::Deref,
                    CXUnaryOperator_Plus => UnOp::Plus,
                    CXUnaryOperator_Minus => UnOp::Minus,
                    CXUnaryOperator_Not => UnOp::Not,
                    CXUnaryOperator_LNot => UnOp::LNot,
                    CXUnaryOperator_Extension => return self.expr_kind(&ch[0], ty, depth),
                    _ => return ExprKind::Unsupported(Arc::from("unary operator")),
                };
                ExprKind::Unary(op, self.bx(&ch[0], depth))
            }
            CXCursor_UnaryExpr | CXCursor_SizeOfPackExpr => Self::constant(c)
                .unwrap_or_else(|| ExprKind::Unsupported(Arc::from("sizeof of a dependent type"))),
            CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator if ch.len() == 2 => {
                self.binary(c, &ch, depth)
            }
            CXCursor_ConditionalOperator if ch.len() == 3 => ExprKind::Cond(
                self.bx(&ch[0], depth),
                self.bx(&ch[1], depth),
                self.bx(&ch[2], depth),
            ),
            CXCursor_CStyleCastExpr
            | CXCursor_CXXStaticCastExpr
            | CXCursor_CXXFunctionalCastExpr
            | CXCursor_CXXReinterpretCastExpr
            | CXCursor_CXXConstCastExpr
            | CXCursor_CXXDynamicCastExpr
            | CXCursor_BuiltinBitCastExpr => match ch.iter().rev().find(|x| is_expr_kind(x.kind()))
            {
                Some(e) => ExprKind::Cast(self.bx(e, depth)),
                None => ExprKind::Unsupported(Arc::from("cast")),
            },
            CXCursor_CallExpr => self.call(c, &ch, ty, depth),
            CXCursor_MemberRefExpr => self.member(c, &ch, depth),
            CXCursor_ArraySubscriptExpr if ch.len() == 2 => {
                ExprKind::Index(self.bx(&ch[0], depth), self.bx(&ch[1], depth))
            }
            CXCursor_InitListExpr | CXCursor_CXXParenListInitExpr => self.init_list(c, &ch, depth),
            CXCursor_CompoundLiteralExpr => {
                match ch.iter().rev().find(|x| is_expr_kind(x.kind())) {
                    Some(e) => self.expr_kind(e, ty, depth),
                    None => ExprKind::Unsupported(Arc::from("compound literal")),
                }
            }
            CXCursor_LambdaExpr => self.lambda(c, &ch),
            CXCursor_CXXThisExpr => ExprKind::This,
            CXCursor_CXXNewExpr => self.new_expr(c, &ch, depth),
            CXCursor_CXXDeleteExpr => ExprKind::Int(0),
            // `throw e`: the library call `throw` models it (its argument's type says what
            // is thrown).
            CXCursor_CXXThrowExpr => ExprKind::Call(Call {
                callee: Callee::Direct {
                    key: DeclKey(u32::MAX),
                    name: Arc::from("throw"),
                    system: true,
                    params: Vec::new(),
                },
                args: ch
                    .iter()
                    .filter(|x| is_expr_kind(x.kind()))
                    .map(|x| self.expr(x, depth))
                    .collect(),
            }),
            CXCursor_PackExpansionExpr
            | CXCursor_ConceptSpecializationExpr
            | CXCursor_RequiresExpr => {
                Self::constant(c).unwrap_or_else(|| ExprKind::Unsupported(Arc::from(kind_name(c))))
            }
            _ => Self::constant(c).unwrap_or_else(|| {
                ExprKind::Unsupported(Arc::from(format!("expression `{}`", kind_name(c))))
            }),
        }
    }

    /// libclang's catch-all: implicit conversions, temporaries, default arguments.
    fn unexposed(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], ty: &Ty, depth: usize) -> ExprKind {
        let exprs: Vec<&Cursor<'_>> = ch.iter().filter(|x| is_expr_kind(x.kind())).collect();
        // A call of a name clang could not resolve (an undeclared function: its RecoveryExpr
        // holds the unresolved name, then the arguments). It is a call of a function kerncast
        // does not know, so what it is given by address is unknown after it, not unset.
        let unresolved = ch
            .first()
            .filter(|f| f.kind() == CXCursor_DeclRefExpr)
            .and_then(|f| {
                f.children()
                    .into_iter()
                    .find(|n| n.kind() == CXCursor_OverloadedDeclRef)
            });
        if let Some(callee) = unresolved {
            // With no declaration to say which parameters it writes through, only an
            // argument that is a pointer to `const` is known not to be written (the source
            // range of `std::copy(first, last, out)` in a template).
            let params = exprs[1..].iter().map(|x| arg_param(x)).collect();
            return ExprKind::Call(Call {
                callee: Callee::Direct {
                    key: DeclKey(u32::MAX),
                    name: Arc::from(callee.spelling()),
                    system: false,
                    params,
                },
                args: exprs[1..].iter().map(|x| self.expr(x, depth)).collect(),
            });
        }
        match exprs.as_slice() {
            [] => {
                if ch.is_empty() && c.location().line == 0 {
                    ExprKind::DefaultArg
                } else {
                    Self::constant(c).unwrap_or(ExprKind::DefaultArg)
                }
            }
            [one] => {
                let _ = ty;
                ExprKind::Cast(self.bx(one, depth))
            }
            _ => match Self::constant(c) {
                Some(k) => k,
                None => ExprKind::Unsupported(Arc::from("implicit expression")),
            },
        }
    }

    fn decl_ref(&mut self, c: &Cursor<'_>) -> ExprKind {
        let Some(r) = c.referenced() else {
            return Self::constant(c)
                .unwrap_or_else(|| ExprKind::Unsupported(Arc::from(c.spelling())));
        };
        match r.kind() {
            CXCursor_VarDecl | CXCursor_ParmDecl => {
                let key = self.decl_key(&r);
                // A library's globals (`optind`, `stderr`) are the interpreter's to model.
                if r.kind() == CXCursor_VarDecl && r.has_global_storage() && !r.in_system_header() {
                    self.global(&r, key);
                }
                ExprKind::Var(key, Arc::from(r.spelling()))
            }
            CXCursor_EnumConstantDecl => ExprKind::Const(ConstValue::Int(r.enum_value() as i128)),
            k if is_function_kind(k) => {
                let kernel = self.kernel_of(&r);
                let key = if kernel.is_some() {
                    self.decl_key(&r)
                } else {
                    self.reach(&r)
                };
                ExprKind::Function {
                    key,
                    name: Arc::from(r.qualified_name()),
                    kernel,
                }
            }
            _ => Self::constant(c).unwrap_or_else(|| {
                ExprKind::Unsupported(Arc::from(format!("reference to `{}`", r.spelling())))
            }),
        }
    }

    fn global(&mut self, r: &Cursor<'_>, key: DeclKey) {
        let def = r.definition().unwrap_or(*r);
        if def.is_extern() && def.var_initializer().is_none() {
            self.prog.extern_globals.insert(key);
        } else {
            self.prog.defined_globals.insert(key);
        }
        // Known already, unless as an `extern` declaration of another unit's definition.
        if let Some(known) = self.prog.globals.get(&key) {
            if known.init.is_some() || def.var_initializer().is_none() {
                return;
            }
        }
        // An initialiser that names the global itself (`int g = g + 1;`, `S a = a;`) reaches
        // it again while it is lowered: known without its initialiser yet, which reads as a
        // declaration still to be completed, so it is lowered again, without end.
        if !self.initialising.insert(key) {
            return;
        }
        let mut v = self.var_decl_no_init(&def);
        v.is_static = true;
        self.prog.globals.insert(key, v.clone());
        if !def.in_system_header() {
            v.init = def.var_initializer().map(|i| self.expr(&i, 0));
        }
        self.prog.globals.insert(key, v);
        self.initialising.remove(&key);
    }

    /// The kernel a function declaration is, when it is one (`__global__`).
    fn kernel_of(&mut self, f: &Cursor<'_>) -> Option<KernelRef> {
        if !f.has_attr(CXCursor_CUDAGlobalAttr) {
            return None;
        }
        let mangled = device_symbol(&f.mangling(), &f.spelling());
        if !self.prog.kernels.contains_key(&mangled) {
            let (signature, name) = demangle(&mangled);
            let args = f.arguments().unwrap_or_default();
            for p in &args {
                self.param_layout(&p.ty(), 0);
            }
            let params = args.iter().map(|p| Arc::from(p.spelling())).collect();
            let span = self.span(f);
            self.prog.kernels.insert(
                mangled.clone(),
                KernelDecl {
                    mangled: mangled.clone(),
                    signature,
                    name,
                    params,
                    span,
                },
            );
        }
        Some(KernelRef { mangled })
    }

    fn binary(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> ExprKind {
        let (l, r) = (self.bx(&ch[0], depth), self.bx(&ch[1], depth));
        let op = |k| -> Option<BinOp> {
            Some(match k {
                CXBinaryOperator_Mul | CXBinaryOperator_MulAssign => BinOp::Mul,
                CXBinaryOperator_Div | CXBinaryOperator_DivAssign => BinOp::Div,
                CXBinaryOperator_Rem | CXBinaryOperator_RemAssign => BinOp::Rem,
                CXBinaryOperator_Add | CXBinaryOperator_AddAssign => BinOp::Add,
                CXBinaryOperator_Sub | CXBinaryOperator_SubAssign => BinOp::Sub,
                CXBinaryOperator_Shl | CXBinaryOperator_ShlAssign => BinOp::Shl,
                CXBinaryOperator_Shr | CXBinaryOperator_ShrAssign => BinOp::Shr,
                CXBinaryOperator_LT => BinOp::Lt,
                CXBinaryOperator_GT => BinOp::Gt,
                CXBinaryOperator_LE => BinOp::Le,
                CXBinaryOperator_GE => BinOp::Ge,
                CXBinaryOperator_EQ => BinOp::Eq,
                CXBinaryOperator_NE => BinOp::Ne,
                CXBinaryOperator_And | CXBinaryOperator_AndAssign => BinOp::And,
                CXBinaryOperator_Xor | CXBinaryOperator_XorAssign => BinOp::Xor,
                CXBinaryOperator_Or | CXBinaryOperator_OrAssign => BinOp::Or,
                CXBinaryOperator_LAnd => BinOp::LAnd,
                CXBinaryOperator_LOr => BinOp::LOr,
                CXBinaryOperator_Comma => BinOp::Comma,
                _ => return None,
            })
        };
        let k = c.binary_operator();
        if k == CXBinaryOperator_Assign {
            return ExprKind::Assign(None, l, r);
        }
        match op(k) {
            Some(o) if (CXBinaryOperator_MulAssign..=CXBinaryOperator_OrAssign).contains(&k) => {
                ExprKind::Assign(Some(o), l, r)
            }
            Some(o) => ExprKind::Binary(o, l, r),
            None => ExprKind::Unsupported(Arc::from("binary operator")),
        }
    }

    fn args(&mut self, c: &Cursor<'_>, depth: usize) -> Vec<Expr> {
        c.arguments()
            .unwrap_or_default()
            .iter()
            .map(|a| self.expr(a, depth))
            .collect()
    }

    fn call(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], ty: &Ty, depth: usize) -> ExprKind {
        // The function it is in (libclang gives expressions no semantic parent).
        let fname = self.function.clone();
        // A `<<<…>>>` launch: clang makes the configuration a call of
        // `__cudaPushCallConfiguration(grid, block, shmem, stream)` among the children.
        if let Some(config) = ch.iter().find(|x| {
            x.kind() == CXCursor_CallExpr
                && matches!(
                    x.spelling().as_str(),
                    "__cudaPushCallConfiguration" | "cudaConfigureCall"
                )
        }) {
            return self.launch(c, config, &fname, depth);
        }
        let Some(r) = c.referenced() else {
            // An implicit copy or move of a record (C++14's elidable constructions): libclang
            // names no constructor; the value is its one argument's.
            let exprs: Vec<&Cursor<'_>> = ch.iter().filter(|x| is_expr_kind(x.kind())).collect();
            if matches!(ty, Ty::Record { .. }) && exprs.len() == 1 {
                return ExprKind::Cast(self.bx(exprs[0], depth));
            }
            // A call through a value: a function pointer, or a dependent call.
            return match ch.first() {
                Some(callee) => ExprKind::Call(Call {
                    callee: Callee::Value(
                        self.bx(callee, depth),
                        ch[1..]
                            .iter()
                            .filter(|x| is_expr_kind(x.kind()))
                            .map(arg_param)
                            .collect(),
                    ),
                    args: self.args(c, depth),
                }),
                None => ExprKind::Unsupported(Arc::from("call")),
            };
        };
        let name: Arc<str> = Arc::from(r.qualified_name());
        let system = r.in_system_header();
        if LAUNCH_APIS.contains(&&*name) {
            let span = self.span(c);
            self.prog.sites.push(StaticSite {
                span,
                kernel: None,
                api: name.clone(),
                function: fname,
            });
        }
        let params = self.params_of(&r);
        match r.kind() {
            CXCursor_Constructor => {
                if let Some(class) = r.semantic_parent() {
                    self.record_defaults(&class);
                }
                let key = self.reach(&r);
                if ch.len() == 1
                    && ch[0].kind() == CXCursor_UnexposedExpr
                    && c.arguments().is_some_and(|a| a.len() == 1)
                {
                    // A copy or move: the value itself.
                }
                ExprKind::Call(Call {
                    callee: Callee::Construct {
                        key,
                        name,
                        system,
                        params,
                    },
                    args: self.args(c, depth),
                })
            }
            CXCursor_CXXMethod | CXCursor_ConversionFunction => {
                let key = self.reach(&r);
                // `obj.f(…)`: the callee is a member reference naming the method. An
                // operator's first child may be a member reference too, naming a field that
                // is the operator's object (`p.gridDim = dim3(…)`, `cfg.sizes[i]`).
                let member = ch.first().filter(|x| {
                    x.kind() == CXCursor_MemberRefExpr
                        && x.referenced().is_some_and(|m| is_function_kind(m.kind()))
                });
                match member {
                    Some(m) => {
                        let object = match m.children().into_iter().find(|x| is_expr_kind(x.kind()))
                        {
                            Some(o) => self.expr(&o, depth),
                            None => Expr {
                                kind: ExprKind::This,
                                ty: Ty::Pointer(Box::new(Ty::Other(Arc::from("this")))),
                                span: self.span(m),
                            },
                        };
                        if r.is_static_method() {
                            return ExprKind::Call(Call {
                                callee: Callee::Direct {
                                    key,
                                    name,
                                    system,
                                    params,
                                },
                                args: self.args(c, depth),
                            });
                        }
                        ExprKind::Call(Call {
                            callee: Callee::Method {
                                object: Box::new(object),
                                key,
                                name,
                                system,
                                params,
                                is_const: r.is_const_method(),
                            },
                            args: self.args(c, depth),
                        })
                    }
                    None if r.is_static_method() => ExprKind::Call(Call {
                        callee: Callee::Direct {
                            key,
                            name,
                            system,
                            params,
                        },
                        args: self.args(c, depth),
                    }),
                    None => {
                        // An overloaded operator (`v[i]`, `f(x)` on a lambda): the object is the
                        // first argument; or a method called on `this` implicitly.
                        let mut args = self.args(c, depth);
                        let is_operator = r.spelling().starts_with("operator");
                        let object = if is_operator && !args.is_empty() {
                            args.remove(0)
                        } else {
                            Expr {
                                kind: ExprKind::This,
                                ty: Ty::Pointer(Box::new(Ty::Other(Arc::from("this")))),
                                span: self.span(c),
                            }
                        };
                        ExprKind::Call(Call {
                            callee: Callee::Method {
                                object: Box::new(object),
                                key,
                                name,
                                system,
                                params,
                                is_const: r.is_const_method(),
                            },
                            args,
                        })
                    }
                }
            }
            CXCursor_FunctionDecl | CXCursor_FunctionTemplate => {
                if r.has_attr(CXCursor_CUDAGlobalAttr) {
                    return ExprKind::Unsupported(Arc::from("a kernel called without <<<>>>"));
                }
                let key = self.reach(&r);
                ExprKind::Call(Call {
                    callee: Callee::Direct {
                        key,
                        name,
                        system,
                        params,
                    },
                    args: self.args(c, depth),
                })
            }
            // A call through a variable holding a function (pointer) or a functor.
            _ => match ch.first() {
                Some(callee) => ExprKind::Call(Call {
                    callee: Callee::Value(self.bx(callee, depth), Vec::new()),
                    args: self.args(c, depth),
                }),
                None => {
                    let _ = ty;
                    ExprKind::Unsupported(Arc::from("call"))
                }
            },
        }
    }

    fn launch(
        &mut self,
        c: &Cursor<'_>,
        config: &Cursor<'_>,
        fname: &Arc<str>,
        depth: usize,
    ) -> ExprKind {
        let span = self.span(c);
        let kernel = c.referenced().and_then(|r| self.kernel_of(&r));
        self.prog.sites.push(StaticSite {
            span,
            kernel: kernel.as_ref().map(|k| k.mangled.clone()),
            api: Arc::from("<<<>>>"),
            function: fname.clone(),
        });
        let Some(kernel) = kernel else {
            // The kernel is a value: the callee, the child before the configuration.
            let callee = c
                .children()
                .into_iter()
                .find(|x| is_expr_kind(x.kind()) && !x.raw_equal(config));
            return match callee {
                Some(callee) => ExprKind::LaunchVia {
                    callee: self.bx(&callee, depth),
                    config: self.args(config, depth),
                    args: self.args(c, depth),
                },
                None => {
                    ExprKind::Unsupported(Arc::from("a launch whose kernel clang does not resolve"))
                }
            };
        };
        let params = self
            .prog
            .kernels
            .get(&kernel.mangled)
            .map(|k| k.params.clone())
            .unwrap_or_default();
        let config = self.args(config, depth);
        ExprKind::Launch {
            kernel,
            config,
            args: self.args(c, depth),
            params,
        }
    }

    fn member(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> ExprKind {
        let field: Arc<str> = Arc::from(c.spelling());
        match ch.iter().find(|x| is_expr_kind(x.kind())) {
            Some(base) => {
                let base = self.expr(base, depth);
                let arrow = matches!(base.ty, Ty::Pointer(_));
                ExprKind::Member {
                    base: Box::new(base),
                    field,
                    arrow,
                }
            }
            None => ExprKind::ThisMember(field),
        }
    }

    fn init_list(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> ExprKind {
        let elems: Vec<Expr> = ch
            .iter()
            .filter(|x| is_expr_kind(x.kind()))
            .map(|x| self.expr(x, depth))
            .collect();
        let t = c.ty();
        if t.canonical().kind() == CXType_Record {
            if let Some(class) = t.canonical().declaration() {
                self.record_defaults(&class);
            }
            if let Some(fields) = self.record_fields(&t) {
                let name: Arc<str> = Arc::from(t.canonical().spelling());
                self.prog.records.insert(name, fields.clone());
                // Brace elision (`std::array<int, 2> a = {8, 16}`): the values are the
                // elements of the record's one field, an array.
                let braced =
                    matches!(elems.as_slice(), [e] if matches!(e.kind, ExprKind::InitList { .. }));
                if let (Some(array), false) = (self.sole_array_field(&t), braced) {
                    let span = self.span(c);
                    let inner = Expr {
                        kind: ExprKind::InitList {
                            fields: None,
                            elems,
                        },
                        ty: array,
                        span,
                    };
                    return ExprKind::InitList {
                        fields: Some(fields),
                        elems: vec![inner],
                    };
                }
                return ExprKind::InitList {
                    fields: Some(fields),
                    elems,
                };
            }
        }
        ExprKind::InitList {
            fields: None,
            elems,
        }
    }

    fn lambda(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>]) -> ExprKind {
        let loc = c.location();
        let key = self
            .prog
            .key(&format!("lambda:{}:{}", loc.file, loc.offset));
        let params: Vec<Param> = ch
            .iter()
            .filter(|p| p.kind() == CXCursor_ParmDecl)
            .map(|p| Param {
                key: self.decl_key(p),
                name: Arc::from(p.spelling()),
                ty: self.ty(&p.ty()),
                by_ref: is_reference(&p.ty()),
                writes: writes_through(&p.ty()),
                default: None,
            })
            .collect();
        let Some(body) = ch.iter().find(|x| x.kind() == CXCursor_CompoundStmt) else {
            return ExprKind::Unsupported(Arc::from("lambda without body"));
        };
        let span = self.span(c);
        let body = self.stmt(body, 0);
        let captures = self.captures(c, ch);
        ExprKind::Lambda(Arc::new(Function {
            key,
            name: Arc::from(format!("lambda at line {}", loc.line)),
            params,
            body,
            member_inits: Vec::new(),
            base_inits: Vec::new(),
            is_method: false,
            captures,
            returns_ref: false,
            span,
        }))
    }

    /// A lambda's captures. libclang lists the named ones as `VariableRef` children, in
    /// order, without saying how each is captured: the tokens of the capture list do
    /// (`=`/`&` alone are defaults, `&n` is by reference, `n = e` or `n(e)` an init capture).
    fn captures(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>]) -> Captures {
        let mut items: Vec<Vec<String>> = vec![Vec::new()];
        let mut depth = 0i32;
        for (t, _) in self.unit.tokens_of(c) {
            match t.as_str() {
                "[" | "(" | "{" => {
                    depth += 1;
                    if depth == 1 {
                        continue;
                    }
                }
                "]" | ")" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                "," if depth == 1 => {
                    items.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(item) = items.last_mut() {
                item.push(t);
            }
        }
        let mut caps = Captures::default();
        let mut named = Vec::new();
        for item in &items {
            let item: Vec<&str> = item.iter().map(String::as_str).collect();
            match item.as_slice() {
                [] | ["&"] | ["this"] | ["*", "this"] => {}
                ["="] => caps.default_copy = true,
                ["&", name @ ..] => {
                    named.push((true, matches!(name.get(1), Some(&("=" | "(" | "{")))))
                }
                name => named.push((false, matches!(name.get(1), Some(&("=" | "(" | "{"))))),
            }
        }
        let refs: Vec<Cursor<'_>> = ch
            .iter()
            .filter(|x| x.kind() == CXCursor_VariableRef)
            .copied()
            .collect();
        if refs.len() != named.len() {
            // The list was not understood: the captures are left to the default.
            return caps;
        }
        for (r, (by_ref, init)) in refs.iter().zip(named) {
            let Some(var) = r.referenced() else { continue };
            let key = self.decl_key(&var);
            let init = if init {
                var.var_initializer().map(|e| self.expr(&e, 0))
            } else {
                None
            };
            caps.list.push(Capture { key, by_ref, init });
        }
        caps
    }

    fn new_expr(&mut self, c: &Cursor<'_>, ch: &[Cursor<'_>], depth: usize) -> ExprKind {
        // `new T[n]` has the count first among its expression children; a `[` among its
        // tokens tells it from `new T(args)`, whose one child is the initialiser.
        let exprs: Vec<&Cursor<'_>> = ch.iter().filter(|x| is_expr_kind(x.kind())).collect();
        // (A `[` inside parentheses is the initialiser's: `new Solver(a[1])`.)
        let mut paren = 0i32;
        let mut is_array = false;
        for (t, _) in self.unit.tokens_of(c) {
            match t.as_str() {
                "(" => paren += 1,
                ")" => paren -= 1,
                "[" if paren == 0 => is_array = true,
                _ => {}
            }
        }
        if is_array {
            ExprKind::New {
                array_len: exprs.first().map(|n| self.bx(n, depth)),
                init: exprs.get(1).map(|i| self.bx(i, depth)),
            }
        } else {
            ExprKind::New {
                array_len: None,
                init: exprs.last().map(|i| self.bx(i, depth)),
            }
        }
    }
}

/// A record type's name without qualifiers and tag (`const struct Cfg` is `Cfg`): objects
/// of a type are one kind whatever the access path says.
fn record_name(spelling: &str) -> &str {
    let mut s = spelling;
    loop {
        let before = s;
        for prefix in ["const ", "volatile ", "struct ", "class ", "union "] {
            s = s.strip_prefix(prefix).unwrap_or(s);
        }
        if s == before {
            return s;
        }
    }
}

/// What an argument says of the parameter it is given to, where no declaration says more: it
/// may be written through, unless it is a pointer to `const`.
fn arg_param(x: &Cursor<'_>) -> Param {
    let t = x.ty();
    let read_only = t.canonical().kind() == CXType_Pointer && t.canonical_pointee_const();
    Param {
        key: DeclKey(u32::MAX),
        name: Arc::from(""),
        ty: Ty::Other(Arc::from("")),
        by_ref: false,
        writes: !read_only,
        default: None,
    }
}

/// A reference or pointer to something non-`const`: a callee may write through it.
fn writes_through(t: &Type<'_>) -> bool {
    let indirect = is_reference(t) || t.canonical().kind() == CXType_Pointer;
    indirect && !t.canonical_pointee_const()
}

fn is_reference(t: &Type<'_>) -> bool {
    matches!(t.kind(), CXType_LValueReference | CXType_RValueReference)
}

pub fn is_expr_kind(k: CXCursorKind) -> bool {
    (CXCursor_UnexposedExpr..=CXCursor_PackIndexingExpr).contains(&k)
        || k == CXCursor_BuiltinBitCastExpr
}

/// What an OpenMP directive whose statement libclang hides stands for: a region (its block
/// runs on threads: `parallel`, `single`, `task` …) or, for the rest, a loop.
fn omp_construct(kind: CXCursorKind) -> &'static str {
    match kind {
        CXCursor_OMPParallelDirective
        | CXCursor_OMPSectionsDirective
        | CXCursor_OMPSectionDirective
        | CXCursor_OMPSingleDirective
        | CXCursor_OMPParallelSectionsDirective
        | CXCursor_OMPTaskDirective
        | CXCursor_OMPMasterDirective
        | CXCursor_OMPCriticalDirective
        | CXCursor_OMPTargetDirective
        | CXCursor_OMPTeamsDirective
        | CXCursor_OMPTargetDataDirective
        | CXCursor_OMPTargetParallelDirective
        | CXCursor_OMPParallelMasterDirective
        | CXCursor_OMPMaskedDirective => "an OpenMP region",
        _ => "an OpenMP loop",
    }
}

fn kind_name(c: &Cursor<'_>) -> String {
    unsafe {
        let s = clang_getCursorKindSpelling(c.kind());
        let p = clang_getCString(s);
        let out = if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        };
        clang_disposeString(s);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_symbols_drop_the_stub_prefix() {
        assert_eq!(
            device_symbol("_ZN4fp3219__device_stub__axpyEfPfi", "axpy"),
            "_ZN4fp324axpyEfPfi"
        );
        assert_eq!(
            device_symbol("_Z19__device_stub__fillILi1EfEvPT0_i", "fill"),
            "_Z4fillILi1EfEvPT0_i"
        );
        assert_eq!(device_symbol("__device_stub__saxpy", "saxpy"), "saxpy");
    }

    #[test]
    fn plain_names_drop_namespaces_templates_and_parameters() {
        assert_eq!(plain_name("fp32::axpy(float, float*, int)"), "axpy");
        assert_eq!(plain_name("void fill<1, float>(float*, int)"), "fill");
        assert_eq!(demangle("_Z4fillILi1EfEvPT0_i").1, "fill");
    }
}
