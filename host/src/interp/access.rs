//! Reading and writing through values: the place a pointer or a reference names, the
//! arguments a callee receives, and what C's library reads out of a value (a string, a
//! container's storage, a number from text). Every part of the interpreter uses these; they
//! use only the values.

use super::value::{Buffer, Frame, Ptr, Record, Value};
use crate::ast::DeclKey;
use crate::heap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// Where a value lives, for assignment and `&`.
pub(super) enum Place {
    Cell(Rc<RefCell<Value>>),
    Elem(Rc<RefCell<Buffer>>, i64),
    Field(Rc<RefCell<Record>>, Arc<str>),
    /// A temporary or memory kerncast does not model: reads give the value, writes are lost.
    Temp(Value),
    /// A member of a record whose value kerncast does not know (the elements of a `malloc`ed
    /// array of structs, a struct read from a file), in a place the program can write: reads
    /// give that unknown value; a write makes the holder a record of the member written, its
    /// other members still unknown.
    MemberOfUnknown(Box<Place>, Arc<str>, Value),
}

impl Place {
    pub(super) fn read(&self) -> Value {
        match self {
            Place::Cell(c) => c.borrow().clone(),
            Place::Elem(b, i) => b.borrow().get(*i),
            Place::Field(r, f) => r
                .borrow()
                .fields
                .get(f)
                .cloned()
                .unwrap_or_else(|| Value::unknown(&format!("the field `{f}` is never set"))),
            Place::Temp(v) | Place::MemberOfUnknown(_, _, v) => v.clone(),
        }
    }

    pub(super) fn write(&self, v: Value) {
        match self {
            Place::Cell(c) => *c.borrow_mut() = v,
            Place::Elem(b, i) => b.borrow_mut().set(*i, v),
            Place::Field(r, f) => {
                r.borrow_mut().fields.insert(f.clone(), v);
            }
            Place::Temp(_) => {}
            Place::MemberOfUnknown(holder, f, _) => {
                let r = heap::shared(Record::default());
                r.borrow_mut().fields.insert(f.clone(), v);
                holder.write(Value::Record(r));
            }
        }
    }

    pub(super) fn pointer(&self) -> Value {
        match self {
            Place::Cell(c) => Value::Ptr(Ptr::Cell(c.clone())),
            Place::Elem(b, i) => Value::Ptr(Ptr::Elem(b.clone(), *i)),
            Place::Field(r, f) => Value::Ptr(Ptr::Field(r.clone(), f.clone())),
            Place::Temp(v) | Place::MemberOfUnknown(_, _, v) => match v {
                Value::Array(b) => Value::Ptr(Ptr::Elem(b.clone(), 0)),
                _ => Value::Ptr(Ptr::Cell(heap::shared(v.clone()))),
            },
        }
    }
}

/// The place a pointer points at.
pub(super) fn deref(p: &Value) -> Place {
    match p {
        Value::Ptr(Ptr::Cell(c)) => Place::Cell(c.clone()),
        Value::Ptr(Ptr::Elem(b, i)) => Place::Elem(b.clone(), *i),
        Value::Ptr(Ptr::Field(r, f)) => Place::Field(r.clone(), f.clone()),
        Value::Array(b) => Place::Elem(b.clone(), 0),
        Value::Ptr(Ptr::Null) => Place::Temp(Value::unknown("a null pointer read")),
        Value::Ptr(Ptr::PastCell(_)) => {
            Place::Temp(Value::unknown("a read one past a variable (`*(&n + 1)`)"))
        }
        Value::Ptr(Ptr::Opaque(what)) => Place::Temp(Value::unknown(&format!(
            "{what}, which the host does not read"
        ))),
        Value::Ptr(Ptr::Device(_)) => Place::Temp(Value::unknown(
            "device memory, which the host does not read",
        )),
        Value::Unknown(_) => Place::Temp(p.clone()),
        Value::Str(s) => Place::Temp(Value::Int(s.bytes().next().unwrap_or(0) as i128)),
        _ => Place::Temp(Value::unknown("memory kerncast does not model")),
    }
}

/// An argument as a callee receives it: a value, or the caller's place for a reference.
pub(super) enum Arg {
    Val(Value),
    Place(Place),
}

impl Arg {
    pub(super) fn value(&self) -> Value {
        match self {
            Arg::Val(v) => v.clone(),
            Arg::Place(p) => p.read(),
        }
    }
}

impl Frame {
    /// Binds a C++ reference to a place: a variable's own cell, else (a field, an element)
    /// a pointer to it that reads and writes go through; a temporary is its value.
    pub(super) fn bind_ref(&self, k: DeclKey, place: Place) {
        self.refs.borrow_mut().remove(&k);
        let cell = match place {
            Place::Cell(c) => c,
            Place::Temp(v) => heap::shared(v),
            p => {
                self.refs.borrow_mut().insert(k);
                heap::shared(p.pointer())
            }
        };
        self.vars.borrow_mut().insert(k, cell);
    }
}

/// The text of a C string (a literal, or a char buffer read to its NUL).
pub(super) fn str_of(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        Value::Ptr(Ptr::Elem(b, i)) => {
            // A char buffer holding a string (rare in launch paths): read to the NUL.
            let b = b.borrow();
            let mut out = String::new();
            for k in *i..*i + 4096 {
                match b.get(k).as_int() {
                    Some(0) => return Some(out),
                    Some(c) => out.push(c as u8 as char),
                    None => return None,
                }
            }
            None
        }
        Value::Ptr(Ptr::Cell(c)) => str_of(&c.borrow()),
        _ => None,
    }
}

/// Why [`str_of`] does not know the string a value holds: the value's own reason when it is
/// unknown, else the reason of the first character it cannot read (a buffer filled from a
/// file says so), or that no NUL ends it within the characters it reads.
pub(super) fn str_unknown_why(v: &Value) -> Option<String> {
    match v {
        Value::Unknown(_) => v.reason(),
        Value::Ptr(Ptr::Elem(b, i)) => {
            let b = b.borrow();
            for k in *i..*i + 4096 {
                match b.get(k) {
                    Value::Int(0) => return None,
                    Value::Int(_) => {}
                    c => return c.reason().map(|r| format!("its characters: {r}")),
                }
            }
            Some("no NUL ends it within its first 4096 characters".into())
        }
        Value::Ptr(Ptr::Cell(c)) => str_unknown_why(&c.borrow()),
        _ => None,
    }
}

pub(super) fn write_through(p: &Value, v: Value) {
    deref(p).write(v);
}

/// A container's storage, where the value is one (a vector, an array, `std::array`).
pub(super) fn buffer_of(v: &Value) -> Option<Rc<RefCell<Buffer>>> {
    match v {
        Value::Array(b) => Some(b.clone()),
        Value::Ptr(Ptr::Elem(b, 0)) => Some(b.clone()),
        Value::Record(r) => {
            let r = r.borrow();
            match r.fields.values().collect::<Vec<_>>().as_slice() {
                [Value::Array(b)] => Some(b.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// C's `strtol`: leading blanks, a sign, digits in `base` (0: decimal, octal or hex by prefix).
pub(super) fn parse_int(s: &str, base: u32) -> Option<i128> {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (base, t) = match base {
        0 if t.starts_with("0x") || t.starts_with("0X") => (16, &t[2..]),
        0 if t.starts_with('0') && t.len() > 1 => (8, &t[1..]),
        0 => (10, t),
        16 => (16, t.trim_start_matches("0x").trim_start_matches("0X")),
        b => (b, t),
    };
    let digits: String = t.chars().take_while(|c| c.is_digit(base)).collect();
    if digits.is_empty() {
        return Some(0);
    }
    let v = i128::from_str_radix(&digits, base).ok()?;
    Some(if neg { -v } else { v })
}

/// C's `strtod`: the longest prefix that is a number.
pub(super) fn parse_float(s: &str) -> f64 {
    let t = s.trim_start();
    let mut end = 0;
    let mut best = 0.0;
    for (i, _) in t.char_indices().chain(std::iter::once((t.len(), ' '))) {
        if i == 0 {
            continue;
        }
        if let Ok(v) = t[..i].parse::<f64>() {
            best = v;
            end = i;
        } else if i > end + 3 {
            break;
        }
    }
    best
}
