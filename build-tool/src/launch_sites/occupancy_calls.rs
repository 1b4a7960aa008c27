//! Host names the CUDA occupancy API sets, for launches sized by it:
//! `cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, kernel, dynamicSMem,
//! blockSizeLimit)` and `cudaOccupancyMaxActiveBlocksPerMultiprocessor(&numBlocks, kernel,
//! blockSize, dynamicSMem)`, and their `WithFlags` forms (whose flag changes only caching).
//! The answers depend on the device and the kernel's registers, so they are asked of each
//! prediction's device ([`crate::workload::DeviceQuery`]), not read here.

use super::c_text::{bare_name, matching_close, one_line};
use super::host_defs::set_only_through_address;
use crate::workload::split_top;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Which answer of the occupancy API a name holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryKind {
    /// `cudaOccupancyMaxPotentialBlockSize`'s block size.
    MaxPotentialBlockSize,
    /// `cudaOccupancyMaxPotentialBlockSize`'s minimum grid size.
    MinGridSize,
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`'s blocks.
    ActiveBlocksPerSm,
}

/// A name set by a call of the occupancy API.
#[derive(Clone, Debug, PartialEq)]
pub struct HostQuery {
    pub kind: QueryKind,
    /// The kernel asked about, as written, casts removed (`scale`, `scale<float>`).
    pub kernel: String,
    /// The sizes the call passes, as C text: dynamic shared bytes and the block-size limit
    /// (`MaxPotentialBlockSize`, `MinGridSize`), or threads per block and dynamic shared bytes.
    pub args: [String; 2],
    /// The call, on one line.
    pub shown: String,
}

static CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(cudaOccupancyMaxPotentialBlockSize|cudaOccupancyMaxActiveBlocksPerMultiprocessor)(?:WithFlags)?\s*\(",
    )
    .unwrap()
});
/// Casts a kernel is passed through (`(void *)k`, `reinterpret_cast<const void *>(k)`).
static CAST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\(\s*(?:const\s+)?void\s*\*\s*\)|\b(?:reinterpret|static)_cast\s*<[^>]*>").unwrap()
});

/// The names the occupancy calls in `scope` set, where `code` (the file) gives them no other
/// value.
pub(super) fn queries(scope: &str, code: &str) -> BTreeMap<String, HostQuery> {
    let mut out = BTreeMap::new();
    for c in CALL.captures_iter(scope) {
        let open = c.get(0).map_or(0, |m| m.end() - 1);
        let Some(close) = matching_close(scope.as_bytes(), open) else {
            continue;
        };
        let args = split_top(&scope[open + 1..close]);
        let shown = one_line(&scope[c.get(0).map_or(0, |m| m.start())..=close]);
        let arg = |i: usize, default: &str| {
            args.get(i)
                .filter(|a| !a.is_empty())
                .cloned()
                .unwrap_or_else(|| default.to_string())
        };
        let (set, kernel, sizes) = match &c[1] {
            "cudaOccupancyMaxPotentialBlockSize" if args.len() >= 3 => (
                vec![
                    (args[0].as_str(), QueryKind::MinGridSize),
                    (args[1].as_str(), QueryKind::MaxPotentialBlockSize),
                ],
                &args[2],
                [arg(3, "0"), arg(4, "0")],
            ),
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor" if args.len() >= 4 => (
                vec![(args[0].as_str(), QueryKind::ActiveBlocksPerSm)],
                &args[1],
                [arg(2, "0"), arg(3, "0")],
            ),
            _ => continue,
        };
        for (address, kind) in set {
            let Some(name) = address.trim().strip_prefix('&').and_then(bare_name) else {
                continue;
            };
            if set_only_through_address(code, name) {
                let query = HostQuery {
                    kind,
                    kernel: kernel_of(kernel),
                    args: sizes.clone(),
                    shown: shown.clone(),
                };
                out.insert(name.to_string(), query);
            }
        }
    }
    out
}

/// The kernel an argument names: `(void *)scale` and `reinterpret_cast<void *>(&scale)` name
/// `scale`.
fn kernel_of(arg: &str) -> String {
    let bare = CAST.replace_all(arg, "");
    one_line(bare.trim_matches(|c: char| c.is_whitespace() || "&()".contains(c)))
}

/// Whether a call asking about `asked` asks about the kernel a launch names (`launched`):
/// the same name, namespaces and template arguments aside where only one side has them.
pub(super) fn same_kernel(asked: &str, launched: &str) -> bool {
    let strip = |k: &str| -> String {
        let k: String = k.chars().filter(|c| !c.is_whitespace()).collect();
        k.rsplit("::").next().unwrap_or_default().to_string()
    };
    let (a, l) = (strip(asked), strip(launched));
    let base = crate::annotations::template_base;
    a == l || ((!a.contains('<') || !l.contains('<')) && base(&a) == base(&l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calls_name_what_they_set_and_for_which_kernel() {
        let code = "int minGrid = 0, blockSize = 0;\ncudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, (void *)scale, 0, 0);\nint numBlocks;\ncudaOccupancyMaxActiveBlocksPerMultiprocessor(&numBlocks, reinterpret_cast<const void *>(&ns::sum<256>), threads, threads * sizeof(float));\nint other;\ncudaOccupancyMaxPotentialBlockSize(&other, &blockSize2, fill);\nother = 4;\n";
        let q = queries(code, code);
        assert_eq!(
            q.keys().collect::<Vec<_>>(),
            ["blockSize", "blockSize2", "minGrid", "numBlocks"]
        );
        assert_eq!(q["blockSize"].kind, QueryKind::MaxPotentialBlockSize);
        assert_eq!(q["minGrid"].kind, QueryKind::MinGridSize);
        assert_eq!(
            (q["blockSize"].kernel.as_str(), &q["blockSize"].args),
            ("scale", &["0".to_string(), "0".to_string()])
        );
        assert_eq!(q["numBlocks"].kernel, "ns::sum<256>");
        assert_eq!(
            q["numBlocks"].args,
            ["threads".to_string(), "threads * sizeof(float)".to_string()]
        );
        // defaults: no dynamic shared memory and no limit
        assert_eq!(q["blockSize2"].args, ["0".to_string(), "0".to_string()]);
        // `other` is assigned again, so it is not the API's answer
        assert!(!q.contains_key("other"));
    }

    #[test]
    fn a_kernel_is_the_same_up_to_namespace_and_missing_template_arguments() {
        assert!(same_kernel("scale", "scale"));
        assert!(same_kernel("ns::sum<256>", "sum<256>"));
        assert!(same_kernel("sum", "sum<256>"));
        assert!(!same_kernel("sum<128>", "sum<256>"));
        assert!(!same_kernel("scale", "fill"));
    }
}
