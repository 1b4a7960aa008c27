//! A loop that sets a run of an array's elements to one value, the way programs fill their
//! inputs: `for (size_t i = 0; i < n; i++) a[i] = 1;`.
//!
//! Why: followed iteration by iteration, a fill of a few million elements spends the allowance
//! of a loop that launches nothing, is cut short, and leaves the array unknown. A kernel that
//! branches on the array is then emulated on zeros: contract's adjacency matrix of ones came
//! out as zeros, its inner loops were skipped, and its time was predicted at 1/100 of the
//! measured. Recognised here, the loop runs its first iteration as written (so the store
//! converts the value as C does), and the value stored is copied to the rest of the run at
//! once, exactly as the remaining iterations would.
//!
//! Only this shape is taken: a counter compared with `<` or `<=` against an end that does not
//! change in the loop, stepped by one, and a body that is a single store to `base[counter]`
//! where neither the base nor the value reads the counter or has an effect. Anything else is
//! followed as before.
//!
//! A large loop of that shape whose value changes from one iteration to the next (the
//! counter, `rand() % n`) runs its first [`crate::drawn::SAMPLES`] iterations as written and
//! describes the rest from them ([`Interp::draw_fill`], [`crate::drawn`]).

use super::access::Place;
use super::state::{Exec, Flow, Interp, Written};
use super::stmt::{is_var, strip};
use super::value::{RunOf, Value};
use crate::ast::*;
use crate::drawn::{Draw, SAMPLES};
use std::rc::Rc;

/// Whether `e` computes a value without an effect and without reading the counter `k`.
/// Stricter than [`super::effects`]' view of effects: a call of `rand()` changes nothing
/// kerncast models, but gives another value at each iteration, and an element read may be of
/// an element the loop writes.
fn pure_without(e: &Expr, k: DeclKey) -> bool {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Const(_)
        | ExprKind::Null
        | ExprKind::ThisMember(_) => true,
        ExprKind::Var(key, _) => *key != k,
        ExprKind::Cast(x) => pure_without(x, k),
        ExprKind::Unary(UnOp::Plus | UnOp::Minus | UnOp::Not | UnOp::LNot, x) => pure_without(x, k),
        ExprKind::Binary(op, a, b) => {
            *op != BinOp::Comma && pure_without(a, k) && pure_without(b, k)
        }
        ExprKind::Cond(a, b, c) => pure_without(a, k) && pure_without(b, k) && pure_without(c, k),
        ExprKind::Member { base, .. } => pure_without(base, k),
        _ => false,
    }
}

/// A loop `for (k = …; k < end; k++) base[k] = value;`, taken apart.
pub(super) struct FillLoop<'a> {
    counter: &'a Expr,
    k: DeclKey,
    end: &'a Expr,
    inclusive: bool,
    inc: &'a Expr,
    body: &'a Stmt,
    target: &'a Expr,
    base: &'a Expr,
    value: &'a Expr,
}

/// The loop's parts where it has that shape: a counter compared with `<` or `<=` against an
/// end that does not change in the loop, stepped by one, and a body that is a single store
/// to `base[counter]` (an array's or a library sequence's element) through a base that does
/// not read the counter.
pub(super) fn recognise<'a>(
    cond: Option<&'a Expr>,
    inc: Option<&'a Expr>,
    body: &'a Stmt,
) -> Option<FillLoop<'a>> {
    let ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le), lhs, end) = &cond?.kind else {
        return None;
    };
    let counter = strip(lhs);
    let ExprKind::Var(k, _) = &counter.kind else {
        return None;
    };
    let k = *k;
    let inc = inc?;
    let steps_by_one = match &inc.kind {
        ExprKind::Unary(UnOp::PreInc | UnOp::PostInc, x) => is_var(x, k),
        ExprKind::Assign(Some(BinOp::Add), x, one) => {
            is_var(x, k) && matches!(strip(one).kind, ExprKind::Int(1))
        }
        _ => false,
    };
    if !steps_by_one || !pure_without(end, k) {
        return None;
    }
    let store = match &body.kind {
        StmtKind::Expr(e) => e,
        StmtKind::Block(items) if items.len() == 1 => match &items[0].kind {
            StmtKind::Expr(e) => e,
            _ => return None,
        },
        _ => return None,
    };
    let ExprKind::Assign(None, target, value) = &store.kind else {
        return None;
    };
    let (base, idx) = match &target.kind {
        ExprKind::Index(base, idx) => (&**base, &**idx),
        // `v[i]` of a `std::vector` (or `array`, `deque`)
        _ if super::effects::is_element_access(target) => {
            let (object, _, args) = super::effects::library_method(target)?;
            (object, args.first()?)
        }
        _ => return None,
    };
    if !is_var(idx, k) || !pure_without(base, k) {
        return None;
    }
    Some(FillLoop {
        counter,
        k,
        end,
        inclusive: *op == BinOp::Le,
        inc,
        body,
        target,
        base,
        value,
    })
}

impl FillLoop<'_> {
    /// Whether it stores one value: one that neither reads the counter nor has an effect.
    pub(super) fn stores_one_value(&self) -> bool {
        pure_without(self.value, self.k)
    }

    /// Whether it stores a value computed anew at each iteration (from the counter, or drawn
    /// from a random number generator, [`crate::drawn`]) that neither reads what the loop
    /// writes (`a[i] = a[i - 1] + rand()` is a sum, not a draw) nor assigns anything itself;
    /// what its calls write (a generator's state) is taken care of when the loop runs.
    pub(super) fn draws_anew(&self) -> bool {
        let mut base_vars = std::collections::BTreeSet::new();
        super::effects::vars_read(self.base, &mut base_vars);
        let mut value_vars = std::collections::BTreeSet::new();
        super::effects::vars_read(self.value, &mut value_vars);
        if !base_vars.is_disjoint(&value_vars) {
            return false;
        }
        let mut assigns = false;
        super::effects::visit_expr(self.value, &mut |x| {
            assigns |= matches!(
                x.kind,
                ExprKind::Assign(..)
                    | ExprKind::Unary(
                        UnOp::PreInc | UnOp::PostInc | UnOp::PreDec | UnOp::PostDec,
                        _
                    )
                    | ExprKind::Launch { .. }
                    | ExprKind::LaunchVia { .. }
                    | ExprKind::Lambda(_)
                    | ExprKind::New { .. }
                    | ExprKind::Unsupported(_)
            );
        });
        !assigns
    }
}

impl Interp<'_> {
    /// Runs a fill loop at once; `false` where it cannot (an end or a start it does not know,
    /// a run past what the array holds), and the loop is then followed as usual. The first
    /// iteration may have run by then: it stores the same value again, which changes nothing.
    pub(super) fn fill(&mut self, f: &FillLoop, s: &Stmt) -> Exec<bool> {
        self.step(&s.span)?;
        let start = self.eval(f.counter)?.as_int();
        let end = self.eval(f.end)?.as_int();
        let (Some(start), Some(end)) = (start, end) else {
            return Ok(false);
        };
        let end = end + i128::from(f.inclusive);
        // a run of one or none gains nothing
        if end - start < 2 {
            return Ok(false);
        }
        if !matches!(self.exec(f.body)?, Flow::Normal) {
            return Ok(false);
        }
        let Place::Elem(buffer, first) = self.place(f.target)? else {
            return Ok(false);
        };
        let Ok(n) = i64::try_from(end - start) else {
            return Ok(false);
        };
        let value = buffer.borrow().get(first);
        if !buffer.borrow_mut().fill_run(first, n, &value) {
            return Ok(false);
        }
        self.place(f.counter)?.write(Value::Int(end));
        Ok(true)
    }
}

/// Whether code that writes `w` changes some state from one run to the next: a random number
/// generator's, or what a call writes through its arguments (an engine, an LCG's seed).
fn changes_state(w: &Written) -> bool {
    w.rand
        || !w.vars.is_empty()
        || !w.contents.is_empty()
        || !w.fields.is_empty()
        || !w.field_contents.is_empty()
        || !w.this_fields.is_empty()
        || !w.this_field_contents.is_empty()
        || w.this_all
}

/// The most numbers the C library's generators are stepped through for the iterations of a
/// draw loop not run (each step a few instructions); past it the generator is unknown after.
const SKIPPED_DRAWS_MAX: u64 = 1 << 27;

impl Interp<'_> {
    /// Runs a large loop that stores a value computed anew each iteration: its first
    /// [`SAMPLES`] iterations as written, the rest described from what they stored; `false`
    /// where it does not (a loop small enough to follow, values neither a ramp nor drawn at
    /// random, a buffer that cannot hold the run), and the loop is then followed as usual from
    /// where it is.
    pub(super) fn draw_fill(&mut self, f: &FillLoop, s: &Stmt) -> Exec<bool> {
        self.step(&s.span)?;
        let (Some(start), Some(end)) = (self.eval(f.counter)?.as_int(), self.eval(f.end)?.as_int())
        else {
            return Ok(false);
        };
        let end = end + i128::from(f.inclusive);
        let Ok(n) = i64::try_from(end - start) else {
            return Ok(false);
        };
        // a loop a few times the samples' length is followed as written, exactly
        if n <= 4 * SAMPLES as i64 {
            return Ok(false);
        }
        let w = self.written(&[], &[f.value]);
        if w.vars.contains(&f.k) {
            return Ok(false);
        }
        let Place::Elem(buffer, first) = self.place(f.target)? else {
            return Ok(false);
        };
        // a buffer kept element by element holds each value the loop stores
        if buffer.borrow().is_dense() {
            return Ok(false);
        }
        let draws_before = self.draws();
        for _ in 0..SAMPLES {
            if !matches!(self.exec(f.body)?, Flow::Normal) {
                return Ok(false);
            }
            self.eval(f.inc)?;
        }
        let stored: Vec<Value> = (0..SAMPLES as i64)
            .map(|j| buffer.borrow().get(first + j))
            .collect();
        let ints = stored.iter().all(|v| matches!(v, Value::Int(_)));
        let numbers: Vec<Option<f64>> = stored
            .iter()
            .map(|v| match v {
                Value::Int(i) => Some(*i as f64),
                Value::Float(x) => Some(*x),
                _ => None,
            })
            .collect();
        let Some(draw) = Draw::of_samples(&numbers, ints, changes_state(&w)) else {
            return Ok(false);
        };
        let file = s.span.file.rsplit('/').next().unwrap_or_default();
        let at: Rc<str> = format!("{file}:{}", s.span.line).into();
        let run = RunOf::Drawn {
            draw: Rc::new(draw),
            at: at.clone(),
        };
        if !buffer.borrow_mut().draw_run(first, n, SAMPLES as i64, run) {
            return Ok(false);
        }
        // the iterations not run move the generators on as they would have, where each drew
        // the same count of numbers; what else they write is unknown
        let left = (n - SAMPLES as i64) as u64;
        self.skip_draws(draws_before, left);
        let mut others = w;
        others.rand = false;
        if changes_state(&others) {
            let why = format!("it is written by the fill loop at {at}, whose last {left} iterations were described, not run");
            self.forget(&others, &why);
        }
        self.place(f.counter)?.write(Value::Int(end));
        Ok(true)
    }

    /// How many numbers the C library's generators (`rand`, `drand48`) have given, where
    /// followed.
    fn draws(&self) -> [Option<u64>; 2] {
        [
            self.rand.borrow().as_ref().map(|r| r.draws),
            self.rand48.borrow().as_ref().map(|r| r.draws),
        ]
    }

    /// Moves each generator on by what `left` more iterations would draw, where the
    /// [`SAMPLES`] run since `before` drew the same count each; else it becomes unknown.
    fn skip_draws(&mut self, before: [Option<u64>; 2], left: u64) {
        let after = self.draws();
        let skip = |b: Option<u64>, a: Option<u64>| -> Option<u64> {
            let drawn = a? - b?;
            let skipped = left.checked_mul(drawn / SAMPLES as u64)?;
            (drawn % SAMPLES as u64 == 0 && skipped <= SKIPPED_DRAWS_MAX).then_some(skipped)
        };
        let (random, random48) = (skip(before[0], after[0]), skip(before[1], after[1]));
        let followed = |b: Option<u64>, s: Option<u64>| b.is_none() || s.is_some();
        if !followed(before[0], random) || !followed(before[1], random48) {
            self.forget_rand();
            return;
        }
        if let (Some(r), Some(n)) = (self.rand.borrow_mut().as_mut(), random) {
            r.skip(n);
        }
        if let (Some(r), Some(n)) = (self.rand48.borrow_mut().as_mut(), random48) {
            r.skip(n);
        }
    }
}
