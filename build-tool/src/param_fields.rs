//! Fields of parameters passed by value as structs (`struct Dims { int n, m; }`, `int2`).
//!
//! nvcc passes such a parameter as bytes (`.param .align 4 .b8 k_param_0[8]`) and the body reads
//! each field with `ld.param.s32 %r, [k_param_0+4]`. The counter names that field `p0_4`; a
//! workload sets it by byte offset, `d+4=1000`, or by the source's field name, `d.m=1000`, which
//! this module lays out from the struct's definition in the same file (C's natural alignment).
//! A field whose type it cannot lay out ends the layout there: later fields are named by
//! offset only, never by a guessed one.

use crate::workload::{Expr, Workload, WorkloadSpec};
use kerncast_passes::emu::KernelArg;
use kerncast_passes::ptx::{Function, ParamField, PtxType};
use std::collections::BTreeMap;

/// A field of a by-value parameter, named as the source names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceField {
    /// `d.m`, `dims.x`, `p.inner.y`.
    pub name: String,
    /// The parameter's position.
    pub param: usize,
    /// Byte offset within the parameter.
    pub offset: u64,
}

/// The workload key of the field at `offset` of parameter `name`: `d+4`.
pub fn offset_key(name: &str, offset: u64) -> String {
    format!("{name}+{offset}")
}

/// Whether `ty` is a scalar or CUDA vector type (`float`, `unsigned int`, `float4`).
pub fn is_builtin_type(ty: &str) -> bool {
    builtin(ty).is_some()
}

/// Size and alignment of a scalar or CUDA vector type, by name.
fn builtin(ty: &str) -> Option<(u64, u64, &'static [&'static str])> {
    const XYZW: [&str; 4] = ["x", "y", "z", "w"];
    let scalar = match ty {
        "char" | "signed char" | "unsigned char" | "bool" | "int8_t" | "uint8_t" | "uchar" => 1,
        "short" | "unsigned short" | "ushort" | "int16_t" | "uint16_t" | "half" | "__half"
        | "__nv_bfloat16" => 2,
        "int" | "unsigned" | "unsigned int" | "uint" | "float" | "int32_t" | "uint32_t"
        | "__half2" | "half2" | "__nv_bfloat162" => 4,
        "long" | "unsigned long" | "long long" | "unsigned long long" | "ulong" | "size_t"
        | "ptrdiff_t" | "int64_t" | "uint64_t" | "double" => 8,
        _ => 0,
    };
    if scalar > 0 {
        return Some((scalar, scalar, &[]));
    }
    // char2 … double4, as cuda's vector_types.h aligns them
    let n = ty.chars().last()?.to_digit(10)? as u64;
    let elem = match &ty[..ty.len() - 1] {
        "char" | "uchar" => 1,
        "short" | "ushort" => 2,
        "int" | "uint" | "float" => 4,
        "long" | "ulong" | "longlong" | "ulonglong" | "double" => 8,
        _ => return None,
    };
    if !(1..=4).contains(&n) {
        return None;
    }
    let size = elem * n;
    let align = if n == 3 { elem } else { size.min(16) };
    Some((size, align, &XYZW[..n as usize]))
}

/// Struct definitions of `text` by name: `struct S { … };` and `typedef struct [T] { … } S;`,
/// as their member declarations (`int n, m;` gives `int n` and `int m`).
fn struct_bodies(text: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = rest.find("struct") {
        let after = &rest[at + "struct".len()..];
        let word_start = at == 0
            || !rest[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        rest = after;
        if !word_start || !after.starts_with(|c: char| c.is_whitespace() || c == '{') {
            continue;
        }
        let Some(open) = after.find(['{', ';', '(', ')']) else {
            break;
        };
        if !after[open..].starts_with('{') {
            continue;
        }
        let tag = after[..open].split_whitespace().last().map(str::to_string);
        let Some(close) = after[open..].find('}') else {
            break;
        };
        let body = &after[open + 1..open + close];
        let tail = &after[open + close + 1..];
        let typedef_name = tail
            .split(';')
            .next()
            .map(str::trim)
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let members: Vec<(String, String)> = body
            .split(';')
            .flat_map(|decl| {
                let decl = decl.trim();
                let first_comma = decl.find(',').unwrap_or(decl.len());
                // a default member initializer (`int n = 0`) is no part of the name
                let head = decl[..first_comma]
                    .split('=')
                    .next()
                    .unwrap_or("")
                    .trim_end();
                let split = head
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '[' || c == ']'))
                    .map_or(0, |i| i + 1);
                let ty = head[..split].trim().to_string();
                std::iter::once(head[split..].to_string())
                    .chain(
                        decl[first_comma..]
                            .split(',')
                            .skip(1)
                            .map(|s| s.split('=').next().unwrap_or("").trim().to_string()),
                    )
                    .filter(|n| !n.is_empty())
                    .map(move |n| (ty.clone(), n))
                    .collect::<Vec<_>>()
            })
            .collect();
        for name in tag.into_iter().chain(typedef_name.map(str::to_string)) {
            out.insert(name, members.clone());
        }
        rest = tail;
    }
    out
}

/// `const float * __restrict__` → `float *`; `struct S` → `S`.
fn plain_type(ty: &str) -> String {
    let words: Vec<&str> = ty
        .split(|c: char| c.is_whitespace())
        .filter(|w| {
            !w.is_empty()
                && !matches!(
                    *w,
                    "const" | "volatile" | "struct" | "__restrict__" | "__restrict" | "restrict"
                )
        })
        .collect();
    words.join(" ").replace(" *", "*")
}

/// A PyTorch packed tensor accessor (`torch::PackedTensorAccessor32<float, 2, …>`,
/// `PackedTensorAccessor64`, `GenericPackedTensorAccessor<T, N, Traits, index_t>`): its
/// dimensions and the bytes of its index type, where its dimensions are a number.
fn tensor_accessor(ty: &str) -> Option<(u64, u64)> {
    let (name, rest) = ty.split_once('<')?;
    let args = crate::workload::split_top(rest.strip_suffix('>')?);
    let dims = args.get(1)?.trim().parse::<u64>().ok()?;
    let index_bytes = match name.trim().rsplit("::").next()? {
        "PackedTensorAccessor32" => 4,
        "PackedTensorAccessor64" => 8,
        "GenericPackedTensorAccessor" | "PackedTensorAccessor" => {
            match args.get(3).map(|a| a.trim()) {
                Some("int32_t" | "int") => 4,
                Some("int64_t") | None => 8,
                Some(_) => return None,
            }
        }
        _ => return None,
    };
    Some((dims, index_bytes))
}

/// Appends the fields of a value of type `ty` at `base` named `prefix`; returns its size and
/// alignment, or `None` where the layout stops (a type it does not know).
fn lay_out(
    ty: &str,
    prefix: &str,
    base: u64,
    structs: &BTreeMap<String, Vec<(String, String)>>,
    depth: usize,
    out: &mut Vec<(String, u64)>,
) -> Option<(u64, u64)> {
    let ty = plain_type(ty);
    if ty.ends_with('*') {
        out.push((prefix.to_string(), base));
        return Some((8, 8));
    }
    if let Some((size, align, lanes)) = builtin(&ty) {
        if lanes.is_empty() {
            out.push((prefix.to_string(), base));
        }
        let elem = if lanes.is_empty() {
            size
        } else {
            size / lanes.len() as u64
        };
        for (k, lane) in lanes.iter().enumerate() {
            out.push((format!("{prefix}.{lane}"), base + k as u64 * elem));
        }
        return Some((size, align));
    }
    if let Some((dims, index_bytes)) = tensor_accessor(&ty) {
        // ATen's packed accessor: the data pointer, then `sizes_[N]` and `strides_[N]`
        out.push((format!("{prefix}.data"), base));
        for k in 0..dims {
            out.push((format!("{prefix}.sizes[{k}]"), base + 8 + k * index_bytes));
        }
        for k in 0..dims {
            let at = base + 8 + (dims + k) * index_bytes;
            out.push((format!("{prefix}.strides[{k}]"), at));
        }
        return Some(((8 + 2 * dims * index_bytes).div_ceil(8) * 8, 8));
    }
    let members = structs.get(&ty).filter(|_| depth < 8)?;
    let (mut off, mut align) = (0u64, 1u64);
    for (mty, mname) in members {
        let (name, count) = match mname.split_once('[') {
            Some((n, dim)) => (
                n.trim(),
                dim.trim_end_matches(']').trim().parse::<u64>().ok()?,
            ),
            None => (mname.as_str(), 1),
        };
        // lay the first element out at an offset found once its alignment is known
        let mut probe = Vec::new();
        let (size, a) = lay_out(mty, "", 0, structs, depth + 1, &mut probe)?;
        off = off.div_ceil(a) * a;
        align = align.max(a);
        for k in 0..count {
            let at = off + k * size;
            let elem = if count > 1 {
                format!("{prefix}.{name}[{k}]")
            } else {
                format!("{prefix}.{name}")
            };
            lay_out(mty, &elem, base + at, structs, depth + 1, out)?;
        }
        off += size * count;
    }
    Some((off.div_ceil(align) * align, align))
}

/// The fields of the parameters `params` (type text, name) that the source lays out.
pub fn source_fields(text: &str, params: &[(String, String)]) -> Vec<SourceField> {
    let structs = struct_bodies(text);
    let mut out = Vec::new();
    for (i, (ty, name)) in params.iter().enumerate() {
        // a pointer (an array parameter's `T (*)[N]` too) lays out no field of its own
        if plain_type(ty).contains('*') {
            continue;
        }
        let mut laid = Vec::new();
        // a layout that stops part way still names the fields before the one it does not know
        let _ = lay_out(ty, name, 0, &structs, 0, &mut laid);
        out.extend(
            laid.into_iter()
                .filter(|(n, _)| n != name)
                .map(|(n, offset)| SourceField {
                    name: n,
                    param: i,
                    offset,
                }),
        );
    }
    out
}

/// Gives every parameter of `spec` that names a source field (`d.m`) an alias by offset
/// (`d+4`), which is what the counters read; the source name stays for the expressions.
pub fn alias_fields(spec: &mut WorkloadSpec, fields: &[SourceField], names: &[String]) {
    let alias = |k: &String| {
        let f = fields.iter().find(|f| f.name == *k)?;
        let key = offset_key(names.get(f.param)?, f.offset);
        let taken = spec.params.iter().any(|(n, _)| *n == key);
        (!taken).then(|| (key, Expr::Var(k.clone())))
    };
    let extra: Vec<(String, Expr)> = spec.params.iter().filter_map(|(k, _)| alias(k)).collect();
    spec.params.extend(extra);
    let given = spec.hints.clone();
    alias_buffer_hints(&mut spec.hints, &given, fields, names, false);
}

/// The `buffer_bytes.FIELD` hints of `given` that size the buffer a pointer field points to by
/// the field's source name (`buffer_bytes.p.in`, as a host's allocation gives it) also under
/// the key the emulator reads, by offset (`buffer_bytes.p+0`). A size `hints` already has by
/// offset stays unless `replace` (a user's hint by name over the host's).
pub fn alias_buffer_hints(
    hints: &mut BTreeMap<String, f64>,
    given: &BTreeMap<String, f64>,
    fields: &[SourceField],
    names: &[String],
    replace: bool,
) {
    for (k, v) in given {
        let Some(field) = k.strip_prefix("buffer_bytes.") else {
            continue;
        };
        let Some(f) = fields.iter().find(|f| f.name == field) else {
            continue;
        };
        let Some(param) = names.get(f.param) else {
            continue;
        };
        let key = format!("buffer_bytes.{}", offset_key(param, f.offset));
        if replace || !hints.contains_key(&key) {
            hints.insert(key, *v);
        }
    }
}

/// The field (position, offset) a workload key names: `NAME+OFFSET`, with NAME the source name
/// (`names`), the PTX name or `p<i>` of an aggregate parameter, or a source field name (`d.m`).
pub fn field_of_key(
    key: &str,
    f: &Function,
    names: &[String],
    fields: &[SourceField],
) -> Option<(usize, u64)> {
    if let Some(fd) = fields.iter().find(|fd| fd.name == key) {
        return Some((fd.param, fd.offset));
    }
    let (base, off) = key.rsplit_once('+')?;
    let off = off.trim().parse::<u64>().ok()?;
    let base = base.trim();
    let i = f.params.iter().enumerate().position(|(i, p)| {
        p.is_aggregate()
            && (p.name == base
                || names.get(i).is_some_and(|n| n == base)
                || format!("p{i}") == base)
    })?;
    Some((i, off))
}

/// The values `w` gives the fields of `f`'s aggregate parameters, (position, offset, value),
/// from its `NAME+OFFSET` keys (see [`alias_fields`] for source field names).
pub fn field_values(w: &Workload, f: &Function, names: &[String]) -> Vec<(usize, u64, i64)> {
    w.params
        .iter()
        .filter_map(|(k, v)| field_of_key(k, f, names, &[]).map(|(i, off)| (i, off, *v)))
        .collect()
}

/// What a workload gives a field: an integer (`--param p+8=3`) or a float (a `param.p+8`
/// hint, as host code's floats come).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue {
    Int(i64),
    Float(f64),
}

/// The bytes of the aggregate parameter `i` of `f`: each field the body reads holds
/// `value(offset)` in the type the body reads it as (a float as a float, an integer as the
/// integer it holds), the rest is zero. The fields `value` has nothing for come back beside the
/// bytes, and hold 0.
pub fn struct_bytes(
    f: &Function,
    i: usize,
    value: impl Fn(u64) -> Option<FieldValue>,
) -> (Vec<u8>, Vec<ParamField>) {
    let mut bytes = vec![0u8; f.params[i].size_bytes().unwrap_or(0) as usize];
    let mut unset = Vec::new();
    for fd in f.param_fields().into_iter().filter(|fd| fd.param == i) {
        let v = value(fd.offset).unwrap_or_else(|| {
            unset.push(fd.clone());
            FieldValue::Int(0)
        });
        let arg = match (fd.ty.as_str(), v) {
            ("f32", FieldValue::Float(x)) => KernelArg::F32(x as f32),
            ("f64", FieldValue::Float(x)) => KernelArg::F64(x),
            (_, FieldValue::Float(x)) => scalar_arg(fd.ty, x as i64),
            (_, FieldValue::Int(n)) => scalar_arg(fd.ty, n),
        };
        let field = arg.scalar_bytes().unwrap_or_default();
        let at = fd.offset as usize;
        if let Some(slot) = bytes.get_mut(at..at + field.len()) {
            slot.copy_from_slice(&field);
        }
    }
    (bytes, unset)
}

/// The fields of `f`'s by-value parameters that may decide a guard, a branch or an address
/// and that `w` does not set, by key (`d+4`, with `names` naming the parameters): an address
/// walk cannot place a stride among them. A value only computed with (an axpy's `__nv_bfloat16
/// a`) is not one of them.
pub fn unset_fields(w: &Workload, f: &Function, names: &[String]) -> Vec<String> {
    let fields = f.param_fields();
    // every bind asks: the analyses below only where there are fields
    if fields.is_empty() {
        return Vec::new();
    }
    let given = field_values(w, f, names);
    let pointers = global_pointer_fields(f);
    let deciding = kerncast_passes::taint::fields_deciding_counts(f);
    fields
        .into_iter()
        .filter(|fd| deciding.contains(&(fd.param, fd.offset as i64)))
        // a pointer is a buffer's base, which the address walk places itself
        .filter(|fd| !pointers.contains(&(fd.param, fd.offset)))
        .filter(|fd| {
            !given
                .iter()
                .any(|(i, o, _)| (*i, *o) == (fd.param, fd.offset))
        })
        .map(|fd| {
            let name = names.get(fd.param).unwrap_or(&f.params[fd.param].name);
            offset_key(name, fd.offset)
        })
        .filter(|key| !w.hints.contains_key(&format!("param.{key}")))
        .collect()
}

/// The fields (parameter, offset) of by-value parameters that hold global pointers: loaded
/// whole (`ld.param.u64 %rd1, [k_param_0]`) and made a global address (`cvta.to.global.u64
/// %rd2, %rd1`), as an accessor's data pointer is. The load may go through a register that
/// holds the parameter's address (`mov.b64 %rd3, k_param_0; ld.param.u64 %rd1, [%rd3+96]`),
/// as clang writes it for a large struct.
pub fn global_pointer_fields(f: &Function) -> Vec<(usize, u64)> {
    use kerncast_passes::ptx::{AddrBase, Operand, StateSpace};
    let aggregate = |s: &str| f.param_index(s).filter(|&k| f.params[k].is_aggregate());
    // registers holding the address of a by-value parameter
    let mut param_at: BTreeMap<&str, usize> = BTreeMap::new();
    let mut loaded: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    let mut out = Vec::new();
    for i in f.instructions() {
        match (i.opcode.as_str(), i.operands.as_slice()) {
            ("mov", [Operand::Reg(d), Operand::Symbol(s)]) => {
                if let Some(k) = aggregate(s) {
                    param_at.insert(d.as_str(), k);
                }
            }
            ("mov", [Operand::Reg(d), Operand::Reg(r)]) => {
                if let Some(&k) = param_at.get(r.as_str()) {
                    param_at.insert(d.as_str(), k);
                }
            }
            ("ld", [Operand::Reg(d), Operand::Addr { base, offset }])
                if i.state_space() == Some(StateSpace::Param) && *offset >= 0 =>
            {
                let param = match base {
                    AddrBase::Symbol(s) => aggregate(s),
                    AddrBase::Reg(r) => param_at.get(r.as_str()).copied(),
                    AddrBase::None => None,
                };
                if let Some(k) = param {
                    loaded.insert(d.as_str(), (k, *offset as u64));
                }
            }
            ("cvta", [Operand::Reg(_), Operand::Reg(r)]) => {
                if let Some(field) = loaded.get(r.as_str()) {
                    out.push(*field);
                }
            }
            _ => {}
        }
    }
    out
}

/// Why no reuse profile is made where [`unset_fields`] is not empty.
pub fn unset_fields_reason(unset: &[String]) -> String {
    format!(
        "the kernel reads fields of by-value parameters that the workload does not set ({}), \
         which may decide its addresses (a size or a stride); give them with --param to profile \
         the addresses",
        unset.join(", ")
    )
}

/// A scalar argument of PTX type `ty` holding `v`.
pub fn scalar_arg(ty: PtxType, v: i64) -> KernelArg {
    let name = ty.as_str();
    match name {
        "f32" => KernelArg::F32(v as f32),
        "f64" => KernelArg::F64(v as f64),
        "u8" | "s8" | "b8" => KernelArg::U8(v as u8),
        "u16" | "s16" | "b16" => KernelArg::U16(v as u16),
        "s64" => KernelArg::S64(v),
        "u64" | "b64" => KernelArg::U64(v as u64),
        "s32" => KernelArg::S32(v as i32),
        _ => KernelArg::U32(v as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, params: &[(&str, &str)]) -> Vec<(String, usize, u64)> {
        let params: Vec<(String, String)> = params
            .iter()
            .map(|(t, n)| (t.to_string(), n.to_string()))
            .collect();
        source_fields(text, &params)
            .into_iter()
            .map(|f| (f.name, f.param, f.offset))
            .collect()
    }

    /// nvcc reads a struct's pointer field straight off the parameter; clang, for a large
    /// struct, through a register holding the parameter's address. Both are pointer fields;
    /// a field read but never made a global address is not.
    #[test]
    fn pointer_fields_are_found_through_the_parameters_address() {
        let text = ".version 7.0\n.target sm_80\n.address_size 64\n\
            .visible .entry k(.param .align 8 .b8 k_param_0[120], .param .align 8 .b8 k_param_1[16])\n{\n\
            .reg .b32 %r<4>;\n.reg .b64 %rd<16>;\n\
            mov.b64 %rd3, k_param_0;\nmov.u64 %rd4, %rd3;\n\
            ld.param.u64 %rd5, [%rd4+96];\ncvta.to.global.u64 %rd6, %rd5;\n\
            ld.param.u64 %rd7, [%rd4+8];\n\
            ld.param.u64 %rd8, [k_param_1];\ncvta.to.global.u64 %rd9, %rd8;\n\
            ld.global.u32 %r1, [%rd6];\nst.global.u32 [%rd9], %r1;\nret;\n}\n";
        let m = kerncast_passes::ptx::Module::parse(text).unwrap();
        let f = m.kernels().next().unwrap();
        assert_eq!(global_pointer_fields(f), vec![(0, 96), (1, 0)]);
    }

    #[test]
    fn a_struct_is_laid_out_with_c_alignment() {
        let text = "struct P { char c; double d; int n = 0, m = 4; float* x; };\n";
        assert_eq!(
            fields(text, &[("const float*", "a"), ("P", "p")]),
            [
                ("p.c".to_string(), 1, 0),
                ("p.d".to_string(), 1, 8),
                ("p.n".to_string(), 1, 16),
                ("p.m".to_string(), 1, 20),
                ("p.x".to_string(), 1, 24),
            ]
        );
    }

    #[test]
    fn a_pytorch_packed_accessor_has_its_sizes_and_strides() {
        // the layout nvcc gives ATen's accessors: `ld.param.v2.u32 [gates+16]` reads sizes[2]
        // and strides[0] of a 3-d PackedTensorAccessor32, a 32-byte parameter
        let got = fields(
            "",
            &[
                (
                    "const torch::PackedTensorAccessor32<scalar_t,3,torch::RestrictPtrTraits>",
                    "g",
                ),
                (
                    "at::GenericPackedTensorAccessor<float, 1, at::DefaultPtrTraits, int64_t>",
                    "h",
                ),
                (
                    "torch::PackedTensorAccessor32<T, N, torch::RestrictPtrTraits>",
                    "t",
                ),
            ],
        );
        let names: Vec<(&str, usize, u64)> =
            got.iter().map(|(n, p, o)| (n.as_str(), *p, *o)).collect();
        assert_eq!(
            names,
            [
                ("g.data", 0, 0),
                ("g.sizes[0]", 0, 8),
                ("g.sizes[1]", 0, 12),
                ("g.sizes[2]", 0, 16),
                ("g.strides[0]", 0, 20),
                ("g.strides[1]", 0, 24),
                ("g.strides[2]", 0, 28),
                ("h.data", 1, 0),
                ("h.sizes[0]", 1, 8),
                ("h.strides[0]", 1, 16),
            ]
        );
        assert_eq!(
            tensor_accessor("PackedTensorAccessor32<float, 3>"),
            Some((3, 4))
        );
        assert_eq!(tensor_accessor("std::array<float, 3>"), None);
    }

    #[test]
    fn typedefs_vectors_nesting_and_arrays_are_named() {
        let text = "typedef struct { int2 lo; float3 org; } Box;\nstruct Q { Box b; short s[2]; };";
        let got = fields(text, &[("struct Q", "q"), ("int2", "dims")]);
        let want = [
            ("q.b.lo.x", 0, 0),
            ("q.b.lo.y", 0, 4),
            ("q.b.org.x", 0, 8),
            ("q.b.org.y", 0, 12),
            ("q.b.org.z", 0, 16),
            // Box is 24 bytes: int2 aligns it to 8 (nvcc reads `ld.param.v2.u16 [q+24]`)
            ("q.s[0]", 0, 24),
            ("q.s[1]", 0, 26),
            ("dims.x", 1, 0),
            ("dims.y", 1, 4),
        ];
        let want: Vec<(String, usize, u64)> = want
            .iter()
            .map(|(n, p, o)| (n.to_string(), *p, *o))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_annotated_field_gets_its_offset_key_but_keeps_its_label() {
        let src = "struct Dims { int n; int m; };\n\
                   // kerncast: workload d.n=512 d.m=2*d.n grid=d.m/256 block=256\n\
                   __global__ void rows(Dims d, float* out) {}\n";
        let k = &crate::annotations::scan(src).unwrap()[0];
        let w = k.workloads[0].resolve().unwrap();
        assert_eq!(w.params.get("d+0"), Some(&512));
        assert_eq!(w.params.get("d+4"), Some(&1024));
        assert_eq!(w.grid, [4, 1, 1]);
        assert_eq!(w.name, "d.m=1024,d.n=512");
    }

    #[test]
    fn an_unknown_member_type_ends_the_layout_there() {
        let text = "struct P { int n; Mystery q; int m; };";
        assert_eq!(
            fields(text, &[("P", "p")]),
            [("p.n".to_string(), 0, 0)],
            "`m` follows a member whose size is unknown, so it gets no offset"
        );
    }
}
