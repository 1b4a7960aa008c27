//! Calls: the program's own functions, methods, constructors and lambdas are run with their
//! arguments (C++ references alias the caller's variable); library functions are modelled
//! ([`super::builtins`]) or give an unknown result, with what they may write through their
//! pointer arguments made unknown. Launches are recorded here.

use super::access::{buffer_of, deref, Arg, Place};
use super::builtins;
use super::effects::visit_stmt;
use super::launches::{dims, kernel_name_of, Event};
use super::libc_rand;
use super::state::Written;
use super::state::{Exec, Flow, Interp, Leave, OBJECTS_MAX};
use super::value::{convert, Buffer, Frame, Func, Handle, Ptr, Value};
use crate::ast::*;
use crate::heap;
use std::rc::Rc;
use std::sync::Arc;

impl Interp<'_> {
    fn args_for(&mut self, params: &[Param], args: &[Expr]) -> Exec<Vec<Arg>> {
        self.unsequenced_draws(&args.iter().collect::<Vec<_>>());
        let n = params.len().max(args.len());
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let param = params.get(i);
            let arg = args
                .get(i)
                .filter(|a| !matches!(a.kind, ExprKind::DefaultArg));
            let by_ref = param.is_some_and(|p| p.by_ref);
            let a = match (arg, param) {
                (Some(a), _) if by_ref => Arg::Place(self.place(a)?),
                (Some(a), Some(p)) => Arg::Val(convert(self.eval(a)?.copy(), &p.ty)),
                (Some(a), None) => Arg::Val(self.eval(a)?.copy()),
                (None, Some(p)) => match &p.default {
                    Some(d) => Arg::Val(convert(self.eval(d)?, &p.ty)),
                    None => Arg::Val(Value::unknown(&format!(
                        "the default value of `{}`",
                        p.name
                    ))),
                },
                (None, None) => Arg::Val(Value::Void),
            };
            out.push(a);
        }
        Ok(out)
    }

    /// A call's value (a function returning a reference gives the value referred to).
    pub(super) fn call(&mut self, c: &Call, e: &Expr) -> Exec<Value> {
        let (v, is_ref) = self.call_raw(c, e)?;
        Ok(if is_ref { deref(&v).read() } else { v })
    }

    /// A call's result, and whether it is a pointer to the place a reference-returning
    /// function returned.
    fn call_raw(&mut self, c: &Call, e: &Expr) -> Exec<(Value, bool)> {
        let plain = |v: Value| Ok((v, false));
        match &c.callee {
            Callee::Direct {
                key,
                name,
                system,
                params,
            } => {
                let args = self.args_for(params, &c.args)?;
                if let Some(f) = self.prog.functions.get(key).cloned() {
                    if let Some(v) = self.undecided_recursion(&f, &args, params) {
                        return plain(v);
                    }
                    let v = self.call_function(&f, args, None, None, &e.span)?;
                    return Ok((v, f.returns_ref));
                }
                self.library_call(name, *system, &args, params, e)
                    .map(|v| (v, false))
            }
            Callee::Method {
                object,
                key,
                name,
                system,
                params,
                ..
            } => {
                // `p->f()` and `f()` on the implicit `this`: the object is what the pointer
                // points at.
                let by_pointer =
                    matches!(object.ty, Ty::Pointer(_)) || matches!(object.kind, ExprKind::This);
                let obj = if by_pointer {
                    deref(&self.eval(object)?)
                } else {
                    self.place(object)?
                };
                if let Value::Func(func) = obj.read() {
                    let args = self.args_for(params, &c.args)?;
                    return self.call_value(&func, args, params, e);
                }
                let args = self.args_for(params, &c.args)?;
                let key = &self.dispatch(*key, &obj);
                if let Some(f) = self.prog.functions.get(key).cloned() {
                    let this = obj.pointer();
                    let v = self.call_function(&f, args, Some(this), None, &e.span)?;
                    return Ok((v, f.returns_ref));
                }
                if let Some(v) = builtins::method(self, name, &obj, &args, params, e)? {
                    return plain(v);
                }
                self.runs_unseen(name, *system, &args);
                plain(self.unmodelled(name, &args, params))
            }
            Callee::Construct {
                key,
                name,
                system,
                params,
            } => {
                if let Ty::Array(elem, n) = &e.ty {
                    // `T a[n];` of a class: each element constructed apart.
                    let Some(n) = n.filter(|n| *n <= OBJECTS_MAX) else {
                        return plain(Value::unknown("a large array of objects"));
                    };
                    let one = Expr {
                        kind: e.kind.clone(),
                        ty: (**elem).clone(),
                        span: e.span.clone(),
                    };
                    let mut elems = Vec::new();
                    for _ in 0..n {
                        elems.push(self.call(c, &one)?);
                    }
                    return plain(Value::Array(heap::shared(Buffer::from_values(elems))));
                }
                let args = self.args_for(params, &c.args)?;
                let f = self.prog.functions.get(key).cloned();
                // An implicit copy or move constructor (no body, no initialisers: libclang
                // shows neither) copies the record it is given.
                let implicit = f.as_ref().is_some_and(|f| {
                    f.member_inits.is_empty()
                        && matches!(&f.body.kind, StmtKind::Block(b) if b.is_empty())
                });
                if let ([a], true) = (args.as_slice(), implicit) {
                    if let v @ Value::Record(_) = a.value() {
                        return plain(v.copy());
                    }
                }
                if let Some(f) = f {
                    let record = self.new_record(&e.ty)?;
                    let this = Value::Ptr(Ptr::Cell(heap::shared(Value::Record(record.clone()))));
                    self.call_function(&f, args, Some(this), None, &e.span)?;
                    return plain(Value::Record(record));
                }
                if let Some(v) = builtins::construct(self, name, &args, e)? {
                    return plain(v);
                }
                self.runs_unseen(name, *system, &args);
                // A copy or a conversion of one value of the same kind: the value itself, of
                // the type constructed (a derived object copied into a base is a base).
                if let [a] = args.as_slice() {
                    let v = a.value();
                    if matches!(v, Value::Record(_) | Value::Array(_) | Value::Func(_)) {
                        let v = v.copy();
                        if let (Value::Record(r), Some(ty)) = (&v, e.ty.record_name()) {
                            r.borrow_mut().ty = Arc::from(ty);
                        }
                        return plain(v);
                    }
                }
                plain(Value::Record(self.new_record(&e.ty)?))
            }
            Callee::Value(callee, params) => {
                let f = self.eval(callee)?;
                let args: Vec<Arg> = {
                    let mut v = Vec::new();
                    for a in &c.args {
                        v.push(Arg::Val(self.eval(a)?.copy()));
                    }
                    v
                };
                match f {
                    Value::Func(func) => self.call_value(&func, args, params, e),
                    other => {
                        // What it calls may run the random number generator unseen.
                        self.forget_rand();
                        plain(match other.brief() {
                            Some(r) => Value::unknown(&format!(
                                "a call through a value kerncast does not know ({r})"
                            )),
                            None => Value::unknown("a call through a value kerncast does not know"),
                        })
                    }
                }
            }
        }
    }

    /// The method a virtual call runs: the override of the object's own class, or the
    /// nearest of its bases'.
    fn dispatch(&self, key: DeclKey, obj: &Place) -> DeclKey {
        let prog = self.prog;
        if !prog.overrides.contains_key(&key) {
            return key;
        }
        let Value::Record(r) = obj.read() else {
            return key;
        };
        let ty = r.borrow().ty.clone();
        // The overrides, through every level: (class, method).
        let mut overrides: Vec<(Arc<str>, DeclKey)> = Vec::new();
        let mut todo = vec![key];
        while let Some(k) = todo.pop() {
            for (class, m) in prog.overrides.get(&k).into_iter().flatten() {
                if !overrides.iter().any(|(_, seen)| seen == m) {
                    overrides.push((class.clone(), *m));
                    todo.push(*m);
                }
            }
        }
        // The object's class, then its bases, nearest first.
        let mut lineage = vec![ty];
        let mut i = 0;
        while let Some(class) = lineage.get(i).cloned() {
            if let Some((_, m)) = overrides.iter().find(|(c, _)| *c == class) {
                return *m;
            }
            for b in prog.bases.get(&class).into_iter().flatten() {
                if !lineage.contains(b) {
                    lineage.push(b.clone());
                }
            }
            i += 1;
        }
        key
    }

    fn call_value(
        &mut self,
        f: &Func,
        args: Vec<Arg>,
        params: &[Param],
        e: &Expr,
    ) -> Exec<(Value, bool)> {
        match f {
            Func::Closure(body, frame) => {
                let this = frame.this.clone();
                let v = self.call_function(body, args, this, Some(frame.clone()), &e.span)?;
                Ok((v, body.returns_ref))
            }
            Func::Decl { key, name, .. } => match self.prog.functions.get(key).cloned() {
                Some(body) => {
                    let v = self.call_function(&body, args, None, None, &e.span)?;
                    Ok((v, body.returns_ref))
                }
                None => self
                    .library_call(name, true, &args, params, e)
                    .map(|v| (v, false)),
            },
        }
    }

    fn library_call(
        &mut self,
        name: &str,
        system: bool,
        args: &[Arg],
        params: &[Param],
        e: &Expr,
    ) -> Exec<Value> {
        if let Some(v) = builtins::call(self, name, args, e)? {
            return Ok(v);
        }
        if !system {
            self.undefined_calls.insert(name.to_string());
        }
        self.runs_unseen(name, system, args);
        Ok(self.unmodelled(name, args, params))
    }

    /// A call kerncast does not follow may run the random number generator unseen: a
    /// function of the program it has no body for, a library function that draws
    /// (`std::random_shuffle`), or one given code to run (a function or lambda:
    /// `std::generate(v.begin(), v.end(), rand)`, a thread).
    fn runs_unseen(&self, name: &str, system: bool, args: &[Arg]) {
        let gives_code = args.iter().any(|a| matches!(a.value(), Value::Func(_)));
        if !system || gives_code || libc_rand::draws(name) {
            self.forget_rand();
        }
    }

    /// A call kerncast does not model: its result is unknown, and so is what it may write
    /// through a pointer to host memory — not through a parameter that is a pointer or
    /// reference to `const` (`std::copy(first, last, out)` reads `first`).
    pub(super) fn unmodelled(&mut self, name: &str, args: &[Arg], params: &[Param]) -> Value {
        let why = format!("it comes from `{name}`, which kerncast does not model");
        // A file named on the command line, given to a call kerncast does not follow (an
        // image loader, a program's reader in a file it was not built with), is read there.
        // Every call kerncast does not model comes here: only strings are looked at (argv's
        // words are), never a buffer's characters, and nothing where no folder is given.
        if self.opts.run_dir.is_some() {
            for a in args {
                let Value::Str(text) = a.value() else {
                    continue;
                };
                let named = self.opts.argv.iter().skip(1).any(|w| **w == *text);
                if named && (text.contains('.') || text.contains('/')) {
                    self.reads_file(&text, name);
                }
            }
        }
        self.unmodelled_writes(args, params, &why);
        Value::unknown(&why)
    }

    /// What a call kerncast does not follow may write through its arguments becomes `why`.
    fn unmodelled_writes(&mut self, args: &[Arg], params: &[Param], why: &str) {
        for (i, a) in args.iter().enumerate() {
            if params.get(i).is_some_and(|p| !p.writes) {
                continue;
            }
            match a {
                Arg::Place(p) => p.write(Value::unknown(why)),
                Arg::Val(Value::Ptr(Ptr::Cell(c))) => {
                    let keep = matches!(
                        &*c.borrow(),
                        Value::Func(_) | Value::Handle(_) | Value::Str(_)
                    );
                    if !keep {
                        *c.borrow_mut() = Value::unknown(why);
                    }
                }
                Arg::Val(Value::Ptr(Ptr::Elem(b, _))) => b.borrow_mut().forget(why),
                Arg::Val(Value::Ptr(Ptr::Field(r, f))) => {
                    r.borrow_mut().fields.insert(f.clone(), Value::unknown(why));
                }
                _ => {}
            }
        }
    }

    pub(super) fn call_function(
        &mut self,
        f: &Arc<Function>,
        args: Vec<Arg>,
        this: Option<Value>,
        parent: Option<Rc<Frame>>,
        at: &Span,
    ) -> Exec<Value> {
        if self.stack.len() >= self.opts.budget.call_depth {
            // The body is not run: a draw of the random number generator in it is missed.
            self.forget_rand();
            return Ok(Value::unknown(&format!(
                "calls nest deeper than {} (budget: --host-call-depth)",
                self.opts.budget.call_depth
            )));
        }
        let frame = heap::frame(Frame {
            parent,
            this,
            ..Frame::default()
        });
        for (p, a) in f.params.iter().zip(args) {
            match a {
                Arg::Place(place) => frame.bind_ref(p.key, place),
                Arg::Val(v) => {
                    let cell = heap::shared(convert(v, &p.ty));
                    frame.vars.borrow_mut().insert(p.key, cell);
                }
            }
        }
        self.frames.push(frame);
        self.stack.push((f.name.clone(), at.clone()));
        self.active.push((f.key, self.uncertain));
        let (guards, fn_guards, left) = (self.guards.len(), self.fn_guards.len(), self.left.take());
        self.returns_ref.push(f.returns_ref);
        self.early_returns.push(Vec::new());
        // a `break` in the callee leaves none of the caller's loops
        self.loop_exits.push(None);
        let result = self.run_body(f);
        self.loop_exits.pop();
        let early = self.early_returns.pop().unwrap_or_default();
        self.returns_ref.pop();
        // A value returned on a side of an undecided condition is as likely as the last.
        let result = result.map(|(last, fell_off)| {
            let mut all = early.iter().map(|(v, _)| v);
            let first = if fell_off { all.next() } else { Some(&last) };
            match first {
                None => last,
                Some(v) if all.clone().all(|w| w.same(v)) => v.clone(),
                Some(v) => {
                    let why = early.first().map(|(_, w)| w.as_ref()).unwrap_or("");
                    let differ = Value::unknown(&format!("it depends on {why}"));
                    let returned: Vec<&Value> = std::iter::once(v).chain(all).collect();
                    Value::device_join(&returned, &differ).unwrap_or(differ)
                }
            }
        });
        self.guards.truncate(guards);
        self.fn_guards.truncate(fn_guards);
        // An exit the callee may have made holds for the caller too; a return does not.
        self.left = left.max(self.left.filter(|l| *l == Leave::Program));
        self.active.pop();
        self.stack.pop();
        self.frames.pop();
        result
    }

    /// A function calling itself under a condition it decided none of before (`if (buf[0]
    /// == '#') return read_line(f, buf);` with the line unknown) would be followed down every
    /// path, twice as many at each level: such a call, of a function that cannot launch, is
    /// not followed. Its result is unknown, and so is everything it may write (through its
    /// arguments, and the program's variables it or its callees write).
    fn undecided_recursion(
        &mut self,
        f: &Function,
        args: &[Arg],
        params: &[Param],
    ) -> Option<Value> {
        let entered = self.active.iter().find(|(k, _)| *k == f.key)?.1;
        if self.uncertain <= entered || self.may_launch(&f.body) {
            return None;
        }
        let summary = self.summary(f.key)?;
        let why = format!(
            "it may be written by a call of `{}` under a condition kerncast cannot decide, which it did not follow (a recursion)",
            f.name
        );
        let mut w = Written::default();
        w.absorb(&summary);
        self.forget(&w, &why);
        self.unmodelled_writes(args, params, &why);
        Some(Value::unknown(&format!(
            "a call of `{}` under a condition kerncast cannot decide, which it did not follow (a recursion)",
            f.name
        )))
    }

    /// The value a function's body returns, and whether it ended without a `return`.
    fn run_body(&mut self, f: &Function) -> Exec<(Value, bool)> {
        // Base classes first: what their constructors set is this object's.
        for init in &f.base_inits {
            let base = self.eval(init)?;
            let this = self.frame().this.clone().unwrap_or(Value::Void);
            if let (Value::Record(b), Value::Record(r)) = (base, deref(&this).read()) {
                let fields = b.borrow().fields.clone();
                r.borrow_mut().fields.extend(fields);
            }
        }
        for (field, init) in &f.member_inits {
            let v = self.eval(init)?.copy();
            let this = self.frame().this.clone().unwrap_or(Value::Void);
            if let Value::Record(r) = deref(&this).read() {
                r.borrow_mut().fields.insert(field.clone(), v);
            }
        }
        match self.exec(&f.body)? {
            Flow::Return(v) => Ok((v, false)),
            _ => Ok((Value::Void, true)),
        }
    }

    /// The place a call returns a reference to: an element of a container.
    pub(super) fn call_place(&mut self, c: &Call, e: &Expr) -> Exec<Option<Place>> {
        if let Callee::Method { object, name, .. } = &c.callee {
            if name.ends_with("::operator[]") || name.ends_with("::at") {
                let obj = match object.ty {
                    Ty::Pointer(_) => deref(&self.eval(object)?).read(),
                    _ => self.place(object)?.read(),
                };
                let i = match c.args.first() {
                    Some(a) => self.eval(a)?,
                    None => return Ok(None),
                };
                if let Value::Handle(h) = &obj {
                    if matches!(&*h.borrow(), Handle::Map { .. }) {
                        return Ok(self.map_index_place(h, &i, &e.ty));
                    }
                }
                if let (Some(b), Some(i)) = (buffer_of(&obj), i.as_int()) {
                    return Ok(Some(Place::Elem(b, i as i64)));
                }
                // A character of a `std::string` as a place (`s[0] = 'x'`, `&s[i]`): kerncast
                // keeps strings whole, so the string may change in ways it does not follow.
                if matches!(obj, Value::Str(_)) && !matches!(object.ty, Ty::Pointer(_)) {
                    let why = "a string written through `[]`, which kerncast does not follow";
                    self.place(object)?.write(Value::unknown(why));
                    return Ok(Some(Place::Temp(Value::unknown(why))));
                }
            }
        }
        // A function returning a reference: the place it refers to.
        let (v, is_ref) = self.call_raw(c, e)?;
        Ok(Some(if is_ref { deref(&v) } else { Place::Temp(v) }))
    }

    pub(super) fn launch_expr(
        &mut self,
        kernel: &KernelRef,
        config: &[Expr],
        args: &[Expr],
        params: &[Arc<str>],
        span: &Span,
    ) -> Exec<()> {
        let operands: Vec<&Expr> = config.iter().chain(args).collect();
        self.unsequenced_draws(&operands);
        let mut cfg = Vec::new();
        for c in config {
            // `<<<g, b>>>` leaves the shared memory and the stream to their defaults.
            cfg.push(match c.kind {
                ExprKind::DefaultArg => Value::Int(0),
                _ => self.eval(c)?,
            });
        }
        let mut vals = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let name = params
                .get(i)
                .cloned()
                .unwrap_or_else(|| Arc::from(format!("arg{i}")));
            vals.push((name, self.eval(a)?.copy()));
        }
        let grid = dims(cfg.first());
        let block = dims(cfg.get(1));
        let shared = cfg.get(2).cloned().unwrap_or(Value::Int(0));
        self.record(Event {
            kernel: kernel.mangled.clone(),
            by_name: false,
            grid,
            block,
            shared_bytes: shared,
            args: vals,
            site: span.clone(),
            api: "<<<>>>",
            guards: Vec::new(),
            stack: Vec::new(),
        });
        Ok(())
    }

    /// A launch of the kernel a value holds (`kernel<<<g, b>>>(args...)` in a generic
    /// launcher taking it as a parameter); a kernel kerncast cannot tell is `?`.
    pub(super) fn launch_via(
        &mut self,
        callee: &Expr,
        config: &[Expr],
        args: &[Expr],
        span: &Span,
    ) -> Exec<()> {
        let f = self.eval(callee)?;
        let mangled = kernel_name_of(&f)
            .map(|(k, _)| k)
            .unwrap_or_else(|| "?".into());
        let prog = self.prog;
        let params = prog
            .kernels
            .get(&mangled)
            .map(|k| k.params.clone())
            .unwrap_or_default();
        self.launch_expr(&KernelRef { mangled }, config, args, &params, span)
    }

    /// Records a launch (or captures it into the graph being recorded).
    pub(super) fn record(&mut self, mut e: Event) {
        e.guards = self
            .exit_guards
            .iter()
            .chain(&self.guards)
            .cloned()
            .collect();
        e.stack = self.stack.clone();
        for (_, v) in &mut e.args {
            *v = super::value::at_launch(v, self.device_data_lost.as_ref());
        }
        let values = e
            .grid
            .iter()
            .chain(e.block.iter())
            .chain(std::iter::once(&e.shared_bytes))
            .chain(e.args.iter().map(|(_, v)| v));
        for v in values {
            if let Value::Unknown(u) = v {
                if let Some(n) = &u.name {
                    self.assumptions
                        .entry(n.to_string())
                        .or_insert_with(|| u.why.to_string());
                }
            }
        }
        match &mut self.capture {
            Some(graph) => graph.push(e),
            None => self.recorder.add(e, 1),
        }
    }

    pub(super) fn may_launch_cached(&mut self, s: &Stmt) -> bool {
        let at = s as *const Stmt;
        if let Some(v) = self.body_launch_cache.get(&at) {
            return *v;
        }
        let v = self.may_launch(s);
        self.body_launch_cache.insert(at, v);
        v
    }

    /// Whether running `s` may launch a kernel: it writes a launch, or calls a function that
    /// may, or calls through a value kerncast cannot see.
    pub(super) fn may_launch(&self, s: &Stmt) -> bool {
        let mut found = false;
        let mut callees = Vec::new();
        visit_stmt(s, &mut |_| {}, &mut |e| match &e.kind {
            ExprKind::Launch { .. } | ExprKind::LaunchVia { .. } => found = true,
            ExprKind::Call(c) => match &c.callee {
                Callee::Direct { key, name, .. }
                | Callee::Method { key, name, .. }
                | Callee::Construct { key, name, .. } => {
                    if builtins::launches(name) {
                        found = true;
                    } else {
                        callees.push(*key);
                    }
                }
                Callee::Value(..) => found = true,
            },
            _ => {}
        });
        found || callees.into_iter().any(|k| self.function_may_launch(k))
    }

    fn function_may_launch(&self, key: DeclKey) -> bool {
        if let Some(v) = self.may_launch_cache.borrow().get(&key) {
            return *v;
        }
        let Some(f) = self.prog.functions.get(&key) else {
            return false;
        };
        // In progress: a recursive call adds nothing new.
        self.may_launch_cache.borrow_mut().insert(key, false);
        let v = self.may_launch(&f.body);
        self.may_launch_cache.borrow_mut().insert(key, v);
        v
    }
}
