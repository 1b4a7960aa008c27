//! The scalar types of the PyTorch tensors host code makes, which pick the instance an
//! `AT_DISPATCH_*` call runs:
//!
//! ```text
//! auto x = torch::randn({n}, opts.dtype(torch::kHalf));   x.dtype = 5 (c10::ScalarType::Half)
//! auto y = torch::zeros({n});                              y.dtype = 6 (Float, the default)
//! auto z = torch::empty_like(x);                           z.dtype = x.dtype
//! auto g = w.reshape({b, -1});                             g.dtype = w.dtype
//! auto d = x.to(torch::kDouble);                           d.dtype = 7
//! auto m = torch::addmm(x, x, w);                          m.dtype = x.dtype
//! AT_DISPATCH_FLOATING_TYPES(y.scalar_type(), …)           runs the `float` instance
//! ```
//!
//! A dtype is a `c10::ScalarType` number, a name like a tensor's sizes (`x.dtype`), so it
//! follows a tensor into the helpers it is passed to as they do (`bound`). Options kerncast
//! cannot read (a variable assigned elsewhere, `x.dtype()` of a tensor it does not know) give
//! no dtype, and a tensor made twice or assigned again has none: the dispatch then stays
//! unresolved, and the report says so.

use super::c_text::matching_close;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// `c10::ScalarType`'s numbers, as ATen numbers them, with the C++ type each dispatch case
/// binds `scalar_t` to (as the demangler spells it) and the constants that name it.
const SCALAR_TYPES: &[(i64, &str, &[&str])] = &[
    (0, "unsigned char", &["kByte", "kUInt8", "Byte"]),
    (1, "signed char", &["kChar", "kInt8", "Char"]),
    (2, "short", &["kShort", "kInt16", "Short"]),
    (3, "int", &["kInt", "kInt32", "Int"]),
    (4, "long", &["kLong", "kInt64", "Long"]),
    (5, "c10::Half", &["kHalf", "kFloat16", "Half"]),
    (6, "float", &["kFloat", "kFloat32", "Float"]),
    (7, "double", &["kDouble", "kFloat64", "Double"]),
    (11, "bool", &["kBool", "Bool"]),
    (15, "c10::BFloat16", &["kBFloat16", "BFloat16"]),
];

/// PyTorch's default dtype, of a floating tensor made without one.
const FLOAT: i64 = 6;
/// The dtype of `torch::full` with an integer fill value and no dtype.
const LONG: i64 = 4;

/// The C++ type an `AT_DISPATCH_*` case binds `scalar_t` to for the dtype `code`.
pub(crate) fn cpp_type(code: i64) -> Option<&'static str> {
    SCALAR_TYPES
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, ty, _)| *ty)
}

/// The dtype a text names with one of ATen's constants (`torch::kHalf`, `at::kFloat32`,
/// `c10::ScalarType::Double`), if it names exactly one.
pub(crate) fn named_dtype(text: &str) -> Option<i64> {
    static CONSTANT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:k[A-Z][A-Za-z]*\d*|ScalarType\s*::\s*[A-Z][A-Za-z]*\d*)\b").unwrap()
    });
    let mut found = CONSTANT.find_iter(text).filter_map(|m| {
        let name = m.as_str().rsplit("::").next().unwrap_or(m.as_str()).trim();
        SCALAR_TYPES
            .iter()
            .find(|(_, _, names)| names.contains(&name))
            .map(|(code, _, _)| *code)
    });
    let first = found.next()?;
    found.all(|c| c == first).then_some(first)
}

/// `auto x = torch::randn(` or `auto h = at::zeros_like(`: the tensor, the maker, `_like`.
static MADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:auto|(?:torch|at)::Tensor)\s+([A-Za-z_]\w*)\s*=\s*(?:torch|at)::(zeros|ones|empty|rand|randn|full)(_like)?\s*\(",
    )
    .unwrap()
});
/// `auto g = w.reshape(`, `auto d = x.to(`, `auto h = x.half(`: the tensor, its source, the
/// method.
static FROM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:auto|(?:torch|at)::Tensor)\s+([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\.\s*(reshape|view|contiguous|to|half|bfloat16)\s*\(",
    )
    .unwrap()
});

/// `auto y = torch::addmm(x, …)`: the tensor and the first tensor of an operation whose result
/// has that tensor's dtype (arithmetic, products, activations), short of type promotion
/// between tensors of two dtypes, which extensions do not rely on.
static OPERATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:auto|(?:torch|at)::Tensor)\s+([A-Za-z_]\w*)\s*=\s*(?:torch|at)::(?:addmm|mm|matmul|bmm|baddbmm|linear|add|sub|mul|div|relu|sigmoid|tanh|exp|log|sqrt|abs|neg|clamp|pow|softmax|layer_norm)\s*\(\s*([A-Za-z_]\w*)\s*[,)]",
    )
    .unwrap()
});

/// The dtype names (`x.dtype`, as a number or another tensor's name) of the tensors `scope`
/// makes that `code` never assigns again or resizes.
pub(super) fn dtypes_in(scope: &str, code: &str) -> BTreeMap<String, String> {
    let mut made: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut note = |name: &str, dtype: Option<String>| {
        made.entry(name.to_string())
            .and_modify(|d| *d = None)
            .or_insert(dtype);
    };
    for c in MADE.captures_iter(scope) {
        let Some(args) = call_args(scope, c.get(0).expect("the match").end() - 1) else {
            note(&c[1], None);
            continue;
        };
        let like = c.get(3).is_some();
        let dtype = match args.as_slice() {
            // `torch::zeros_like(x, options…)`: x's dtype unless the options name one
            [model, options @ ..] if like => {
                options_dtype(options, scope).or_else(|| Some(format!("{}.dtype", model.trim())))
            }
            // `torch::full({n}, 7)` is a tensor of int64, `torch::full({n}, 1.5)` of float
            [_sizes, fill, options @ ..] if &c[2] == "full" => options_dtype(options, scope)
                .or_else(|| {
                    let integer = fill.trim().parse::<i64>().is_ok();
                    options
                        .is_empty()
                        .then(|| if integer { LONG } else { FLOAT }.to_string())
                }),
            [_sizes, options @ ..] => options_dtype(options, scope)
                .or_else(|| options.is_empty().then(|| FLOAT.to_string())),
            [] => None,
        };
        note(&c[1], dtype);
    }
    for c in FROM.captures_iter(scope) {
        let source = format!("{}.dtype", &c[2]);
        let dtype = match &c[3] {
            "reshape" | "view" | "contiguous" => Some(source),
            // `float()` and the like are C++ keywords, so ATen names only these casts
            "half" => named_dtype("kHalf").map(|c| c.to_string()),
            "bfloat16" => named_dtype("kBFloat16").map(|c| c.to_string()),
            // `x.to(torch::kHalf)` casts; `x.to(device)` or `x.to(x.device())` moves, keeping it
            _ => call_args(scope, c.get(0).expect("the match").end() - 1).and_then(|args| {
                let text = args.join(",");
                match named_dtype(&text) {
                    Some(code) => Some(code.to_string()),
                    None if moves_only(&args) => Some(source),
                    None => None,
                }
            }),
        };
        note(&c[1], dtype);
    }
    for c in OPERATION.captures_iter(scope) {
        note(&c[1], Some(format!("{}.dtype", &c[2])));
    }
    made.into_iter()
        .filter(|(name, _)| !super::tensors::changed(code, name))
        .filter_map(|(name, dtype)| Some((format!("{name}.dtype"), dtype?)))
        .collect()
}

/// The arguments of the call whose `(` is at `open` in `text`.
fn call_args(text: &str, open: usize) -> Option<Vec<String>> {
    let close = matching_close(text.as_bytes(), open)?;
    Some(
        split_top(&text[open + 1..close])
            .into_iter()
            .filter(|a| !a.trim().is_empty())
            .collect(),
    )
}

/// Whether the arguments of a `.to(…)` only move a tensor: a device (`torch::kCUDA`,
/// `x.device()`, a variable named for one) and flags.
fn moves_only(args: &[String]) -> bool {
    static DEVICE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:(?:torch|at|c10)::k(?:CUDA|CPU)|\w*dev\w*|\w+\s*\.\s*device\s*\(\s*\)|true|false|/\*.*\*/)$").unwrap()
    });
    !args.is_empty() && args.iter().all(|a| DEVICE.is_match(a.trim()))
}

/// The dtype the options of a maker give (`torch::kHalf`, `opts.dtype(torch::kDouble)`,
/// `x.options()`, an `opts` assigned such options in `scope`); `None` where they name none or
/// kerncast cannot read them.
fn options_dtype(options: &[String], scope: &str) -> Option<String> {
    let text = options.join(",");
    if let Some(dtype) = written_dtype(&text) {
        return Some(dtype);
    }
    // `auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kHalf);`, once
    let [one] = options else { return None };
    let name = super::c_text::bare_name(one.trim())?;
    let assigned =
        super::c_text::cached_regex(&format!(r"\b{}\s*=\s*([^;]*);", regex::escape(name)))
            .expect("an escaped name makes a valid pattern");
    let found: Vec<_> = assigned.captures_iter(scope).collect();
    let [only] = &found[..] else { return None };
    let value = only[1].trim();
    written_dtype(value).or_else(|| {
        // options without a dtype keep the default
        (value.contains("TensorOptions") && !value.contains("dtype")).then(|| FLOAT.to_string())
    })
}

/// The dtype options written out give: a constant (`torch::kHalf`, `opts.dtype(torch::kDouble)`)
/// or another tensor's (`x.options()`).
fn written_dtype(options: &str) -> Option<String> {
    static OF: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*)\s*\.\s*options\s*\(\s*\)").unwrap());
    match named_dtype(options) {
        Some(code) => Some(code.to_string()),
        None => OF
            .captures(options.trim())
            .map(|c| format!("{}.dtype", &c[1])),
    }
}

/// The tensor an `AT_DISPATCH_*` call's arguments (`args`, the text inside its parentheses)
/// dispatch on: the first that reads a tensor's type (`x.scalar_type()`, `x.type()`,
/// `x.dtype()`).
pub(super) fn dispatched_tensor(args: &str) -> Option<String> {
    static TYPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^([A-Za-z_]\w*)\s*\.\s*(?:scalar_type|type|dtype)\s*\(\s*\)$").unwrap()
    });
    split_top(args)
        .iter()
        .find_map(|a| TYPE.captures(a.trim()).map(|c| c[1].to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constants_name_the_scalar_types_and_their_cpp_types() {
        assert_eq!(named_dtype("torch::kHalf"), Some(5));
        assert_eq!(named_dtype("at::kFloat16"), Some(5));
        assert_eq!(named_dtype("x.options().dtype(torch::kFloat64)"), Some(7));
        assert_eq!(named_dtype("c10::ScalarType::BFloat16"), Some(15));
        assert_eq!(named_dtype("torch::kCUDA"), None);
        assert_eq!(named_dtype("torch::kHalf, torch::kFloat"), None);
        assert_eq!(cpp_type(6), Some("float"));
        assert_eq!(cpp_type(5), Some("c10::Half"));
        assert_eq!(cpp_type(99), None);
    }

    #[test]
    fn tensors_made_with_or_without_a_dtype_have_one() {
        let code = "auto opts = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kHalf);\n\
                    auto a = torch::randn({n, 64}, opts);\n\
                    auto b = torch::zeros({n});\n\
                    auto c = torch::empty({n}, a.options());\n\
                    auto d = torch::zeros_like(b);\n\
                    auto e = torch::ones_like(b, torch::kDouble);\n\
                    auto f = torch::full({n}, 7);\n\
                    auto g = a.reshape({-1});\n\
                    auto h = b.to(torch::kBFloat16);\n\
                    auto i = b.to(device);\n\
                    auto j = b.half();\n\
                    auto k = torch::empty({n}, make_options());\n\
                    auto l = torch::addmm(a, a, w.t());\n";
        let d = dtypes_in(code, code);
        let dtype = |n: &str| d.get(&format!("{n}.dtype")).map(String::as_str);
        assert_eq!(dtype("a"), Some("5"));
        assert_eq!(dtype("b"), Some("6"));
        assert_eq!(dtype("c"), Some("a.dtype"));
        assert_eq!(dtype("d"), Some("b.dtype"));
        assert_eq!(dtype("e"), Some("7"));
        assert_eq!(dtype("f"), Some("4"));
        assert_eq!(dtype("g"), Some("a.dtype"));
        assert_eq!(dtype("h"), Some("15"));
        assert_eq!(dtype("i"), Some("b.dtype"));
        assert_eq!(dtype("j"), Some("5"));
        // options kerncast cannot read give none
        assert_eq!(dtype("k"), None);
        // an operation's result has its first tensor's
        assert_eq!(dtype("l"), Some("a.dtype"));
    }

    #[test]
    fn a_tensor_made_twice_or_assigned_again_has_no_dtype() {
        let code = "auto x = torch::zeros({8});\nx = x.to(torch::kHalf);\n\
                    auto y = torch::zeros({8});\nauto y = torch::zeros({8}, torch::kHalf);\n";
        assert!(dtypes_in(code, code).is_empty());
    }

    #[test]
    fn a_dispatch_names_the_tensor_whose_type_it_reads() {
        assert_eq!(
            dispatched_tensor("gates.scalar_type(), \"cell\", ([&] { k<<<1, 1>>>(); })"),
            Some("gates".to_string())
        );
        assert_eq!(
            dispatched_tensor("at::ScalarType::Half, x.type(), \"f\", [&] {}"),
            Some("x".to_string())
        );
        assert_eq!(dispatched_tensor("st, \"f\", [&] {}"), None);
    }
}
