//! What code may write, found syntactically, and the state it covers: saved before running
//! alternatives (both sides of an undecided `if`), restored between them, and made unknown
//! where they disagree or where a loop is not followed to its end.
//!
//! Two kinds of writes: a variable itself (`x = …`, `x++`, `&x` handed out) and what a
//! variable holds or points at (`x[i] = …`, `x.f = …`, `x.push_back(…)`, `x` passed to a
//! function that may write through it). Forgetting the first makes the variable unknown;
//! forgetting the second keeps the variable (the same array, the same pointer) but makes its
//! elements and length, or fields, unknown.

use super::access::Place;
use super::cpp_random;
use super::libc_rand;
use super::state::{Interp, Summary, Written};
use super::value::{Buffer, Ptr, Record, Value};
use crate::ast::*;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

/// The summaries of called functions, where known.
pub(super) type Summaries<'a> = &'a dyn Fn(DeclKey) -> Option<Rc<Summary>>;

impl Written {
    /// What `stmts` and `exprs` may write, the functions they call included where `sums`
    /// knows them.
    pub fn of_with(stmts: &[&Stmt], exprs: &[&Expr], sums: Summaries<'_>) -> Written {
        let mut w = Written::default();
        for s in stmts {
            let mut declared = Vec::new();
            // Code kerncast does not lower may draw from the random number generator.
            let mut unread = false;
            visit_stmt(
                s,
                &mut |st| {
                    // A reference declared in the code binds another name to a place it
                    // does not write (`Domain& d = *p;` in a loop's body): what is written
                    // through it is noted as such, and forgetting the name itself would
                    // forget all of the place it was last bound to.
                    if let StmtKind::Decl(vs) = &st.kind {
                        declared.extend(vs.iter().filter(|v| !v.by_ref).map(|v| v.key));
                    }
                    if let StmtKind::RangeFor { var, .. } = &st.kind {
                        declared.push(var.key);
                    }
                    unread |= matches!(st.kind, StmtKind::Unsupported(_));
                },
                &mut |e| w.note(e, sums),
            );
            w.vars.extend(declared);
            w.rand |= unread;
        }
        for e in exprs {
            visit_expr(e, &mut |x| w.note(x, sums));
        }
        w
    }

    /// Whether `k` is written in any way.
    pub fn touches(&self, k: &DeclKey) -> bool {
        self.vars.contains(k)
            || self.contents.contains(k)
            || self.fields.iter().any(|(x, _)| x == k)
            || self.field_contents.iter().any(|(x, _)| x == k)
    }

    /// Every variable `w` names in any way.
    fn keys(&self) -> BTreeSet<DeclKey> {
        let mut out: BTreeSet<DeclKey> = self.vars.union(&self.contents).copied().collect();
        out.extend(self.fields.iter().map(|(k, _)| *k));
        out.extend(self.field_contents.iter().map(|(k, _)| *k));
        out
    }

    fn note(&mut self, e: &Expr, sums: Summaries<'_>) {
        match &e.kind {
            // What it contains is not lowered: it may draw from the random number generator.
            ExprKind::Unsupported(_) => self.rand = true,
            ExprKind::Assign(_, l, _) => self.target(l, sums),
            ExprKind::Unary(UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec, x) => {
                self.target(x, sums)
            }
            ExprKind::Unary(UnOp::AddrOf, x) if !self.exact_args.contains(&(e as *const Expr)) => {
                self.target(x, sums)
            }
            ExprKind::Call(c) => {
                let (params, key) = match &c.callee {
                    Callee::Direct { params, key, .. }
                    | Callee::Method { params, key, .. }
                    | Callee::Construct { params, key, .. } => (Some(params), Some(*key)),
                    Callee::Value(_, params) => (Some(params), None),
                };
                let summary = key.and_then(sums);
                // What the callee writes other than through its parameters (globals).
                if let Some(s) = &summary {
                    self.absorb(s);
                } else if may_draw_random(&c.callee, &c.args) {
                    self.rand = true;
                }
                for (i, a) in c.args.iter().enumerate() {
                    match params.and_then(|p| p.get(i)) {
                        Some(p) if p.writes && p.by_ref => {
                            // a record by reference: only the fields the callee writes,
                            // where its summary names them all
                            match (exact_param(summary.as_deref(), i), record_root(a)) {
                                (Some((s, pk)), Some(r)) => self.fields_through(s, pk, r),
                                _ => self.target(a, sums),
                            }
                        }
                        Some(p) if !p.writes => {}
                        // A pointer to non-const, or an argument of unknown type (varargs,
                        // a call through a value): what it points at may be written — only
                        // the fields the callee names, where it uses the pointer for no more.
                        _ => {
                            if matches!(strip(a).ty, Ty::Pointer(_) | Ty::Array(..)) {
                                match (exact_param(summary.as_deref(), i), record_root(a)) {
                                    (Some((s, pk)), Some(r)) => {
                                        self.exact_args.insert(strip(a) as *const Expr);
                                        self.fields_through(s, pk, r);
                                    }
                                    _ => match root(a) {
                                        Some(Root::Var(k)) => {
                                            self.contents.insert(k);
                                        }
                                        Some(Root::This(f)) => self.this_contents(f),
                                        None => {}
                                    },
                                }
                            }
                        }
                    }
                }
                if let Callee::Method {
                    object, is_const, ..
                } = &c.callee
                {
                    if matches!(strip(object).kind, ExprKind::This) {
                        self.this_bases.insert(strip(object) as *const Expr);
                    }
                    if !is_const && !cpp_random::leaves_object(&c.callee) {
                        self.method_object(object, summary.as_deref());
                    }
                }
            }
            // `this` as a value (copied, handed out, returned): what it points at may be
            // written anywhere. `this->f` is a member access, noted where it is written.
            ExprKind::This if !self.this_bases.contains(&(e as *const Expr)) => {
                self.this_all = true
            }
            ExprKind::Member { base, .. } if matches!(strip(base).kind, ExprKind::This) => {
                self.this_bases.insert(strip(base) as *const Expr);
            }
            _ => {}
        }
    }

    /// A non-const method runs on `object`: on a variable's record with a summary that says
    /// which of its fields the method writes, those fields alone; on the object a method
    /// itself runs on (`f()` inside a method), what that method writes of it; else all the
    /// object holds.
    fn method_object(&mut self, object: &Expr, summary: Option<&Summary>) {
        let object = strip(object);
        let exact = summary.filter(|s| !s.w.this_all);
        match (&object.kind, exact) {
            (ExprKind::Var(k, _), Some(s)) => {
                self.fields
                    .extend(s.w.this_fields.iter().map(|f| (*k, f.clone())));
                self.field_contents
                    .extend(s.w.this_field_contents.iter().map(|f| (*k, f.clone())));
            }
            (ExprKind::This, Some(s)) => {
                self.this_bases.insert(object as *const Expr);
                self.this_fields.extend(s.w.this_fields.iter().cloned());
                self.this_field_contents
                    .extend(s.w.this_field_contents.iter().cloned());
            }
            _ => match root(object) {
                // A member's method (`s.v.push_back(x)`, `p->v[i]`): what that member holds.
                Some(Root::Var(_)) if member_of_var(object).is_some() => {
                    if let Some((k, f)) = member_of_var(object) {
                        self.field_contents.insert((k, f));
                    }
                }
                Some(Root::Var(k)) => {
                    self.contents.insert(k);
                }
                Some(Root::This(f)) => self.this_contents(f),
                None => {}
            },
        }
    }

    /// What a field of the object a method runs on holds is written (all of the object's
    /// contents when no field is named).
    fn this_contents(&mut self, field: Option<Arc<str>>) {
        match field {
            Some(f) => {
                self.this_field_contents.insert(f);
            }
            None => self.this_all = true,
        }
    }

    /// The fields a callee writes of its parameter `pk`, as fields of the caller's `r`.
    fn fields_through(&mut self, s: &Summary, pk: DeclKey, r: DeclKey) {
        for (k, f) in &s.w.fields {
            if *k == pk {
                self.fields.insert((r, f.clone()));
            }
        }
        for (k, f) in &s.w.field_contents {
            if *k == pk {
                self.field_contents.insert((r, f.clone()));
            }
        }
    }

    /// A callee's writes that are not through its parameters (nor to its own automatic
    /// variables).
    pub(super) fn absorb(&mut self, s: &Summary) {
        let own = |k: &DeclKey| s.params.contains(k) || s.locals.contains(k);
        self.vars.extend(s.w.vars.iter().filter(|k| !own(k)));
        self.contents
            .extend(s.w.contents.iter().filter(|k| !own(k)));
        self.fields
            .extend(s.w.fields.iter().filter(|(k, _)| !own(k)).cloned());
        self.field_contents
            .extend(s.w.field_contents.iter().filter(|(k, _)| !own(k)).cloned());
        self.rand |= s.w.rand;
    }

    /// `e` is written: a variable itself, a field of the record it holds or points at, what
    /// such a field holds, or what a variable holds.
    fn target(&mut self, e: &Expr, sums: Summaries<'_>) {
        let e = strip(e);
        if let ExprKind::Var(k, _) = &e.kind {
            self.vars.insert(*k);
            return;
        }
        if let Some((k, steps)) = chain(e) {
            if let Some(Step::Field(f)) = steps.first() {
                if steps.len() == 1 {
                    self.fields.insert((k, f.clone()));
                } else {
                    self.field_contents.insert((k, f.clone()));
                }
                return;
            }
        }
        if let Some((f, steps)) = this_chain(e) {
            if steps == 1 {
                self.this_fields.insert(f);
            } else {
                self.this_field_contents.insert(f);
            }
            return;
        }
        // Through a method that returns a member of its object (`volo(i) = v;` with
        // `Real_t& volo(int i) { return m_volo[i]; }`, `d.size() = n`): that member of the
        // object it is called on.
        if let Some((object, above, key)) = method_chain(e) {
            if let Some((f, direct)) = sums(key).and_then(|s| s.returns_field.clone()) {
                let whole = above == 0 && direct;
                match &strip(object).kind {
                    ExprKind::Var(k, _) => {
                        if whole {
                            self.fields.insert((*k, f));
                        } else {
                            self.field_contents.insert((*k, f));
                        }
                        return;
                    }
                    ExprKind::This => {
                        if whole {
                            self.this_fields.insert(f);
                        } else {
                            self.this_field_contents.insert(f);
                        }
                        return;
                    }
                    _ => {}
                }
            }
        }
        match root(e) {
            Some(Root::Var(k)) => {
                self.contents.insert(k);
            }
            Some(Root::This(f)) => self.this_contents(f),
            None => {}
        }
    }
}

/// One access on the way from a variable to a place: a field, or an element (`[i]`, `*`).
enum Step {
    Field(Arc<str>),
    Elem,
}

/// A place as a variable and the accesses from it, outermost first (`p->a[i].x`: `p`, then
/// `a`, element, `x`).
fn chain(e: &Expr) -> Option<(DeclKey, Vec<Step>)> {
    match access_path(e)? {
        (PathRoot::Var(k), steps) => Some((k, steps)),
        (PathRoot::ThisField(_), _) => None,
    }
}

/// Where an access path starts: a variable, or (inside a method) a field of the object the
/// method runs on.
enum PathRoot {
    Var(DeclKey),
    ThisField(Arc<str>),
}

/// A place as its root and the accesses from it, outermost first.
fn access_path(e: &Expr) -> Option<(PathRoot, Vec<Step>)> {
    let mut steps = Vec::new();
    let mut e = strip(e);
    for _ in 0..64 {
        let root = match &e.kind {
            ExprKind::Var(k, _) => Some(PathRoot::Var(*k)),
            ExprKind::ThisMember(f) => Some(PathRoot::ThisField(f.clone())),
            ExprKind::Member { base, field, .. } if matches!(strip(base).kind, ExprKind::This) => {
                Some(PathRoot::ThisField(field.clone()))
            }
            _ => None,
        };
        if let Some(root) = root {
            steps.reverse();
            return Some((root, steps));
        }
        match &e.kind {
            ExprKind::Member { base, field, .. } => {
                steps.push(Step::Field(field.clone()));
                e = strip(base);
            }
            ExprKind::Index(base, _) | ExprKind::Unary(UnOp::Deref, base) => {
                steps.push(Step::Elem);
                e = strip(base);
            }
            // A library container's element (`s.v[i]`, `p->v.at(i)`, `v.back()` on a member
            // vector).
            ExprKind::Call(Call {
                callee:
                    Callee::Method {
                        object,
                        system: true,
                        ..
                    },
                ..
            }) => {
                steps.push(Step::Elem);
                e = strip(object);
            }
            _ => return None,
        }
    }
    None
}

/// The variable whose record (held, or pointed at) an argument gives a callee: `&s` or `p`
/// for a pointer parameter, `s` or `*p` for a reference.
fn record_root(a: &Expr) -> Option<DeclKey> {
    let a = strip(a);
    match &a.kind {
        ExprKind::Var(k, _) if matches!(a.ty, Ty::Pointer(_) | Ty::Record { .. }) => Some(*k),
        ExprKind::Unary(UnOp::AddrOf, x) => match &strip(x).kind {
            ExprKind::Var(k, _) => Some(*k),
            _ => None,
        },
        ExprKind::Unary(UnOp::Deref, x) => match &strip(x).kind {
            ExprKind::Var(k, _) if matches!(strip(x).ty, Ty::Pointer(_)) => Some(*k),
            _ => None,
        },
        _ => None,
    }
}

/// Parameter `i` of a callee whose summary names every field it writes through it (see
/// [`scalar_only_params`]): the summary and the parameter's key.
fn exact_param(s: Option<&Summary>, i: usize) -> Option<(&Summary, DeclKey)> {
    let s = s?;
    let pk = *s.params.get(i)?;
    let ok = s.scalar_only.get(i) == Some(&true)
        && !s.w.vars.contains(&pk)
        && !s.w.contents.contains(&pk);
    ok.then_some((s, pk))
}

/// Per parameter of `f`: whether every use of it is an access that ends in a scalar
/// (`p->n`, `p->a[i].x`), the object of a method call or an argument of a call (where what
/// the callee writes of it is noted, by field where the callee's summary names them), so
/// that nothing else can reach what it points at or refers to.
fn scalar_only_params(f: &Function) -> Vec<bool> {
    // Chain nodes that are the base of a larger chain, or an operand of `&`: not maximal,
    // or escaping.
    let mut inner: BTreeSet<*const Expr> = BTreeSet::new();
    let mut addr_of: BTreeSet<*const Expr> = BTreeSet::new();
    // Objects and arguments of calls that return no place (a scalar, or nothing): what the
    // callee writes of them is noted where it is called (by field where its summary says,
    // else all they hold), and none of it comes back. A call that returns a pointer or a
    // record may hand back a place in them, written past what the callee's summary says.
    let mut passed: BTreeSet<*const Expr> = BTreeSet::new();
    let mut all: Vec<*const Expr> = Vec::new();
    let mut visit = |e: &Expr| {
        all.push(e as *const Expr);
        let no_place = matches!(
            e.ty,
            Ty::Void | Ty::Bool | Ty::Int { .. } | Ty::Float { .. }
        );
        if let (ExprKind::Call(c), true) = (&e.kind, no_place) {
            passed.extend(c.args.iter().map(|a| a as *const Expr));
            if let Callee::Method { object, .. } = &c.callee {
                passed.insert(&**object as *const Expr);
            }
        }
        match &e.kind {
            ExprKind::Member { base, .. }
            | ExprKind::Index(base, _)
            | ExprKind::Unary(UnOp::Deref, base)
            | ExprKind::Cast(base) => {
                inner.insert(&**base as *const Expr);
            }
            ExprKind::Unary(UnOp::AddrOf, x) => {
                addr_of.insert(&**x as *const Expr);
            }
            _ => {}
        }
    };
    // A reference bound to what a parameter reaches (`int& n = p->n;`, `double& t = d.time();`)
    // is written under its own name, which the callers' summary does not see.
    let mut bound: BTreeSet<DeclKey> = BTreeSet::new();
    visit_stmt(
        &f.body,
        &mut |st| {
            if let StmtKind::Decl(vs) = &st.kind {
                for init in vs
                    .iter()
                    .filter(|v| v.by_ref)
                    .filter_map(|v| v.init.as_ref())
                {
                    visit_expr(init, &mut |x| {
                        if let ExprKind::Var(k, _) = &x.kind {
                            bound.insert(*k);
                        }
                    });
                }
            }
        },
        &mut visit,
    );
    for (_, e) in &f.member_inits {
        visit_expr(e, &mut visit);
    }
    for e in &f.base_inits {
        visit_expr(e, &mut visit);
    }
    let mut ok: Vec<bool> = f.params.iter().map(|p| !bound.contains(&p.key)).collect();
    for &ptr in &all {
        if inner.contains(&ptr) {
            continue;
        }
        // SAFETY: the pointers are of nodes of `f`, which outlives this function.
        let e: &Expr = unsafe { &*ptr };
        let root = match chain(e) {
            Some((k, _)) => k,
            None => continue,
        };
        let Some(i) = f.params.iter().position(|p| p.key == root) else {
            continue;
        };
        let scalar = matches!(e.ty, Ty::Int { .. } | Ty::Float { .. } | Ty::Bool)
            && !matches!(strip(e).kind, ExprKind::Var(..));
        if !(scalar || passed.contains(&ptr)) || addr_of.contains(&ptr) {
            ok[i] = false;
        }
    }
    ok
}

/// Whether a call kerncast has no body for may run the C library's random number generator:
/// it is one of its functions (or a library function known to call it), the program's own
/// code kerncast did not read, a call through a value, or a library function given code to
/// run (a lambda, a function pointer).
fn may_draw_random(callee: &Callee, args: &[Expr]) -> bool {
    let (name, system) = match callee {
        Callee::Direct { name, system, .. }
        | Callee::Method { name, system, .. }
        | Callee::Construct { name, system, .. } => (name, *system),
        Callee::Value(..) => return true,
    };
    let gives_code = args.iter().any(|a| {
        let a = strip(a);
        let lambda = matches!(&a.ty, Ty::Record { name, .. } if name.contains("lambda"));
        let function = match &a.ty {
            Ty::Function => true,
            Ty::Pointer(t) => matches!(**t, Ty::Function),
            _ => false,
        };
        lambda || function || matches!(a.kind, ExprKind::Lambda(_))
    });
    !system || gives_code || libc_rand::draws(name)
}

/// Rounds a summary of functions that call each other is made in before it is given up
/// (each round adds writes; few recursions need more than two).
const SUMMARY_ROUNDS: usize = 16;

/// The summary of a function's writes (`sums` gives its callees').
pub(super) fn summarize(f: &Function, sums: Summaries<'_>) -> Summary {
    let mut exprs: Vec<&Expr> = f.member_inits.iter().map(|(_, e)| e).collect();
    exprs.extend(f.base_inits.iter());
    let w = Written::of_with(&[&f.body], &exprs, sums);
    let mut locals = BTreeSet::new();
    visit_stmt(
        &f.body,
        &mut |st| match &st.kind {
            StmtKind::Decl(vs) => locals.extend(vs.iter().filter(|v| !v.is_static).map(|v| v.key)),
            StmtKind::RangeFor { var, .. } => {
                locals.insert(var.key);
            }
            _ => {}
        },
        &mut |_| {},
    );
    Summary {
        returns_field: returned_field(f),
        params: f.params.iter().map(|p| p.key).collect(),
        scalar_only: scalar_only_params(f),
        locals,
        w,
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

/// What a place or pointer expression is based on: a variable, or (inside a method) the
/// object the method runs on, with the field of it the expression goes through first.
enum Root {
    Var(DeclKey),
    This(Option<Arc<str>>),
}

fn root(e: &Expr) -> Option<Root> {
    let mut e = e;
    // the field last passed on the way in: the first from the root
    let mut field: Option<Arc<str>> = None;
    for _ in 0..64 {
        match &e.kind {
            ExprKind::Var(k, _) => return Some(Root::Var(*k)),
            ExprKind::ThisMember(f) => return Some(Root::This(Some(f.clone()))),
            ExprKind::This => return Some(Root::This(field)),
            ExprKind::Member {
                base: x, field: f, ..
            } => {
                field = Some(f.clone());
                e = x;
            }
            ExprKind::Cast(x) | ExprKind::Index(x, _) => {
                field = None;
                e = x;
            }
            ExprKind::Unary(UnOp::Deref | UnOp::AddrOf, x) => {
                // `(*this).f` goes through the object; `*this` alone is all of it.
                e = x;
            }
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, _) => {
                field = None;
                e = a;
            }
            ExprKind::Call(Call {
                callee: Callee::Method { object, .. },
                ..
            }) => {
                field = None;
                e = object;
            }
            _ => return None,
        }
    }
    None
}

/// The variable and its record's member a place starts with (`s.v`, `p->v[i].x`).
fn member_of_var(e: &Expr) -> Option<(DeclKey, Arc<str>)> {
    match chain(e) {
        Some((k, steps)) => match steps.first() {
            Some(Step::Field(f)) => Some((k, f.clone())),
            _ => None,
        },
        None => None,
    }
}

/// A place reached from what a method call returns: the object the method is called on,
/// how many accesses lead from the call to the place, and the method.
fn method_chain(e: &Expr) -> Option<(&Expr, usize, DeclKey)> {
    let mut above = 0;
    let mut e = strip(e);
    for _ in 0..64 {
        match &e.kind {
            ExprKind::Call(Call {
                callee: Callee::Method { object, key, .. },
                ..
            }) => return Some((object, above, *key)),
            ExprKind::Member { base, .. }
            | ExprKind::Index(base, _)
            | ExprKind::Unary(UnOp::Deref, base) => {
                above += 1;
                e = strip(base);
            }
            _ => return None,
        }
    }
    None
}

/// The member of its object every `return` of a method gives (itself or a place in what it
/// holds), with whether it is the member itself: what a caller writes through the result.
fn returned_field(f: &Function) -> Option<(Arc<str>, bool)> {
    let mut out: Option<(Arc<str>, bool)> = None;
    let mut other = false;
    visit_stmt(
        &f.body,
        &mut |st| {
            if let StmtKind::Return(r) = &st.kind {
                match r.as_ref().and_then(this_chain) {
                    Some((field, steps)) => match &mut out {
                        None => out = Some((field, steps == 1)),
                        Some((g, direct)) if *g == field => *direct &= steps == 1,
                        Some(_) => other = true,
                    },
                    None => other = true,
                }
            }
        },
        &mut |_| {},
    );
    if other {
        None
    } else {
        out
    }
}

/// A place inside the object a method runs on, as its first field and how many accesses
/// lead to the place from the object (`n`, `this->n`: 1; `v[i]`, `this->s.x`: 2).
fn this_chain(e: &Expr) -> Option<(Arc<str>, usize)> {
    match access_path(e)? {
        (PathRoot::ThisField(f), steps) => Some((f, steps.len() + 1)),
        (PathRoot::Var(_), _) => None,
    }
}

/// The storage a value gives access to: an array's or a pointee's buffer, a record.
enum Holder {
    Buffer(Rc<RefCell<Buffer>>),
    Record(Rc<RefCell<Record>>),
}

/// What a container holds becomes unknown: a buffer's elements (and its length, unless
/// `keep_len`), a record's fields.
fn forget_contents(h: &Holder, why: &str, keep_len: bool) {
    match h {
        Holder::Buffer(b) => {
            let mut buf = b.borrow_mut();
            buf.forget(why);
            if !keep_len {
                buf.len = None;
            }
        }
        Holder::Record(r) => {
            let unknown = Value::unknown(why);
            for v in r.borrow_mut().fields.values_mut() {
                *v = unknown.clone();
            }
        }
    }
}

/// What `v.f` or `v->f` reaches a field of: the record `v` holds or points at, also when it
/// points at one record among others (`Domain* d = new Domain(…)`, an element of a buffer).
fn field_holder(v: &Value) -> Option<Holder> {
    if let Value::Ptr(Ptr::Elem(b, i)) = v {
        if let Value::Record(r) = b.borrow().get(*i) {
            return Some(Holder::Record(r));
        }
    }
    holder_of(v)
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
    /// What a function of the program may write (cached; `None` for one without a body).
    /// Functions that call each other (`parse` → `parseFile` → `parse`) are summarised
    /// together: a call of one whose summary is being made reads its value so far (at first,
    /// no writes), and that summary is made again until it no longer changes: the writes of
    /// every path through the recursion, not "anything" for the call that closes it.
    pub(super) fn summary(&self, key: DeclKey) -> Option<Rc<Summary>> {
        if let Some(s) = self.summaries.borrow().get(&key) {
            return s.clone();
        }
        let open = self
            .summary_stack
            .borrow()
            .iter()
            .position(|(k, _)| *k == key);
        if let Some(at) = open {
            self.summary_low.set(self.summary_low.get().min(at));
            return Some(self.summary_stack.borrow()[at].1.clone());
        }
        if let Some((s, low)) = self.provisional.borrow().get(&key).cloned() {
            self.summary_low.set(self.summary_low.get().min(low));
            return Some(s);
        }
        let f = self.prog.functions.get(&key)?.clone();
        let at = self.summary_stack.borrow().len();
        let none = Rc::new(self.summarize_nothing(&f));
        self.summary_stack.borrow_mut().push((key, none));
        let outer_low = self.summary_low.get();
        let mut result = None;
        for _ in 0..SUMMARY_ROUNDS {
            self.summary_low.set(usize::MAX);
            let mut s = summarize(&f, &|k| self.summary(k));
            // A virtual method another class overrides may run as the override, which writes
            // its own fields: what it writes of the object is not known from this body.
            if self.prog.overrides.get(&key).is_some_and(|o| !o.is_empty()) {
                s.w.this_all = true;
                s.returns_field = None;
            }
            let low = self.summary_low.get();
            let s = Rc::new(s);
            // What was made from this one's value so far is stale now.
            self.provisional.borrow_mut().retain(|_, (_, l)| *l < at);
            // Made from the value so far of a summary further out: good until that one
            // changes.
            if low < at {
                result = Some((s, low));
                break;
            }
            let same = self.summary_stack.borrow()[at].1.w == s.w;
            if low == at && !same {
                self.summary_stack.borrow_mut()[at].1 = s;
                continue;
            }
            result = Some((s, usize::MAX));
            break;
        }
        self.summary_stack.borrow_mut().truncate(at);
        self.summary_low
            .set(outer_low.min(result.as_ref().map_or(usize::MAX, |r| r.1)));
        match result {
            Some((s, low)) if low < at => {
                self.provisional.borrow_mut().insert(key, (s.clone(), low));
                Some(s)
            }
            Some((s, _)) => {
                self.summaries.borrow_mut().insert(key, Some(s.clone()));
                Some(s)
            }
            // Not settled within the rounds: unknown, as a function kerncast cannot read.
            None => {
                self.summaries.borrow_mut().insert(key, None);
                None
            }
        }
    }

    /// A function's summary before its calls are known: what its body tells alone (its
    /// parameters, locals, the member it returns), and no writes.
    fn summarize_nothing(&self, f: &Function) -> Summary {
        let mut s = summarize(f, &|_| None);
        s.w = Written::default();
        if self
            .prog
            .overrides
            .get(&f.key)
            .is_some_and(|o| !o.is_empty())
        {
            s.returns_field = None;
        }
        s
    }

    /// What `stmts` and `exprs` may write, the program's functions they call included.
    pub(super) fn written(&self, stmts: &[&Stmt], exprs: &[&Expr]) -> Written {
        Written::of_with(stmts, exprs, &|k| self.summary(k))
    }

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
        // What a written field holds (a buffer it points at) is saved too.
        for (k, f) in &w.field_contents {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            let Some(Holder::Record(r)) = holder_of(&c.borrow()) else {
                continue;
            };
            let field = r.borrow().fields.get(f).cloned();
            match field.as_ref().and_then(holder_of) {
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
        // The object a method runs on, and what its written fields hold.
        if let Some(Holder::Record(r)) = self.this_written(w) {
            for f in &w.this_field_contents {
                let field = r.borrow().fields.get(f).cloned();
                match field.as_ref().and_then(holder_of) {
                    Some(Holder::Buffer(b))
                        if !s.buffers.iter().any(|(x, _)| Rc::ptr_eq(x, &b)) =>
                    {
                        let copy = b.borrow().clone();
                        s.buffers.push((b, copy));
                    }
                    Some(Holder::Record(q))
                        if !s.records.iter().any(|(x, _)| Rc::ptr_eq(x, &q)) =>
                    {
                        let copy = q.borrow().clone();
                        s.records.push((q, copy));
                    }
                    _ => {}
                }
            }
            if !s.records.iter().any(|(x, _)| Rc::ptr_eq(x, &r)) {
                let copy = r.borrow().clone();
                s.records.push((r, copy));
            }
        }
        for k in &w.keys() {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            if !s.cells.iter().any(|(x, _)| Rc::ptr_eq(x, &c)) {
                let v = c.borrow().copy();
                s.cells.push((c.clone(), v));
            }
            // A pointer to a variable or a field (`set(&n)`, then `*p = 64;` or `*out = NULL;`
            // on one side): what it points at is written, whatever that holds, so it is saved
            // too.
            let pointee = c.borrow().clone();
            match pointee {
                Value::Ptr(Ptr::Cell(t)) if !s.cells.iter().any(|(x, _)| Rc::ptr_eq(x, &t)) => {
                    let v = t.borrow().copy();
                    s.cells.push((t, v));
                }
                Value::Ptr(Ptr::Field(r, _))
                    if !s.records.iter().any(|(x, _)| Rc::ptr_eq(x, &r)) =>
                {
                    let copy = r.borrow().clone();
                    s.records.push((r, copy));
                }
                _ => {}
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
        for (i, (c, _)) in first.cells.iter().enumerate() {
            let values: Vec<&Value> = outcomes.iter().map(|o| &o.cells[i].1).collect();
            *c.borrow_mut() = merged_value(&values, &unknown);
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

    /// Operands C evaluates in an order it leaves to the compiler (a call's arguments, both
    /// sides of `+`; GCC and clang differ): when two of them may draw from the random number
    /// generator, which draw comes first is unknown, and so is every draw from here on.
    pub(super) fn unsequenced_draws(&self, operands: &[&Expr]) {
        let has_call = |e: &Expr| {
            let mut found = false;
            visit_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Call(_)));
            found
        };
        // Most operands call nothing: the cheap look first.
        let calling: Vec<&Expr> = operands.iter().copied().filter(|e| has_call(e)).collect();
        if calling.len() < 2 {
            return;
        }
        let drawing = calling
            .iter()
            .filter(|e| self.written(&[], &[e]).rand)
            .count();
        if drawing > 1 {
            self.forget_rand();
        }
    }

    /// The random number generator may have run where kerncast did not follow it: what it
    /// gives from now on is unknown (until the program seeds it again).
    pub(super) fn forget_rand(&self) {
        *self.rand.borrow_mut() = None;
        *self.rand48.borrow_mut() = None;
    }

    /// Every variable `w` covers becomes unknown; what it holds keeps its identity (the same
    /// array, the same pointer) with its contents unknown.
    pub(super) fn forget(&self, w: &Written, why: &str) {
        self.forget_with(w, why, false);
    }

    /// [`Self::forget`] for stores into elements, which keep each container's length.
    pub(super) fn forget_stored(&self, w: &Written, why: &str) {
        self.forget_with(w, why, true);
    }

    /// The object of the method running now, when `w` writes any of it.
    fn this_written(&self, w: &Written) -> Option<Holder> {
        if !w.this_all && w.this_fields.is_empty() && w.this_field_contents.is_empty() {
            return None;
        }
        let this = self.frames.last()?.this.clone()?;
        holder_of(&this)
    }

    fn forget_with(&self, w: &Written, why: &str, keep_len: bool) {
        if w.rand {
            self.forget_rand();
        }
        let unknown = Value::unknown(why);
        if let Some(h) = self.this_written(w) {
            match &h {
                Holder::Record(r) if !w.this_all => {
                    for f in &w.this_field_contents {
                        let field = r.borrow().fields.get(f).cloned();
                        if let Some(x) = field.as_ref().and_then(holder_of) {
                            forget_contents(&x, why, keep_len);
                        }
                    }
                    let mut r = r.borrow_mut();
                    for f in &w.this_fields {
                        let keep = r.fields.get(f).is_some_and(kept_when_forgotten);
                        if !keep {
                            r.fields.insert(f.clone(), unknown.clone());
                        }
                    }
                }
                _ => forget_contents(&h, why, keep_len),
            }
        }
        // A field of a record: that field alone; what a field holds: that alone. Where the
        // variable holds no record (an array of them), all it holds.
        let mut contents = w.contents.clone();
        for (k, f) in &w.fields {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            let holder = field_holder(&c.borrow());
            match holder {
                Some(Holder::Record(r)) => {
                    r.borrow_mut().fields.insert(f.clone(), unknown.clone());
                }
                _ => {
                    contents.insert(*k);
                }
            }
        }
        for (k, f) in &w.field_contents {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            let holder = field_holder(&c.borrow());
            match holder {
                Some(Holder::Record(r)) => {
                    let field = r.borrow().fields.get(f).cloned();
                    if let Some(h) = field.as_ref().and_then(holder_of) {
                        forget_contents(&h, why, keep_len);
                    }
                }
                _ => {
                    contents.insert(*k);
                }
            }
        }
        for k in &contents {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            // A pointer to a scalar (`int* p = &n;` then `*p = …`): the scalar itself.
            let target = match &*c.borrow() {
                Value::Ptr(Ptr::Cell(t)) if holder_of(&t.borrow()).is_none() => {
                    Some(Place::Cell(t.clone()))
                }
                Value::Ptr(Ptr::Field(r, f))
                    if r.borrow().fields.get(f).and_then(holder_of).is_none() =>
                {
                    Some(Place::Field(r.clone(), f.clone()))
                }
                _ => None,
            };
            if let Some(t) = target {
                let keep = kept_when_forgotten(&t.read());
                if !keep {
                    t.write(unknown.clone());
                }
                continue;
            }
            let holder = holder_of(&c.borrow());
            if let Some(h) = holder {
                forget_contents(&h, why, keep_len);
            }
        }
        for k in &w.vars {
            let Some(c) = self.existing_cell(*k) else {
                continue;
            };
            let keep = kept_when_forgotten(&c.borrow());
            if !keep {
                *c.borrow_mut() = unknown.clone();
            }
        }
    }
}

/// Whether forgetting a variable keeps what it holds: a function, or an object of the API or
/// the library whose identity the program still uses (a stream, a map; a `<random>` engine,
/// forgotten in place).
fn kept_when_forgotten(v: &Value) -> bool {
    cpp_random::forget_in_place(v) || matches!(v, Value::Func(_) | Value::Handle(_))
}

/// What all `values` agree on: the value itself, or for records of the same type and
/// fields, a record whose fields are merged one by one (a method that wrote one member on one
/// side leaves the others known); else `unknown`.
/// `merged` (states of the same places, merged so far) merged with one more, `other`: each
/// place kept where the two agree, unknown (for `why`) where not, as [`Interp::merge`] would
/// merge them all at once.
pub(super) fn merge_into(merged: &mut Saved, other: &Saved, why: &str) {
    let unknown = Value::unknown(why);
    for ((_, m), (_, o)) in merged.cells.iter_mut().zip(&other.cells) {
        let v = merged_value(&[m, o], &unknown);
        *m = v;
    }
    for ((_, m), (_, o)) in merged.buffers.iter_mut().zip(&other.buffers) {
        if !same_buffer(m, o) {
            if m.len != o.len {
                m.len = None;
            }
            m.forget(why);
        }
    }
    for ((_, m), (_, o)) in merged.records.iter_mut().zip(&other.records) {
        for (f, x) in m.fields.iter_mut() {
            if !o.fields.get(f).is_some_and(|y| y.same(x)) {
                *x = unknown.clone();
            }
        }
    }
}

fn merged_value(values: &[&Value], unknown: &Value) -> Value {
    let Some(first) = values.first() else {
        return unknown.clone();
    };
    if values.iter().all(|v| v.same(first)) {
        return (*first).clone();
    }
    // device memory of sizes that differ is still device memory
    if let Some(v) = Value::device_join(values, unknown) {
        return v;
    }
    let Value::Record(r) = first else {
        return unknown.clone();
    };
    let r = r.borrow();
    let records: Option<Vec<std::cell::Ref<'_, Record>>> = values
        .iter()
        .map(|v| match v {
            Value::Record(x) => Some(x.borrow()),
            _ => None,
        })
        .collect();
    let Some(records) = records else {
        return unknown.clone();
    };
    let alike = records.iter().all(|x| {
        x.ty == r.ty
            && x.fields.len() == r.fields.len()
            && x.fields.keys().all(|k| r.fields.contains_key(k))
    });
    if !alike {
        return unknown.clone();
    }
    let mut merged = Record {
        ty: r.ty.clone(),
        fields: Default::default(),
    };
    for f in r.fields.keys() {
        let field: Vec<&Value> = records.iter().map(|x| &x.fields[f]).collect();
        merged
            .fields
            .insert(f.clone(), merged_value(&field, unknown));
    }
    Value::Record(crate::heap::shared(merged))
}

fn same_buffer(a: &Buffer, b: &Buffer) -> bool {
    a.len == b.len
        && a.sparse.is_empty()
        && b.sparse.is_empty()
        && a.dense.len() == b.dense.len()
        && a.dense.iter().zip(&b.dense).all(|(x, y)| x.same(y))
        && a.fill.same(&b.fill)
        && match (&a.run, &b.run) {
            (None, None) => true,
            (Some(x), Some(y)) => x.same(y),
            _ => false,
        }
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
                if let Callee::Value(v, _) = &c.callee {
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

/// Whether evaluating `e` can change anything kerncast follows but what it computes: an
/// assignment, an increment, a launch, an allocation, a call — except a call of a library
/// function given only scalars (`rand()`, `sqrt(x)`), which can write nothing kerncast
/// models.
fn has_effects(e: &Expr) -> bool {
    let mut found = false;
    visit_expr(e, &mut |x| {
        found |= match &x.kind {
            ExprKind::Assign(..)
            | ExprKind::Unary(UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec, _)
            | ExprKind::Launch { .. }
            | ExprKind::LaunchVia { .. }
            | ExprKind::New { .. }
            | ExprKind::Lambda(_) => true,
            ExprKind::Call(c) => match &c.callee {
                Callee::Direct { system: true, .. } => c
                    .args
                    .iter()
                    .any(|a| !matches!(strip(a).ty, Ty::Int { .. } | Ty::Float { .. } | Ty::Bool)),
                _ => true,
            },
            _ => false,
        }
    });
    found
}

/// A statement that only stores a value into memory (`a[i].x = v;`, `p->n += 2;`,
/// `q[j]++;`): it writes no variable, and computing what it stores changes nothing else.
fn only_stores(s: &Stmt) -> bool {
    let StmtKind::Expr(e) = &s.kind else {
        return false;
    };
    let (place, value) = match &e.kind {
        ExprKind::Assign(_, l, r) => (&**l, Some(&**r)),
        ExprKind::Unary(UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec, x) => {
            (&**x, None)
        }
        _ => return false,
    };
    let into_memory = !matches!(strip(place).kind, ExprKind::Var(..))
        && root_var(place).is_some()
        && (!has_effects(place) || is_element_access(place));
    into_memory && !value.is_some_and(has_effects)
}

/// `v[i]` of a sequence of the library (`std::vector`, `std::array`, `std::deque`): an
/// element, which storing into does not resize (unlike a map's `m[k]`).
pub(super) fn is_element_access(place: &Expr) -> bool {
    let Some((object, name, args)) = library_method(place) else {
        return false;
    };
    let sequence = ["std::vector<", "std::array<", "std::deque<"]
        .iter()
        .any(|p| record_of(object).is_some_and(|r| r.starts_with(p)));
    name.ends_with("operator[]")
        && sequence
        && !has_effects(object)
        && !args.iter().any(has_effects)
}

/// `object.name(args)` where the method is the library's (`std::vector::push_back`).
pub(super) fn library_method(e: &Expr) -> Option<(&Expr, &str, &[Expr])> {
    let ExprKind::Call(c) = &strip(e).kind else {
        return None;
    };
    match &c.callee {
        Callee::Method {
            object,
            name,
            system: true,
            ..
        } => Some((object, name, &c.args)),
        _ => None,
    }
}

/// The record type an expression has (`std::vector<float>`), if it has one.
fn record_of(e: &Expr) -> Option<&str> {
    match &strip(e).ty {
        Ty::Record { name, .. } => Some(name),
        _ => None,
    }
}

/// `s` with every statement that only stores into memory left out, and those statements
/// (what they write is the caller's to forget; none changes a container's length).
pub(super) fn without_stores(s: &Stmt) -> (Stmt, Vec<Stmt>) {
    let mut out = s.clone();
    let mut dropped = Vec::new();
    drop_stores(&mut out, &mut dropped);
    (out, dropped)
}

/// Whether running `s` does nothing (empty blocks, empty statements).
pub(super) fn is_empty(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Null => true,
        StmtKind::Block(items) => items.iter().all(is_empty),
        _ => false,
    }
}

fn drop_stores(s: &mut Stmt, dropped: &mut Vec<Stmt>) {
    if only_stores(s) {
        let kind = std::mem::replace(&mut s.kind, StmtKind::Null);
        dropped.push(Stmt {
            kind,
            span: s.span.clone(),
        });
        return;
    }
    match &mut s.kind {
        StmtKind::Block(items) => items.iter_mut().for_each(|x| drop_stores(x, dropped)),
        StmtKind::If { then, els, .. } => {
            drop_stores(then, dropped);
            if let Some(e) = els {
                drop_stores(e, dropped);
            }
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::RangeFor { body, .. }
        | StmtKind::Switch { body, .. }
        | StmtKind::Case { body, .. }
        | StmtKind::Default(body)
        | StmtKind::Label(_, body) => drop_stores(body, dropped),
        StmtKind::Try { body, handlers } => {
            drop_stores(body, dropped);
            handlers
                .iter_mut()
                .for_each(|(_, h)| drop_stores(h, dropped));
        }
        _ => {}
    }
}

/// The vectors a loop body only appends to, with how many elements each iteration appends:
/// a body of declarations and `v.push_back(x);` statements, run in order (no branch, no
/// jump), where each such `v` is named nowhere else in it. `None` for any other body.
pub(super) fn appends_only(body: &Stmt) -> Option<Vec<(DeclKey, i64)>> {
    let StmtKind::Block(items) = &body.kind else {
        return None;
    };
    let mut pushes: Vec<(DeclKey, i64)> = Vec::new();
    for item in items {
        match &item.kind {
            StmtKind::Decl(_) | StmtKind::Null => {}
            StmtKind::Expr(e) => {
                let (object, name, _) = library_method(e)?;
                let vector = record_of(object).is_some_and(|r| r.starts_with("std::vector<"));
                let ExprKind::Var(k, _) = strip(object).kind else {
                    return None;
                };
                if !vector || !(name.ends_with("push_back") || name.ends_with("emplace_back")) {
                    return None;
                }
                match pushes.iter_mut().find(|(x, _)| *x == k) {
                    Some((_, n)) => *n += 1,
                    None => pushes.push((k, 1)),
                }
            }
            _ => return None,
        }
    }
    // Each vector named only as the object of its appends.
    let mut named: Vec<DeclKey> = Vec::new();
    visit_stmt(body, &mut |_| {}, &mut |e| {
        if let ExprKind::Var(k, _) = &e.kind {
            named.push(*k);
        }
    });
    let only_appended = pushes
        .iter()
        .all(|(k, n)| named.iter().filter(|x| *x == k).count() as i64 == *n);
    (!pushes.is_empty() && only_appended).then_some(pushes)
}
