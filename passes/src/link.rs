//! Device linking: Module and library modules in, Module out, with every device function the
//! module only declares (`.extern .func`) defined from the library module that exports it.
//!
//! Relocatable device code (`nvcc -rdc=true`, `clang -fgpu-rdc`) lets a kernel call a
//! `__device__` function of another translation unit; its PTX keeps only a declaration, and
//! nvlink joins the units when the program is built. Without the same join the inliner keeps
//! such a call as a call and the callee's work is missing from the counts (merkle-cuda's
//! kernels are a call to `merge` of another file and nothing else). So kerncast links as nvlink
//! does, by name, before inlining: an exported (`.visible` or `.weak`) definition resolves a
//! declaration, and what that definition needs from its own module comes with it — the
//! functions it calls and the global, constant and shared variables it names. Internal
//! (`static`) names of the library that the module also uses are renamed, as they are distinct
//! objects; exported names are one object program-wide. `.loc` lines keep their own files.

use crate::ptx::{
    AddrBase, FileDecl, Function, ItemRef, Linkage, Module, Operand, Statement, VarDecl,
};
use std::collections::{BTreeMap, BTreeSet};

/// A linked module and what linking brought into it.
#[derive(Clone, Debug)]
pub struct Linked {
    pub module: Module,
    /// Functions defined from a library, as (name in the linked module, library index).
    pub functions: Vec<(String, usize)>,
}

fn exported(linkage: Option<Linkage>) -> bool {
    matches!(linkage, Some(Linkage::Visible | Linkage::Weak))
}

/// Whether `m` exports a definition of the function `name`: one another module may link.
pub fn exports(m: &Module, name: &str) -> bool {
    m.functions
        .iter()
        .any(|f| f.name == name && !f.is_declaration && exported(f.linkage))
}

/// Whether `m` defines the function `name` (a body, not a prototype).
fn defines_function(m: &Module, name: &str) -> bool {
    m.function(name).is_some_and(|f| !f.is_declaration)
}

/// Whether `m` defines the variable `name` (not an `.extern` declaration).
fn defines_global(m: &Module, name: &str) -> bool {
    m.globals
        .iter()
        .any(|g| g.name == name && g.linkage != Some(Linkage::Extern))
}

/// Links `m` against `libraries`: each function `m` declares but does not define takes the
/// first exported definition among the libraries. Declarations nobody defines (`vprintf`,
/// `malloc`) stay declarations.
pub fn link(m: &Module, libraries: &[&Module]) -> Linked {
    let mut cx = Linker {
        out: m.clone(),
        libraries,
        names: BTreeMap::new(),
        functions: Vec::new(),
        files: BTreeMap::new(),
        next_at: None,
    };
    loop {
        let unresolved = cx.out.functions.iter().find_map(|f| {
            let name = f.name.as_str();
            if !f.is_declaration || defines_function(&cx.out, name) {
                return None;
            }
            let lib = libraries.iter().position(|l| exports(l, name))?;
            Some((name.to_string(), lib))
        });
        let Some((name, lib)) = unresolved else {
            break;
        };
        cx.function(lib, &name);
    }
    Linked {
        module: cx.out,
        functions: cx.functions,
    }
}

struct Linker<'a> {
    out: Module,
    libraries: &'a [&'a Module],
    /// (library, its name) → the name in `out`, for everything brought or resolved so far.
    names: BTreeMap<(usize, String), String>,
    functions: Vec<(String, usize)>,
    /// (library, its `.file` index) → the index in `out`.
    files: BTreeMap<(usize, u32), u32>,
    /// Where in `out.order` the next brought item goes ([`Linker::place`]).
    next_at: Option<usize>,
}

impl Linker<'_> {
    /// The name library `lib`'s symbol `name` has in the linked module: exported ones keep
    /// theirs; an internal one is renamed when the module already uses the name.
    fn name_in_out(&self, lib: usize, name: &str, internal: bool) -> String {
        if !internal {
            return name.to_string();
        }
        let taken = |n: &str| {
            self.out.functions.iter().any(|f| f.name == n)
                || self.out.globals.iter().any(|g| g.name == n)
        };
        if !taken(name) {
            return name.to_string();
        }
        (1..)
            .map(|k| format!("{name}$link{lib}_{k}"))
            .find(|n| !taken(n))
            .unwrap_or_else(|| name.to_string())
    }

    /// Brings library `lib`'s definition of function `name` into the module (in place of its
    /// declaration there, if any), and what it names, first.
    fn function(&mut self, lib: usize, name: &str) -> String {
        if let Some(n) = self.names.get(&(lib, name.to_string())) {
            return n.clone();
        }
        let libm = self.libraries[lib];
        let Some(def) = libm.function(name).filter(|f| !f.is_declaration) else {
            return name.to_string();
        };
        let internal = !exported(def.linkage);
        if !internal && defines_function(&self.out, name) {
            // one object program-wide: the module's own definition is it
            self.names.insert((lib, name.to_string()), name.to_string());
            return name.to_string();
        }
        let new_name = self.name_in_out(lib, name, internal);
        self.names.insert((lib, name.to_string()), new_name.clone());
        // what the body names from its own module, resolved before the body is copied
        let mut renames = BTreeMap::new();
        for sym in def.symbols_named() {
            if sym == name {
                continue;
            }
            let target = if libm.functions.iter().any(|f| f.name == sym) {
                self.callee(lib, sym)
            } else if libm.globals.iter().any(|g| g.name == sym) {
                self.global(lib, sym)
            } else {
                continue;
            };
            if target != sym {
                renames.insert(sym.to_string(), target);
            }
        }
        let mut f: Function = def.clone();
        f.name = new_name.clone();
        rename_symbols(&mut f.body, &renames);
        self.relocate_files(lib, &mut f.body);
        self.put_function(f);
        self.functions.push((new_name.clone(), lib));
        new_name
    }

    /// A function a brought body calls: the library's own definition, else a declaration of
    /// it (which the main loop may resolve from another library).
    fn callee(&mut self, lib: usize, name: &str) -> String {
        let libm = self.libraries[lib];
        if defines_function(libm, name) {
            return self.function(lib, name);
        }
        if !self.out.functions.iter().any(|f| f.name == name) {
            if let Some(decl) = libm.function(name) {
                self.put_function(decl.clone());
            }
        }
        name.to_string()
    }

    /// A module-scope variable a brought body names, defined in the module as the library
    /// defines it.
    fn global(&mut self, lib: usize, name: &str) -> String {
        if let Some(n) = self.names.get(&(lib, name.to_string())) {
            return n.clone();
        }
        let libm = self.libraries[lib];
        let Some(def) = libm
            .globals
            .iter()
            .find(|g| g.name == name && g.linkage != Some(Linkage::Extern))
            .or_else(|| libm.globals.iter().find(|g| g.name == name))
        else {
            return name.to_string();
        };
        let internal = def.linkage.is_none();
        let new_name = if !internal && defines_global(&self.out, name) {
            name.to_string()
        } else {
            let n = self.name_in_out(lib, name, internal);
            let mut g: VarDecl = def.clone();
            g.name = n.clone();
            self.put_global(g);
            n
        };
        self.names.insert((lib, name.to_string()), new_name.clone());
        new_name
    }

    /// Adds a function, in place of a declaration of the same name if the module has one.
    fn put_function(&mut self, f: Function) {
        if let Some(i) = self
            .out
            .functions
            .iter()
            .position(|g| g.name == f.name && g.is_declaration)
        {
            self.out.functions[i] = f;
            return;
        }
        self.out.functions.push(f);
        self.place(ItemRef::Function(self.out.functions.len() - 1));
    }

    /// Puts a new item in the module's text order: the first before the module's first
    /// function, each later one after the one before it. Everything an item names is placed
    /// before it, so the order declares before use, as ptxas requires.
    fn place(&mut self, item: ItemRef) {
        let order = &mut self.out.order;
        let at = self.next_at.unwrap_or_else(|| {
            order
                .iter()
                .position(|r| matches!(r, ItemRef::Function(_)))
                .unwrap_or(order.len())
        });
        order.insert(at, item);
        self.next_at = Some(at + 1);
    }

    /// Adds a variable, in place of an `.extern` declaration of the same name if the module has one.
    fn put_global(&mut self, g: VarDecl) {
        if let Some(i) = self
            .out
            .globals
            .iter()
            .position(|d| d.name == g.name && d.linkage == Some(Linkage::Extern))
        {
            self.out.globals[i] = g;
            return;
        }
        self.out.globals.push(g);
        self.place(ItemRef::Global(self.out.globals.len() - 1));
    }

    /// Gives the `.file` entries a brought body's `.loc`s name indices of the module's own table.
    fn relocate_files(&mut self, lib: usize, body: &mut [Statement]) {
        let libm = self.libraries[lib];
        let mut used = BTreeSet::new();
        for_each_statement(body, &mut |s| match s {
            Statement::Loc(l) => {
                used.insert(l.file);
            }
            Statement::Inst(i) => {
                if let Some(loc) = &i.loc {
                    used.insert(loc.file_index);
                }
            }
            _ => {}
        });
        let mut map = BTreeMap::new();
        for idx in used {
            let new = match self.files.get(&(lib, idx)) {
                Some(n) => *n,
                None => {
                    let Some(decl) = libm.files.iter().find(|f| f.index == idx) else {
                        continue;
                    };
                    let n = self.out.files.iter().map(|f| f.index).max().unwrap_or(0) + 1;
                    let fd = FileDecl {
                        index: n,
                        ..decl.clone()
                    };
                    let i = self.out.files.len();
                    self.out.files.push(fd);
                    self.out.order.insert(0, ItemRef::File(i));
                    self.next_at = self.next_at.map(|a| a + 1);
                    self.files.insert((lib, idx), n);
                    n
                }
            };
            map.insert(idx, new);
        }
        for_each_statement(body, &mut |s| match s {
            Statement::Loc(l) => {
                if let Some(n) = map.get(&l.file) {
                    l.file = *n;
                }
            }
            Statement::Inst(i) => {
                if let Some(loc) = &mut i.loc {
                    if let Some(n) = map.get(&loc.file_index) {
                        loc.file_index = *n;
                    }
                }
            }
            _ => {}
        });
    }
}

fn for_each_statement(body: &mut [Statement], f: &mut dyn FnMut(&mut Statement)) {
    for s in body {
        f(s);
        if let Statement::Block(b) = s {
            for_each_statement(&mut b.body, f);
        }
    }
}

/// Renames the symbols (not registers or labels) `renames` names, in every operand of `body`.
fn rename_symbols(body: &mut [Statement], renames: &BTreeMap<String, String>) {
    if renames.is_empty() {
        return;
    }
    for_each_statement(body, &mut |s| {
        let Statement::Inst(i) = s else {
            return;
        };
        for o in &mut i.operands {
            o.for_each_leaf_mut(&mut |leaf| match leaf {
                Operand::Symbol(n)
                | Operand::SymOffset { name: n, .. }
                | Operand::Addr {
                    base: AddrBase::Symbol(n),
                    ..
                } => {
                    if let Some(new) = renames.get(n.as_str()) {
                        *n = new.clone();
                    }
                }
                _ => {}
            });
        }
    });
}
