//! What the host writes into device memory, followed so that a kernel whose work depends on
//! its data (a CSR's row offsets, a model's parameters in a small array) is emulated on the
//! data the program gives it, not on zeros: `cudaMemcpy` from host memory (or another
//! allocation) and `cudaMemset`, into allocations of at most
//! [`DEVICE_DATA_MAX`](super::value::DEVICE_DATA_MAX) bytes.
//!
//! Bytes are written as C lays the host's values out (little-endian, the element type of the
//! source pointer). An element whose value kerncast does not know (one the program never set,
//! one read from a file) is written as zero, the emulator's fill for data it does not have,
//! and the allocation keeps why. A copy kerncast cannot follow at all (a size it does not
//! know, records, a copy on one side of an undecided condition) loses the whole allocation's
//! contents, with why: the emulator then runs on zeros, and says so.

use super::value::{DeviceData, DevicePtr, Ptr, Value};
use crate::ast::Ty;
use std::cell::RefCell;
use std::rc::Rc;

/// `dst` gets `bytes` bytes from `src`, host memory whose elements are `elem` (or another
/// allocation). `certain`: the copy surely runs (not on one side of an undecided condition).
pub(super) fn copy_in(
    dst: &Value,
    src: &Value,
    bytes: Option<i128>,
    elem: Option<&Ty>,
    certain: bool,
) {
    let Value::Ptr(Ptr::Device(DevicePtr {
        data: Some((data, at)),
        ..
    })) = dst
    else {
        return;
    };
    let written = match (certain, bytes) {
        (false, _) => Err("copied on one side of a condition kerncast cannot decide".to_string()),
        (true, None) => Err("a copy of a size kerncast does not know".to_string()),
        (true, Some(n)) => source_bytes(src, n, elem),
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
    let written = match (certain, byte, bytes) {
        (false, _, _) => Err("set on one side of a condition kerncast cannot decide".to_string()),
        (true, Some(b), Some(n)) if n >= 0 => Ok((vec![b as u8; n as usize], None)),
        _ => Err("a memset kerncast cannot size".to_string()),
    };
    write(data, *at, written);
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
        (end <= d.bytes.len()).then_some(at..end)
    });
    match (written, range) {
        (Ok((w, zeros_for)), Some(r)) => {
            // the host's bytes again, wherever a kernel wrote before
            if r.len() == d.bytes.len() {
                d.launched = false;
            }
            Rc::make_mut(&mut d.bytes)[r].copy_from_slice(&w);
            d.written = true;
            if d.zeros_for.is_none() {
                d.zeros_for = zeros_for.map(Rc::from);
            }
        }
        (Ok(_), None) => d.lost = Some("a copy past its allocation's end".into()),
        (Err(why), _) => d.lost = Some(why.into()),
    }
}

/// The `n` bytes host memory `src` holds, as C lays out its elements of type `elem`.
fn source_bytes(src: &Value, n: i128, elem: Option<&Ty>) -> Written {
    if let Value::Ptr(Ptr::Device(d)) = src {
        // device to device
        let c = d.contents().map_err(|why| format!("a copy from {why}"))?;
        return c
            .bytes
            .get(..usize::try_from(n).unwrap_or(usize::MAX))
            .map(|b| (b.to_vec(), c.zeros_for.map(|w| w.to_string())))
            .ok_or_else(|| "a copy past its source allocation's end".to_string());
    }
    let elem = elem.ok_or("a copy from memory of a type kerncast does not size")?;
    let size = layout_bytes(elem).ok_or("a copy of records or other non-scalar elements")?;
    if n < 0 || n % size as i128 != 0 {
        return Err("a copy of part of an element".into());
    }
    let count = (n / size as i128) as i64;
    let value = |i: i64| -> Value {
        match src {
            Value::Ptr(Ptr::Elem(b, at)) => b.borrow().get(at + i),
            Value::Ptr(Ptr::Cell(c)) if i == 0 => c.borrow().clone(),
            _ => Value::unknown("memory kerncast does not follow"),
        }
    };
    let mut out = Vec::with_capacity(n as usize);
    let mut zeros_for = None;
    for i in 0..count {
        let v = match value(i) {
            Value::Unknown(u) => {
                zeros_for.get_or_insert_with(|| u.why.to_string());
                Value::Int(0)
            }
            v => v,
        };
        encode(&v, elem, &mut out).map_err(|why| format!("a copy of {why}"))?;
    }
    Ok((out, zeros_for))
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
