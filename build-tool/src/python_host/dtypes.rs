//! The dtype of a PyTorch tensor a Python host makes, as its maker and the casts after it give
//! it (`torch.zeros(n, dtype=torch.float16)`, `torch.randn(n).cuda().half()`). It travels to
//! the C-shaped copy as the options of the C maker (`arrays::Made::c_with`), which
//! `launch_sites::dtypes` reads for the `AT_DISPATCH_*` calls the tensor reaches.

use super::split_top;
use regex::Regex;
use std::sync::LazyLock;

/// A PyTorch tensor's dtype as a Python statement gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Dtype {
    /// None given: PyTorch's default, float32, or a `*_like` tensor's model's.
    Default,
    /// An ATen constant (`torch::kHalf`).
    Named(&'static str),
    /// Given in a way kerncast does not read (`dtype=x.dtype`, a variable).
    Unknown,
}

/// The dtype a maker's arguments `args` and the casts after it (`after`: `.half()`,
/// `.to(torch.float16)`) give a tensor; `fallback` where neither names one and the maker's
/// default is not float32.
pub(super) fn dtype_given(args: &[String], fallback: Option<&'static str>, after: &str) -> Dtype {
    let made = match super::kwarg(args, "dtype") {
        Some(d) => python_dtype(&d).map_or(Dtype::Unknown, Dtype::Named),
        None => fallback.map_or(Dtype::Default, Dtype::Named),
    };
    cast(after).unwrap_or(made)
}

/// The dtype the last cast of a chain of calls (`.cuda().half()`, `.to(device,
/// torch.float64)`) gives, if it casts.
pub(super) fn cast(chain: &str) -> Option<Dtype> {
    static CALL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\.\s*([a-z_0-9]+)\s*\(([^()]*)\)").unwrap());
    CALL.captures_iter(chain)
        .filter_map(|c| match &c[1] {
            "half" => Some(Dtype::Named("torch::kHalf")),
            "float" => Some(Dtype::Named("torch::kFloat")),
            "double" => Some(Dtype::Named("torch::kDouble")),
            "bfloat16" => Some(Dtype::Named("torch::kBFloat16")),
            "int" => Some(Dtype::Named("torch::kInt")),
            "long" => Some(Dtype::Named("torch::kLong")),
            "to" => {
                let args = split_top(&c[2]);
                let named = args.iter().find_map(|a| {
                    let value = a.split_once('=').map_or(a.as_str(), |(_, v)| v);
                    python_dtype(value)
                });
                match named {
                    Some(constant) => Some(Dtype::Named(constant)),
                    None if args.iter().all(|a| moves(a)) => None,
                    None => Some(Dtype::Unknown),
                }
            }
            _ => None,
        })
        .last()
}

/// Whether an argument of `.to(…)` only moves a tensor: a device (`'cuda'`, `device`,
/// `x.device`) or a flag (`non_blocking=True`).
fn moves(arg: &str) -> bool {
    static DEVICE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)^(?:['"](?:cuda|cpu)(?::\d+)?['"]|\w*dev\w*|\w+\.device|torch\.device\(.*\)|non_blocking\s*=.*|copy\s*=.*)$"#)
            .unwrap()
    });
    DEVICE.is_match(arg.trim())
}

/// The ATen constant of a PyTorch dtype as Python names it (`torch.float16`, `torch.half`).
fn python_dtype(text: &str) -> Option<&'static str> {
    Some(match text.trim().strip_prefix("torch.")? {
        "float16" | "half" => "torch::kHalf",
        "float32" | "float" => "torch::kFloat",
        "float64" | "double" => "torch::kDouble",
        "bfloat16" => "torch::kBFloat16",
        "int32" | "int" => "torch::kInt",
        "int64" | "long" => "torch::kLong",
        "int16" | "short" => "torch::kShort",
        "int8" => "torch::kChar",
        "uint8" => "torch::kByte",
        "bool" => "torch::kBool",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tensor_s_dtype_is_given_by_its_maker_and_its_casts() {
        let dtype = |s: &str| crate::python_host::arrays::made(s).unwrap().dtype;
        assert_eq!(dtype("x = torch.randn(8, device='cuda')"), Dtype::Default);
        assert_eq!(
            dtype("x = torch.zeros(8, dtype=torch.float64)"),
            Dtype::Named("torch::kDouble")
        );
        assert_eq!(
            dtype("x = torch.zeros(8, dtype=torch.float64).to('cuda').half()"),
            Dtype::Named("torch::kHalf")
        );
        assert_eq!(
            dtype("x = torch.randn(8).to(device, torch.bfloat16)"),
            Dtype::Named("torch::kBFloat16")
        );
        assert_eq!(dtype("x = torch.randn(8).to(device)"), Dtype::Default);
        assert_eq!(
            dtype("x = torch.full((8,), 7)"),
            Dtype::Named("torch::kLong")
        );
        assert_eq!(dtype("x = torch.full((8,), 1.5)"), Dtype::Default);
        assert_eq!(dtype("x = torch.zeros(8, dtype=dt)"), Dtype::Unknown);
        assert_eq!(dtype("x = torch.zeros(8).to(other)"), Dtype::Unknown);
        assert_eq!(cast(".cuda().contiguous()"), None);
    }
}
