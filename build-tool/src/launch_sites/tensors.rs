//! The shapes of the PyTorch tensors host code makes with sizes, which an extension's launches
//! read back (`c_text::c_expr` names `x.size(1)` `x.sizes[1]` and `x.numel()` `x.numel`):
//!
//! ```text
//! auto x = torch::randn({rows, 4096}, opts);   x.sizes[0] = rows, x.sizes[1] = 4096,
//!                                              x.sizes[-1] = 4096, x.numel = (rows) * (4096),
//!                                              x.strides[0] = 4096, x.strides[1] = 1
//! ```
//!
//! The makers read are `torch::` and `at::` `zeros`, `ones`, `empty`, `rand`, `randn` and `full`,
//! whose first argument is the braced list of sizes. A new tensor is contiguous, so its strides
//! follow from its sizes. A tensor reshaped to a braced list of sizes (`g.reshape({b, 3, s})`,
//! `.view(…)`) has those sizes, one `-1` among them inferred from `g.numel` as PyTorch infers
//! it, and its strides are not known. A `*_like` tensor
//! (`torch::zeros_like(c)`) has the sizes of its model, under the model's names
//! (`h.sizes[1] = c.sizes[1]`, for up to [`LIKE_RANK`] dimensions), so they take the model's
//! values where a caller gives them. A tensor assigned again, or resized in place
//! (`x.resize_(…)`), has no one shape and gives no names. A Python host's
//! `torch.randn(4096, 4096)` is shaped as such a declaration (`python_host::arrays`), and a
//! helper given a tensor sees its names under the parameter's name (`bound`).

use super::c_text::matching_close;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// `auto x = torch::randn({` or `auto g = w.reshape({`, up to the brace that opens the sizes;
/// the second group is the reshaped tensor.
static MADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:auto|(?:torch|at)::Tensor)\s+([A-Za-z_]\w*)\s*=\s*(?:(?:torch|at)::(?:zeros|ones|empty|rand|randn|full)|([A-Za-z_]\w*)\s*\.\s*(?:reshape|view))\s*\(\s*\{",
    )
    .unwrap()
});
/// `auto h = torch::zeros_like(c`: the tensor and its model.
static LIKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:auto|(?:torch|at)::Tensor)\s+([A-Za-z_]\w*)\s*=\s*(?:torch|at)::(?:zeros|ones|empty|rand|randn|full)_like\s*\(\s*([A-Za-z_]\w*)\s*[,)]",
    )
    .unwrap()
});
/// How many dimensions of its model a `*_like` tensor's names cover.
const LIKE_RANK: i64 = 6;

/// How a tensor is made: new with its sizes (contiguous), reshaped to them (strides not
/// known), or like another tensor.
#[derive(Clone, Debug, PartialEq)]
enum Making {
    New(Vec<String>),
    Reshaped(Vec<String>),
    Like(String),
}

/// The shape names of the tensors `scope` makes that `code` never assigns again or resizes.
pub(super) fn shapes_in(scope: &str, code: &str) -> BTreeMap<String, String> {
    let mut made: BTreeMap<String, Option<Making>> = BTreeMap::new();
    let mut note = |name: &str, making: Option<Making>| {
        // made twice: which making a launch sees is not known here
        made.entry(name.to_string())
            .and_modify(|m| *m = None)
            .or_insert(making);
    };
    for c in MADE.captures_iter(scope) {
        let open = c.get(0).expect("the match").end() - 1;
        let sizes = matching_close(scope.as_bytes(), open).map(|close| {
            split_top(&scope[open + 1..close])
                .into_iter()
                .filter(|d| !d.trim().is_empty())
                .collect::<Vec<_>>()
        });
        let sizes = sizes.filter(|s| !s.is_empty());
        let making = match c.get(2) {
            Some(of) => sizes
                .and_then(|s| with_inferred_size(&s, &format!("{}.numel", of.as_str())))
                .map(Making::Reshaped),
            // a new tensor's size is never inferred: `torch::zeros({-1})` is an error
            None => sizes
                .filter(|s| s.iter().all(|d| d.trim() != "-1"))
                .map(Making::New),
        };
        note(&c[1], making);
    }
    for c in LIKE.captures_iter(scope) {
        note(&c[1], Some(Making::Like(c[2].to_string())));
    }
    made.into_iter()
        .filter(|(name, _)| !changed(code, name))
        .filter_map(|(name, making)| {
            Some(match making? {
                Making::New(sizes) => shape_names(&name, &sizes),
                Making::Reshaped(sizes) => shape_names(&name, &sizes)
                    .into_iter()
                    .filter(|(n, _)| !n.contains(".strides["))
                    .collect(),
                Making::Like(model) => like_names(&name, &model),
            })
        })
        .flatten()
        .collect()
}

/// A reshape's sizes with its one `-1` inferred as PyTorch does: the reshaped tensor's element
/// count `count` over the other sizes (`w.reshape({b, -1})`: `(w.numel) / ((b))`). Two `-1`s
/// are an error in PyTorch, so they give no sizes.
pub(crate) fn with_inferred_size(sizes: &[String], count: &str) -> Option<Vec<String>> {
    let inferred = |d: &String| d.trim() == "-1";
    let others: Vec<String> = sizes
        .iter()
        .filter(|d| !inferred(d))
        .map(|d| format!("({})", d.trim()))
        .collect();
    let size = match sizes.len() - others.len() {
        0 => return Some(sizes.to_vec()),
        1 if others.is_empty() => count.to_string(),
        1 => format!("({count}) / ({})", others.join(" * ")),
        _ => return None,
    };
    Some(
        sizes
            .iter()
            .map(|d| if inferred(d) { size.clone() } else { d.clone() })
            .collect(),
    )
}

/// The names of a tensor made like `model`: the model's, for up to [`LIKE_RANK`] dimensions.
fn like_names(name: &str, model: &str) -> Vec<(String, String)> {
    if name == model {
        return Vec::new();
    }
    let mut out = vec![(format!("{name}.numel"), format!("{model}.numel"))];
    for k in -LIKE_RANK..LIKE_RANK {
        out.push((format!("{name}.sizes[{k}]"), format!("{model}.sizes[{k}]")));
    }
    out
}

/// The names of a contiguous tensor `name` of sizes `sizes`, as the expressions read them.
fn shape_names(name: &str, sizes: &[String]) -> Vec<(String, String)> {
    let rank = sizes.len();
    let mut out = Vec::new();
    let product = |dims: &[String]| match dims {
        [] => "1".to_string(),
        [one] => one.trim().to_string(),
        _ => dims
            .iter()
            .map(|d| format!("({})", d.trim()))
            .collect::<Vec<_>>()
            .join(" * "),
    };
    out.push((format!("{name}.numel"), product(sizes)));
    for (k, size) in sizes.iter().enumerate() {
        let stride = product(&sizes[k + 1..]);
        let from_end = k as i64 - rank as i64;
        for index in [k as i64, from_end] {
            out.push((format!("{name}.sizes[{index}]"), size.trim().to_string()));
            out.push((format!("{name}.strides[{index}]"), stride.clone()));
        }
    }
    out
}

/// Whether `code` assigns the tensor `name` again (past its one making) or resizes it in place.
pub(super) fn changed(code: &str, name: &str) -> bool {
    let n = regex::escape(name);
    let assigned = crate::launch_sites::c_text::cached_regex(&format!(r"\b{n}\s*=[^=]"))
        .expect("an escaped name makes a valid pattern");
    let resized = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{n}\s*\.\s*(?:resize_|resize_as_|set_|squeeze_|unsqueeze_|t_|transpose_|as_strided_)\s*\("
    ))
    .expect("an escaped name makes a valid pattern");
    assigned.find_iter(code).count() > 1 || resized.is_match(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_tensor_made_with_sizes_has_its_shape_and_contiguous_strides() {
        let code = "auto opts = torch::TensorOptions().device(torch::kCUDA);\n\
                    auto x = torch::randn({rows, 4096}, opts);\n\
                    torch::Tensor v = at::zeros({n});\n";
        assert_eq!(
            shapes_in(code, code),
            names(&[
                ("v.numel", "n"),
                ("v.sizes[0]", "n"),
                ("v.sizes[-1]", "n"),
                ("v.strides[0]", "1"),
                ("v.strides[-1]", "1"),
                ("x.numel", "(rows) * (4096)"),
                ("x.sizes[0]", "rows"),
                ("x.sizes[-2]", "rows"),
                ("x.sizes[1]", "4096"),
                ("x.sizes[-1]", "4096"),
                ("x.strides[0]", "4096"),
                ("x.strides[-2]", "4096"),
                ("x.strides[1]", "1"),
                ("x.strides[-1]", "1"),
            ])
        );
    }

    #[test]
    fn a_tensor_made_again_or_resized_has_no_one_shape() {
        for later in [
            "x = torch::randn({8});",
            "x.resize_({8, 8});",
            "auto x = torch::ones({2});",
        ] {
            let code = format!("auto x = torch::randn({{64, 64}});\n{later}\n");
            assert!(shapes_in(&code, &code).is_empty(), "{code}");
        }
        // a copy of it, a comparison and a read are no change
        let code = "auto x = torch::randn({64});\nauto y = x.clone();\nbool same = x == y;\n";
        assert_eq!(shapes_in(code, code)["x.numel"], "64");
    }

    #[test]
    fn a_reshaped_tensor_has_its_sizes_and_one_made_like_another_has_the_other_s() {
        let code = "auto gates = gate_weights.reshape({batch, 3, state});\n\
                    auto flat = x.view({-1, 64});\n\
                    auto new_h = torch::zeros_like(old_cell);\n";
        let names = shapes_in(code, code);
        assert_eq!(names["gates.sizes[1]"], "3");
        assert_eq!(names["gates.sizes[-1]"], "state");
        assert_eq!(names["gates.numel"], "(batch) * (3) * (state)");
        // strides of a reshape depend on the tensor reshaped
        assert!(!names.contains_key("gates.strides[0]"));
        // a size of -1 is the reshaped tensor's elements over the other sizes
        assert_eq!(names["flat.sizes[0]"], "(x.numel) / ((64))");
        assert_eq!(names["flat.sizes[-1]"], "64");
        assert_eq!(names["flat.numel"], "((x.numel) / ((64))) * (64)");
        assert_eq!(names["new_h.sizes[0]"], "old_cell.sizes[0]");
        assert_eq!(names["new_h.sizes[-1]"], "old_cell.sizes[-1]");
        assert_eq!(names["new_h.numel"], "old_cell.numel");
    }

    #[test]
    fn only_one_size_of_a_reshape_is_inferred_and_none_of_a_new_tensor() {
        let code = "auto a = x.reshape({-1});\n\
                    auto b = x.view({-1, -1});\n\
                    auto c = torch::zeros({-1, 8});\n";
        let names = shapes_in(code, code);
        assert_eq!(names["a.sizes[0]"], "x.numel");
        assert!(!names
            .keys()
            .any(|n| n.starts_with("b.") || n.starts_with("c.")));
    }
}
