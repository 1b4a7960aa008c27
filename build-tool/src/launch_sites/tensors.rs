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
//! follow from its sizes. A tensor assigned again, or resized in place (`x.resize_(…)`), has no
//! one shape and gives no names. A Python host's `torch.randn(4096, 4096)` is shaped as such a
//! declaration (`python_host::arrays`), and a helper given a tensor sees its names under the
//! parameter's name (`bound`).

use super::c_text::matching_close;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// `auto x = torch::randn({`, up to the brace that opens the sizes.
static MADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:auto|(?:torch|at)::Tensor)\s+([A-Za-z_]\w*)\s*=\s*(?:torch|at)::(?:zeros|ones|empty|rand|randn|full)\s*\(\s*\{",
    )
    .unwrap()
});

/// The shape names of the tensors `scope` makes that `code` never assigns again or resizes.
pub(super) fn shapes_in(scope: &str, code: &str) -> BTreeMap<String, String> {
    let mut made: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    for c in MADE.captures_iter(scope) {
        let open = c.get(0).expect("the match").end() - 1;
        let sizes = matching_close(scope.as_bytes(), open).map(|close| {
            split_top(&scope[open + 1..close])
                .into_iter()
                .filter(|d| !d.trim().is_empty())
                .collect::<Vec<_>>()
        });
        // made twice: which making a launch sees is not known here
        made.entry(c[1].to_string())
            .and_modify(|s| *s = None)
            .or_insert(sizes.filter(|s| !s.is_empty()));
    }
    made.into_iter()
        .filter(|(name, _)| !changed(code, name))
        .filter_map(|(name, sizes)| Some(shape_names(&name, &sizes?)))
        .flatten()
        .collect()
}

/// The names of a contiguous tensor `name` of sizes `sizes`, as the expressions read them.
pub(super) fn shape_names(name: &str, sizes: &[String]) -> Vec<(String, String)> {
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
fn changed(code: &str, name: &str) -> bool {
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
}
