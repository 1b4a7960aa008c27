//! PyTorch tensors as the C interpreter sees them, for a PyTorch extension's C++ run with the
//! tensors a Python script passes it: a tensor is a handle holding its sizes and its scalar
//! type, answering `x.size(i)`, `x.sizes()`, `x.numel()`, `x.dim()`, `x.stride(i)`,
//! `x.scalar_type()`, `x.options()`, `x.data_ptr<T>()`, the packed accessors, and the reshapes
//! and makers that keep or set a shape (`view`, `reshape`, `transpose`, `t`, `torch::empty`,
//! `torch::empty_like`, …). `AT_DISPATCH_*` then picks the instance of the tensor's scalar
//! type. What a function computes from values (`x.item()`, a reduction's shape) is unknown.
//!
//! The names are those kerncast's declarations of the extension API give
//! (`host/prelude/kerncast_torch_api.h`): `at::Tensor::size`, `at::empty`, `c10::…`.

use super::access::{buffer_of, Arg, Place};
use super::launches;
use super::state::Interp;
use super::value::{Buffer, Handle, Ptr, Record, Value};
// defined with the values, as a handle holds one
pub use super::value::Tensor;
use crate::ast::Expr;
use crate::heap;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

impl Tensor {
    pub fn value(self) -> Value {
        Value::Handle(heap::shared(Handle::Tensor(self)))
    }

    fn unknown(why: &str, scalar_type: Option<i8>) -> Tensor {
        Tensor {
            sizes: Vec::new(),
            scalar_type,
            unknown_shape: Some(Rc::from(why)),
            named: None,
        }
    }

    fn numel(&self) -> Value {
        if let Some(w) = &self.unknown_shape {
            return Value::unknown(w);
        }
        let mut n: i128 = 1;
        for s in &self.sizes {
            match s.as_int() {
                Some(v) => n = n.saturating_mul(v),
                None => return s.clone(),
            }
        }
        Value::Int(n)
    }

    fn dim(&self, i: &Value) -> Value {
        if let Some(w) = &self.unknown_shape {
            return Value::unknown(w);
        }
        match i.as_int().and_then(|i| self.index(i)) {
            Some(j) => self.sizes[j].clone(),
            None if i.is_unknown() => i.clone(),
            None => Value::unknown("a size past the tensor's dimensions (PyTorch raises an error)"),
        }
    }

    fn index(&self, i: i128) -> Option<usize> {
        let n = self.sizes.len() as i128;
        let j = if i < 0 { i + n } else { i };
        (0..n).contains(&j).then_some(j as usize)
    }

    /// The strides of a contiguous tensor of these sizes.
    fn strides(&self) -> Vec<Value> {
        let mut out = vec![Value::Int(1); self.sizes.len()];
        let mut acc = Value::Int(1);
        for i in (0..self.sizes.len()).rev() {
            out[i] = acc.clone();
            acc = match (acc.as_int(), self.sizes[i].as_int()) {
                (Some(a), Some(s)) => Value::Int(a * s.max(1)),
                _ => Value::unknown("a stride of a tensor whose sizes kerncast does not know"),
            };
        }
        out
    }

    fn with_sizes(&self, sizes: Vec<Value>) -> Value {
        Tensor {
            sizes,
            scalar_type: self.scalar_type,
            unknown_shape: None,
            named: None,
        }
        .value()
    }

    fn same(&self) -> Value {
        self.clone().value()
    }
}

/// The tensor a value holds, if it is one.
pub fn tensor_of(v: &Value) -> Option<Tensor> {
    match v {
        Value::Handle(h) => match &*h.borrow() {
            Handle::Tensor(t) => Some(t.clone()),
            _ => None,
        },
        Value::Ptr(Ptr::Cell(c)) => tensor_of(&c.borrow()),
        _ => None,
    }
}

fn last(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}

/// A list of sizes (`IntArrayRef`: a braced list, a vector, `x.sizes()`, or one integer).
fn sizes_arg(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Int(_) => Some(vec![v.clone()]),
        _ => buffer_of(v).and_then(|b| b.borrow().elements()),
    }
}

/// Sizes with one `-1` inferred from the element count, as PyTorch infers it.
fn reshaped(t: &Tensor, sizes: Vec<Value>) -> Value {
    let minus: Vec<usize> = (0..sizes.len())
        .filter(|i| sizes[*i].as_int() == Some(-1))
        .collect();
    match minus.as_slice() {
        [] => t.with_sizes(sizes),
        [i] => {
            let known = sizes
                .iter()
                .enumerate()
                .filter(|(j, _)| j != i)
                .try_fold(1i128, |acc, (_, s)| s.as_int().map(|v| acc * v));
            let inferred = match (t.numel().as_int(), known) {
                (Some(n), Some(k)) if k > 0 && n % k == 0 => Value::Int(n / k),
                (Some(_), Some(_)) => {
                    Value::unknown("a view whose sizes do not divide the element count")
                }
                _ => Value::unknown("a size inferred from an element count kerncast does not know"),
            };
            let mut out = sizes;
            out[*i] = inferred;
            t.with_sizes(out)
        }
        _ => Tensor::unknown("a view with more than one -1", t.scalar_type).value(),
    }
}

fn arg(args: &[Arg], i: usize) -> Value {
    args.get(i).map(|a| a.value()).unwrap_or(Value::Void)
}

fn record(ty: &str, fields: Vec<(String, Value)>) -> Value {
    Value::Record(heap::shared(Record {
        ty: Arc::from(ty),
        fields: fields
            .into_iter()
            .map(|(k, v)| (Arc::from(k.as_str()), v))
            .collect::<BTreeMap<_, _>>(),
    }))
}

/// A packed accessor: its sizes and strides by value, as ATen's hold them.
fn accessor(t: &Tensor) -> Value {
    let mut fields = Vec::new();
    for (i, s) in t.sizes.iter().enumerate() {
        fields.push((format!("size{i}"), s.clone()));
    }
    for (i, s) in t.strides().into_iter().enumerate() {
        fields.push((format!("stride{i}"), s));
    }
    record("at::GenericPackedTensorAccessor", fields)
}

fn options(scalar_type: Option<i8>) -> Value {
    let st = match scalar_type {
        Some(s) => Value::Int(s as i128),
        None => Value::unknown("the dtype of a tensor kerncast does not know"),
    };
    record("c10::TensorOptions", vec![("dtype".into(), st)])
}

fn scalar_type_of_options(v: &Value) -> Option<i8> {
    match v {
        Value::Record(r) => r
            .borrow()
            .fields
            .get("dtype")
            .and_then(|d| d.as_int())
            .map(|d| d as i8),
        Value::Int(i) => Some(*i as i8),
        _ => tensor_of(v).and_then(|t| t.scalar_type),
    }
}

/// A method of `at::Tensor` (or of `c10::TensorOptions`); `None` when not a tensor's.
pub(super) fn method(
    _it: &mut Interp<'_>,
    name: &str,
    place: &Place,
    object: &Value,
    args: &[Arg],
    _e: &Expr,
) -> Option<Value> {
    let m = last(name);
    let api_class = ["at::Tensor::", "c10::TensorOptions::", "c10::IntArrayRef::"]
        .iter()
        .any(|c| name.starts_with(c));
    // The API declares its classes' copies and assignments (so that clang does not define
    // them with empty bodies): a copy is the value, an assignment writes it.
    if api_class && m == "operator=" {
        let v = arg(args, 0);
        place.write(v.clone());
        return Some(v);
    }
    if name.contains("TensorOptions") {
        if let Value::Record(_) = object {
            return Some(match m {
                "dtype" if !args.is_empty() => options(scalar_type_of_options(&arg(args, 0))),
                "dtype" => match scalar_type_of_options(object) {
                    Some(s) => Value::Int(s as i128),
                    None => Value::unknown("the dtype of a tensor kerncast does not know"),
                },
                _ => object.clone(),
            });
        }
        return None;
    }
    let t = tensor_of(object)?;
    let a0 = arg(args, 0);
    if let Some(v) = named_size(_it, &t, m, &a0, _e) {
        return Some(v);
    }
    Some(match m {
        "size" => t.dim(&a0),
        "sizes" => match &t.unknown_shape {
            Some(w) => Value::unknown(w),
            None => Value::Array(heap::shared(Buffer::from_values(t.sizes.clone()))),
        },
        "stride" => match a0.as_int().and_then(|i| t.index(i)) {
            Some(j) => t.strides()[j].clone(),
            None => Value::unknown("a stride kerncast does not know"),
        },
        "strides" => Value::Array(heap::shared(Buffer::from_values(t.strides()))),
        "numel" | "nbytes" if m == "numel" => t.numel(),
        "dim" | "ndimension" => match &t.unknown_shape {
            Some(w) => Value::unknown(w),
            None => Value::Int(t.sizes.len() as i128),
        },
        "element_size" | "nbytes" => {
            let bytes = match t.scalar_type {
                Some(0 | 1 | 11) => Some(1),
                Some(2 | 5 | 15) => Some(2),
                Some(3 | 6) => Some(4),
                Some(4 | 7 | 9) => Some(8),
                Some(10) => Some(16),
                _ => None,
            };
            match (bytes, m) {
                (Some(b), "element_size") => Value::Int(b),
                (Some(b), _) => match t.numel().as_int() {
                    Some(n) => Value::Int(n * b),
                    None => t.numel(),
                },
                (None, _) => Value::unknown("the dtype of a tensor kerncast does not know"),
            }
        }
        "scalar_type" | "dtype" => match t.scalar_type {
            Some(s) => Value::Int(s as i128),
            None => Value::unknown("the dtype of a tensor kerncast does not know"),
        },
        "options" => options(t.scalar_type),
        "is_cuda" | "is_contiguous" | "defined" => Value::Int(1),
        "is_cpu" | "requires_grad" => Value::Int(0),
        "storage_offset" => Value::Int(0),
        "device" => record("c10::Device", vec![("type".into(), Value::Int(1))]),
        "get_device" => Value::Int(0),
        "data_ptr" | "data" | "const_data_ptr" | "mutable_data_ptr" => {
            Value::Ptr(Ptr::Opaque("a tensor's device memory"))
        }
        "accessor"
        | "packed_accessor"
        | "packed_accessor32"
        | "packed_accessor64"
        | "generic_packed_accessor" => accessor(&t),
        "view" | "reshape" | "expand" | "new_empty" | "new_zeros" | "new_ones" | "new_full" => {
            match sizes_arg(&a0) {
                Some(s) if m.starts_with("new") => t.with_sizes(s),
                Some(s) => reshaped(&t, s),
                None => Tensor::unknown("a shape kerncast does not know", t.scalar_type).value(),
            }
        }
        "t" | "transpose" | "permute" => {
            let mut sizes = t.sizes.clone();
            let n = sizes.len();
            match (m, args.len()) {
                ("t", _) if n <= 2 => sizes.reverse(),
                ("transpose", 2) => match (
                    a0.as_int().and_then(|i| t.index(i)),
                    arg(args, 1).as_int().and_then(|i| t.index(i)),
                ) {
                    (Some(x), Some(y)) => sizes.swap(x, y),
                    _ => {
                        return Some(
                            Tensor::unknown(
                                "a transpose of dimensions kerncast does not know",
                                t.scalar_type,
                            )
                            .value(),
                        )
                    }
                },
                ("permute", 1) => {
                    let order: Option<Vec<usize>> = sizes_arg(&a0).and_then(|o| {
                        o.iter()
                            .map(|d| d.as_int().and_then(|d| t.index(d)))
                            .collect()
                    });
                    match order {
                        Some(o) if o.len() == n => {
                            sizes = o.iter().map(|i| t.sizes[*i].clone()).collect()
                        }
                        _ => {
                            return Some(
                                Tensor::unknown(
                                    "a permutation kerncast does not know",
                                    t.scalar_type,
                                )
                                .value(),
                            )
                        }
                    }
                }
                _ => {
                    return Some(
                        Tensor::unknown("a transpose kerncast does not read", t.scalar_type)
                            .value(),
                    )
                }
            }
            t.with_sizes(sizes)
        }
        "flatten" if args.is_empty() => t.with_sizes(vec![t.numel()]),
        "unsqueeze" => match a0.as_int() {
            Some(d) => {
                let n = t.sizes.len() as i128 + 1;
                let d = if d < 0 { d + n } else { d };
                if !(0..n).contains(&d) {
                    return Some(
                        Tensor::unknown("an unsqueeze out of range", t.scalar_type).value(),
                    );
                }
                let mut s = t.sizes.clone();
                s.insert(d as usize, Value::Int(1));
                t.with_sizes(s)
            }
            None => Tensor::unknown("an unsqueeze kerncast does not know", t.scalar_type).value(),
        },
        "select" => match a0.as_int().and_then(|i| t.index(i)) {
            Some(j) => {
                let mut s = t.sizes.clone();
                s.remove(j);
                t.with_sizes(s)
            }
            None => Tensor::unknown("a select kerncast does not know", t.scalar_type).value(),
        },
        "narrow" => match a0.as_int().and_then(|i| t.index(i)) {
            Some(j) => {
                let mut s = t.sizes.clone();
                s[j] = arg(args, 2);
                t.with_sizes(s)
            }
            None => Tensor::unknown("a narrow kerncast does not know", t.scalar_type).value(),
        },
        "operator[]" => {
            if t.sizes.is_empty() {
                return Some(Tensor::unknown("an element of a tensor", t.scalar_type).value());
            }
            t.with_sizes(t.sizes[1..].to_vec())
        }
        "contiguous" | "cuda" | "cpu" | "clone" | "detach" | "type_as" | "abs" | "sqrt" | "exp"
        | "log" | "sigmoid" | "tanh" | "relu" | "pow" | "clamp" | "masked_fill" | "operator-" => {
            t.same()
        }
        "to" => match scalar_type_of_options(&a0) {
            Some(s) if matches!(a0, Value::Int(_)) => Tensor {
                scalar_type: Some(s),
                ..t
            }
            .value(),
            _ => t.same(),
        },
        "fill_" | "zero_" | "copy_" | "add_" | "sub_" | "mul_" | "div_" | "operator+="
        | "operator-=" | "operator*=" | "operator/=" | "set_requires_grad" => object.clone(),
        "item" => Value::unknown("a tensor's value, which the host does not read"),
        _ => Tensor::unknown(
            &format!("the result of `{m}`, whose shape kerncast does not model"),
            t.scalar_type,
        )
        .value(),
    })
}

/// A tensor the program is given from outside, named `name` (a parameter of an extension's
/// function that nothing in the program calls): its shape is unknown, its sizes assumptions
/// named after it.
pub(super) fn given(name: &str) -> Value {
    Tensor {
        sizes: Vec::new(),
        scalar_type: None,
        unknown_shape: Some(Rc::from(format!(
            "a size of the tensor `{name}` the function is given, which nothing in the program makes"
        ))),
        named: Some(Rc::from(name)),
    }
    .value()
}

/// What a method of a named tensor of unknown shape ([`given`]) reads of its sizes: an
/// assumption named after the size (`x.sizes[0]`, `x.numel`); a packed accessor holds the
/// sizes its rank names and the strides of a contiguous tensor of them. `None` for anything
/// else.
fn named_size(it: &mut Interp<'_>, t: &Tensor, m: &str, a0: &Value, e: &Expr) -> Option<Value> {
    let (name, why) = (t.named.as_ref()?, t.unknown_shape.as_ref()?);
    let size = |it: &mut Interp<'_>, i: usize| it.assumption(&format!("{name}.sizes[{i}]"), why);
    match m {
        "size" => {
            let i = usize::try_from(a0.as_int()?).ok()?;
            Some(size(it, i))
        }
        "numel" => Some(it.assumption(&format!("{name}.numel"), why)),
        "accessor"
        | "packed_accessor"
        | "packed_accessor32"
        | "packed_accessor64"
        | "generic_packed_accessor" => {
            let rank = accessor_rank(e.ty.record_name()?)?;
            let sizes: Vec<Value> = (0..rank).map(|i| size(it, i)).collect();
            it.note(format!(
                "`{name}.strides` are those of a contiguous tensor of `{name}`'s sizes: the \
                 tensor is given from outside the program, and kerncast takes it as contiguous"
            ));
            let known = Tensor {
                sizes,
                scalar_type: t.scalar_type,
                unknown_shape: None,
                named: None,
            };
            Some(accessor(&known))
        }
        _ => None,
    }
}

/// The rank `N` of a packed accessor type (`at::GenericPackedTensorAccessor<float, 2, …>`,
/// `(unsigned long)2` as clang may spell it).
fn accessor_rank(ty: &str) -> Option<usize> {
    let args = ty.split_once('<')?.1;
    let n = args.split(',').nth(1)?.trim();
    let digits: String = n
        .rsplit(')')
        .next()?
        .trim()
        .trim_end_matches(['u', 'U', 'l', 'L'])
        .to_string();
    digits.parse().ok().filter(|r| *r <= 8)
}

/// A function of the extension API (`at::empty`, `at::zeros_like`, `at::matmul`, …); `None`
/// when `name` is not one.
pub(super) fn call(_it: &mut Interp<'_>, name: &str, args: &[Arg], _e: &Expr) -> Option<Value> {
    if !(name.starts_with("at::") || name.starts_with("torch::") || name.starts_with("c10::")) {
        return None;
    }
    let f = last(name);
    let a0 = arg(args, 0);
    let first_tensor = args.iter().find_map(|a| tensor_of(&a.value()));
    // The options argument, where given: the last TensorOptions record or scalar type.
    let dtype = args.iter().skip(1).rev().find_map(|a| match a.value() {
        v @ Value::Record(_) => scalar_type_of_options(&v),
        _ => None,
    });
    Some(match f {
        "empty" | "zeros" | "ones" | "rand" | "randn" | "full" | "empty_strided" => {
            match sizes_arg(&a0) {
                Some(s) => Tensor {
                    sizes: s,
                    scalar_type: dtype.or(Some(6)),
                    unknown_shape: None,
                    named: None,
                }
                .value(),
                None => Tensor::unknown("a shape kerncast does not know", dtype).value(),
            }
        }
        "empty_like" | "zeros_like" | "ones_like" | "full_like" | "rand_like" | "randn_like" => {
            match tensor_of(&a0) {
                Some(t) => Tensor {
                    scalar_type: dtype.or(t.scalar_type),
                    ..t
                }
                .value(),
                None => Tensor::unknown("a tensor like one kerncast does not know", dtype).value(),
            }
        }
        "matmul" | "mm" | "bmm" | "addmm" | "baddbmm" => {
            let ts: Vec<Tensor> = args.iter().filter_map(|a| tensor_of(&a.value())).collect();
            let (x, y) = match (f, ts.as_slice()) {
                ("addmm" | "baddbmm", [_, x, y, ..]) => (x, y),
                (_, [x, y, ..]) => (x, y),
                _ => {
                    return Some(
                        Tensor::unknown("a product of tensors kerncast does not know", None)
                            .value(),
                    )
                }
            };
            if x.unknown_shape.is_some()
                || y.unknown_shape.is_some()
                || x.sizes.len() < 2
                || y.sizes.len() < 2
            {
                return Some(
                    Tensor::unknown(
                        "a product of tensors whose shapes kerncast does not know",
                        x.scalar_type,
                    )
                    .value(),
                );
            }
            let mut s = x.sizes[..x.sizes.len() - 1].to_vec();
            s.push(y.sizes[y.sizes.len() - 1].clone());
            x.with_sizes(s)
        }
        "transpose" => match tensor_of(&a0) {
            Some(t) => {
                let (x, y) = (
                    arg(args, 1).as_int().and_then(|i| t.index(i)),
                    arg(args, 2).as_int().and_then(|i| t.index(i)),
                );
                match (x, y) {
                    (Some(x), Some(y)) => {
                        let mut s = t.sizes.clone();
                        s.swap(x, y);
                        t.with_sizes(s)
                    }
                    _ => {
                        Tensor::unknown("a transpose kerncast does not know", t.scalar_type).value()
                    }
                }
            }
            None => return None,
        },
        "relu" | "sigmoid" | "tanh" | "exp" | "log" | "pow" | "clamp" | "gelu" | "silu"
        | "dropout" | "layer_norm" | "softmax" | "where" | "operator+" | "operator-"
        | "operator*" | "operator/" | "abs" | "sqrt" => match first_tensor {
            Some(t) => t.same(),
            None => return None,
        },
        "device_of" => record("c10::Device", vec![("type".into(), Value::Int(1))]),
        "dtype" => options(scalar_type_of_options(&a0)),
        "cat" | "stack" | "sum" | "mean" | "max" | "min" | "einsum" | "linear" | "chunk"
        | "split" | "flatten" | "addmv" => Tensor::unknown(
            &format!("the result of `{f}`, whose shape kerncast does not model"),
            first_tensor.and_then(|t| t.scalar_type),
        )
        .value(),
        _ => return None,
    })
}

/// A constructor of the extension API's types: a tensor copied or moved is the same tensor.
pub(super) fn construct(name: &str, args: &[Arg]) -> Option<Value> {
    let class = name.rsplit_once("::").map(|(c, _)| c).unwrap_or(name);
    match last(class) {
        "Tensor" => match args {
            [a] => Some(a.value()),
            [] => Some(Tensor::unknown("an undefined tensor", None).value()),
            _ => None,
        },
        "TensorOptions" => match args {
            [a] if matches!(a.value(), Value::Record(_) | Value::Unknown(_)) => Some(a.value()),
            _ => Some(options(
                args.first()
                    .and_then(|a| scalar_type_of_options(&a.value())),
            )),
        },
        "IntArrayRef" | "ArrayRef" => match args {
            [a] => match a.value() {
                v @ Value::Int(_) => Some(Value::Array(heap::shared(Buffer::from_values(vec![v])))),
                v => buffer_of(&v).map(|_| v),
            },
            _ => None,
        },
        _ => None,
    }
}

/// What a launch argument shows for a tensor (a packed accessor's sizes are its fields).
pub fn describe(t: &Tensor) -> String {
    let sizes: Vec<String> = t.sizes.iter().map(launches::describe).collect();
    format!("tensor[{}]", sizes.join(","))
}
