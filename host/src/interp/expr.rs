//! Expressions: computed as C computes them (each node's value converted to the type clang
//! gave it), with unknown operands giving unknown results that keep the first reason.

use super::access::{deref, Place};
use super::effects::visit_stmt;
use super::state::{Exec, Interp};
use super::value::{convert, Buffer, DevicePtr, Frame, Func, Ptr, Record, Value};
use crate::ast::*;
use crate::heap;
use std::rc::Rc;
use std::sync::Arc;

fn first_unknown<'v>(vs: &[&'v Value]) -> Option<&'v Value> {
    vs.iter().copied().find(|v| v.is_unknown())
}

impl Interp<'_> {
    pub(super) fn eval(&mut self, e: &Expr) -> Exec<Value> {
        self.step(&e.span)?;
        let v = match &e.kind {
            ExprKind::Int(v) => convert(Value::Int(*v), &e.ty),
            ExprKind::Float(v) => convert(Value::Float(*v), &e.ty),
            ExprKind::Str(s) => Value::Str(Rc::from(&**s)),
            ExprKind::Null => Value::Ptr(Ptr::Null),
            ExprKind::Const(ConstValue::Int(v)) => convert(Value::Int(*v), &e.ty),
            ExprKind::Const(ConstValue::Float(v)) => convert(Value::Float(*v), &e.ty),
            ExprKind::Var(key, name) => {
                let place = self.var_place(*key, name)?;
                let v = place.read();
                // A number written where kerncast cannot follow (`fscanf(f, "%d", &n)`, a copy
                // from the device) takes the variable's name when read, so the user can give
                // it (`--param n=…`) and the reports say which name a launch depends on.
                match (&v, &e.ty) {
                    (
                        Value::Unknown(u),
                        crate::ast::Ty::Int { .. } | crate::ast::Ty::Float { .. },
                    ) if u.name.is_none() => {
                        let named = self.named(v, name);
                        place.write(named.clone());
                        named
                    }
                    _ => v,
                }
            }
            ExprKind::Function { key, name, kernel } => Value::Func(Func::Decl {
                key: *key,
                name: name.clone(),
                kernel: kernel.clone(),
            }),
            ExprKind::Unary(op, x) => self.unary(*op, x, e)?,
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e)?,
            ExprKind::Assign(op, l, r) => self.assign(*op, l, r)?,
            ExprKind::Cond(c, a, b) => {
                let cv = self.eval(c)?;
                match cv.truth() {
                    Some(true) => self.eval(a)?,
                    Some(false) => self.eval(b)?,
                    None => {
                        self.uncertain += 1;
                        let (x, y) = (self.eval(a), self.eval(b));
                        self.uncertain -= 1;
                        let (x, y) = (x?, y?);
                        if x.same(&y) {
                            x
                        } else {
                            let differ = Value::unknown(&format!(
                                "it depends on {}",
                                self.condition_note(&cv, &e.span)
                            ));
                            Value::device_join(&[&x, &y], &differ).unwrap_or(differ)
                        }
                    }
                }
            }
            ExprKind::Cast(x) => {
                let v = self.eval(x)?;
                convert(v, &e.ty)
            }
            ExprKind::Call(c) => self.call(c, e)?,
            ExprKind::Launch {
                kernel,
                config,
                args,
                params,
            } => {
                self.launch_expr(kernel, config, args, params, &e.span)?;
                Value::Int(0)
            }
            ExprKind::LaunchVia {
                callee,
                config,
                args,
            } => {
                self.launch_via(callee, config, args, &e.span)?;
                Value::Int(0)
            }
            ExprKind::Member { .. } | ExprKind::ThisMember(_) | ExprKind::Index(..) => {
                self.place(e)?.read()
            }
            ExprKind::This => self
                .frame()
                .this
                .clone()
                .unwrap_or_else(|| Value::unknown("`this` outside a method")),
            ExprKind::InitList { fields, elems } => {
                self.init_list(fields.as_deref(), elems, &e.ty)?
            }
            ExprKind::Lambda(f) => self.closure(f)?,
            ExprKind::New { array_len, init } => {
                let elem = match &e.ty {
                    Ty::Pointer(t) => (**t).clone(),
                    _ => Ty::Other(Arc::from("?")),
                };
                match array_len {
                    Some(n) => {
                        // As a declared array of that length: records one object each.
                        let n = self.eval(n)?.as_int().and_then(|n| u64::try_from(n).ok());
                        match self.default_value(&Ty::Array(Box::new(elem), n), false) {
                            Value::Array(b) => Value::Ptr(Ptr::Elem(b, 0)),
                            other => other,
                        }
                    }
                    None => {
                        let v = match init {
                            Some(i) => convert(self.eval(i)?.copy(), &elem),
                            None => self.default_value(&elem, false),
                        };
                        Value::Ptr(Ptr::Cell(heap::shared(v)))
                    }
                }
            }
            ExprKind::DefaultArg => Value::unknown("a default argument kerncast could not read"),
            ExprKind::Unsupported(what) => {
                // What it contains is not run: a draw of the random number generator in it
                // would be missed.
                self.forget_rand();
                Value::unknown(&format!(
                    "kerncast does not read {what} (line {})",
                    e.span.line
                ))
            }
        };
        Ok(v)
    }

    /// A variable's place: its cell, or what a reference bound to a field or an element
    /// points at.
    fn var_place(&mut self, key: DeclKey, name: &str) -> Exec<Place> {
        let cell = self.cell(key, name)?;
        if self.frames.last().is_some_and(|f| f.is_ref(key)) {
            let p = cell.borrow().clone();
            return Ok(deref(&p));
        }
        Ok(Place::Cell(cell))
    }

    /// The place an expression names.
    pub(super) fn place(&mut self, e: &Expr) -> Exec<Place> {
        Ok(match &e.kind {
            ExprKind::Var(key, name) => self.var_place(*key, name)?,
            ExprKind::Unary(UnOp::Deref, p) => {
                let pv = self.eval(p)?;
                deref(&pv)
            }
            ExprKind::Cast(x)
                if !matches!(x.ty, Ty::Array(..)) || matches!(e.ty, Ty::Array(..)) =>
            {
                self.place(x)?
            }
            ExprKind::Index(base, idx) => {
                let b = self.eval(base)?;
                let i = self.eval(idx)?;
                index_place(b, i)
            }
            ExprKind::Member { base, field, arrow } => {
                let holder = if *arrow {
                    let p = self.eval(base)?;
                    deref(&p)
                } else {
                    self.place(base)?
                };
                self.field_place(holder, field)
            }
            ExprKind::ThisMember(field) => {
                let this = self.frame().this.clone().unwrap_or(Value::Void);
                let holder = deref(&this);
                self.field_place(holder, field)
            }
            ExprKind::Call(c) => {
                if let Some(p) = self.call_place(c, e)? {
                    p
                } else {
                    Place::Temp(self.call(c, e)?)
                }
            }
            ExprKind::Cond(c, a, b) => {
                let cv = self.eval(c)?;
                match cv.truth() {
                    Some(true) => self.place(a)?,
                    Some(false) => self.place(b)?,
                    None => Place::Temp(self.eval(e)?),
                }
            }
            _ => Place::Temp(self.eval(e)?),
        })
    }

    fn field_place(&mut self, holder: Place, field: &Arc<str>) -> Place {
        // A field of a member never set (`o.inner.n = 9` on a fresh `o`): the member is a
        // record of its own, made now.
        if let Place::Field(outer, member) = &holder {
            if !outer.borrow().fields.contains_key(member) {
                let r = heap::shared(Record::default());
                outer
                    .borrow_mut()
                    .fields
                    .insert(member.clone(), Value::Record(r.clone()));
                return Place::Field(r, field.clone());
            }
        }
        let v = holder.read();
        match v {
            Value::Record(r) => Place::Field(r, field.clone()),
            Value::Unknown(u) => match holder {
                Place::Temp(_) => Place::Temp(Value::Unknown(u)),
                _ => Place::MemberOfUnknown(Box::new(holder), field.clone(), Value::Unknown(u)),
            },
            _ => {
                // A record that did not exist yet (an unknown struct being filled in).
                let r = heap::shared(Record::default());
                holder.write(Value::Record(r.clone()));
                match holder {
                    Place::Temp(_) => Place::Temp(Value::unknown(&format!(
                        "the field `{field}` of a value kerncast does not model"
                    ))),
                    _ => Place::Field(r, field.clone()),
                }
            }
        }
    }

    fn unary(&mut self, op: UnOp, x: &Expr, e: &Expr) -> Exec<Value> {
        Ok(match op {
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let place = self.place(x)?;
                let old = place.read();
                let delta = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                    1
                } else {
                    -1
                };
                let new = match &old {
                    Value::Ptr(Ptr::Elem(b, i)) => Value::Ptr(Ptr::Elem(b.clone(), i + delta)),
                    Value::Ptr(Ptr::Device(b)) => device_offset(b, delta as i128, &x.ty),
                    Value::Int(i) => convert(Value::Int(i + delta as i128), &x.ty),
                    Value::Float(f) => convert(Value::Float(f + delta as f64), &x.ty),
                    other => other.clone(),
                };
                place.write(new.clone());
                if matches!(op, UnOp::PreInc | UnOp::PreDec) {
                    new
                } else {
                    old
                }
            }
            UnOp::AddrOf => match &x.kind {
                ExprKind::Function { .. } => self.eval(x)?,
                // `&d_x[i]` into device memory is `d_x + i`
                ExprKind::Index(base, idx) => {
                    let (b, i) = (self.eval(base)?, self.eval(idx)?);
                    match (&b, &i) {
                        (Value::Ptr(Ptr::Device(_)), Value::Int(_)) => {
                            arith(BinOp::Add, &b, &i, &e.ty)
                        }
                        _ => index_place(b, i).pointer(),
                    }
                }
                _ => self.place(x)?.pointer(),
            },
            UnOp::Deref => {
                let p = self.eval(x)?;
                match p {
                    Value::Func(_) => p,
                    _ => deref(&p).read(),
                }
            }
            UnOp::Plus => convert(self.eval(x)?, &e.ty),
            UnOp::Minus => match self.eval(x)? {
                Value::Int(i) => convert(Value::Int(-i), &e.ty),
                Value::Float(f) => convert(Value::Float(-f), &e.ty),
                other => other,
            },
            UnOp::Not => match self.eval(x)? {
                Value::Int(i) => convert(Value::Int(!i), &e.ty),
                other => other,
            },
            UnOp::LNot => {
                let v = self.eval(x)?;
                match v.truth() {
                    Some(b) => Value::Int((!b) as i128),
                    None => v,
                }
            }
        })
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, e: &Expr) -> Exec<Value> {
        match op {
            BinOp::LAnd | BinOp::LOr => {
                let l = self.eval(a)?;
                let decided = if op == BinOp::LAnd {
                    Some(false)
                } else {
                    Some(true)
                };
                if l.truth() == decided {
                    return Ok(Value::Int((decided == Some(true)) as i128));
                }
                // With the left side unknown, C may not evaluate the right one at all: a draw
                // of the random number generator there may not happen.
                if l.truth().is_none() && self.written(&[], &[b]).rand {
                    self.forget_rand();
                }
                let r = self.eval(b)?;
                Ok(match (l.truth(), r.truth()) {
                    (Some(_), Some(y)) => Value::Int(y as i128),
                    (None, Some(y)) if Some(y) == decided => Value::Int(y as i128),
                    _ => first_unknown(&[&l, &r])
                        .cloned()
                        .unwrap_or_else(|| Value::unknown("a condition")),
                })
            }
            BinOp::Comma => {
                self.eval(a)?;
                self.eval(b)
            }
            _ => {
                self.unsequenced_draws(&[a, b]);
                let l = self.eval(a)?;
                let r = self.eval(b)?;
                Ok(arith(op, &l, &r, &e.ty))
            }
        }
    }

    fn assign(&mut self, op: Option<BinOp>, l: &Expr, r: &Expr) -> Exec<Value> {
        let rv = self.eval(r)?;
        let place = self.place(l)?;
        let v = match op {
            None => convert(rv.copy(), &l.ty),
            Some(op) => {
                let cur = place.read();
                convert(arith(op, &cur, &rv, &l.ty), &l.ty)
            }
        };
        let v = match &l.kind {
            ExprKind::Var(_, name) => self.named(v, name),
            ExprKind::Cast(x) => match &x.kind {
                ExprKind::Var(_, name) => self.named(v, name),
                _ => v,
            },
            _ => v,
        };
        place.write(v.clone());
        Ok(v)
    }

    /// A lambda made here: what it captures by copy is copied now (later changes in the
    /// enclosing function are not its), what it captures by reference stays shared.
    fn closure(&mut self, f: &Arc<Function>) -> Exec<Value> {
        let parent = self.frame();
        let caps = &f.captures;
        if !caps.default_copy && caps.list.iter().all(|c| c.by_ref && c.init.is_none()) {
            return Ok(Value::Func(Func::Closure(f.clone(), parent)));
        }
        let own = Frame {
            parent: Some(parent.clone()),
            this: parent.this.clone(),
            ..Frame::default()
        };
        for c in &caps.list {
            let cell = match (&c.init, c.by_ref) {
                (Some(init), true) => match self.place(init)? {
                    Place::Cell(cell) => cell,
                    p => heap::shared(p.read()),
                },
                (Some(init), false) => {
                    let v = self.eval(init)?.copy();
                    heap::shared(convert(v, &init.ty))
                }
                (None, true) => continue,
                (None, false) => match parent.lookup(c.key) {
                    Some(cell) => heap::shared(cell.borrow().copy()),
                    // Not a local (a global is not captured): the lambda reads it as it is.
                    None => continue,
                },
            };
            own.vars.borrow_mut().insert(c.key, cell);
        }
        if caps.default_copy {
            // What the body reads, lambdas made in it included (a variable a nested lambda
            // names is captured by this one too).
            let mut read = std::collections::BTreeSet::new();
            let mut bodies: Vec<Arc<Function>> = vec![f.clone()];
            while let Some(b) = bodies.pop() {
                visit_stmt(&b.body, &mut |_| {}, &mut |e| match &e.kind {
                    ExprKind::Var(k, _) => {
                        read.insert(*k);
                    }
                    ExprKind::Lambda(inner) if bodies.len() < 64 => bodies.push(inner.clone()),
                    _ => {}
                });
            }
            for k in read {
                if caps.list.iter().any(|c| c.key == k) {
                    continue;
                }
                if let Some(cell) = parent.lookup(k) {
                    own.vars
                        .borrow_mut()
                        .insert(k, heap::shared(cell.borrow().copy()));
                }
            }
        }
        Ok(Value::Func(Func::Closure(f.clone(), heap::frame(own))))
    }

    fn init_list(&mut self, fields: Option<&[Arc<str>]>, elems: &[Expr], ty: &Ty) -> Exec<Value> {
        let mut vals = Vec::with_capacity(elems.len());
        for x in elems {
            vals.push(self.eval(x)?.copy());
        }
        if let Some(fields) = fields {
            // The fields the list leaves out keep their default member initialisers.
            let rec = self.new_record(ty)?;
            for (f, v) in fields.iter().zip(vals) {
                rec.borrow_mut().fields.insert(f.clone(), v);
            }
            return Ok(Value::Record(rec));
        }
        if let Ty::Record { .. } = ty {
            // A braced list for a record kerncast has no fields for: one value is that value.
            if vals.len() == 1 {
                return Ok(vals.remove(0));
            }
        }
        Ok(Value::Array(heap::shared(Buffer::from_values(vals))))
    }
}

/// `l op r` as C computes it in the result type `ty`.
pub(super) fn arith(op: BinOp, l: &Value, r: &Value, ty: &Ty) -> Value {
    if let Some(u) = first_unknown(&[l, r]) {
        return u.clone();
    }
    // Pointer arithmetic and comparison.
    match (l, r) {
        (Value::Ptr(Ptr::Elem(b, i)), Value::Int(k)) => match op {
            BinOp::Add => return Value::Ptr(Ptr::Elem(b.clone(), i + *k as i64)),
            BinOp::Sub => return Value::Ptr(Ptr::Elem(b.clone(), i - *k as i64)),
            _ => {}
        },
        // a string's characters from the `k`-th on (`argv[i] + 1` past an option's dash),
        // read as the string they spell: a C string is read to its end
        (Value::Str(t), Value::Int(k)) if op == BinOp::Add => {
            if let Some(rest) = usize::try_from(*k).ok().and_then(|k| t.get(k..)) {
                return Value::Str(Rc::from(rest));
            }
        }
        // a variable is an array of one element: `&n + 1` is its end, and back
        (Value::Ptr(Ptr::Cell(c)), Value::Int(k))
        | (Value::Ptr(Ptr::PastCell(c)), Value::Int(k))
            if matches!(op, BinOp::Add | BinOp::Sub) =>
        {
            let at = i128::from(matches!(l, Value::Ptr(Ptr::PastCell(_))))
                + if op == BinOp::Add { *k } else { -*k };
            match at {
                0 => return Value::Ptr(Ptr::Cell(c.clone())),
                1 => return Value::Ptr(Ptr::PastCell(c.clone())),
                _ => {}
            }
        }
        // An offset into device memory (`d_x + offset`) is still device memory.
        (Value::Ptr(Ptr::Opaque(what)), Value::Int(_))
        | (Value::Int(_), Value::Ptr(Ptr::Opaque(what)))
            if matches!(op, BinOp::Add | BinOp::Sub) =>
        {
            return Value::Ptr(Ptr::Opaque(what));
        }
        // ... with the bytes left from the offset to the allocation's end.
        (Value::Ptr(Ptr::Device(p)), Value::Int(k))
        | (Value::Int(k), Value::Ptr(Ptr::Device(p)))
            if op == BinOp::Add || (op == BinOp::Sub && matches!(l, Value::Ptr(_))) =>
        {
            return device_offset(p, if op == BinOp::Add { *k } else { -*k }, ty);
        }
        (Value::Ptr(Ptr::Elem(b1, i)), Value::Ptr(Ptr::Elem(b2, j))) if Rc::ptr_eq(b1, b2) => {
            return match op {
                BinOp::Sub => Value::Int((i - j) as i128),
                BinOp::Eq => Value::Int((i == j) as i128),
                BinOp::Ne => Value::Int((i != j) as i128),
                BinOp::Lt => Value::Int((i < j) as i128),
                BinOp::Le => Value::Int((i <= j) as i128),
                BinOp::Gt => Value::Int((i > j) as i128),
                BinOp::Ge => Value::Int((i >= j) as i128),
                _ => Value::unknown("pointer arithmetic"),
            };
        }
        _ => {}
    }
    if matches!(op, BinOp::Eq | BinOp::Ne) {
        let null = |v: &Value| matches!(v, Value::Ptr(Ptr::Null)) || matches!(v, Value::Int(0));
        let is_ptr = |v: &Value| {
            matches!(
                v,
                Value::Ptr(_) | Value::Str(_) | Value::Handle(_) | Value::Func(_)
            )
        };
        if (is_ptr(l) || is_ptr(r)) && (null(l) || null(r)) {
            let eq = null(l) && null(r);
            return Value::Int(((op == BinOp::Eq) == eq) as i128);
        }
    }
    match (l, r) {
        (Value::Int(a), Value::Int(b)) => int_op(op, *a, *b, ty),
        _ => match (l.as_f64(), r.as_f64()) {
            (Some(a), Some(b)) => float_op(op, a, b, ty),
            _ => Value::unknown("arithmetic on values kerncast does not compute"),
        },
    }
}

/// The place `b[i]` is.
fn index_place(b: Value, i: Value) -> Place {
    match (b, i.as_int()) {
        (Value::Ptr(Ptr::Elem(buf, j)), Some(i)) => Place::Elem(buf, j + i as i64),
        (Value::Array(buf), Some(i)) => Place::Elem(buf, i as i64),
        (Value::Str(s), Some(i)) => Place::Temp(Value::Int(
            s.as_bytes().get(i as usize).copied().unwrap_or(0) as i128,
        )),
        (Value::Unknown(u), _) => Place::Temp(Value::Unknown(u)),
        (_, None) => Place::Temp(match i {
            Value::Unknown(u) => Value::Unknown(u),
            _ => Value::unknown("an index kerncast cannot compute"),
        }),
        (b, _) => deref(&b),
    }
}

/// A device pointer `elems` elements of the pointer type `ty` past one with `bytes` to its
/// allocation's end.
pub(super) fn device_offset(p: &DevicePtr, elems: i128, ty: &Ty) -> Value {
    let Value::Int(left) = &*p.left else {
        // no size to take from: the allocation's unknown size stays the reason
        return Value::device((*p.left).clone());
    };
    let elem = match ty {
        // `void*` arithmetic (a GNU extension) steps bytes, as does a driver API's
        // `CUdeviceptr`, an integer
        Ty::Pointer(t) if **t == Ty::Void => Some(1),
        Ty::Int { .. } => Some(1),
        Ty::Pointer(t) => super::builtins::ty_bytes(t),
        _ => None,
    };
    match elem.and_then(|s| s.checked_mul(elems)) {
        Some(off) => {
            let mut moved = Value::device(Value::Int(left.saturating_sub(off)));
            if let (Value::Ptr(Ptr::Device(d)), Some((data, at))) = (&mut moved, &p.data) {
                d.data = i64::try_from(off)
                    .ok()
                    .and_then(|off| at.checked_add(off))
                    .map(|at| (data.clone(), at));
            }
            moved
        }
        None => Value::device(Value::unknown(
            "an offset into device memory by elements kerncast does not size",
        )),
    }
}

fn int_op(op: BinOp, a: i128, b: i128, ty: &Ty) -> Value {
    let v = match op {
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div if b == 0 => return Value::unknown("a division by zero"),
        BinOp::Div => a.checked_div(b),
        BinOp::Rem if b == 0 => return Value::unknown("a remainder by zero"),
        BinOp::Rem => a.checked_rem(b),
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Shl => u32::try_from(b)
            .ok()
            .filter(|s| *s < 127)
            .and_then(|s| a.checked_shl(s)),
        BinOp::Shr => u32::try_from(b).ok().filter(|s| *s < 127).map(|s| a >> s),
        BinOp::Lt => Some((a < b) as i128),
        BinOp::Gt => Some((a > b) as i128),
        BinOp::Le => Some((a <= b) as i128),
        BinOp::Ge => Some((a >= b) as i128),
        BinOp::Eq => Some((a == b) as i128),
        BinOp::Ne => Some((a != b) as i128),
        BinOp::And => Some(a & b),
        BinOp::Xor => Some(a ^ b),
        BinOp::Or => Some(a | b),
        BinOp::LAnd => Some((a != 0 && b != 0) as i128),
        BinOp::LOr => Some((a != 0 || b != 0) as i128),
        BinOp::Comma => Some(b),
    };
    match v {
        Some(v) => convert(Value::Int(v), ty),
        None => Value::unknown("an integer overflow"),
    }
}

fn float_op(op: BinOp, a: f64, b: f64, ty: &Ty) -> Value {
    let v = match op {
        BinOp::Mul => a * b,
        BinOp::Div => a / b,
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Rem => a % b,
        BinOp::Lt => return Value::Int((a < b) as i128),
        BinOp::Gt => return Value::Int((a > b) as i128),
        BinOp::Le => return Value::Int((a <= b) as i128),
        BinOp::Ge => return Value::Int((a >= b) as i128),
        BinOp::Eq => return Value::Int((a == b) as i128),
        BinOp::Ne => return Value::Int((a != b) as i128),
        _ => return Value::unknown("a bitwise operation on a float"),
    };
    convert(Value::Float(v), ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_truncates_and_unsigned_wraps() {
        let int = Ty::Int {
            bits: 32,
            signed: true,
        };
        let uint = Ty::Int {
            bits: 32,
            signed: false,
        };
        assert!(arith(BinOp::Div, &Value::Int(-7), &Value::Int(2), &int).same(&Value::Int(-3)));
        assert!(
            arith(BinOp::Sub, &Value::Int(0), &Value::Int(1), &uint).same(&Value::Int(4294967295))
        );
        let float = Ty::Float { bits: 32 };
        let third = arith(BinOp::Div, &Value::Float(1.0), &Value::Float(3.0), &float);
        assert!(third.same(&Value::Float((1.0f32 / 3.0f32) as f64)));
    }
}
