//! Statements: declarations, branches (both sides where the condition is unknown), loops
//! (followed iteration by iteration within the budget, a steady loop's remaining iterations
//! counted without running them), `switch`, `return`.

use super::access::{buffer_of, Place};
use super::containers::map_elements;
use super::effects::{appends_only, is_empty, vars_read, visit_expr, without_stores};
use super::state::{Exec, Flow, Halt, Interp, Leave};
use super::value::{convert, Buffer, Value};
use crate::ast::*;
use crate::heap;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

/// Iterations a loop runs, each launching the same, before its remaining iterations are counted
/// instead of run.
const STEADY_SAMPLE: u64 = 256;

/// The fewer iterations launching the same that are enough for a loop that has spent half
/// the steps left when it started: followed to `STEADY_SAMPLE`, it would stop the whole
/// reading on the step budget (an outer repetition loop around work that runs as known, a
/// generator seeded by `srand`, at every iteration), and nothing after it would be read.
const STEADY_COSTLY: u64 = 16;

/// What a function returns after a `goto` taken on one side of an undecided condition: the
/// code at the label is not run from there (what follows the condition runs instead).
const GOTO_PATH: &str = "a return after a goto on one side of an undecided condition";

/// A loop that cannot launch and was cut short before is followed, each time it runs again,
/// for half the steps of the time before, down to this fraction of `quiet_loop_steps`.
const QUIET_FLOOR: u64 = 64;

impl Interp<'_> {
    pub(super) fn exec(&mut self, s: &Stmt) -> Exec<Flow> {
        self.step(&s.span)?;
        match &s.kind {
            StmtKind::Block(items) => {
                let mut i = 0;
                while let Some(item) = items.get(i) {
                    match self.exec(item)? {
                        Flow::Normal => i += 1,
                        // A jump to a label of this block goes on from there (backwards too:
                        // the step budget bounds a loop made of gotos); else it leaves.
                        Flow::Goto(label) => {
                            match items.iter().position(|s| has_label(s, &label)) {
                                Some(at) => i = at,
                                None => return Ok(Flow::Goto(label)),
                            }
                        }
                        other => return Ok(other),
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::Decl(vars) => {
                for v in vars {
                    self.declare_var(v)?;
                }
                Ok(Flow::Normal)
            }
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(Flow::Normal)
            }
            StmtKind::If {
                init,
                cond,
                then,
                els,
            } => {
                if let Some(i) = init {
                    if let flow @ (Flow::Return(_) | Flow::Break | Flow::Continue) = self.exec(i)? {
                        return Ok(flow);
                    }
                }
                let c = self.eval(cond)?;
                match c.truth() {
                    Some(true) => self.exec(then),
                    Some(false) => match els {
                        Some(e) => self.exec(e),
                        None => Ok(Flow::Normal),
                    },
                    None => {
                        let why = self.condition_note(&c, &s.span);
                        let mut branches: Vec<&Stmt> = vec![then];
                        if let Some(e) = els {
                            branches.push(e);
                        }
                        self.alternatives(&branches, &why, false)?;
                        Ok(Flow::Normal)
                    }
                }
            }
            StmtKind::For {
                init,
                cond,
                inc,
                body,
            } => {
                if let Some(i) = init {
                    self.exec(i)?;
                }
                if let Some(fill) = super::fill_loop::recognise(cond.as_ref(), inc.as_ref(), body) {
                    let done = if fill.stores_one_value() {
                        self.fill(&fill, s)?
                    } else {
                        fill.draws_anew() && self.draw_fill(&fill, s)?
                    };
                    if done {
                        return Ok(Flow::Normal);
                    }
                }
                self.run_loop(s, cond.as_ref(), inc.as_ref(), body, false)
            }
            StmtKind::While { cond, body } => self.run_loop(s, Some(cond), None, body, false),
            StmtKind::DoWhile { body, cond } => self.run_loop(s, Some(cond), None, body, true),
            StmtKind::RangeFor { var, range, body } => self.range_for(s, var, range, body),
            StmtKind::Switch { cond, body } => {
                // a `break` in it ends the switch, not a loop around it: where one on a side of
                // an undecided condition leaves it is merged at its end, as a loop's
                let written = self.written(&[body], &[cond]);
                self.loop_exits.push(Some((written, None, None)));
                let r = self.switch(s, cond, body);
                self.merge_loop_exits(s.span.line, "switch");
                r
            }
            StmtKind::Case { body, .. } | StmtKind::Default(body) => self.exec(body),
            StmtKind::Return(e) => {
                let by_ref = self.returns_ref.last().copied().unwrap_or(false);
                let v = match e {
                    // A reference is returned as a pointer to its place.
                    Some(e) if by_ref => self.place(e)?.pointer(),
                    Some(e) => self.eval(e)?,
                    None => Value::Void,
                };
                Ok(Flow::Return(v))
            }
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Goto(label) => Ok(Flow::Goto(label.clone())),
            StmtKind::Try { body, handlers } => self.try_stmt(s, body, handlers),
            StmtKind::Label(_, body) => self.exec(body),
            StmtKind::Null => Ok(Flow::Normal),
            // Not run (an OpenMP directive, a statement kerncast does not lower): a draw of
            // the random number generator in it is missed, and so is a launch; the note names
            // the statement, so the gap shows where the launches are listed.
            StmtKind::Unsupported(why) => {
                self.forget_rand();
                self.note(format!(
                    "{}:{}: kerncast does not read {why}: {}",
                    s.span.file,
                    s.span.line,
                    crate::output::NOT_FOUND_IN_IT
                ));
                Ok(Flow::Normal)
            }
        }
    }

    fn declare_var(&mut self, v: &VarDecl) -> Exec<()> {
        if v.is_static {
            // A static local keeps its value across calls: it lives with the globals.
            if self.globals.contains_key(&v.key) {
                return Ok(());
            }
            let init = match &v.init {
                Some(e) => self.eval(e)?.copy(),
                None => self.default_value(&v.ty, true),
            };
            let init = self.shaped(convert(init, &v.ty), &v.ty, &v.name);
            self.globals.insert(v.key, heap::shared(init));
            return Ok(());
        }
        if v.by_ref {
            if let (Some(e), Some(f)) = (&v.init, self.frames.last().cloned()) {
                let place = self.place(e)?;
                f.bind_ref(v.key, place);
                return Ok(());
            }
        }
        let value = match &v.init {
            Some(e) => {
                let x = self.eval(e)?;
                convert(x.copy(), &v.ty)
            }
            None => self.default_value(&v.ty, false),
        };
        let value = self.shaped(value, &v.ty, &v.name);
        let value = self.named(value, &v.name);
        self.declare(v.key, value);
        Ok(())
    }

    /// An array initialised from a list of fewer elements gets the rest as zeros, as C does.
    fn shaped(&mut self, v: Value, ty: &Ty, _name: &str) -> Value {
        if let (Ty::Array(elem, Some(n)), Value::Array(b)) = (ty, &v) {
            let mut buf = b.borrow_mut();
            while buf.len.unwrap_or(0) < *n as i64 {
                let zero = convert(Value::Int(0), elem);
                buf.push(zero);
            }
        }
        v
    }

    /// An unknown value stored under a name takes that name, so the user can give it a value
    /// (`--param n=…`) and the reports say which name a launch depends on.
    pub(super) fn named(&mut self, v: Value, name: &str) -> Value {
        match &v {
            Value::Unknown(u) if u.name.is_none() && !name.is_empty() => {
                let why = u.why.to_string();
                self.assumption(name, &why)
            }
            _ => v,
        }
    }

    pub(super) fn condition_note(&self, c: &Value, span: &Span) -> String {
        match c.brief() {
            Some(r) => format!("the condition at line {} ({r})", span.line),
            None => format!("the condition at line {}", span.line),
        }
    }

    /// Runs each of `branches` from the same state (the one before them), since kerncast
    /// cannot tell which runs; launches inside carry `why`; what the branches leave different
    /// is unknown afterwards.
    /// A branch that may leave early (`return`, `break`, `exit`; in a `switch`, `break` only
    /// ends the case) makes what follows run under the condition too.
    pub(super) fn alternatives(
        &mut self,
        branches: &[&Stmt],
        why: &str,
        in_switch: bool,
    ) -> Exec<()> {
        let written = self.written(branches, &[]);
        // Each branch would draw from the same generator state, and which ran is unknown.
        if written.rand {
            self.forget_rand();
        }
        let before = self.save(&written);
        let mut outcomes = Vec::new();
        let why_rc: Rc<str> = Rc::from(why);
        let (guards, fn_guards, outer_left) =
            (self.guards.len(), self.fn_guards.len(), self.left.take());
        self.guards.push(why_rc.clone());
        self.uncertain += 1;
        let mut result = Ok(());
        let mut leave = None;
        for b in branches {
            self.restore(&before);
            self.left = None;
            let flow = match self.exec(b) {
                Err(Halt::Budget(w)) => {
                    result = Err(Halt::Budget(w));
                    break;
                }
                Err(Halt::Exit | Halt::Throw(_)) => Flow::Normal,
                Ok(f) => f,
            };
            match &flow {
                Flow::Return(v) => self.return_early(v, &why_rc),
                // A jump out of the branch to a label kerncast does not run from here: what
                // the function returns on that path is unknown.
                Flow::Goto(_) => self.return_early(&Value::unknown(GOTO_PATH), &why_rc),
                _ => {}
            }
            // a `break` on this side leaves the loop in this state, which the loop's end
            // merges with the state it ends in otherwise
            if matches!(flow, Flow::Break) && !in_switch {
                // the places are saved at the first such break, and snapshot at the others
                let at_break = match self.loop_exits.last() {
                    Some(Some((_, Some(places), _))) => Some((None, self.snapshot(places))),
                    Some(Some((written, None, _))) => {
                        let places = self.save(written);
                        let now = self.snapshot(&places);
                        Some((Some(places), now))
                    }
                    _ => None,
                };
                if let (Some((first, now)), Some(Some((_, places, exits)))) =
                    (at_break, self.loop_exits.last_mut())
                {
                    if first.is_some() {
                        *places = first;
                    }
                    match exits {
                        Some((merged, _)) => super::effects::merge_into(merged, &now, &why_rc),
                        None => *exits = Some((now, why_rc.clone())),
                    }
                }
            }
            let by_flow = match flow {
                Flow::Normal => None,
                Flow::Break if in_switch => None,
                Flow::Break | Flow::Continue => Some(Leave::Loop),
                Flow::Return(_) | Flow::Goto(_) => Some(Leave::Function),
            };
            leave = leave.max(by_flow).max(self.left);
            // What the branch's own undecided conditions left behind is this condition's now.
            self.guards.truncate(guards + 1);
            self.fn_guards.truncate(fn_guards);
            outcomes.push(self.snapshot(&before));
        }
        self.uncertain -= 1;
        self.guards.truncate(guards);
        if result.is_err() {
            self.left = outer_left;
        }
        result?;
        self.left = outer_left.max(leave);
        self.left_early(leave, &why_rc);
        // With one branch, the other "branch" is the state before it.
        if branches.len() == 1 {
            outcomes.push(before);
        }
        self.merge(&outcomes, &format!("it depends on {why}"));
        Ok(())
    }

    /// The function being run may have returned `v` under `why`.
    fn return_early(&mut self, v: &Value, why: &Rc<str>) {
        if let Some(list) = self.early_returns.last_mut() {
            list.push((v.copy(), why.clone()));
        }
    }

    /// Every variable a loop may write becomes unknown, and what they hold.
    fn forget_written(&mut self, s: &[&Stmt], extra: &[&Expr], why: &str) {
        let written = self.written(s, extra);
        self.forget(&written, why);
        if self.device_data_lost.is_none() && s.iter().any(|s| copies_to_device(s)) {
            self.device_data_lost = Some(
                format!("copies into device memory in a loop not followed to its end ({why})")
                    .into(),
            );
        }
    }

    fn run_loop(
        &mut self,
        s: &Stmt,
        cond: Option<&Expr>,
        inc: Option<&Expr>,
        body: &Stmt,
        do_while: bool,
    ) -> Exec<Flow> {
        let (guards, fn_guards, left) = (self.guards.len(), self.fn_guards.len(), self.left.take());
        let heads: Vec<&Expr> = [cond, inc].into_iter().flatten().collect();
        let written = self.written(&[body], &heads);
        self.loop_exits.push(Some((written, None, None)));
        let r = self.follow_loop(s, cond, inc, body, do_while);
        self.merge_loop_exits(s.span.line, "loop");
        self.end_loop(guards, fn_guards, left);
        r
    }

    /// After a loop or a `switch`: where an undecided `break` may have left it, what it writes
    /// is what every such exit and its end agree on, and unknown where they differ (`for (k =
    /// 0; k < n; k++) if (x == k) break;` leaves `k` unknown when `x` is).
    fn merge_loop_exits(&mut self, line: u32, what: &str) {
        let Some(Some((_, Some(places), Some((at_breaks, why))))) = self.loop_exits.pop() else {
            return;
        };
        let why = format!("it depends on {why}, which may end the {what} at line {line} early");
        self.merge(&[self.snapshot(&places), at_breaks], &why);
    }

    /// After a loop: an undecided `break` or `continue` in it no longer matters.
    fn end_loop(&mut self, guards: usize, fn_guards: usize, left: Option<Leave>) {
        self.restore_guards(guards, fn_guards);
        self.left = left.max(self.left.filter(|l| *l > Leave::Loop));
    }

    fn follow_loop(
        &mut self,
        s: &Stmt,
        cond: Option<&Expr>,
        inc: Option<&Expr>,
        body: &Stmt,
        do_while: bool,
    ) -> Exec<Flow> {
        let line = s.span.line;
        let start_mark = self.recorder.log.len();
        let mut start_steps = self.steps;
        let entry_steps = self.steps;
        let left_at_entry = self.opts.budget.steps.saturating_sub(entry_steps);
        let quiet_body = !self.may_launch_cached(body);
        // The body without its stores into memory, once the loop has run long (see below).
        let mut sliced: Option<Rc<Stmt>> = None;
        let cuts = self
            .quiet_cut
            .get(&(s as *const Stmt))
            .copied()
            .unwrap_or(0);
        let quiet_steps = (self.opts.budget.quiet_loop_steps >> cuts.min(63))
            .max(self.opts.budget.quiet_loop_steps / QUIET_FLOOR);
        let mut iterations: u64 = 0;
        // How many iterations in a row, up to the last, launched the same shapes (site,
        // kernel, grid, block, the conditions they run under) — counted again from where the
        // shapes last changed, so that a first iteration that differs (one before a check
        // kerncast cannot decide) does not keep the rest from being counted — and the last
        // two iterations' launches.
        let mut steady: u64 = 0;
        let mut last_shapes: Option<Vec<String>> = None;
        let mut previous: Vec<usize> = Vec::new();
        // what a loop left unfinished has written includes its condition's and step's writes
        let heads: Vec<&Expr> = [cond, inc].into_iter().flatten().collect();
        loop {
            if !(do_while && iterations == 0) {
                if let Some(c) = cond {
                    let v = self.eval(c)?;
                    match v.truth() {
                        Some(false) => return Ok(Flow::Normal),
                        Some(true) => {}
                        None => {
                            let why = format!(
                                "the loop at line {line}, whose end kerncast cannot tell ({})",
                                v.brief().unwrap_or_default()
                            );
                            return self.unknown_loop(body, cond, inc, start_mark, &why);
                        }
                    }
                }
            }
            if iterations >= self.opts.budget.loop_iterations {
                let why = format!(
                    "the loop at line {line} was followed for {iterations} iterations (budget: --host-loop-iterations)"
                );
                self.recorder.partial_since(start_mark, &why);
                self.forget_written(&[body], &heads, &why);
                return Ok(Flow::Normal);
            }
            // A loop that cannot launch is followed only while it is cheap: its values matter
            // to launches only through what it leaves behind, which becomes unknown.
            if quiet_body && self.steps - start_steps > quiet_steps {
                *self.quiet_cut.entry(s as *const Stmt).or_default() += 1;
                // A counted loop that only appends to vectors: each grows by what one
                // iteration appends times the iterations left; what it appends is unknown.
                if let Some(pushes) = appends_only(body) {
                    let lens: Vec<Option<(Rc<RefCell<Buffer>>, i64)>> = pushes
                        .iter()
                        .map(|(k, _)| {
                            let c = self.existing_cell(*k)?;
                            let Value::Array(b) = &*c.borrow() else {
                                return None;
                            };
                            let n = b.borrow().len?;
                            Some((b.clone(), n))
                        })
                        .collect();
                    if lens.iter().all(Option::is_some) {
                        if let Some(left) = self.remaining_trips(cond, inc, body) {
                            let why = format!("it is written by the loop at line {line}, whose last {left} iterations were counted, not run");
                            self.forget_written(&[body], &heads, &why);
                            for ((b, n), (_, per)) in lens.into_iter().flatten().zip(&pushes) {
                                b.borrow_mut().len = Some(n + left as i64 * per);
                            }
                            return Ok(Flow::Normal);
                        }
                    }
                }
                // Once: go on without the body's stores into memory (`a[i].x = v;`), whose
                // places become unknown now, for the variables the loop computes (a count, a
                // position), within the same allowance again.
                let mut go_on = false;
                if sliced.is_none() {
                    let (without, dropped) = without_stores(body);
                    if !dropped.is_empty() {
                        // What the left-out stores write: elements and fields, never a
                        // variable or a container's length.
                        let stores: Vec<&Stmt> = dropped.iter().collect();
                        let w = self.written(&stores, &[]);
                        let why = format!("it is stored by the loop at line {line}, whose stores kerncast did not follow to its end");
                        self.forget_stored(&w, &why);
                        sliced = Some(Rc::new(without));
                        start_steps = self.steps;
                        go_on = true;
                    }
                }
                if !go_on {
                    let why = format!("it is written by the loop at line {line}, which kerncast did not follow to its end");
                    self.forget_written(&[body], &heads, &why);
                    return Ok(Flow::Normal);
                }
            }
            // A counted loop whose body does nothing (or nothing once its stores are left
            // out) ends at once: its counter takes its last value.
            let now: &Stmt = sliced.as_deref().unwrap_or(body);
            if quiet_body && is_empty(now) && self.remaining_trips(cond, inc, now).is_some() {
                return Ok(Flow::Normal);
            }
            let mark = self.recorder.log.len();
            let flow = self.exec(now)?;
            iterations += 1;
            let launched: Vec<usize> = self.recorder.since(mark).to_vec();
            let shapes = self.recorder.shapes(&launched);
            if last_shapes.as_ref() == Some(&shapes) {
                steady += 1;
            } else {
                steady = 1;
                last_shapes = Some(shapes);
            }
            match flow {
                Flow::Break => return Ok(Flow::Normal),
                flow @ (Flow::Return(_) | Flow::Goto(_)) => return Ok(flow),
                Flow::Normal | Flow::Continue => {}
            }
            if let Some(i) = inc {
                self.eval(i)?;
            }
            let costly = (self.steps - entry_steps).saturating_mul(2) > left_at_entry;
            let sampled = steady == STEADY_SAMPLE || (costly && steady >= STEADY_COSTLY);
            if sampled && !launched.is_empty() {
                if let Some(left) = self.remaining_trips(cond, inc, body) {
                    // The remaining iterations launch what the last did; an argument that
                    // changed between the last two is not known for them.
                    let varies = format!(
                        "it changes with each iteration of the loop at line {line}, whose last {left} iterations were counted, not run"
                    );
                    self.recorder
                        .repeat_last(&previous, &launched, left, &varies);
                    let why = format!("it is written by the loop at line {line}, whose last {left} iterations were counted, not run");
                    self.forget_written(&[body], &heads, &why);
                    return Ok(Flow::Normal);
                }
            }
            previous = launched;
        }
    }

    /// A loop kerncast cannot tell the end of: its body runs once, under a note, with what it
    /// writes unknown before and after.
    fn unknown_loop(
        &mut self,
        body: &Stmt,
        cond: Option<&Expr>,
        inc: Option<&Expr>,
        start_mark: usize,
        why: &str,
    ) -> Exec<Flow> {
        let extra: Vec<&Expr> = [cond, inc].into_iter().flatten().collect();
        let forgotten = format!("it is written by {why}");
        self.forget_written(&[body], &extra, &forgotten);
        let why_rc: Rc<str> = Rc::from(why);
        let (guards, fn_guards, outer_left) =
            (self.guards.len(), self.fn_guards.len(), self.left.take());
        self.guards.push(why_rc.clone());
        self.uncertain += 1;
        let mark = self.recorder.log.len();
        let r = self.exec(body);
        self.uncertain -= 1;
        self.restore_guards(guards, fn_guards);
        // A body that returns or exits, in a loop that may not run, leaves what follows
        // uncertain; a break or continue does not reach past the loop.
        match &r {
            Ok(Flow::Return(v)) => self.return_early(v, &why_rc),
            Ok(Flow::Goto(_)) => self.return_early(&Value::unknown(GOTO_PATH), &why_rc),
            _ => {}
        }
        let by_flow = match &r {
            Ok(Flow::Return(_) | Flow::Goto(_)) => Some(Leave::Function),
            _ => None,
        };
        let leave = by_flow.max(self.left.filter(|l| *l > Leave::Loop));
        self.left = outer_left.max(leave);
        r?;
        self.left_early(leave, &why_rc);
        self.recorder.partial_since(start_mark.min(mark), why);
        self.forget_written(&[body], &extra, &forgotten);
        Ok(Flow::Normal)
    }

    /// How many more times a counted loop (`for (…; i < n; i += s)`, `i` written only by the
    /// increment, `n` not written in the body) runs, and the counter set to its final value.
    fn remaining_trips(
        &mut self,
        cond: Option<&Expr>,
        inc: Option<&Expr>,
        body: &Stmt,
    ) -> Option<u64> {
        let (op, var, bound) = match &cond?.kind {
            ExprKind::Binary(op, l, r) => (*op, strip(l), strip(r)),
            _ => return None,
        };
        let ExprKind::Var(key, _) = var.kind else {
            return None;
        };
        let step: i128 = match &inc?.kind {
            ExprKind::Unary(UnOp::PreInc | UnOp::PostInc, v) if is_var(v, key) => 1,
            ExprKind::Unary(UnOp::PreDec | UnOp::PostDec, v) if is_var(v, key) => -1,
            ExprKind::Assign(Some(BinOp::Add), v, s) if is_var(v, key) => self.const_int(s)?,
            ExprKind::Assign(Some(BinOp::Sub), v, s) if is_var(v, key) => -self.const_int(s)?,
            _ => return None,
        };
        let written = self.written(&[body], &[]);
        let touched = |k: &DeclKey| written.touches(k);
        let mut bound_vars = BTreeSet::new();
        vars_read(bound, &mut bound_vars);
        // A bound that draws from the random number generator is another each time.
        if touched(&key) || bound_vars.iter().any(touched) || self.written(&[], &[bound]).rand {
            return None;
        }
        let cell = self.existing_cell(key)?;
        let i = cell.borrow().as_int()?;
        // kerncast's own look at the bound, not the program's: a draw of the random number
        // generator in it is not one the program makes.
        let generators = (self.rand.borrow().clone(), self.rand48.borrow().clone());
        let n = self.eval(bound);
        *self.rand.borrow_mut() = generators.0;
        *self.rand48.borrow_mut() = generators.1;
        let n = n.ok()?.as_int()?;
        let left = match (op, step > 0) {
            (BinOp::Lt, true) => (n - i + step - 1).max(0) / step,
            (BinOp::Le, true) => (n - i + step).max(0) / step,
            (BinOp::Ne, true) if (n - i) % step == 0 => (n - i).max(0) / step,
            (BinOp::Gt, false) => (i - n + (-step) - 1).max(0) / (-step),
            (BinOp::Ge, false) => (i - n + (-step)).max(0) / (-step),
            _ => return None,
        };
        *cell.borrow_mut() = Value::Int(i + left * step);
        u64::try_from(left).ok()
    }

    fn const_int(&mut self, e: &Expr) -> Option<i128> {
        let mut reads = BTreeSet::new();
        vars_read(e, &mut reads);
        // A call may give another value each time (`i += rand() % 4`).
        let mut calls = false;
        visit_expr(e, &mut |x| calls |= matches!(x.kind, ExprKind::Call(_)));
        if !reads.is_empty() || calls {
            return None;
        }
        self.eval(e).ok()?.as_int()
    }

    fn range_for(&mut self, s: &Stmt, var: &VarDecl, range: &Expr, body: &Stmt) -> Exec<Flow> {
        let (guards, fn_guards, left) = (self.guards.len(), self.fn_guards.len(), self.left.take());
        let written = self.written(&[body], &[range]);
        self.loop_exits.push(Some((written, None, None)));
        let r = self.follow_range_for(s, var, range, body);
        self.merge_loop_exits(s.span.line, "loop");
        self.end_loop(guards, fn_guards, left);
        r
    }

    fn follow_range_for(
        &mut self,
        s: &Stmt,
        var: &VarDecl,
        range: &Expr,
        body: &Stmt,
    ) -> Exec<Flow> {
        let r = self.eval(range)?;
        // An array, a container's storage, a record holding one (`std::array`), a map.
        let elems = match &r {
            Value::Handle(_) => map_elements(&r),
            _ => buffer_of(&r).and_then(|b| b.borrow().elements()),
        };
        let Some(elems) = elems else {
            let why = format!(
                "the range-for at line {} over a sequence kerncast does not know",
                s.span.line
            );
            let mark = self.recorder.log.len();
            let value = self.assumption(&var.name, &why);
            self.declare(var.key, value);
            return self.unknown_loop(body, None, None, mark, &why);
        };
        let storage = buffer_of(&r);
        let start_mark = self.recorder.log.len();
        for (n, e) in elems.into_iter().enumerate() {
            if n as u64 >= self.opts.budget.loop_iterations {
                // The iterations left are not run: what they would write is unknown, and
                // the launches in them are counted in part.
                let why = format!(
                    "the range-for at line {} was followed for {n} iterations (budget: --host-loop-iterations)",
                    s.span.line
                );
                self.recorder.partial_since(start_mark, &why);
                self.forget_written(&[body], &[], &why);
                break;
            }
            // `for (int& v : a)` names the elements themselves.
            match (&storage, var.by_ref, self.frames.last().cloned()) {
                (Some(b), true, Some(f)) => f.bind_ref(var.key, Place::Elem(b.clone(), n as i64)),
                _ => {
                    let v = convert(e.copy(), &var.ty);
                    self.declare(var.key, v);
                }
            }
            match self.exec(body)? {
                Flow::Break => break,
                flow @ (Flow::Return(_) | Flow::Goto(_)) => return Ok(flow),
                _ => {}
            }
        }
        Ok(Flow::Normal)
    }

    fn switch(&mut self, s: &Stmt, cond: &Expr, body: &Stmt) -> Exec<Flow> {
        let v = self.eval(cond)?;
        let items: Vec<&Stmt> = match &body.kind {
            StmtKind::Block(items) => items.iter().collect(),
            _ => vec![body],
        };
        let labels: Vec<usize> = (0..items.len())
            .filter(|i| matches!(items[*i].kind, StmtKind::Case { .. } | StmtKind::Default(_)))
            .collect();
        let start = match v.as_int() {
            Some(x) => {
                let mut found = None;
                for &i in &labels {
                    if self.case_matches(items[i], x)? {
                        found = Some(i);
                        break;
                    }
                }
                found.or_else(|| labels.iter().copied().find(|i| is_default(items[*i])))
            }
            None => {
                // Each case from the same state; what they leave different is unknown.
                let why = self.condition_note(&v, &s.span);
                let runs: Vec<Stmt> = labels
                    .iter()
                    .map(|&i| Stmt {
                        span: items[i].span.clone(),
                        kind: StmtKind::Block(items[i..].iter().map(|x| (*x).clone()).collect()),
                    })
                    .collect();
                let refs: Vec<&Stmt> = runs.iter().collect();
                self.switch_alternatives(&refs, &why)?;
                return Ok(Flow::Normal);
            }
        };
        let Some(start) = start else {
            return Ok(Flow::Normal);
        };
        for item in &items[start..] {
            match self.exec(item)? {
                Flow::Break => break,
                Flow::Normal => {}
                // `continue` in a switch continues the loop around it.
                flow @ (Flow::Continue | Flow::Return(_) | Flow::Goto(_)) => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    /// `try { … } catch (…) { … }`: an exception thrown in the body runs the handler that
    /// catches it: `catch (...)`, one of its type, or `std::exception` for the standard
    /// library's. Where kerncast cannot tell which handler catches it (or whether one does),
    /// each runs under that condition, and what follows too (an uncaught exception ends the
    /// program).
    fn try_stmt(
        &mut self,
        s: &Stmt,
        body: &Stmt,
        handlers: &[(Option<Arc<str>>, Stmt)],
    ) -> Exec<Flow> {
        let thrown = match self.exec(body) {
            Err(Halt::Throw(ty)) => ty,
            other => return other,
        };
        let catches = |h: &Option<Arc<str>>| match (h, &thrown) {
            (None, _) => true,
            (Some(h), Some(t)) => h == t || (&**h == "std::exception" && t.starts_with("std::")),
            (Some(_), None) => false,
        };
        if let Some((_, handler)) = handlers.iter().find(|(h, _)| catches(h)) {
            return self.exec(handler);
        }
        let why = format!(
            "which handler of the try at line {} catches the exception, if any",
            s.span.line
        );
        let branches: Vec<&Stmt> = handlers.iter().map(|(_, h)| h).collect();
        self.alternatives(&branches, &why, false)?;
        self.left_early(Some(Leave::Program), &Rc::from(why.as_str()));
        Ok(Flow::Normal)
    }

    /// Cases of an undecided `switch`: each runs to its `break` (a `Break` ends the case, not
    /// the enclosing loop).
    fn switch_alternatives(&mut self, runs: &[&Stmt], why: &str) -> Exec<()> {
        self.alternatives(runs, why, true)
    }

    fn case_matches(&mut self, s: &Stmt, x: i128) -> Exec<bool> {
        match &s.kind {
            StmtKind::Case { value, body } => {
                if self.eval(value)?.as_int() == Some(x) {
                    return Ok(true);
                }
                self.case_matches(body, x)
            }
            StmtKind::Default(body) => self.case_matches(body, x),
            _ => Ok(false),
        }
    }
}

/// Whether `s` is the statement labelled `label` (labels may be stacked: `a: b: s`).
fn has_label(s: &Stmt, label: &str) -> bool {
    match &s.kind {
        StmtKind::Label(l, body) => &**l == label || has_label(body, label),
        _ => false,
    }
}

fn is_default(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Default(_) => true,
        StmtKind::Case { body, .. } => is_default(body),
        _ => false,
    }
}

pub(super) fn strip(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Cast(inner) => strip(inner),
        _ => e,
    }
}

pub(super) fn is_var(e: &Expr, key: DeclKey) -> bool {
    matches!(strip(e).kind, ExprKind::Var(k, _) if k == key)
}

/// Whether `s` calls a copy or set of device memory (`cudaMemcpy`, `cudaMemset`, …).
fn copies_to_device(s: &Stmt) -> bool {
    let mut found = false;
    super::effects::visit_stmt(s, &mut |_| {}, &mut |e| {
        if let ExprKind::Call(c) = &e.kind {
            if let Callee::Direct { name, .. } = &c.callee {
                found |= name.starts_with("cudaMemcpy") || name.starts_with("cudaMemset");
            }
        }
    });
    found
}
