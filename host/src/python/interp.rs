//! The abstract interpreter over a Python host's AST, with the C interpreter's design: values
//! are computed as Python computes them (unbounded integers, `//` and `%` rounding toward
//! negative infinity, `/` giving floats), names live in Python's scopes (module, function,
//! closures, `global` and `nonlocal`), the script's own functions and classes run with their
//! arguments, `for` over a known sequence runs once per element, `if` on a known value takes
//! one branch and on an unknown one runs both from the same state (what they leave different
//! is unknown after, and launches inside carry the condition). A loop is followed within the
//! work budget ([`crate::Budget`]); one whose iterations launch the same and whose body does
//! not read its variable has its remaining iterations counted, not run.

use super::ops::{binop, compare, first_unknown, index, unary};
use super::script::Script;
use super::state::{Args, Builder, Exec, Flow, Halt, Interp};
use super::value::*;
use crate::ast::Span;
use crate::heap::Registry;
use crate::interp::launches::Recorder;
use crate::program::Options;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// Iterations a loop runs, each launching the same, before its remaining ones are counted.
const STEADY_SAMPLE: u64 = 64;

impl<'a> Scope<'a> {
    fn lookup(&self, name: &str) -> Option<Val<'a>> {
        if let Some(v) = self.vars.borrow().get(name) {
            return Some(v.clone());
        }
        self.parent.as_ref().and_then(|p| p.lookup(name))
    }

    fn module(self: &Rc<Self>) -> Rc<Scope<'a>> {
        let mut s = self.clone();
        while let Some(p) = s.parent.clone() {
            s = p;
        }
        s
    }

    /// The enclosing function scope that holds `name` (for `nonlocal`).
    fn holder(self: &Rc<Self>, name: &str) -> Option<Rc<Scope<'a>>> {
        let mut s = self.parent.clone();
        while let Some(p) = s {
            if p.parent.is_some() && p.vars.borrow().contains_key(name) {
                return Some(p);
            }
            s = p.parent.clone();
        }
        None
    }
}

/// The item at an index of what a `for` loop walks.
type ItemAt<'a> = Box<dyn Fn(&BigInt) -> Val<'a> + 'a>;

impl<'a> Interp<'a> {
    pub fn new(scripts: &'a [Script], opts: &'a Options, args: Option<Vec<String>>) -> Interp<'a> {
        Interp {
            scripts,
            modules: vec![None; scripts.len()],
            opts,
            argv: Vec::new(),
            argv_list: None,
            args_given: args.is_some(),
            steps: 0,
            recorder: Recorder::default(),
            guards: Vec::new(),
            stack: Vec::new(),
            assumptions: BTreeMap::new(),
            used: Default::default(),
            embedded: Vec::new(),
            notes: Vec::new(),
            diagnostics: Vec::new(),
            origins: HashMap::new(),
            setup_extensions: BTreeMap::new(),
            extensions: Builder::default(),
            uncertain: 0,
            module: 0,
            scope: Vec::new(),
            heap: Registry::default(),
        }
    }

    // ---- places and names ----

    pub fn span_at(&self, offset: ruff_text_size::TextSize) -> Span {
        let s = &self.scripts[self.module];
        let (line, col) = s.line_col(offset.to_usize());
        Span {
            file: s.display.clone(),
            line,
            col,
        }
    }

    pub fn span(&self, node: &impl Ranged) -> Span {
        self.span_at(node.start())
    }

    pub fn step(&mut self, node: &impl Ranged) -> Exec<()> {
        self.steps += 1;
        if self.steps > self.opts.budget.steps {
            let at = self.span(node);
            return Err(Halt::Budget(format!(
                "host reading stopped at {at} after {} steps (budget: --host-steps)",
                self.opts.budget.steps
            )));
        }
        Ok(())
    }

    fn scope(&self) -> Rc<Scope<'a>> {
        self.scope
            .last()
            .cloned()
            .unwrap_or_else(|| self.heap.track(Rc::default()))
    }

    pub fn lookup(&mut self, name: &str) -> Val<'a> {
        if let Some(v) = self.scope().lookup(name) {
            return v;
        }
        super::builtins::builtin(self, name)
            .unwrap_or_else(|| Val::unknown(&format!("`{name}` is not defined where it is read")))
    }

    /// The scope an assignment to `name` writes.
    fn write_scope(&self, name: &str) -> Rc<Scope<'a>> {
        let s = self.scope();
        if s.globals.borrow().contains(name) {
            return s.module();
        }
        if s.nonlocals.borrow().contains(name) {
            if let Some(h) = s.holder(name) {
                return h;
            }
        }
        s
    }

    pub fn assign_name(&mut self, name: &str, v: Val<'a>) {
        let v = self.named(v, name);
        self.write_scope(name)
            .vars
            .borrow_mut()
            .insert(Rc::from(name), v);
    }

    /// An unknown value stored under a name takes that name, so the user can give it a value
    /// (`--param n=…`) and the reports say which name a launch depends on.
    pub fn named(&mut self, v: Val<'a>, name: &str) -> Val<'a> {
        match &v {
            Val::Unknown(u) if u.name.is_none() && !name.is_empty() && name != "_" => {
                let why = u.why.to_string();
                self.assumption(name, &why)
            }
            _ => v,
        }
    }

    /// An unknown value named `name`, or the value the user gave that name.
    pub fn assumption(&mut self, name: &str, why: &str) -> Val<'a> {
        if let Some(v) = self.opts.params.get(name) {
            self.used.insert(name.to_string());
            return if v.fract() == 0.0 && v.abs() < 9.0e15 {
                Val::int(*v as i64)
            } else {
                Val::Float(*v)
            };
        }
        Val::named_unknown(name, why)
    }

    // ---- modules ----

    /// Runs module `i` as `__name__` (`"__main__"` for the script run).
    pub fn run_module(&mut self, i: usize, name: &str) -> Exec<Rc<Scope<'a>>> {
        if let Some(s) = &self.modules[i] {
            return Ok(s.clone());
        }
        let globals = self.heap.track(Rc::new(Scope::default()));
        {
            let script = &self.scripts[i];
            let mut vars = globals.vars.borrow_mut();
            vars.insert(Rc::from("__name__"), Val::str(name));
            vars.insert(
                Rc::from("__file__"),
                Val::str(&script.path.to_string_lossy()),
            );
        }
        self.modules[i] = Some(globals.clone());
        let saved_module = std::mem::replace(&mut self.module, i);
        let saved_scope = std::mem::replace(&mut self.scope, vec![globals.clone()]);
        let file = self.scripts[i].display.clone();
        self.stack.push((
            Arc::from("<module>"),
            Span {
                file,
                line: 1,
                col: 1,
            },
        ));
        let body: &'a [Stmt] = &self.scripts[i].module.body;
        let r = self.block(body);
        self.stack.pop();
        self.scope = saved_scope;
        self.module = saved_module;
        match r {
            Ok(_) => Ok(globals),
            Err(Halt::Exit(why)) => {
                if !why.is_empty() {
                    self.notes.push(why);
                }
                Ok(globals)
            }
            Err(b) => Err(b),
        }
    }

    // ---- statements ----

    pub fn block(&mut self, body: &'a [Stmt]) -> Exec<Flow<'a>> {
        for s in body {
            match self.stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn stmt(&mut self, s: &'a Stmt) -> Exec<Flow<'a>> {
        self.step(s)?;
        match s {
            Stmt::Expr(e) => {
                self.eval(&e.value)?;
            }
            Stmt::Assign(a) => {
                let v = self.eval(&a.value)?;
                for t in &a.targets {
                    self.assign(t, v.clone())?;
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    let v = self.eval(value)?;
                    self.assign(&a.target, v)?;
                }
            }
            Stmt::AugAssign(a) => {
                let cur = self.eval(&a.target)?;
                let r = self.eval(&a.value)?;
                let v = self.binop(a.op, &cur, &r, true);
                self.assign(&a.target, v)?;
            }
            Stmt::If(i) => return self.if_stmt(i),
            Stmt::For(f) => return self.for_stmt(f),
            Stmt::While(w) => return self.while_stmt(w),
            Stmt::FunctionDef(f) => {
                let v = self.make_function(f)?;
                let v = self.decorate(&f.decorator_list, v)?;
                self.assign_name(f.name.as_str(), v);
            }
            Stmt::ClassDef(c) => self.class_def(c)?,
            Stmt::Return(r) => {
                let v = match &r.value {
                    Some(e) => self.eval(e)?,
                    None => Val::None,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Pass(_) => {}
            Stmt::Break(_) => return Ok(Flow::Break),
            Stmt::Continue(_) => return Ok(Flow::Continue),
            Stmt::Import(i) => {
                for alias in &i.names {
                    let full = alias.name.as_str();
                    match &alias.asname {
                        Some(a) => {
                            let v = self.import(full, s)?;
                            self.assign_name(a.as_str(), v);
                        }
                        None => {
                            // `import a.b.c` binds `a`.
                            let top = full.split('.').next().unwrap_or(full);
                            let v = self.import(top, s)?;
                            if full.contains('.') {
                                // run the submodule too (a local package's), keeping `a`
                                let _ = self.import(full, s)?;
                            }
                            self.assign_name(top, v);
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map(|m| m.as_str()).unwrap_or("");
                for alias in &i.names {
                    let name = alias.name.as_str();
                    if name == "*" {
                        if let Val::Obj(o) = self.import(module, s)? {
                            if let Obj::PyModule(m) = &*o {
                                if let Some(g) = self.modules[*m].clone() {
                                    let vars: Vec<(Rc<str>, Val<'a>)> = g
                                        .vars
                                        .borrow()
                                        .iter()
                                        .filter(|(k, _)| !k.starts_with('_'))
                                        .map(|(k, v)| (k.clone(), v.clone()))
                                        .collect();
                                    for (k, v) in vars {
                                        self.assign_name(&k, v);
                                    }
                                }
                            }
                        }
                        continue;
                    }
                    let full = if module.is_empty() {
                        name.to_string()
                    } else {
                        format!("{module}.{name}")
                    };
                    let v = match self.import(module, s)? {
                        Val::Obj(o) if matches!(&*o, Obj::PyModule(_)) => {
                            let m = Val::Obj(o);
                            match self.getattr(&m, name, s)? {
                                Val::Unknown(_) => self.import(&full, s)?,
                                v => v,
                            }
                        }
                        _ => self.import(&full, s)?,
                    };
                    let bind = alias.asname.as_ref().map(|a| a.as_str()).unwrap_or(name);
                    self.assign_name(bind, v);
                }
            }
            Stmt::Global(g) => {
                let sc = self.scope();
                for n in &g.names {
                    sc.globals.borrow_mut().insert(Rc::from(n.as_str()));
                }
            }
            Stmt::Nonlocal(g) => {
                let sc = self.scope();
                for n in &g.names {
                    sc.nonlocals.borrow_mut().insert(Rc::from(n.as_str()));
                }
            }
            Stmt::With(w) => {
                for item in &w.items {
                    let v = self.eval(&item.context_expr)?;
                    if let Some(t) = &item.optional_vars {
                        let entered = super::builtins::enter(self, v);
                        self.assign(t, entered)?;
                    }
                }
                return self.block(&w.body);
            }
            Stmt::Try(t) => {
                let r = self.block(&t.body);
                let flow = match r {
                    Err(Halt::Exit(why))
                        if !t.handlers.is_empty() && !why.starts_with("sys.exit") =>
                    {
                        // The first handler runs (kerncast does not match exception types).
                        match &t.handlers[0] {
                            ast::ExceptHandler::ExceptHandler(h) => {
                                if let Some(n) = &h.name {
                                    self.assign_name(n.as_str(), Val::unknown("an exception"));
                                }
                                self.block(&h.body)
                            }
                        }
                    }
                    Ok(Flow::Normal) => self.block(&t.orelse),
                    other => other,
                };
                let fin = self.block(&t.finalbody)?;
                let flow = flow?;
                return Ok(match fin {
                    Flow::Normal => flow,
                    other => other,
                });
            }
            Stmt::Raise(r) => {
                let what = match &r.exc {
                    Some(e) => {
                        let at = self.span(&**e);
                        format!("the script raises an exception at line {}", at.line)
                    }
                    None => "the script re-raises an exception".into(),
                };
                return self.exit(what);
            }
            Stmt::Assert(a) => {
                let v = self.eval(&a.test)?;
                if v.truth() == Some(false) {
                    let at = self.span(a);
                    return self.exit(format!("an assertion fails at line {}", at.line));
                }
            }
            Stmt::Delete(d) => {
                for t in &d.targets {
                    if let Expr::Name(n) = t {
                        self.write_scope(n.id.as_str())
                            .vars
                            .borrow_mut()
                            .remove(n.id.as_str());
                    }
                }
            }
            Stmt::TypeAlias(_) | Stmt::IpyEscapeCommand(_) => {}
            Stmt::Match(m) => {
                let at = self.span(m);
                self.notes.push(format!(
                    "{}:{}: a `match` statement is not followed",
                    at.file, at.line
                ));
            }
        }
        Ok(Flow::Normal)
    }

    /// The program stops (an exit or an uncaught exception), or, inside an undecided
    /// branch, that branch does.
    pub fn exit(&mut self, why: String) -> Exec<Flow<'a>> {
        Err(Halt::Exit(why))
    }

    fn decorate(&mut self, decorators: &'a [ast::Decorator], v: Val<'a>) -> Exec<Val<'a>> {
        let mut v = v;
        for d in decorators.iter().rev() {
            let dv = self.eval(&d.expression)?;
            v = match &dv {
                // Decorators that keep the function callable as written.
                Val::Lib(n)
                    if matches!(
                        &**n,
                        "functools.lru_cache"
                            | "functools.cache"
                            | "staticmethod"
                            | "classmethod"
                            | "property"
                            | "torch.no_grad"
                            | "torch.inference_mode"
                            | "functools.wraps"
                    ) =>
                {
                    v
                }
                Val::Method(..) | Val::Lib(_) => v,
                _ => self.call(
                    dv,
                    Args {
                        pos: vec![v],
                        kw: Vec::new(),
                    },
                    &d.expression,
                )?,
            };
        }
        Ok(v)
    }

    fn make_function(&mut self, f: &'a ast::StmtFunctionDef) -> Exec<Val<'a>> {
        let defaults = self.defaults(&f.parameters)?;
        Ok(Val::Func(Rc::new(PyFunc {
            name: Rc::from(f.name.as_str()),
            params: &f.parameters,
            body: FuncBody::Def(f),
            defaults,
            scope: self.scope(),
            module: self.module,
        })))
    }

    fn defaults(&mut self, p: &'a ast::Parameters) -> Exec<Vec<(Rc<str>, Val<'a>)>> {
        let mut out = Vec::new();
        for a in p
            .posonlyargs
            .iter()
            .chain(p.args.iter())
            .chain(p.kwonlyargs.iter())
        {
            if let Some(d) = &a.default {
                let v = self.eval(d)?;
                out.push((Rc::from(a.parameter.name.as_str()), v));
            }
        }
        Ok(out)
    }

    fn class_def(&mut self, c: &'a ast::StmtClassDef) -> Exec<()> {
        let class = self.heap.track(Rc::new(ClassDef {
            name: Rc::from(c.name.as_str()),
            attrs: RefCell::new(BTreeMap::new()),
        }));
        // The class body runs in a scope of its own whose names become the attributes.
        let sc = self.heap.track(Rc::new(Scope {
            parent: Some(self.scope()),
            ..Scope::default()
        }));
        self.scope.push(sc.clone());
        let r = self.block(&c.body);
        self.scope.pop();
        r?;
        // Methods see the enclosing scope, not the class body's, as Python's do.
        let outer = self.scope();
        for (k, v) in sc.vars.borrow().iter() {
            let v = match v {
                Val::Func(f) => Val::Func(Rc::new(PyFunc {
                    name: f.name.clone(),
                    params: f.params,
                    body: match &f.body {
                        FuncBody::Def(d) => FuncBody::Def(d),
                        FuncBody::Lambda(e) => FuncBody::Lambda(e),
                    },
                    defaults: f.defaults.clone(),
                    scope: outer.clone(),
                    module: f.module,
                })),
                other => other.clone(),
            };
            class.attrs.borrow_mut().insert(k.clone(), v);
        }
        self.assign_name(c.name.as_str(), Val::obj(&self.heap, Obj::Class(class)));
        Ok(())
    }

    fn if_stmt(&mut self, i: &'a ast::StmtIf) -> Exec<Flow<'a>> {
        // The `if` and its `elif`s in turn: the first whose test is true runs; an undecided
        // test runs its branch and the rest as alternatives.
        let mut arms: Vec<(Option<&'a Expr>, &'a [Stmt])> = vec![(Some(&i.test), &i.body[..])];
        for c in &i.elif_else_clauses {
            arms.push((c.test.as_ref(), &c.body[..]));
        }
        self.arms(&arms, i)
    }

    fn arms(
        &mut self,
        arms: &[(Option<&'a Expr>, &'a [Stmt])],
        at: &ast::StmtIf,
    ) -> Exec<Flow<'a>> {
        let Some(((test, body), rest)) = arms.split_first() else {
            return Ok(Flow::Normal);
        };
        let Some(test) = test else {
            return self.block(body);
        };
        let c = self.eval(test)?;
        match c.truth() {
            Some(true) => self.block(body),
            Some(false) => self.arms(rest, at),
            None => {
                let line = self.span(*test).line;
                let why = match c.brief() {
                    Some(r) => format!("the condition at line {line} ({r})"),
                    None => format!("the condition at line {line}"),
                };
                self.alternatives(body, rest, at, &why)?;
                Ok(Flow::Normal)
            }
        }
    }

    /// Runs `body` and the remaining arms each from the same state, since kerncast cannot
    /// tell which runs; what they leave different is unknown afterwards.
    fn alternatives(
        &mut self,
        body: &'a [Stmt],
        rest: &[(Option<&'a Expr>, &'a [Stmt])],
        at: &ast::StmtIf,
        why: &str,
    ) -> Exec<()> {
        let mut written = BTreeSet::new();
        written_by(body, &mut written);
        for (t, b) in rest {
            if let Some(t) = t {
                written_in_expr(t, &mut written);
            }
            written_by(b, &mut written);
        }
        let before = self.snapshot(&written);
        let mut results = Vec::new();
        self.guards.push(Rc::from(why));
        self.uncertain += 1;
        let r = self.block(body).map(|_| ());
        let r = match r {
            Err(Halt::Exit(_)) => Ok(()),
            other => other,
        };
        if let Err(e) = r {
            self.uncertain -= 1;
            self.guards.pop();
            return Err(e);
        }
        results.push(self.snapshot(&written));
        self.restore(&before);
        let r = self.arms(rest, at).map(|_| ());
        let r = match r {
            Err(Halt::Exit(_)) => Ok(()),
            other => other,
        };
        self.uncertain -= 1;
        self.guards.pop();
        r?;
        results.push(self.snapshot(&written));
        for (name, _) in &before {
            let vals: Vec<Option<Val<'a>>> = results
                .iter()
                .map(|r| {
                    r.iter()
                        .find(|(n, _)| n == name)
                        .and_then(|(_, v)| v.clone())
                })
                .collect();
            let first = vals[0].clone();
            let agree = vals.iter().all(|v| match (v, &first) {
                (Some(a), Some(b)) => a.same(b),
                (None, None) => true,
                _ => false,
            });
            let v = if agree {
                first
            } else {
                Some(Val::unknown(&format!("it depends on {why}")))
            };
            let sc = self.write_scope(name);
            match v {
                Some(v) => {
                    sc.vars.borrow_mut().insert(name.clone(), v);
                }
                None => {
                    sc.vars.borrow_mut().remove(name);
                }
            }
        }
        Ok(())
    }

    fn snapshot(&self, names: &BTreeSet<Rc<str>>) -> Vec<(Rc<str>, Option<Val<'a>>)> {
        names
            .iter()
            .map(|n| (n.clone(), self.write_scope(n).vars.borrow().get(n).cloned()))
            .collect()
    }

    fn restore(&self, snap: &[(Rc<str>, Option<Val<'a>>)]) {
        for (n, v) in snap {
            let sc = self.write_scope(n);
            match v {
                Some(v) => {
                    sc.vars.borrow_mut().insert(n.clone(), v.clone());
                }
                None => {
                    sc.vars.borrow_mut().remove(n);
                }
            }
        }
    }

    /// Every name the statements may write becomes unknown (`why`).
    fn forget_written(&mut self, body: &'a [Stmt], extra: Option<&'a Expr>, why: &str) {
        let mut written = BTreeSet::new();
        written_by(body, &mut written);
        if let Some(e) = extra {
            written_in_expr(e, &mut written);
        }
        for n in written {
            let sc = self.write_scope(&n);
            let keep = matches!(
                sc.vars.borrow().get(&n),
                Some(Val::Func(_) | Val::Obj(_) | Val::Lib(_) | Val::List(_) | Val::Dict(_))
            );
            if !keep {
                let v = Val::unknown(why);
                sc.vars.borrow_mut().insert(n.clone(), v);
            }
        }
    }

    fn for_stmt(&mut self, f: &'a ast::StmtFor) -> Exec<Flow<'a>> {
        let iter = self.eval(&f.iter)?;
        let line = self.span(f).line;
        let start_mark = self.recorder.log.len();
        // A range is walked without listing it.
        let (len, get): (Option<BigInt>, ItemAt<'a>) = match &iter {
            Val::Range(r) => {
                let r = r.clone();
                (
                    Some(r.len()),
                    Box::new(move |i: &BigInt| Val::Int(r.get(i))),
                )
            }
            other => match super::builtins::iterate(self, other) {
                Some(items) => {
                    let n = BigInt::from(items.len());
                    (
                        Some(n),
                        Box::new(move |i: &BigInt| {
                            i.to_usize()
                                .and_then(|i| items.get(i).cloned())
                                .unwrap_or(Val::None)
                        }),
                    )
                }
                None => (None, Box::new(|_: &BigInt| Val::None)),
            },
        };
        let Some(len) = len else {
            let why = match iter.brief() {
                Some(r) => {
                    format!("the loop at line {line} over a sequence kerncast does not know ({r})")
                }
                None => format!("the loop at line {line} over a sequence kerncast does not know"),
            };
            let target_value = Val::unknown(&why);
            self.assign(&f.target, target_value)?;
            return self.unknown_loop(&f.body, None, start_mark, &why);
        };
        let reads_target = {
            let mut targets = BTreeSet::new();
            target_names(&f.target, &mut targets);
            let mut read = BTreeSet::new();
            names_read(&f.body, &mut read);
            targets.iter().any(|t| read.contains(t))
        };
        let mut i = BigInt::zero();
        let mut first: Option<Vec<usize>> = None;
        let mut steady = true;
        let mut iterations: u64 = 0;
        let mut broke = false;
        let start_steps = self.steps;
        while i < len {
            // A loop that has launched nothing is followed only while it is cheap: what it
            // leaves behind becomes unknown.
            if self.recorder.log.len() == start_mark
                && self.steps - start_steps > self.opts.budget.quiet_loop_steps
            {
                let why = format!("it is written by the loop at line {line}, which kerncast did not follow to its end");
                self.forget_written(&f.body, None, &why);
                let mut targets = BTreeSet::new();
                target_names(&f.target, &mut targets);
                for t in targets {
                    self.assign_name(&t, Val::unknown(&why));
                }
                return Ok(Flow::Normal);
            }
            if iterations >= self.opts.budget.loop_iterations {
                let why = format!(
                    "the loop at line {line} was followed for {iterations} iterations (budget: --host-loop-iterations)"
                );
                self.recorder.partial_since(start_mark, &why);
                self.forget_written(&f.body, None, &why);
                return Ok(Flow::Normal);
            }
            let v = get(&i);
            self.assign(&f.target, v)?;
            let mark = self.recorder.log.len();
            let flow = self.block(&f.body)?;
            iterations += 1;
            let launched = self.recorder.since(mark).to_vec();
            match &first {
                None => first = Some(launched.clone()),
                Some(fl) => steady &= *fl == launched,
            }
            match flow {
                Flow::Break => {
                    broke = true;
                    break;
                }
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
            i += 1;
            if steady
                && !reads_target
                && !launched.is_empty()
                && iterations == STEADY_SAMPLE
                && i < len
            {
                let left = &len - &i;
                let Some(left_u) = left.to_u64() else { break };
                self.recorder.repeat_since(mark, left_u);
                let last = get(&(&len - 1));
                self.assign(&f.target, last)?;
                let why = format!(
                    "it is written by the loop at line {line}, whose last {left_u} iterations were counted, not run"
                );
                self.forget_written(&f.body, None, &why);
                return Ok(Flow::Normal);
            }
        }
        if !broke {
            return self.block(&f.orelse);
        }
        Ok(Flow::Normal)
    }

    fn while_stmt(&mut self, w: &'a ast::StmtWhile) -> Exec<Flow<'a>> {
        let line = self.span(w).line;
        let start_mark = self.recorder.log.len();
        let start_steps = self.steps;
        let mut iterations: u64 = 0;
        loop {
            let c = self.eval(&w.test)?;
            match c.truth() {
                Some(false) => return self.block(&w.orelse),
                Some(true) => {}
                None => {
                    let why = format!(
                        "the loop at line {line}, whose end kerncast cannot tell ({})",
                        c.brief().unwrap_or_default()
                    );
                    return self.unknown_loop(&w.body, Some(&w.test), start_mark, &why);
                }
            }
            if iterations >= self.opts.budget.loop_iterations
                || (self.recorder.log.len() == start_mark
                    && self.steps - start_steps > self.opts.budget.quiet_loop_steps)
            {
                let why = format!("the loop at line {line} was followed for {iterations} iterations (budget: --host-loop-iterations)");
                self.recorder.partial_since(start_mark, &why);
                self.forget_written(&w.body, Some(&w.test), &why);
                return Ok(Flow::Normal);
            }
            iterations += 1;
            match self.block(&w.body)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return(v) => return Ok(Flow::Return(v)),
                _ => {}
            }
        }
    }

    /// A loop kerncast cannot tell the end of: its body runs once, under a note, with what it
    /// writes unknown before and after.
    fn unknown_loop(
        &mut self,
        body: &'a [Stmt],
        test: Option<&'a Expr>,
        start_mark: usize,
        why: &str,
    ) -> Exec<Flow<'a>> {
        let forgotten = format!("it is written by {why}");
        self.forget_written(body, test, &forgotten);
        self.guards.push(Rc::from(why));
        self.uncertain += 1;
        let mark = self.recorder.log.len();
        let r = self.block(body);
        self.uncertain -= 1;
        self.guards.pop();
        match r {
            Ok(_) | Err(Halt::Exit(_)) => {}
            Err(e) => return Err(e),
        }
        self.recorder.partial_since(start_mark.min(mark), why);
        self.forget_written(body, test, &forgotten);
        Ok(Flow::Normal)
    }

    // ---- assignment ----

    pub fn assign(&mut self, target: &'a Expr, v: Val<'a>) -> Exec<()> {
        match target {
            Expr::Name(n) => self.assign_name(n.id.as_str(), v),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let star = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                match super::builtins::iterate(self, &v) {
                    Some(items) => {
                        let n = elts.len();
                        match star {
                            None if items.len() == n => {
                                for (t, x) in elts.iter().zip(items) {
                                    self.assign(t, x)?;
                                }
                            }
                            Some(s) if items.len() + 1 >= n => {
                                let tail = n - s - 1;
                                for (t, x) in elts[..s].iter().zip(items.iter()) {
                                    self.assign(t, x.clone())?;
                                }
                                let mid: Vec<Val<'a>> = items[s..items.len() - tail].to_vec();
                                if let Expr::Starred(st) = &elts[s] {
                                    self.assign(&st.value, Val::list(&self.heap, mid))?;
                                }
                                for (t, x) in
                                    elts[s + 1..].iter().zip(items[items.len() - tail..].iter())
                                {
                                    self.assign(t, x.clone())?;
                                }
                            }
                            _ => {
                                let line = self.span(target).line;
                                let u = Val::unknown(&format!(
                                    "an unpacking at line {line} of {} values into {n} names",
                                    items.len()
                                ));
                                for t in elts {
                                    self.assign(t, u.clone())?;
                                }
                            }
                        }
                    }
                    None => {
                        let u = match &v {
                            Val::Unknown(_) => v.clone(),
                            _ => Val::unknown("an element of a value kerncast cannot unpack"),
                        };
                        for t in elts {
                            let t = match t {
                                Expr::Starred(s) => &*s.value,
                                t => t,
                            };
                            self.assign(t, u.clone())?;
                        }
                    }
                }
            }
            Expr::Starred(s) => self.assign(&s.value, v)?,
            Expr::Attribute(a) => {
                let obj = self.eval(&a.value)?;
                super::builtins::setattr(self, &obj, a.attr.as_str(), v);
            }
            Expr::Subscript(s) => {
                let obj = self.eval(&s.value)?;
                let key = self.eval(&s.slice)?;
                match &obj {
                    Val::List(l) => {
                        let len = l.borrow().len();
                        if let Some(i) = key.as_i64().and_then(|i| index(i, len)) {
                            l.borrow_mut()[i] = v;
                        } else {
                            // An element kerncast cannot place: the list's elements are no
                            // longer known.
                            let u = Val::unknown(
                                "an element of a list set at an index kerncast does not know",
                            );
                            for x in l.borrow_mut().iter_mut() {
                                *x = u.clone();
                            }
                        }
                    }
                    Val::Dict(d) => {
                        let mut d = d.borrow_mut();
                        if let Some(slot) = d.iter_mut().find(|(k, _)| k.same(&key)) {
                            slot.1 = v;
                        } else {
                            d.push((key, v));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    // ---- expressions ----

    pub fn eval(&mut self, e: &'a Expr) -> Exec<Val<'a>> {
        self.step(e)?;
        Ok(match e {
            Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => match i.as_u64() {
                    Some(u) => Val::Int(BigInt::from(u)),
                    None => parse_big(&i.to_string())
                        .map(Val::Int)
                        .unwrap_or_else(|| Val::unknown("an integer literal kerncast cannot read")),
                },
                ast::Number::Float(f) => Val::Float(*f),
                ast::Number::Complex { .. } => Val::unknown("a complex number"),
            },
            Expr::StringLiteral(s) => {
                let text: Rc<str> = Rc::from(s.value.to_str());
                if text.len() >= 24 && !s.value.is_implicit_concatenated() {
                    let origin = self.literal_origin(s);
                    self.origins.insert(
                        Rc::as_ptr(&text) as *const u8 as usize,
                        (text.clone(), origin),
                    );
                }
                Val::Str(text)
            }
            Expr::BytesLiteral(_) => Val::unknown("a bytes literal"),
            Expr::FString(_) | Expr::TString(_) => {
                Val::unknown("an f-string, which kerncast does not format")
            }
            Expr::BooleanLiteral(b) => Val::Bool(b.value),
            Expr::NoneLiteral(_) => Val::None,
            Expr::EllipsisLiteral(_) => Val::None,
            Expr::Name(n) => self.lookup(n.id.as_str()),
            Expr::BinOp(b) => {
                let l = self.eval(&b.left)?;
                let r = self.eval(&b.right)?;
                self.binop(b.op, &l, &r, false)
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand)?;
                unary(u.op, v)
            }
            Expr::BoolOp(b) => {
                // `and`/`or` give one of their operands, as Python does.
                let mut last = Val::None;
                for (k, x) in b.values.iter().enumerate() {
                    let v = self.eval(x)?;
                    let t = v.truth();
                    let stop = match b.op {
                        ast::BoolOp::And => t == Some(false),
                        ast::BoolOp::Or => t == Some(true),
                    };
                    if stop || k + 1 == b.values.len() {
                        return Ok(v);
                    }
                    if t.is_none() {
                        // The result is this operand or a later one: unknown unless all agree.
                        let rest = self.eval_bool_rest(b, k + 1)?;
                        return Ok(if rest.same(&v) {
                            v
                        } else {
                            first_unknown(&v, &rest)
                        });
                    }
                    last = v;
                }
                last
            }
            Expr::Compare(c) => {
                let mut left = self.eval(&c.left)?;
                let mut result = Val::Bool(true);
                for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                    let r = self.eval(right)?;
                    let v = self.compare(*op, &left, &r);
                    match v.truth() {
                        Some(false) => return Ok(Val::Bool(false)),
                        Some(true) => {}
                        None => result = v,
                    }
                    left = r;
                }
                result
            }
            Expr::If(i) => {
                let c = self.eval(&i.test)?;
                match c.truth() {
                    Some(true) => self.eval(&i.body)?,
                    Some(false) => self.eval(&i.orelse)?,
                    None => {
                        let a = self.eval(&i.body)?;
                        let b = self.eval(&i.orelse)?;
                        if a.same(&b) {
                            a
                        } else {
                            let line = self.span(e).line;
                            Val::unknown(&format!(
                                "it depends on the condition at line {line}{}",
                                c.brief().map(|r| format!(" ({r})")).unwrap_or_default()
                            ))
                        }
                    }
                }
            }
            Expr::Tuple(t) => Val::tuple(self.eval_elts(&t.elts)?),
            Expr::List(l) => self.eval_elts(&l.elts).map(|v| Val::list(&self.heap, v))?,
            Expr::Set(s) => self.eval_elts(&s.elts).map(|v| Val::list(&self.heap, v))?,
            Expr::Dict(d) => {
                let mut items = Vec::new();
                for it in &d.items {
                    let v = self.eval(&it.value)?;
                    match &it.key {
                        Some(k) => {
                            let k = self.eval(k)?;
                            items.push((k, v));
                        }
                        None => {
                            if let Val::Dict(other) = v {
                                items.extend(other.borrow().iter().cloned());
                            }
                        }
                    }
                }
                Val::dict(&self.heap, items)
            }
            Expr::ListComp(c) => self
                .comprehension(&c.elt, &c.generators)
                .map(|v| Val::list(&self.heap, v))?,
            Expr::SetComp(c) => self
                .comprehension(&c.elt, &c.generators)
                .map(|v| Val::list(&self.heap, v))?,
            Expr::Generator(c) => self
                .comprehension(&c.elt, &c.generators)
                .map(|v| Val::list(&self.heap, v))?,
            Expr::DictComp(_) => Val::unknown("a dict comprehension"),
            Expr::Lambda(l) => {
                let defaults = match &l.parameters {
                    Some(p) => self.defaults(p)?,
                    None => Vec::new(),
                };
                Val::Func(Rc::new(PyFunc {
                    name: Rc::from("<lambda>"),
                    params: l.parameters.as_deref().unwrap_or(&EMPTY_PARAMS),
                    body: FuncBody::Lambda(&l.body),
                    defaults,
                    scope: self.scope(),
                    module: self.module,
                }))
            }
            Expr::Named(n) => {
                let v = self.eval(&n.value)?;
                self.assign(&n.target, v.clone())?;
                v
            }
            Expr::Call(c) => {
                let f = self.eval(&c.func)?;
                let args = self.eval_args(&c.arguments)?;
                self.call(f, args, e)?
            }
            Expr::Attribute(a) => {
                let v = self.eval(&a.value)?;
                self.getattr(&v, a.attr.as_str(), e)?
            }
            Expr::Subscript(s) => {
                let v = self.eval(&s.value)?;
                if let Expr::Slice(sl) = &*s.slice {
                    let lo = opt_eval(self, &sl.lower)?;
                    let hi = opt_eval(self, &sl.upper)?;
                    let st = opt_eval(self, &sl.step)?;
                    super::builtins::slice(&self.heap, &v, lo, hi, st)
                } else {
                    let k = self.eval(&s.slice)?;
                    super::builtins::subscript(self, &v, &k)
                }
            }
            Expr::Starred(s) => self.eval(&s.value)?,
            Expr::Slice(_) => Val::unknown("a slice outside a subscript"),
            Expr::Await(a) => self.eval(&a.value)?,
            Expr::Yield(_) | Expr::YieldFrom(_) => Val::unknown("a generator's value"),
            Expr::IpyEscapeCommand(_) => Val::None,
        })
    }

    fn eval_bool_rest(&mut self, b: &'a ast::ExprBoolOp, from: usize) -> Exec<Val<'a>> {
        let mut v = Val::None;
        for x in &b.values[from..] {
            v = self.eval(x)?;
            let t = v.truth();
            let stop = match b.op {
                ast::BoolOp::And => t == Some(false),
                ast::BoolOp::Or => t == Some(true),
            };
            if stop || t.is_none() {
                break;
            }
        }
        Ok(v)
    }

    fn literal_origin(&self, s: &ast::ExprStringLiteral) -> Origin {
        let script = &self.scripts[self.module];
        let start = s.start().to_usize();
        let bytes = script.text.as_bytes();
        let mut i = start;
        while i < bytes.len() && b"rRuUbBfF".contains(&bytes[i]) {
            i += 1;
        }
        if i < bytes.len() && (bytes[i] == b'"' || bytes[i] == b'\'') {
            let q = bytes[i];
            let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
            i += if triple { 3 } else { 1 };
        }
        let (line, col) = script.line_col(i);
        Origin::Literal {
            file: script.display.clone().as_ref().into(),
            line,
            col,
        }
    }

    fn eval_elts(&mut self, elts: &'a [Expr]) -> Exec<Vec<Val<'a>>> {
        let mut out = Vec::with_capacity(elts.len());
        for x in elts {
            if let Expr::Starred(s) = x {
                let v = self.eval(&s.value)?;
                match super::builtins::iterate(self, &v) {
                    Some(items) => out.extend(items),
                    None => {
                        return Ok(vec![Val::unknown("a starred value kerncast cannot unpack")])
                    }
                }
            } else {
                out.push(self.eval(x)?);
            }
        }
        Ok(out)
    }

    pub fn eval_args(&mut self, a: &'a ast::Arguments) -> Exec<Args<'a>> {
        let mut out = Args::default();
        for x in a.args.iter() {
            if let Expr::Starred(s) = x {
                let v = self.eval(&s.value)?;
                match super::builtins::iterate(self, &v) {
                    Some(items) => out.pos.extend(items),
                    None => out
                        .pos
                        .push(Val::unknown("arguments kerncast cannot unpack (*args)")),
                }
            } else {
                out.pos.push(self.eval(x)?);
            }
        }
        for k in a.keywords.iter() {
            let v = self.eval(&k.value)?;
            match &k.arg {
                Some(name) => out.kw.push((Rc::from(name.as_str()), v)),
                None => {
                    if let Val::Dict(d) = v {
                        for (k, v) in d.borrow().iter() {
                            if let Val::Str(s) = k {
                                out.kw.push((s.clone(), v.clone()));
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    fn comprehension(
        &mut self,
        elt: &'a Expr,
        gens: &'a [ast::Comprehension],
    ) -> Exec<Vec<Val<'a>>> {
        // Its own scope, so its variables do not leak (Python 3).
        let sc = self.heap.track(Rc::new(Scope {
            parent: Some(self.scope()),
            ..Scope::default()
        }));
        self.scope.push(sc);
        let mut out = Vec::new();
        let r = self.comp_level(elt, gens, &mut out);
        self.scope.pop();
        r?;
        Ok(out)
    }

    fn comp_level(
        &mut self,
        elt: &'a Expr,
        gens: &'a [ast::Comprehension],
        out: &mut Vec<Val<'a>>,
    ) -> Exec<()> {
        let Some((g, rest)) = gens.split_first() else {
            out.push(self.eval(elt)?);
            return Ok(());
        };
        let it = self.eval(&g.iter)?;
        let Some(items) = super::builtins::iterate(self, &it) else {
            *out = vec![Val::unknown(
                "a comprehension over a sequence kerncast does not know",
            )];
            return Ok(());
        };
        'items: for x in items {
            self.assign(&g.target, x)?;
            for cond in &g.ifs {
                match self.eval(cond)?.truth() {
                    Some(true) => {}
                    Some(false) => continue 'items,
                    None => {
                        *out = vec![Val::unknown(
                            "a comprehension whose condition kerncast cannot decide",
                        )];
                        return Ok(());
                    }
                }
            }
            self.comp_level(elt, rest, out)?;
        }
        Ok(())
    }

    pub fn binop(&mut self, op: ast::Operator, l: &Val<'a>, r: &Val<'a>, _aug: bool) -> Val<'a> {
        binop(&self.heap, op, l, r)
    }

    pub fn compare(&mut self, op: ast::CmpOp, l: &Val<'a>, r: &Val<'a>) -> Val<'a> {
        compare(op, l, r)
    }

    // ---- attributes and calls ----

    pub fn getattr(&mut self, v: &Val<'a>, name: &str, at: &impl Ranged) -> Exec<Val<'a>> {
        if let Val::Obj(o) = v {
            match &**o {
                Obj::PyModule(m) => {
                    let g = self.modules[*m].clone();
                    return Ok(g
                        .and_then(|g| g.vars.borrow().get(name).cloned())
                        .unwrap_or_else(|| {
                            Val::unknown(&format!("`{name}` is not defined in the module"))
                        }));
                }
                Obj::Instance { class, attrs } => {
                    if let Some(v) = attrs.borrow().get(name) {
                        return Ok(v.clone());
                    }
                    return Ok(match class.attrs.borrow().get(name) {
                        Some(Val::Func(f)) => Val::Bound(f.clone(), Box::new(v.clone())),
                        Some(other) => other.clone(),
                        None => Val::unknown(&format!(
                            "the attribute `{name}` of a `{}`, never set",
                            class.name
                        )),
                    });
                }
                Obj::Class(c) => {
                    return Ok(c.attrs.borrow().get(name).cloned().unwrap_or_else(|| {
                        Val::unknown(&format!("the attribute `{name}` of `{}`", c.name))
                    }));
                }
                _ => {}
            }
        }
        let _ = at;
        Ok(super::builtins::getattr(self, v, name))
    }

    pub fn call(&mut self, f: Val<'a>, args: Args<'a>, at: &'a Expr) -> Exec<Val<'a>> {
        match f {
            Val::Func(func) => self.call_function(&func, None, args, at),
            Val::Bound(func, this) => self.call_function(&func, Some(*this), args, at),
            Val::Obj(o) => {
                let Obj::Class(c) = &*o else {
                    return super::builtins::call(self, Val::Obj(o), args, at);
                };
                let inst = Val::obj(
                    &self.heap,
                    Obj::Instance {
                        class: c.clone(),
                        attrs: RefCell::new(BTreeMap::new()),
                    },
                );
                let init = c.attrs.borrow().get("__init__").cloned();
                if let Some(Val::Func(init)) = init {
                    self.call_function(&init, Some(inst.clone()), args, at)?;
                }
                Ok(inst)
            }
            Val::Unknown(u) => {
                // A callable kerncast does not know may call what it is given.
                let funcs: Vec<Val<'a>> = args
                    .pos
                    .iter()
                    .chain(args.kw.iter().map(|(_, v)| v))
                    .filter(|v| matches!(v, Val::Func(_) | Val::Bound(..)))
                    .cloned()
                    .collect();
                let why = format!(
                    "a call of a value kerncast does not know ({})",
                    Val::Unknown(u.clone()).brief().unwrap_or_default()
                );
                for func in funcs {
                    self.call_unseen(func, &why, at)?;
                }
                Ok(Val::unknown(&why))
            }
            other => super::builtins::call(self, other, args, at),
        }
    }

    /// A function of the script handed to a callable kerncast does not follow: it runs once
    /// with unknown arguments, its launches marked as counted in part.
    pub fn call_unseen(&mut self, func: Val<'a>, why: &str, at: &'a Expr) -> Exec<()> {
        let n = match &func {
            Val::Func(f) | Val::Bound(f, _) => f.params.args.len() + f.params.posonlyargs.len(),
            _ => 0,
        };
        let args = Args {
            pos: (0..n).map(|_| Val::unknown(why)).collect(),
            kw: Vec::new(),
        };
        let mark = self.recorder.log.len();
        self.guards.push(Rc::from(why));
        self.uncertain += 1;
        let r = self.call(func, args, at);
        self.uncertain -= 1;
        self.guards.pop();
        match r {
            Ok(_) | Err(Halt::Exit(_)) => {}
            Err(e) => return Err(e),
        }
        self.recorder.partial_since(mark, why);
        Ok(())
    }

    pub fn call_function(
        &mut self,
        f: &Rc<PyFunc<'a>>,
        this: Option<Val<'a>>,
        args: Args<'a>,
        at: &'a Expr,
    ) -> Exec<Val<'a>> {
        if self.stack.len() >= self.opts.budget.call_depth {
            return Ok(Val::unknown(&format!(
                "calls nest deeper than {} (budget: --host-call-depth)",
                self.opts.budget.call_depth
            )));
        }
        let scope = self.heap.track(Rc::new(Scope {
            parent: Some(f.scope.clone()),
            ..Scope::default()
        }));
        self.bind_params(f, &scope, this, args);
        let call_span = self.span(at);
        let saved_module = std::mem::replace(&mut self.module, f.module);
        self.scope.push(scope);
        self.stack.push((Arc::from(&*f.name), call_span));
        let r = match &f.body {
            FuncBody::Def(d) => self.block(&d.body).map(|flow| match flow {
                Flow::Return(v) => v,
                _ => Val::None,
            }),
            FuncBody::Lambda(e) => self.eval(e),
        };
        self.stack.pop();
        self.scope.pop();
        self.module = saved_module;
        r
    }

    fn bind_params(
        &mut self,
        f: &PyFunc<'a>,
        scope: &Rc<Scope<'a>>,
        this: Option<Val<'a>>,
        args: Args<'a>,
    ) {
        let p = f.params;
        let mut pos = args.pos;
        if let Some(t) = this {
            pos.insert(0, t);
        }
        let mut kw = args.kw;
        let mut vars = scope.vars.borrow_mut();
        let positional: Vec<&ast::ParameterWithDefault> =
            p.posonlyargs.iter().chain(p.args.iter()).collect();
        let mut rest = Vec::new();
        for (i, v) in pos.into_iter().enumerate() {
            match positional.get(i) {
                Some(param) => {
                    vars.insert(Rc::from(param.parameter.name.as_str()), v);
                }
                None => rest.push(v),
            }
        }
        for param in positional
            .iter()
            .chain(p.kwonlyargs.iter().collect::<Vec<_>>().iter())
        {
            let name = param.parameter.name.as_str();
            if let Some(k) = kw.iter().position(|(k, _)| &**k == name) {
                let (_, v) = kw.remove(k);
                vars.insert(Rc::from(name), v);
            }
            if !vars.contains_key(name) {
                let v = f
                    .defaults
                    .iter()
                    .find(|(n, _)| &**n == name)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| {
                        Val::unknown(&format!("the argument `{name}` of `{}`, not given", f.name))
                    });
                vars.insert(Rc::from(name), v);
            }
        }
        if let Some(va) = &p.vararg {
            vars.insert(Rc::from(va.name.as_str()), Val::tuple(rest));
        }
        if let Some(kwa) = &p.kwarg {
            let items = kw.into_iter().map(|(k, v)| (Val::Str(k), v)).collect();
            vars.insert(Rc::from(kwa.name.as_str()), Val::dict(&self.heap, items));
        }
        drop(vars);
        // `global` and `nonlocal` declarations hold for the whole body.
        if let FuncBody::Def(d) = &f.body {
            declared(&d.body, scope);
        }
    }

    /// `import name`: a module of the program (run once), an extension a `setup.py` builds,
    /// or a library.
    pub fn import(&mut self, name: &str, at: &'a Stmt) -> Exec<Val<'a>> {
        if let Some(i) = self.local_module(name) {
            if self.modules[i].is_none() {
                self.run_module(i, name)?;
            }
            return Ok(Val::obj(&self.heap, Obj::PyModule(i)));
        }
        if let Some((sources, dir)) = self.setup_extensions.get(name).cloned() {
            let span = self.span(at);
            return Ok(super::extension::build_from_files(
                self, name, &sources, &dir, &span,
            ));
        }
        Ok(Val::Lib(Rc::from(super::builtins::canonical_module(name))))
    }

    fn local_module(&self, name: &str) -> Option<usize> {
        let here = self.scripts[self.module].path.parent()?.to_path_buf();
        let rel = name.replace('.', "/");
        let candidates = [
            here.join(format!("{rel}.py")),
            here.join(&rel).join("__init__.py"),
        ];
        self.scripts
            .iter()
            .position(|s| candidates.contains(&s.path))
    }

    pub fn record_assumptions(&mut self, values: &[crate::interp::value::Value]) {
        for v in values {
            if let crate::interp::value::Value::Unknown(u) = v {
                if let Some(n) = &u.name {
                    self.assumptions
                        .entry(n.to_string())
                        .or_insert_with(|| u.why.to_string());
                }
            }
        }
    }
}

static EMPTY_PARAMS: std::sync::LazyLock<ast::Parameters> =
    std::sync::LazyLock::new(ast::Parameters::default);

fn opt_eval<'a>(it: &mut Interp<'a>, e: &'a Option<Box<Expr>>) -> Exec<Option<Val<'a>>> {
    match e {
        Some(e) => it.eval(e).map(Some),
        None => Ok(None),
    }
}

fn parse_big(s: &str) -> Option<BigInt> {
    let t: String = s.chars().filter(|c| *c != '_').collect();
    let t = t.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = t.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = t.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = t.strip_prefix("0b") {
        (2, d)
    } else {
        (10, t.as_str())
    };
    BigInt::parse_bytes(digits.as_bytes(), radix)
}

/// The names a block may write (not looking into nested functions and classes, whose names
/// are their own).
pub fn written_by(body: &[Stmt], out: &mut BTreeSet<Rc<str>>) {
    for s in body {
        match s {
            Stmt::Assign(a) => {
                for t in &a.targets {
                    target_names(t, out);
                }
                written_in_expr(&a.value, out);
            }
            Stmt::AugAssign(a) => target_names(&a.target, out),
            Stmt::AnnAssign(a) => target_names(&a.target, out),
            Stmt::For(f) => {
                target_names(&f.target, out);
                written_by(&f.body, out);
                written_by(&f.orelse, out);
            }
            Stmt::While(w) => {
                written_by(&w.body, out);
                written_by(&w.orelse, out);
            }
            Stmt::If(i) => {
                written_in_expr(&i.test, out);
                written_by(&i.body, out);
                for c in &i.elif_else_clauses {
                    written_by(&c.body, out);
                }
            }
            Stmt::With(w) => {
                for it in &w.items {
                    if let Some(t) = &it.optional_vars {
                        target_names(t, out);
                    }
                }
                written_by(&w.body, out);
            }
            Stmt::Try(t) => {
                written_by(&t.body, out);
                for ast::ExceptHandler::ExceptHandler(h) in &t.handlers {
                    written_by(&h.body, out);
                }
                written_by(&t.orelse, out);
                written_by(&t.finalbody, out);
            }
            Stmt::FunctionDef(f) => {
                out.insert(Rc::from(f.name.as_str()));
            }
            Stmt::ClassDef(c) => {
                out.insert(Rc::from(c.name.as_str()));
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let n = a
                        .asname
                        .as_ref()
                        .map(|x| x.as_str())
                        .unwrap_or_else(|| a.name.as_str());
                    out.insert(Rc::from(n.split('.').next().unwrap_or(n)));
                }
            }
            Stmt::ImportFrom(i) => {
                for a in &i.names {
                    let n = a
                        .asname
                        .as_ref()
                        .map(|x| x.as_str())
                        .unwrap_or_else(|| a.name.as_str());
                    out.insert(Rc::from(n));
                }
            }
            Stmt::Expr(e) => written_in_expr(&e.value, out),
            _ => {}
        }
    }
}

/// Names a walrus (`(n := …)`) in an expression writes.
pub fn written_in_expr(e: &Expr, out: &mut BTreeSet<Rc<str>>) {
    if let Expr::Named(n) = e {
        target_names(&n.target, out);
    }
}

pub fn target_names(t: &Expr, out: &mut BTreeSet<Rc<str>>) {
    match t {
        Expr::Name(n) => {
            out.insert(Rc::from(n.id.as_str()));
        }
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            for e in elts {
                target_names(e, out);
            }
        }
        Expr::Starred(s) => target_names(&s.value, out),
        _ => {}
    }
}

/// The names a block reads anywhere (nested functions included).
pub fn names_read(body: &[Stmt], out: &mut BTreeSet<Rc<str>>) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct V<'o>(&'o mut BTreeSet<Rc<str>>);
    impl<'x> Visitor<'x> for V<'_> {
        fn visit_expr(&mut self, e: &'x Expr) {
            if let Expr::Name(n) = e {
                self.0.insert(Rc::from(n.id.as_str()));
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = V(out);
    for s in body {
        v.visit_stmt(s);
    }
}

/// The `global` and `nonlocal` declarations of a function body (not of nested functions).
fn declared(body: &[Stmt], scope: &Scope<'_>) {
    for s in body {
        match s {
            Stmt::Global(g) => {
                for n in &g.names {
                    scope.globals.borrow_mut().insert(Rc::from(n.as_str()));
                }
            }
            Stmt::Nonlocal(g) => {
                for n in &g.names {
                    scope.nonlocals.borrow_mut().insert(Rc::from(n.as_str()));
                }
            }
            Stmt::If(i) => {
                declared(&i.body, scope);
                for c in &i.elif_else_clauses {
                    declared(&c.body, scope);
                }
            }
            Stmt::For(f) => declared(&f.body, scope),
            Stmt::While(w) => declared(&w.body, scope),
            Stmt::With(w) => declared(&w.body, scope),
            Stmt::Try(t) => declared(&t.body, scope),
            _ => {}
        }
    }
}
