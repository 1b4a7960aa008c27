//! What the host writes into device memory, followed so that a kernel whose work depends on
//! its data (a CSR's row offsets, a model's parameters in a small array) is emulated on the
//! data the program gives it, not on zeros: `cudaMemcpy` from host memory (or another
//! allocation) and `cudaMemset`, into allocations of at most [`DEVICE_DATA_MAX`] bytes. A
//! launch keeps the bytes as they are when it is made ([`at_launch`]).
//!
//! Bytes are written as C lays the host's values out (little-endian, the element type of the
//! source pointer). An element whose value kerncast does not know (one the program never set,
//! one read from a file) is written as zero, the emulator's fill for data it does not have,
//! and the allocation keeps why. A record is laid out as clang lays out the program's own
//! record types (a simulation's parameter struct copied to the device whole), padding and
//! pointer fields as zeros. A copy kerncast cannot follow at all (a size it does not know, a
//! library record, a copy on one side of an undecided condition, copies in a loop not followed
//! to its end) loses the whole allocation's contents, with why: the emulator then runs on
//! zeros, and says so.
//!
//! A larger allocation holds no bytes, only elements described ([`crate::drawn`]): what a
//! fill loop the host reading described, or one value throughout (a `cudaMemset`, a buffer
//! filled with one value), copied into it from its start.

use super::value::{Buffer, Ptr, RunOf, Value};
use crate::ast::Ty;
use crate::clang::lower::ProgramAst;
use crate::drawn::{Draw, Drawn, Elem};
use std::cell::RefCell;
use std::rc::Rc;

/// The largest allocation whose contents are followed byte by byte: the emulator's data for
/// the kernels whose work depends on it (a CSR's row offsets, a model's parameters).
pub const DEVICE_DATA_MAX: i128 = 1 << 16;

/// A pointer into device memory.
#[derive(Clone, Debug)]
pub struct DevicePtr {
    /// The bytes from this pointer to the end of its allocation, an `Int`, or `Unknown` with
    /// why (a size read from a file, the pitch `cudaMallocPitch` chooses).
    pub left: Rc<Value>,
    /// The allocation's contents as the host wrote them, and this pointer's byte offset into
    /// it, where both are followed.
    pub data: Option<(Rc<RefCell<DeviceData>>, i64)>,
}

/// What the host put in one device allocation.
#[derive(Clone, Debug)]
pub struct DeviceData {
    /// The allocation's size in bytes.
    size: usize,
    /// Its bytes once the host writes some (zero where it wrote nothing), else empty. Shared
    /// with the launches that saw them, and copied when written after.
    bytes: Rc<Vec<u8>>,
    /// Why the contents are no longer followed (a copy of data kerncast does not know).
    lost: Option<Rc<str>>,
    /// Whether the allocation was passed to a kernel, which may have written it.
    launched: bool,
    /// Why some bytes are zeros standing for host values kerncast does not know (the first).
    zeros_for: Option<Rc<str>>,
    /// In an allocation over [`DEVICE_DATA_MAX`], the elements from its start, described.
    drawn: Option<Rc<Drawn>>,
}

/// An allocation's bytes from a pointer to its end, as [`DevicePtr::contents`] gives them.
pub struct Contents {
    pub bytes: Rc<Vec<u8>>,
    /// The elements described instead, in an allocation over [`DEVICE_DATA_MAX`].
    pub drawn: Option<Rc<Drawn>>,
    /// Whether a kernel ran on the allocation since the host wrote them.
    pub launched: bool,
    pub zeros_for: Option<Rc<str>>,
}

/// A pointer to a new device allocation of `bytes`, whose contents are followed when its size
/// is known: byte by byte up to [`DEVICE_DATA_MAX`], described above it.
pub fn allocation(bytes: Value) -> Value {
    let mut p = Value::device(bytes);
    if let Value::Ptr(Ptr::Device(d)) = &mut p {
        if let Some(n) = d.left.as_int().and_then(|n| usize::try_from(n).ok()) {
            let data = DeviceData {
                size: n,
                bytes: Rc::new(Vec::new()),
                lost: None,
                launched: false,
                zeros_for: None,
                drawn: None,
            };
            d.data = Some((Rc::new(RefCell::new(data)), 0));
        }
    }
    p
}

/// `v` as a launch keeps it: its device pointers (a by-value struct's pointer fields too)
/// with their allocations' bytes as they are now (or `lost`, why they are not followed);
/// each allocation is then marked as passed to a kernel, which may write it.
pub fn at_launch(v: &Value, lost: Option<&Rc<str>>) -> Value {
    match v {
        Value::Ptr(Ptr::Device(d)) => {
            let mut d = d.clone();
            if let Some((data, at)) = &d.data {
                let mut now = data.borrow().clone();
                if now.lost.is_none() {
                    now.lost = lost.cloned();
                }
                data.borrow_mut().launched = true;
                d.data = Some((Rc::new(RefCell::new(now)), *at));
            }
            Value::Ptr(Ptr::Device(d))
        }
        Value::Record(r) => {
            let points = |f: &Value| matches!(f, Value::Ptr(Ptr::Device(_)) | Value::Record(_));
            if !r.borrow().fields.values().any(points) {
                return v.clone();
            }
            // a copy: the record is the program's own
            let copy = v.copy();
            if let Value::Record(c) = &copy {
                for f in c.borrow_mut().fields.values_mut() {
                    *f = at_launch(f, lost);
                }
            }
            copy
        }
        _ => v.clone(),
    }
}

impl DevicePtr {
    /// The contents from this pointer to the allocation's end, as the host wrote them, or
    /// why there are none.
    pub fn contents(&self) -> Result<Contents, Rc<str>> {
        let Some((data, at)) = &self.data else {
            return Err("an allocation whose contents kerncast does not follow".into());
        };
        let d = data.borrow();
        if let Some(why) = &d.lost {
            return Err(why.clone());
        }
        if let Some(drawn) = &d.drawn {
            if *at != 0 {
                return Err("a pointer past the start of an allocation of values described".into());
            }
            return Ok(Contents {
                bytes: Rc::new(Vec::new()),
                drawn: Some(drawn.clone()),
                launched: d.launched,
                zeros_for: None,
            });
        }
        if d.bytes.is_empty() {
            return Err("nothing the host wrote".into());
        }
        let at = usize::try_from(*at).map_err(|_| Rc::from("a pointer before its allocation"))?;
        let bytes = match at {
            0 => d.bytes.clone(),
            _ => Rc::new(d.bytes.get(at..).unwrap_or_default().to_vec()),
        };
        Ok(Contents {
            bytes,
            drawn: None,
            launched: d.launched,
            zeros_for: d.zeros_for.clone(),
        })
    }
}

/// `dst` gets `bytes` bytes from `src`, host memory whose elements are `elem` (or another
/// allocation), records among them laid out as clang lays out `prog`'s types. `certain`: the
/// copy surely runs (not on one side of an undecided condition).
pub(super) fn copy_in(
    dst: &Value,
    src: &Value,
    bytes: Option<i128>,
    elem: Option<&Ty>,
    prog: &ProgramAst,
    certain: bool,
) {
    let Value::Ptr(Ptr::Device(DevicePtr {
        data: Some((data, at)),
        ..
    })) = dst
    else {
        return;
    };
    let large = data.borrow().is_large();
    let written = match (certain, bytes) {
        (false, _) => Err("copied on one side of a condition kerncast cannot decide".to_string()),
        (true, None) => Err("a copy of a size kerncast does not know".to_string()),
        (true, Some(n)) if large => {
            let drawn = match *at {
                0 => drawn_copy(src, n, elem),
                _ => Err("a copy past the start of an allocation over 64 KiB".to_string()),
            };
            return describe(data, drawn);
        }
        (true, Some(n)) => source_bytes(src, n, elem, prog),
    };
    write(data, *at, written);
}

/// Bytes written, and why some of them are zeros that stand for values kerncast does not know.
type Written = Result<(Vec<u8>, Option<String>), String>;

/// `dst` gets `bytes` bytes of value `byte` (`cudaMemset`).
pub(super) fn set(dst: &Value, byte: Option<i128>, bytes: Option<i128>, certain: bool) {
    let Value::Ptr(Ptr::Device(DevicePtr {
        data: Some((data, at)),
        ..
    })) = dst
    else {
        return;
    };
    let large = data.borrow().is_large();
    let written = match (certain, byte, bytes) {
        (false, _, _) => Err("set on one side of a condition kerncast cannot decide".to_string()),
        (true, Some(b), Some(n)) if large && *at == 0 && n >= 0 => {
            let drawn = Drawn {
                elem: Elem::U8,
                count: n as u64,
                draw: Draw::Ramp {
                    start: f64::from(b as u8),
                    step: 0.0,
                    ints: true,
                },
                origin: "a cudaMemset".into(),
            };
            return describe(data, Ok(drawn));
        }
        (true, Some(b), Some(n)) if !large && n >= 0 => Ok((vec![b as u8; n as usize], None)),
        _ => Err("a memset kerncast cannot size".to_string()),
    };
    write(data, *at, written);
}

impl DeviceData {
    /// Whether the allocation holds described elements, not bytes.
    fn is_large(&self) -> bool {
        self.size as i128 > DEVICE_DATA_MAX
    }
}

/// A large allocation's elements become `drawn` (or are lost, with why); the host's again,
/// wherever a kernel wrote before.
fn describe(data: &Rc<RefCell<DeviceData>>, drawn: Result<Drawn, String>) {
    let mut d = data.borrow_mut();
    if d.lost.is_some() {
        return;
    }
    match drawn {
        Ok(x) if x.count.saturating_mul(x.elem.bytes()) <= d.size as u64 => {
            d.drawn = Some(Rc::new(x));
            d.launched = false;
        }
        Ok(_) => d.lost = Some("a copy past its allocation's end".into()),
        Err(why) => d.lost = Some(why.into()),
    }
}

/// The elements `n` bytes of `src` hold, described, for an allocation over
/// [`DEVICE_DATA_MAX`]: those of another such allocation, or of a host buffer whose elements
/// there are one value or a run a fill loop drew.
fn drawn_copy(src: &Value, n: i128, elem: Option<&Ty>) -> Result<Drawn, String> {
    if let Value::Ptr(Ptr::Device(d)) = src {
        let c = d.contents().map_err(|why| format!("a copy from {why}"))?;
        if c.launched {
            return Err("a copy from an allocation a kernel ran on".into());
        }
        let mut x = (*c
            .drawn
            .ok_or("a copy of bytes into an allocation over 64 KiB")?)
        .clone();
        x.count = x.count.min(u64::try_from(n).unwrap_or(0) / x.elem.bytes());
        return Ok(x);
    }
    let elem = match elem {
        Some(Ty::Bool) => Some(Elem::U8),
        Some(Ty::Int { bits, signed }) => Elem::of(*bits, false, *signed),
        Some(Ty::Float { bits }) => Elem::of(*bits, true, true),
        _ => None,
    }
    .ok_or("a copy of elements kerncast does not describe into an allocation over 64 KiB")?;
    let size = elem.bytes() as i128;
    if n < 0 || n % size != 0 {
        return Err("a copy of part of an element".into());
    }
    let count = (n / size) as i64;
    let Value::Ptr(Ptr::Elem(b, at)) = src else {
        return Err("a copy from memory kerncast does not follow".into());
    };
    let (draw, origin) = described(&b.borrow(), *at, count)?;
    Ok(Drawn {
        elem,
        count: count as u64,
        draw,
        origin,
    })
}

/// Elements `at .. at + count` of a large host buffer, described, and where they come from:
/// a run a fill loop left, or the buffer's one value throughout.
fn described(b: &Buffer, at: i64, count: i64) -> Result<(Draw, String), String> {
    let end = at + count;
    let one_by_one = |from: i64| b.sparse.keys().any(|i| (from..end).contains(i));
    let constant = |v: &Value| -> Result<Draw, String> {
        match v {
            Value::Int(i) => Ok(Draw::Ramp {
                start: *i as f64,
                step: 0.0,
                ints: true,
            }),
            Value::Float(x) => Ok(Draw::Ramp {
                start: *x,
                step: 0.0,
                ints: false,
            }),
            _ => {
                Err("a copy of values kerncast does not know into an allocation over 64 KiB".into())
            }
        }
    };
    match &b.run {
        Some(r) if r.from <= at && end <= r.end => match &r.of {
            RunOf::Same(v) if !one_by_one(at) => {
                Ok((constant(v)?, "a fill loop of one value".into()))
            }
            // the samples a draw loop stored are among what it describes
            RunOf::Drawn { draw, at: origin }
                if !one_by_one(at.max(r.from + crate::drawn::SAMPLES as i64)) =>
            {
                let draw = match &**draw {
                    Draw::Ramp { start, step, ints } => Draw::Ramp {
                        start: start + step * (at - r.from) as f64,
                        step: *step,
                        ints: *ints,
                    },
                    other => other.clone(),
                };
                Ok((draw, format!("the fill loop at {origin}")))
            }
            _ => Err("a copy of elements written one by one into an allocation over 64 KiB".into()),
        },
        Some(r) if r.end <= at || end <= r.from => match one_by_one(at) {
            false => Ok((constant(&b.fill)?, "a buffer of one value".into())),
            true => {
                Err("a copy of elements written one by one into an allocation over 64 KiB".into())
            }
        },
        Some(_) => {
            Err("a copy of elements partly filled by a loop into an allocation over 64 KiB".into())
        }
        None if !b.is_dense() && !one_by_one(at) => {
            Ok((constant(&b.fill)?, "a buffer of one value".into()))
        }
        None => Err("a copy of elements written one by one into an allocation over 64 KiB".into()),
    }
}

/// Writes `written` at byte `at`, or loses the contents with why.
fn write(data: &Rc<RefCell<DeviceData>>, at: i64, written: Written) {
    let mut d = data.borrow_mut();
    if d.lost.is_some() {
        return;
    }
    let range = usize::try_from(at).ok().and_then(|at| {
        let (w, _) = written.as_ref().ok()?;
        let end = at.checked_add(w.len())?;
        (end <= d.size).then_some(at..end)
    });
    match (written, range) {
        (Ok((w, zeros_for)), Some(r)) => {
            // the host's bytes again, wherever a kernel wrote before, and only what this copy
            // did not know stands for unknown values
            if r.len() == d.size {
                d.launched = false;
                d.zeros_for = None;
            }
            let size = d.size;
            let bytes = Rc::make_mut(&mut d.bytes);
            bytes.resize(size, 0);
            bytes[r].copy_from_slice(&w);
            if d.zeros_for.is_none() {
                d.zeros_for = zeros_for.map(Rc::from);
            }
        }
        (Ok(_), None) => d.lost = Some("a copy past its allocation's end".into()),
        (Err(why), _) => d.lost = Some(why.into()),
    }
}

/// The `n` bytes host memory `src` holds, as C lays out its elements of type `elem`.
fn source_bytes(src: &Value, n: i128, elem: Option<&Ty>, prog: &ProgramAst) -> Written {
    if let Value::Ptr(Ptr::Device(d)) = src {
        // device to device
        let c = d.contents().map_err(|why| format!("a copy from {why}"))?;
        if c.launched {
            // what a kernel wrote there is not what the host did
            return Err("a copy from an allocation a kernel ran on".into());
        }
        if c.drawn.is_some() {
            return Err("a copy of values described, not laid out, into a small allocation".into());
        }
        return c
            .bytes
            .get(..usize::try_from(n).unwrap_or(usize::MAX))
            .map(|b| (b.to_vec(), c.zeros_for.map(|w| w.to_string())))
            .ok_or_else(|| "a copy past its source allocation's end".to_string());
    }
    let elem = elem.ok_or("a copy from memory of a type kerncast does not size")?;
    let size = match elem {
        Ty::Record { .. } => elem.bytes().map(|b| b as usize),
        _ => layout_bytes(elem),
    }
    .filter(|&b| b > 0)
    .ok_or("a copy of elements kerncast does not size")?;
    if n < 0 || n % size as i128 != 0 {
        return Err("a copy of part of an element".into());
    }
    // only allocations of at most that size are followed
    if n > DEVICE_DATA_MAX {
        return Err("a copy past its allocation's end".into());
    }
    let value = |i: i64| -> Value {
        match src {
            Value::Ptr(Ptr::Elem(b, at)) => b.borrow().get(at + i),
            Value::Ptr(Ptr::Cell(c)) if i == 0 => c.borrow().clone(),
            _ => Value::unknown("memory kerncast does not follow"),
        }
    };
    let mut out = vec![0; n as usize];
    let mut zeros_for = None;
    for (i, slot) in out.chunks_exact_mut(size).enumerate() {
        lay_out(&value(i as i64), elem, prog, slot, &mut zeros_for)
            .map_err(|why| format!("a copy of {why}"))?;
    }
    Ok((out, zeros_for))
}

/// `v`, a value of type `t`, as C stores it, into `slot` (zeroed, of `t`'s size): a record's
/// fields at the offsets clang gives them, an array's elements one after another. A scalar
/// kerncast does not know, a field the host never set and a pointer (an address the emulator
/// cannot share with the host) stay zero, and `zeros_for` keeps the first reason.
fn lay_out(
    v: &Value,
    t: &Ty,
    prog: &ProgramAst,
    slot: &mut [u8],
    zeros_for: &mut Option<String>,
) -> Result<(), String> {
    let mut zero = |why: &str| {
        zeros_for.get_or_insert_with(|| why.to_string());
        Ok(())
    };
    match (v, t) {
        (Value::Unknown(u), _) => zero(&u.why),
        (_, Ty::Pointer(_)) => zero("a pointer stored in device memory"),
        // `calloc`ed memory no member of which was written
        (Value::Int(0), Ty::Record { .. } | Ty::Array(..)) => Ok(()),
        (Value::Record(r), Ty::Record { name, .. }) => {
            let layout = prog
                .record_layout(name)
                .filter(|l| !l.is_empty())
                .ok_or("a record kerncast does not lay out")?;
            let r = r.borrow();
            for f in layout.iter() {
                let field = f
                    .offset
                    .zip(f.ty.bytes())
                    .and_then(|(at, size)| slot.get_mut(at as usize..(at + size) as usize))
                    .ok_or("a bit-field or a member kerncast does not size")?;
                match r.fields.get(&f.name) {
                    Some(fv) => lay_out(fv, &f.ty, prog, field, zeros_for)?,
                    None => {
                        zeros_for.get_or_insert_with(|| {
                            format!("the field `{}`, which the host never set", f.name)
                        });
                    }
                }
            }
            Ok(())
        }
        (Value::Array(b), Ty::Array(elem, Some(_))) => {
            let size = elem
                .bytes()
                .filter(|&s| s > 0)
                .ok_or("an array of elements kerncast does not size")?;
            let b = b.borrow();
            for (i, e) in slot.chunks_exact_mut(size as usize).enumerate() {
                lay_out(&b.get(i as i64), elem, prog, e, zeros_for)?;
            }
            Ok(())
        }
        _ => {
            let mut out = Vec::with_capacity(slot.len());
            encode(v, t, &mut out)?;
            if out.len() != slot.len() {
                return Err("an element of a type kerncast does not lay out".into());
            }
            slot.copy_from_slice(&out);
            Ok(())
        }
    }
}

/// Bytes of one element of a scalar type.
fn layout_bytes(t: &Ty) -> Option<usize> {
    match t {
        Ty::Bool => Some(1),
        Ty::Int { bits, .. } | Ty::Float { bits } => Some(*bits as usize / 8),
        _ => None,
    }
}

/// `v` as C stores it in a `t`.
fn encode(v: &Value, t: &Ty, out: &mut Vec<u8>) -> Result<(), String> {
    let num = match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        _ => Err("a value that is not a number".to_string()),
    };
    match t {
        Ty::Float { bits: 32 } => out.extend((num? as f32).to_le_bytes()),
        Ty::Float { .. } => out.extend(num?.to_le_bytes()),
        Ty::Bool | Ty::Int { .. } => {
            let i = match v {
                Value::Int(i) => *i,
                // a float stored in an integer, as C converts it
                _ => num? as i128,
            };
            let size = layout_bytes(t).unwrap_or(8);
            out.extend_from_slice(&i.to_le_bytes()[..size]);
        }
        _ => return Err("an element of a type kerncast does not lay out".into()),
    }
    Ok(())
}
