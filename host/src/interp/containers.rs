//! The C++ library types host code builds its sizes with, modelled: `std::map`/`set` and
//! their unordered kin (entries kept in key order, or insertion order when unordered),
//! their iterators, `std::string`'s operations, and string streams (`istringstream >> n`).
//! Vectors are arrays ([`super::builtins`]).
//!
//! A map is a shared [`Handle::Map`] of `{first, second}` records, so `it->second = v` and
//! `m[k] = v` write the entry itself; an iterator is a record `{__map, __index}` copied by
//! value as C++ copies iterators.

use super::access::{parse_float, parse_int, str_of, Arg, Place};
use super::state::{Exec, Interp};
use super::value::{Buffer, Handle, Key, Ptr, Record, Value};
use crate::ast::{Expr, Param, Ty};
use crate::heap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// `std::string::npos`.
const NPOS: i128 = u64::MAX as i128;

/// The empty value of a library container type, by its canonical name.
pub(super) fn empty_of(type_name: &str) -> Option<Value> {
    let t = type_name.trim_start_matches("const ");
    let is = |p: &str| t.starts_with(p);
    if is("std::vector<") || is("std::deque<") || is("std::valarray<") || is("std::list<") {
        return Some(Value::Array(heap::shared(Buffer::new(
            Some(0),
            Value::Int(0),
        ))));
    }
    if is("std::basic_string<") || is("std::__cxx11::basic_string<") || is("std::string") {
        return Some(Value::Str(Rc::from("")));
    }
    let ordered =
        is("std::map<") || is("std::set<") || is("std::multimap<") || is("std::multiset<");
    let unordered = is("std::unordered_map<") || is("std::unordered_set<");
    if ordered || unordered {
        return Some(Value::Handle(heap::shared(Handle::Map {
            entries: Vec::new(),
            ordered,
        })));
    }
    None
}

fn key_of(v: &Value) -> Option<Key> {
    match v {
        Value::Int(i) => Some(Key::Int(*i)),
        Value::Float(f) => Some(Key::Float(*f)),
        Value::Str(s) => Some(Key::Str(s.to_string())),
        _ => None,
    }
}

fn iterator(map: &Rc<RefCell<Handle>>, index: usize) -> Value {
    let mut r = Record {
        ty: Arc::from("iterator"),
        ..Record::default()
    };
    r.fields
        .insert(Arc::from("__map"), Value::Handle(map.clone()));
    r.fields
        .insert(Arc::from("__index"), Value::Int(index as i128));
    Value::Record(heap::shared(r))
}

/// The map and position of an iterator value.
fn iter_parts(v: &Value) -> Option<(Rc<RefCell<Handle>>, usize)> {
    let Value::Record(r) = v else { return None };
    let r = r.borrow();
    let map = match r.fields.get("__map") {
        Some(Value::Handle(h)) => h.clone(),
        _ => return None,
    };
    let index = r.fields.get("__index")?.as_int()? as usize;
    Some((map, index))
}

fn entries_len(h: &Rc<RefCell<Handle>>) -> usize {
    match &*h.borrow() {
        Handle::Map { entries, .. } => entries.len(),
        _ => 0,
    }
}

fn find(h: &Rc<RefCell<Handle>>, k: &Key) -> Option<usize> {
    match &*h.borrow() {
        Handle::Map { entries, .. } => entries.iter().position(|(x, _)| x == k),
        _ => None,
    }
}

fn pair(k: Value, v: Value) -> Rc<RefCell<Record>> {
    let mut r = Record {
        ty: Arc::from("std::pair"),
        ..Record::default()
    };
    r.fields.insert(Arc::from("first"), k);
    r.fields.insert(Arc::from("second"), v);
    heap::shared(r)
}

/// Inserts `k → v` unless `k` is there; the entry's index.
fn insert(h: &Rc<RefCell<Handle>>, key: Key, k: Value, v: Value) -> usize {
    if let Some(i) = find(h, &key) {
        return i;
    }
    let mut hb = h.borrow_mut();
    let Handle::Map { entries, ordered } = &mut *hb else {
        return 0;
    };
    let at = if *ordered {
        entries
            .iter()
            .position(|(x, _)| x.partial_cmp(&key) == Some(std::cmp::Ordering::Greater))
            .unwrap_or(entries.len())
    } else {
        entries.len()
    };
    entries.insert(at, (key, pair(k, v)));
    at
}

fn entry(h: &Rc<RefCell<Handle>>, i: usize) -> Option<Rc<RefCell<Record>>> {
    match &*h.borrow() {
        Handle::Map { entries, .. } => entries.get(i).map(|(_, p)| p.clone()),
        _ => None,
    }
}

/// The entries of a map, for a range-for.
pub(super) fn map_elements(v: &Value) -> Option<Vec<Value>> {
    let Value::Handle(h) = v else { return None };
    match &*h.borrow() {
        Handle::Map { entries, .. } => Some(
            entries
                .iter()
                .map(|(_, p)| Value::Record(p.clone()))
                .collect(),
        ),
        _ => None,
    }
}

fn arg(args: &[Arg], i: usize) -> Value {
    args.get(i).map(|a| a.value()).unwrap_or(Value::Void)
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        Value::Int(c) if (0..=0x10FFFF).contains(c) => char::from_u32(*c as u32).map(String::from),
        _ => None,
    }
}

impl Interp<'_> {
    /// A method of a map, an iterator, a string or a stream; `None` when `obj` is none of them.
    pub(super) fn container_method(
        &mut self,
        name: &str,
        obj: &Place,
        args: &[Arg],
        params: &[Param],
        e: &Expr,
    ) -> Exec<Option<Value>> {
        let m = name.rsplit("::").next().unwrap_or(name);
        let object = obj.read();
        if let Some((map, i)) = iter_parts(&object) {
            return Ok(self.iterator_method(m, obj, &map, i, args));
        }
        if let Value::Handle(h) = &object {
            let is_map = matches!(&*h.borrow(), Handle::Map { .. });
            if is_map {
                return Ok(self.map_method(m, h, args, e));
            }
            let is_stream = matches!(&*h.borrow(), Handle::Stream { .. });
            if is_stream {
                if m == "open" && !name.contains("ofstream") {
                    if let Some(path) = args.first().and_then(|a| str_of(&a.value())) {
                        self.reads_file(&path, name);
                    }
                }
                return Ok(self.stream_method(m, h, args, params));
            }
        }
        if let Value::Str(s) = &object {
            return Ok(string_method(m, s, obj, args));
        }
        Ok(None)
    }

    fn iterator_method(
        &mut self,
        m: &str,
        obj: &Place,
        map: &Rc<RefCell<Handle>>,
        i: usize,
        args: &[Arg],
    ) -> Option<Value> {
        match m {
            "operator->" => {
                entry(map, i).map(|p| Value::Ptr(Ptr::Cell(heap::shared(Value::Record(p)))))
            }
            "operator*" => entry(map, i).map(Value::Record),
            "operator++" | "operator--" => {
                let next = if m == "operator++" {
                    i + 1
                } else {
                    i.saturating_sub(1)
                };
                let old = obj.read();
                obj.write(iterator(map, next));
                // `it++` (an int argument) gives the old position, `++it` the new.
                Some(if args.is_empty() {
                    iterator(map, next)
                } else {
                    old
                })
            }
            "operator==" | "operator!=" => {
                let same =
                    iter_parts(&arg(args, 0)).map(|(m2, j)| Rc::ptr_eq(map, &m2) && i == j)?;
                Some(Value::Int((same == (m == "operator==")) as i128))
            }
            _ => None,
        }
    }

    fn map_method(
        &mut self,
        m: &str,
        h: &Rc<RefCell<Handle>>,
        args: &[Arg],
        e: &Expr,
    ) -> Option<Value> {
        let key_value = arg(args, 0);
        let key = key_of(&key_value);
        let len = entries_len(h);
        match m {
            "find" => Some(match &key {
                Some(k) => iterator(h, find(h, k).unwrap_or(len)),
                None => Value::unknown("a lookup of a key kerncast does not know"),
            }),
            "end" | "cend" => Some(iterator(h, len)),
            "begin" | "cbegin" => Some(iterator(h, 0)),
            "count" | "contains" => key.map(|k| Value::Int(find(h, &k).is_some() as i128)),
            "size" => Some(Value::Int(len as i128)),
            "empty" => Some(Value::Int((len == 0) as i128)),
            "clear" => {
                if let Handle::Map { entries, .. } = &mut *h.borrow_mut() {
                    entries.clear();
                }
                Some(Value::Void)
            }
            "erase" => {
                if let Some(k) = key {
                    if let Handle::Map { entries, .. } = &mut *h.borrow_mut() {
                        entries.retain(|(x, _)| *x != k);
                    }
                }
                Some(Value::Void)
            }
            "insert" | "emplace" | "try_emplace" => {
                // `insert({k, v})`, `insert(std::make_pair(k, v))`, `emplace(k, v)`, a set's `insert(k)`.
                let (k, v) = match (&key_value, args.len()) {
                    (Value::Record(r), 1) => {
                        let r = r.borrow();
                        (
                            r.fields.get("first").cloned().unwrap_or(Value::Void),
                            r.fields.get("second").cloned().unwrap_or(Value::Void),
                        )
                    }
                    (Value::Array(b), 1) => {
                        let b = b.borrow();
                        (b.get(0), b.get(1))
                    }
                    (_, 1) => (key_value.clone(), Value::Void),
                    _ => (key_value.clone(), arg(args, 1).copy()),
                };
                let Some(kk) = key_of(&k) else {
                    return Some(Value::unknown(
                        "an insertion of a key kerncast does not know",
                    ));
                };
                let i = insert(h, kk, k, v);
                Some(iterator(h, i))
            }
            "operator[]" | "at" => {
                let _ = e;
                key.and_then(|k| find(h, &k))
                    .and_then(|i| entry(h, i))
                    .and_then(|p| p.borrow().fields.get("second").cloned())
            }
            _ => None,
        }
    }

    /// `m[k]`: the entry's value, inserted with the mapped type's default if absent.
    pub(super) fn map_index_place(
        &mut self,
        h: &Rc<RefCell<Handle>>,
        key: &Value,
        mapped: &Ty,
    ) -> Option<Place> {
        let k = key_of(key)?;
        let i = match find(h, &k) {
            Some(i) => i,
            None => {
                let v = self.default_value(mapped, true);
                insert(h, k, key.clone(), v)
            }
        };
        entry(h, i).map(|p| Place::Field(p, Arc::from("second")))
    }

    fn stream_method(
        &mut self,
        m: &str,
        h: &Rc<RefCell<Handle>>,
        args: &[Arg],
        params: &[Param],
    ) -> Option<Value> {
        let stream = Value::Handle(h.clone());
        match m {
            "operator>>" => {
                let ty = params.first().map(|p| p.ty.clone()).unwrap_or(Ty::Void);
                let v = read_token(h, &ty);
                if let Some(Arg::Place(p)) = args.first() {
                    p.write(v);
                }
                Some(stream)
            }
            "operator<<" => {
                if let Handle::Stream { text, .. } = &mut *h.borrow_mut() {
                    match (text.as_mut(), arg(args, 0)) {
                        (Some(t), Value::Int(i)) => t.push_str(&i.to_string()),
                        (Some(t), Value::Float(f)) => t.push_str(&f.to_string()),
                        (Some(t), Value::Str(s)) => t.push_str(&s),
                        _ => *text = None,
                    }
                }
                Some(stream)
            }
            "str" => Some(match &*h.borrow() {
                Handle::Stream { text: Some(t), .. } => Value::Str(Rc::from(t.as_str())),
                _ => Value::unknown("the text of a stream kerncast does not follow"),
            }),
            "operator bool" | "good" | "operator!" | "fail" | "eof" | "is_open" => {
                let (failed, eof, known) = match &*h.borrow() {
                    Handle::Stream {
                        failed, eof, text, ..
                    } => (*failed, *eof, text.is_some()),
                    _ => (false, false, false),
                };
                if !known {
                    return Some(Value::unknown(
                        "the state of a file stream kerncast does not read",
                    ));
                }
                Some(Value::Int(match m {
                    "operator!" | "fail" => failed as i128,
                    "eof" => eof as i128,
                    "good" => (!failed && !eof) as i128,
                    _ => !failed as i128,
                }))
            }
            "clear" => {
                if let Handle::Stream { failed, eof, .. } = &mut *h.borrow_mut() {
                    *failed = false;
                    *eof = false;
                }
                Some(Value::Void)
            }
            "open" => {
                if let Handle::Stream { text, .. } = &mut *h.borrow_mut() {
                    *text = None;
                }
                Some(Value::Void)
            }
            "close" | "seekg" | "precision" | "setf" | "imbue" => Some(Value::Void),
            _ => None,
        }
    }

    /// A library function on strings and streams (`std::operator+`, `getline`, `operator>>`
    /// into a string); `None` when not one of them.
    pub(super) fn container_call(&mut self, f: &str, args: &[Arg]) -> Option<Value> {
        let a0 = arg(args, 0);
        match f {
            "operator+" => match (text_of(&a0), text_of(&arg(args, 1))) {
                (Some(a), Some(b)) => Some(Value::Str(Rc::from(format!("{a}{b}")))),
                _ => None,
            },
            "operator==" | "operator!=" => {
                let eq = match (iter_parts(&a0), iter_parts(&arg(args, 1))) {
                    (Some((m1, i)), Some((m2, j))) => Rc::ptr_eq(&m1, &m2) && i == j,
                    _ => return None,
                };
                Some(Value::Int((eq == (f == "operator==")) as i128))
            }
            // `ss << text` with a string (a free operator): appended, as the method's.
            "operator<<" => {
                let Value::Handle(h) = &a0 else { return None };
                if let Handle::Stream { text, .. } = &mut *h.borrow_mut() {
                    match (text.as_mut(), text_of(&arg(args, 1))) {
                        (Some(t), Some(add)) => t.push_str(&add),
                        _ => *text = None,
                    }
                } else {
                    return None;
                }
                Some(a0.clone())
            }
            "operator>>" | "getline" => {
                let Value::Handle(h) = &a0 else { return None };
                if !matches!(&*h.borrow(), Handle::Stream { .. }) {
                    return None;
                }
                let v = if f == "getline" {
                    let delim = arg(args, 2)
                        .as_int()
                        .map(|c| c as u8 as char)
                        .unwrap_or('\n');
                    read_until(h, delim)
                } else {
                    read_token(h, &Ty::Other(Arc::from("string")))
                };
                if let Some(Arg::Place(p)) = args.get(1) {
                    p.write(v);
                }
                Some(a0.clone())
            }
            "make_pair" => Some(Value::Record(pair(a0.copy(), arg(args, 1).copy()))),
            _ => None,
        }
    }
}

/// The next whitespace-separated token of a string stream, as `ty`.
fn read_token(h: &Rc<RefCell<Handle>>, ty: &Ty) -> Value {
    let mut hb = h.borrow_mut();
    let Handle::Stream {
        text,
        pos,
        failed,
        eof,
    } = &mut *hb
    else {
        return Value::unknown("a stream kerncast does not follow");
    };
    let Some(t) = text.as_ref() else {
        return Value::unknown("a value read from a file stream");
    };
    let rest = &t[*pos..];
    let start = rest.len() - rest.trim_start().len();
    let tok: String = rest[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    *pos += start + tok.len();
    // The extraction stops at whitespace, or at the end of the text, which sets eof.
    if *pos >= t.len() {
        *eof = true;
    }
    if tok.is_empty() {
        *failed = true;
        return Value::unknown("a read past the end of a string stream");
    }
    match ty {
        Ty::Int { .. } | Ty::Bool => match parse_int(&tok, 10) {
            Some(v) => Value::Int(v),
            None => {
                *failed = true;
                Value::Int(0)
            }
        },
        Ty::Float { .. } => Value::Float(parse_float(&tok)),
        _ => Value::Str(Rc::from(tok)),
    }
}

fn read_until(h: &Rc<RefCell<Handle>>, delim: char) -> Value {
    let mut hb = h.borrow_mut();
    let Handle::Stream {
        text,
        pos,
        failed,
        eof,
    } = &mut *hb
    else {
        return Value::unknown("a stream kerncast does not follow");
    };
    let Some(t) = text.as_ref() else {
        return Value::unknown("a line read from a file stream");
    };
    if *pos >= t.len() {
        *failed = true;
        *eof = true;
        return Value::Str(Rc::from(""));
    }
    let rest = &t[*pos..];
    let line: String = rest.chars().take_while(|c| *c != delim).collect();
    // A line ended by the end of the text rather than the delimiter sets eof.
    if line.len() == rest.len() {
        *eof = true;
    }
    *pos += line.len() + usize::from(line.len() < rest.len());
    Value::Str(Rc::from(line))
}

/// `std::string`'s methods.
fn string_method(m: &str, s: &Rc<str>, obj: &Place, args: &[Arg]) -> Option<Value> {
    let int = |i: usize| args.get(i).and_then(|a| a.value().as_int());
    Some(match m {
        "c_str" | "data" | "str" => Value::Str(s.clone()),
        "size" | "length" => Value::Int(s.len() as i128),
        "empty" => Value::Int(s.is_empty() as i128),
        "operator[]" | "at" => {
            let i = int(0)? as usize;
            Value::Int(s.as_bytes().get(i).copied().unwrap_or(0) as i128)
        }
        "front" => Value::Int(s.as_bytes().first().copied().unwrap_or(0) as i128),
        "back" => Value::Int(s.as_bytes().last().copied().unwrap_or(0) as i128),
        "substr" => {
            let start = (int(0).unwrap_or(0) as usize).min(s.len());
            let n = int(1)
                .map(|n| n.clamp(0, i128::from(u32::MAX)) as usize)
                .unwrap_or(usize::MAX);
            let end = start.saturating_add(n).min(s.len());
            Value::Str(Rc::from(s.get(start..end).unwrap_or("")))
        }
        "find" | "rfind" => {
            let needle = text_of(&arg(args, 0))?;
            let from = int(1).unwrap_or(0) as usize;
            let hit = if m == "find" {
                s.get(from..)
                    .and_then(|t| t.find(&needle))
                    .map(|p| p + from)
            } else {
                s.rfind(&needle)
            };
            Value::Int(hit.map(|p| p as i128).unwrap_or(NPOS))
        }
        "compare" => {
            let other = text_of(&arg(args, 0))?;
            Value::Int(match (**s).cmp(other.as_str()) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            })
        }
        "operator==" | "operator!=" => {
            let other = text_of(&arg(args, 0))?;
            Value::Int(((**s == *other) == (m == "operator==")) as i128)
        }
        "operator+=" | "append" | "push_back" => {
            let more = text_of(&arg(args, 0))?;
            let v = Value::Str(Rc::from(format!("{s}{more}")));
            obj.write(v.clone());
            v
        }
        "operator=" | "assign" => {
            let v = arg(args, 0);
            obj.write(v.clone());
            v
        }
        _ => return None,
    })
}

/// A string stream made from a string (`istringstream iss(line)`), or an empty one.
pub(super) fn string_stream(args: &[Arg]) -> Value {
    let text = match args.first().map(|a| a.value()) {
        Some(Value::Str(s)) => Some(s.to_string()),
        None => Some(String::new()),
        Some(_) => None,
    };
    Value::Handle(heap::shared(Handle::Stream {
        text,
        pos: 0,
        failed: false,
        eof: false,
    }))
}

/// A file stream: its contents are not kerncast's to read.
pub(super) fn file_stream() -> Value {
    Value::Handle(heap::shared(Handle::Stream {
        text: None,
        pos: 0,
        failed: false,
        eof: false,
    }))
}
