//! What code may write, found syntactically, and the state it covers: saved before running
//! alternatives (both sides of an undecided `if`), restored between them, and made unknown
//! where they disagree or where a loop is not followed to its end.
//!
//! Two kinds of writes: a variable itself (`x = …`, `x++`, `&x` handed out) and what a
//! variable holds or points at (`x[i] = …`, `x.f = …`, `x.push_back(…)`, `x` passed to a
//! function that may write through it). Forgetting the first makes the variable unknown;
//! forgetting the second keeps the variable (the same array, the same pointer) but makes its
//! elements and length, or fields, unknown.

use super::state::Interp;
use super::value::{Buffer, Ptr, Record, Value};
use crate::ast::*;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

#[derive(Default, Debug)]
pub(super) struct Written {
    pub vars: BTreeSet<DeclKey>,
    pub contents: BTreeSet<DeclKey>,
}

impl Written {
    pub fn of(stmts: &[&Stmt], exprs: &[&Expr]) -> Written {
        let mut w = Written::default();
        for s in stmts {
            let mut declared = Vec::new();
            visit_stmt(
                s,
                &mut |st| {
                    if let StmtKind::Decl(vs) = &st.kind {
                        declared.extend(vs.iter().map(|v| v.key));
                    }
                    if let StmtKind::RangeFor { var, .. } = &st.kind {
                        declared.push(var.key);
                    }
                },
                &mut |e| w.note(e),
            );
            w.vars.extend(declared);
        }
        for e in exprs {
            visit_expr(e, &mut |x| w.note(x));
        }
        w
    }

    fn note(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Assign(_, l, _) => self.target(l),
            ExprKind::Unary(UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec, x) => {
                self.target(x)
            }
            ExprKind::Unary(UnOp::AddrOf, x) => self.target(x),
            ExprKind::Call(c) => {
                let params = match &c.callee {
                    Callee::Direct { params, .. }
                    | Callee::Method { params, .. }
                    | Callee::Construct { params, .. } => Some(params),
                    Callee::Value(_) => None,
                };
                for (i, a) in c.args.iter().enumerate() {
                    match params.and_then(|p| p.get(i)) {
                        Some(p) if p.writes && p.by_ref => self.target(a),
                        Some(p) if !p.writes => {}
                        // A pointer to non-const, or an argument of unknown type (varargs,
                        // a call through a value): what it points at may be written.
                        _ => {
                            if matches!(strip(a).ty, Ty::Pointer(_) | Ty::Array(..)) {
                                if let Some(k) = root_var(a) {
                                    self.contents.insert(k);
                                }
                            }
                        }
                    }
                }
                if let Callee::Method {
                    object, is_const, ..
                } = &c.callee
                {
                    if !is_const {
                        if let Some(k) = root_var(object) {
                            self.contents.insert(k);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// `e` is written: a variable itself, or what one holds.
    fn target(&mut self, e: &Expr) {
        let e = strip(e);
        match &e.kind {
            ExprKind::Var(k, _) => {
                self.vars.insert(*k);
            }
            _ => {
                if let Some(k) = root_var(e) {
                    self.contents.insert(k);
                }
            }
        }
    }
}

fn strip(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Cast(inner) => strip(inner),
        _ => e,
    }
}

/// The variable an lvalue or pointer expression is based on (`a` of `a[i].f`, `*(a + 1)`).
fn root_var(e: &Expr) -> Option<DeclKey> {
    let mut e = e;
    for _ in 0..64 {
        match &e.kind {
            ExprKind::Var(k, _) => return Some(*k),
            ExprKind::Cast(x) | ExprKind::Member { base: x, .. } | ExprKind::Index(x, _) => e = x,
            ExprKind::Unary(UnOp::Deref | UnOp::AddrOf, x) => e = x,
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, _) => e = a,
            ExprKind::Call(Call {
                callee: Callee::Method { object, .. },
                ..
            }) => e = object,
            _ => return None,
        }
    }
    None
}

/// The storage a value gives access to: an array's or a pointee's buffer, a record.
enum Holder {
    Buffer(Rc<RefCell<Buffer>>),
    Record(Rc<RefCell<Record>>),
}

fn holder_of(v: &Value) -> Option<Holder> {
    match v {
        Value::Array(b) | Value::Ptr(Ptr::Elem(b, _)) => Some(Holder::Buffer(b.clone())),
        Value::Record(r) => Some(Holder::Record(r.clone())),
        Value::Ptr(Ptr::Cell(c)) => holder_of(&c.borrow()),
        Value::Ptr(Ptr::Field(r, f)) => r.borrow().fields.get(f).and_then(holder_of),
        _ => None,
    }
}

/// A saved copy of what [`Written`] covers, to restore and compare.
pub(super) struct Saved {
    cells: Vec<(Rc<RefCell<Value>>, Value)>,
    buffers: Vec<(Rc<RefCell<Buffer>>, Buffer)>,
    records: Vec<(Rc<RefCell<Record>>, Record)>,
}

impl Interp<'_> {
    pub(super) fn existing_cell(&self, k: DeclKey) -> Option<Rc<RefCell<Value>>> {
        self.frames
            .last()
            .and_then(|f| f.lookup(k))
            .or_else(|| self.globals.get(&k).cloned())
    }

    pub(super) fn save(&self, w: &Written) -> Saved {
        let mut s = Saved {
            cells: Vec::new(),
            buffers: Vec::new(),
            records: Vec::new(),
        };
        for k in w.vars.iter().chain(&w.contents) {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            if !s.cells.iter().any(|(x, _)| Rc::ptr_eq(x, &c)) {
                let v = c.borrow().copy();
                s.cells.push((c.clone(), v));
            }
            let holder = holder_of(&c.borrow());
            match holder {
                Some(Holder::Buffer(b)) if !s.buffers.iter().any(|(x, _)| Rc::ptr_eq(x, &b)) => {
                    let copy = b.borrow().clone();
                    s.buffers.push((b, copy));
                }
                Some(Holder::Record(r)) if !s.records.iter().any(|(x, _)| Rc::ptr_eq(x, &r)) => {
                    let copy = r.borrow().clone();
                    s.records.push((r, copy));
                }
                _ => {}
            }
        }
        s
    }

    /// Puts the saved state back (the same cells and buffers, so aliases see it too).
    pub(super) fn restore(&self, s: &Saved) {
        for (c, v) in &s.cells {
            *c.borrow_mut() = v.copy();
        }
        for (b, v) in &s.buffers {
            *b.borrow_mut() = v.clone();
        }
        for (r, v) in &s.records {
            *r.borrow_mut() = v.clone();
        }
    }

    /// What is now where `s` was saved.
    pub(super) fn snapshot(&self, s: &Saved) -> Saved {
        Saved {
            cells: s
                .cells
                .iter()
                .map(|(c, _)| (c.clone(), c.borrow().copy()))
                .collect(),
            buffers: s
                .buffers
                .iter()
                .map(|(b, _)| (b.clone(), b.borrow().clone()))
                .collect(),
            records: s
                .records
                .iter()
                .map(|(r, _)| (r.clone(), r.borrow().clone()))
                .collect(),
        }
    }

    /// Sets every saved place to what all `outcomes` agree on, or to unknown.
    pub(super) fn merge(&self, outcomes: &[Saved], why: &str) {
        let Some(first) = outcomes.first() else {
            return;
        };
        let unknown = Value::unknown(why);
        for (i, (c, v)) in first.cells.iter().enumerate() {
            let agree = outcomes.iter().all(|o| o.cells[i].1.same(v));
            *c.borrow_mut() = if agree { v.clone() } else { unknown.clone() };
        }
        for (i, (b, v)) in first.buffers.iter().enumerate() {
            let agree = outcomes.iter().all(|o| same_buffer(&o.buffers[i].1, v));
            if agree {
                *b.borrow_mut() = v.clone();
            } else {
                let mut buf = b.borrow_mut();
                *buf = v.clone();
                buf.forget(why);
                if outcomes.iter().any(|o| o.buffers[i].1.len != v.len) {
                    buf.len = None;
                }
            }
        }
        for (i, (r, v)) in first.records.iter().enumerate() {
            let mut merged = v.clone();
            for (f, x) in merged.fields.iter_mut() {
                let agree = outcomes
                    .iter()
                    .all(|o| o.records[i].1.fields.get(f).is_some_and(|y| y.same(x)));
                if !agree {
                    *x = unknown.clone();
                }
            }
            *r.borrow_mut() = merged;
        }
    }

    /// Every variable `w` covers becomes unknown; what it holds keeps its identity (the same
    /// array, the same pointer) with its contents unknown.
    pub(super) fn forget(&self, w: &Written, why: &str) {
        let unknown = Value::unknown(why);
        for k in &w.contents {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            let holder = holder_of(&c.borrow());
            match holder {
                Some(Holder::Buffer(b)) => {
                    let mut buf = b.borrow_mut();
                    buf.forget(why);
                    buf.len = None;
                }
                Some(Holder::Record(r)) => {
                    for v in r.borrow_mut().fields.values_mut() {
                        *v = unknown.clone();
                    }
                }
                None => {}
            }
        }
        for k in &w.vars {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            let keep = matches!(&*c.borrow(), Value::Func(_) | Value::Handle(_));
            if !keep {
                *c.borrow_mut() = unknown.clone();
            }
        }
    }
}

fn same_buffer(a: &Buffer, b: &Buffer) -> bool {
    a.len == b.len
        && a.sparse.is_empty()
        && b.sparse.is_empty()
        && a.dense.len() == b.dense.len()
        && a.dense.iter().zip(&b.dense).all(|(x, y)| x.same(y))
        && a.fill.same(&b.fill)
}

/// The variables an expression reads.
pub(super) fn vars_read(e: &Expr, out: &mut BTreeSet<DeclKey>) {
    visit_expr(e, &mut |x| {
        if let ExprKind::Var(k, _) = x.kind {
            out.insert(k);
        }
    });
}

pub(super) fn visit_stmt(s: &Stmt, fs: &mut dyn FnMut(&Stmt), fe: &mut dyn FnMut(&Expr)) {
    // An explicit stack: statement nesting is the input's to choose.
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        fs(s);
        match &s.kind {
            StmtKind::Block(items) => todo.extend(items.iter()),
            StmtKind::Decl(vs) => {
                for v in vs {
                    if let Some(i) = &v.init {
                        visit_expr(i, fe);
                    }
                }
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => visit_expr(e, fe),
            StmtKind::If {
                init,
                cond,
                then,
                els,
            } => {
                if let Some(i) = init {
                    todo.push(i);
                }
                visit_expr(cond, fe);
                todo.push(then);
                if let Some(e) = els {
                    todo.push(e);
                }
            }
            StmtKind::For {
                init,
                cond,
                inc,
                body,
            } => {
                if let Some(i) = init {
                    todo.push(i);
                }
                for e in [cond, inc].into_iter().flatten() {
                    visit_expr(e, fe);
                }
                todo.push(body);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                visit_expr(cond, fe);
                todo.push(body);
            }
            StmtKind::RangeFor { range, body, .. } => {
                visit_expr(range, fe);
                todo.push(body);
            }
            StmtKind::Switch { cond, body } => {
                visit_expr(cond, fe);
                todo.push(body);
            }
            StmtKind::Case { value, body } => {
                visit_expr(value, fe);
                todo.push(body);
            }
            StmtKind::Default(b) | StmtKind::Label(_, b) => todo.push(b),
            StmtKind::Try { body, handlers } => {
                todo.push(body);
                todo.extend(handlers.iter().map(|(_, h)| h));
            }
            _ => {}
        }
    }
}

pub(super) fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        f(e);
        match &e.kind {
            ExprKind::Unary(_, x) | ExprKind::Cast(x) => todo.push(x),
            ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) | ExprKind::Index(a, b) => {
                todo.push(a);
                todo.push(b);
            }
            ExprKind::Cond(a, b, c) => {
                todo.push(a);
                todo.push(b);
                todo.push(c);
            }
            ExprKind::Call(c) => {
                if let Callee::Method { object, .. } = &c.callee {
                    todo.push(object);
                }
                if let Callee::Value(v) = &c.callee {
                    todo.push(v);
                }
                todo.extend(c.args.iter());
            }
            ExprKind::Launch { config, args, .. } => {
                todo.extend(config.iter());
                todo.extend(args.iter());
            }
            ExprKind::LaunchVia {
                callee,
                config,
                args,
            } => {
                todo.push(callee);
                todo.extend(config.iter());
                todo.extend(args.iter());
            }
            ExprKind::Member { base, .. } => todo.push(base),
            ExprKind::InitList { elems, .. } => todo.extend(elems.iter()),
            ExprKind::New { array_len, init } => {
                todo.extend(array_len.iter().map(|b| &**b));
                todo.extend(init.iter().map(|b| &**b));
            }
            _ => {}
        }
    }
}
