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

use super::access::Place;
use super::state::{Exec, Flow, Interp};
use super::stmt::{is_var, strip};
use crate::ast::*;

/// The parts of a recognised fill loop.
pub(super) struct FillLoop<'a> {
    counter: &'a Expr,
    end: &'a Expr,
    inclusive: bool,
    body: &'a Stmt,
    target: &'a Expr,
}

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

/// The loop's parts where it is a fill loop.
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
    let steps_by_one = match &inc?.kind {
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
    let ExprKind::Index(base, idx) = &target.kind else {
        return None;
    };
    if !is_var(idx, k) || !pure_without(base, k) || !pure_without(value, k) {
        return None;
    }
    Some(FillLoop {
        counter,
        end,
        inclusive: *op == BinOp::Le,
        body,
        target,
    })
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
        self.place(f.counter)?.write(super::value::Value::Int(end));
        Ok(true)
    }
}
