//! Arrays a Python host makes with a size, which its launches read back (`x.size`, `len(x)`):
//!
//! ```text
//! x = cp.zeros(n, dtype=cp.float32)         std::vector<float> x(n);
//! y = cp.random.rand(rows, cols)            std::vector<float> y((rows) * (cols));
//! k(((x.size + 255) // 256,), …)            … (x.size() + 255) / 256 …
//! ```
//!
//! An array is shaped as a C++ container with its element count, so the C reader takes its
//! size as it takes a container's (`launch_sites::containers`): from its one assignment, and
//! not where the file assigns the name again. The makers read are CuPy's, NumPy's and PyCUDA
//! `gpuarray`'s `zeros`, `ones`, `empty` and `full` (a shape first), `arange`, `random.rand`
//! and `random.randn` (sizes as arguments), `random.random` (a shape), `zeros_like` and its
//! kin (another array's size), and PyTorch's `zeros`, `ones`, `empty`, `rand` and `randn`
//! (sizes as arguments, or a shape); `.astype(…)` and `.reshape(…)` after one keep its size,
//! and a tensor reshaped has the reshape's sizes (one `-1` inferred from its element count).
//! `x.size`, `x.numel()`, and `len(x)` and `x.shape[0]` of an array of one dimension read it.

use super::dtypes::{dtype_given, Dtype};
use super::{c_expression, keyword, split_top, tuple};
use regex::Regex;
use std::sync::LazyLock;

/// `name = module.maker(args)…`.
static MADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^([A-Za-z_]\w*)\s*=\s*(cp|cupy|np|numpy|gpuarray|torch)\.((?:random\.)?[a-z_]+)\s*\(",
    )
    .unwrap()
});

/// An array a statement makes: its name, its C declaration, and whether it has one dimension.
#[derive(Debug, PartialEq)]
pub(super) struct Made {
    pub name: String,
    pub c: String,
    pub flat: bool,
    /// The array a `*_like` maker copies the shape of.
    pub like: Option<String>,
    /// A PyTorch tensor's sizes, as C expressions, for its shape's names
    /// (`launch_sites::tensors`); a `*_like` tensor takes those of its `like`.
    pub tensor: Option<Vec<String>>,
    /// Made by PyTorch.
    pub torch: bool,
    /// A PyTorch tensor's dtype, as made and cast in the statement.
    pub dtype: Dtype,
}

impl Made {
    /// The C declarations: the array as a container, and a tensor also as a `torch::` tensor
    /// of its sizes, `tensors` giving those of the file's tensors (for a `*_like`).
    /// The dtype travels as the options of the C maker, which `launch_sites::dtypes` reads;
    /// a name in `recast` (cast into itself elsewhere, `x = x.half()`) has no one dtype.
    pub fn c_with(&self, tensors: &[(String, Vec<String>)], recast: &[String]) -> String {
        let dtype = if recast.contains(&self.name) {
            Dtype::Unknown
        } else {
            self.dtype
        };
        let options = match (dtype, &self.like) {
            (Dtype::Named(constant), _) => format!(", {constant}"),
            (Dtype::Default, Some(model)) => format!(", {model}.options()"),
            (Dtype::Default, None) => String::new(),
            // options kerncast does not read, so no dtype
            (Dtype::Unknown, _) => ", python_dtype".to_string(),
        };
        match self.tensor_sizes(tensors) {
            Some(dims) => format!(
                "{} torch::Tensor {} = torch::empty({{{}}}{options});",
                self.c,
                self.name,
                dims.join(", ")
            ),
            None => self.c.clone(),
        }
    }

    /// The sizes of the tensor it makes, if it makes one with sizes kerncast reads; a
    /// `*_like` tensor has those of its model, when the file makes that once.
    pub fn tensor_sizes(&self, tensors: &[(String, Vec<String>)]) -> Option<Vec<String>> {
        if self.tensor.is_some() {
            return self.tensor.clone();
        }
        let of = self.like.as_ref().filter(|_| self.torch)?;
        match tensors.iter().filter(|(n, _)| n == of).collect::<Vec<_>>()[..] {
            [(_, sizes)] => Some(sizes.clone()),
            _ => None,
        }
    }
}

/// The array the statement makes, if it makes one with a size kerncast reads.
pub(super) fn made(statement: &str) -> Option<Made> {
    let c = MADE.captures(statement)?;
    let (name, module, maker) = (&c[1], &c[2], &c[3]);
    let open = c.get(0).expect("the match").end() - 1;
    let close = crate::launch_sites::c_text::matching_close(statement.as_bytes(), open)?;
    let after = statement[close + 1..].trim();
    // `.astype(…)` and `.reshape(…)` keep the size, and so do PyTorch's moves and casts
    let keeps = |after: &str| {
        after.is_empty()
            || after.starts_with(".astype(")
            || (module == "torch" && torch_keeps_shape(after))
    };
    let kept = keeps(after) || after_reshape(after).is_some_and(keeps);
    if !kept {
        return None;
    }
    let args = split_top(&statement[open + 1..close]);
    let positional: Vec<&String> = args.iter().filter(|a| !keyword(a)).collect();
    let dims: Vec<String> = match (module, maker) {
        (_, m) if m.ends_with("_like") => {
            let of = positional.first()?;
            return Some(Made {
                name: name.to_string(),
                c: format!("std::vector<float> {name}({of}.size());"),
                flat: false,
                like: Some(of.to_string()),
                tensor: None,
                torch: module == "torch",
                dtype: match module {
                    "torch" => dtype_given(&args, None, after),
                    _ => Dtype::Default,
                },
            });
        }
        ("torch", "zeros" | "ones" | "empty" | "rand" | "randn" | "full") => {
            match positional.as_slice() {
                [shape, ..] if maker == "full" => tuple(shape),
                [shape] if shape.starts_with(['(', '[']) => tuple(shape),
                dims => dims.iter().map(|d| d.to_string()).collect(),
            }
        }
        ("torch", _) => return None,
        (_, "zeros" | "ones" | "empty" | "full" | "random.random" | "random.random_sample") => {
            tuple(positional.first()?)
        }
        (_, "arange") => match positional.as_slice() {
            [stop] => vec![stop.to_string()],
            [start, stop] => vec![format!("({stop}) - ({start})")],
            _ => return None,
        },
        (_, "random.rand" | "random.randn") => positional.iter().map(|d| d.to_string()).collect(),
        _ => return None,
    };
    let exprs: Vec<String> = dims
        .iter()
        .map(|d| c_expression(d))
        .collect::<Option<_>>()?;
    if exprs.is_empty() {
        return None;
    }
    let count: Vec<String> = exprs.iter().map(|e| format!("({e})")).collect();
    let count = count.join(" * ");
    let reshaped = after.starts_with(".reshape(");
    let tensor = match module {
        "torch" if reshaped => reshaped_sizes(after, &count),
        "torch" => Some(exprs.clone()),
        _ => None,
    };
    // `torch.full((n,), 7)` is a tensor of int64
    let fill = (maker == "full")
        .then(|| positional.get(1))
        .flatten()
        .map(|f| f.trim());
    let integer_fill = fill.is_some_and(|f| f.parse::<i64>().is_ok());
    Some(Made {
        name: name.to_string(),
        c: format!("std::vector<float> {name}({count});"),
        flat: exprs.len() == 1 && !reshaped,
        like: None,
        tensor,
        torch: module == "torch",
        dtype: match module {
            "torch" => dtype_given(&args, integer_fill.then_some("torch::kLong"), after),
            _ => Dtype::Default,
        },
    })
}

/// The arguments of the `.reshape(…)` that `after` starts with, and what follows it.
fn split_reshape(after: &str) -> Option<(&str, &str)> {
    let open = ".reshape".len();
    if !after.starts_with(".reshape(") {
        return None;
    }
    let close = crate::launch_sites::c_text::matching_close(after.as_bytes(), open)?;
    Some((&after[open + 1..close], after[close + 1..].trim_start()))
}

/// What follows the `.reshape(…)` that `after` starts with, if it starts with one.
fn after_reshape(after: &str) -> Option<&str> {
    split_reshape(after).map(|(_, rest)| rest)
}

/// The sizes of `.reshape(…)` at the start of `after`, as C expressions, for a tensor of
/// `count` elements: one `-1` among them is `count` over the others, as PyTorch infers it.
/// `None` where what follows the reshape may change the shape, or a size is not read.
fn reshaped_sizes(after: &str, count: &str) -> Option<Vec<String>> {
    let (args, rest) = split_reshape(after)?;
    if !rest.is_empty() && !torch_keeps_shape(rest) {
        return None;
    }
    let args = split_top(args);
    let dims: Vec<String> = match args.as_slice() {
        [shape] if shape.trim().starts_with(['(', '[']) => tuple(shape),
        dims => dims.iter().map(|d| d.trim().to_string()).collect(),
    };
    let dims: Vec<String> = dims
        .iter()
        .map(|d| match d.trim() {
            "-1" => Some("-1".to_string()),
            d => c_expression(d),
        })
        .collect::<Option<_>>()?;
    crate::launch_sites::tensors::with_inferred_size(&dims, count)
}

/// A tensor's name without the moves and casts after it that keep its shape (`x` of
/// `x.contiguous().cuda()`).
pub(super) fn without_moves(arg: &str) -> &str {
    match arg.find('.') {
        Some(dot) if torch_keeps_shape(&arg[dot..]) => &arg[..dot],
        _ => arg,
    }
}

/// Whether what follows a PyTorch maker's call (`.cuda()`, `.to(device)`, `.half()`, …) keeps
/// the tensor's shape: a chain of moves, casts and flags.
fn torch_keeps_shape(after: &str) -> bool {
    static KEEPS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:\.(?:cuda|cpu|to|half|float|double|bfloat16|int|long|contiguous|requires_grad_)\s*\([^()]*\)\s*)+$").unwrap()
    });
    KEEPS.is_match(after)
}

/// `e` with the reads of arrays' sizes as C++ container calls: `x.size` and `x.numel()`, and,
/// for the arrays of one dimension in `flat`, `len(x)` and `x.shape[0]`.
pub(super) fn sizes_read(e: &str, flat: &[String]) -> String {
    static SIZE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b([A-Za-z_]\w*)\.(?:size\b(?:\s*\(\s*\))?|numel\s*\(\s*\))").unwrap()
    });
    static LENGTH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\blen\s*\(\s*([A-Za-z_]\w*)\s*\)|\b([A-Za-z_]\w*)\.shape\s*\[\s*0\s*\]")
            .unwrap()
    });
    let e = SIZE.replace_all(e, "${1}__kerncast_size");
    LENGTH
        .replace_all(&e, |c: &regex::Captures| {
            let name = c.get(1).or(c.get(2)).expect("one of the two").as_str();
            if flat.iter().any(|f| f == name) {
                format!("{name}__kerncast_size")
            } else {
                c[0].to_string()
            }
        })
        .into_owned()
}

/// A C expression with the size reads [`sizes_read`] marks as container calls.
pub(super) fn as_c(e: String) -> String {
    e.replace("__kerncast_size", ".size()")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_makers_give_their_element_count() {
        let decl = |s: &str| made(s).map(|m| m.c);
        assert_eq!(
            made("x = cp.zeros(n, dtype=cp.float32)"),
            Some(Made {
                name: "x".into(),
                c: "std::vector<float> x((n));".into(),
                flat: true,
                like: None,
                tensor: None,
                torch: false,
                dtype: Dtype::Default,
            })
        );
        assert_eq!(
            decl("y = np.random.rand(rows, cols).astype(np.float32)"),
            Some("std::vector<float> y((rows) * (cols));".into())
        );
        let z = made("z = cp.arange(25, dtype=cp.float32).reshape(5, 5)").unwrap();
        assert_eq!(
            (z.c.as_str(), z.flat),
            ("std::vector<float> z((25));", false)
        );
        assert_eq!(
            decl("w = cp.empty((h, 4 * w2))"),
            Some("std::vector<float> w((h) * (4 * w2));".into())
        );
        assert_eq!(
            decl("t = torch.randn(1024, 64, device='cuda')"),
            Some("std::vector<float> t((1024) * (64));".into())
        );
        assert_eq!(
            decl("o = cp.empty_like(x)"),
            Some("std::vector<float> o(x.size());".into())
        );
        // a size read at run time, or an array from data
        assert_eq!(made("x = cp.zeros(len(data))"), None);
        assert_eq!(made("x = cp.asarray(data)"), None);
        assert_eq!(made("x = cp.zeros(n).sum()"), None);
    }

    #[test]
    fn a_pytorch_tensor_is_also_a_torch_tensor_of_its_sizes() {
        let t = made("t = torch.randn((n, 64), device='cuda').half().contiguous()").unwrap();
        assert_eq!(
            t.tensor.as_deref(),
            Some(&["n".to_string(), "64".to_string()][..])
        );
        let tensors = vec![("t".to_string(), vec!["n".to_string(), "64".to_string()])];
        assert_eq!(
            t.c_with(&tensors, &[]),
            "std::vector<float> t((n) * (64)); torch::Tensor t = torch::empty({n, 64}, torch::kHalf);"
        );
        let f = made("f = torch.full((8,), 1.5)").unwrap();
        assert_eq!(f.tensor, Some(vec!["8".to_string()]));
        // a `*_like` tensor has its model's sizes, if the file makes the model once
        let o = made("o = torch.zeros_like(t)").unwrap();
        assert_eq!(
            o.tensor_sizes(&tensors),
            Some(vec!["n".into(), "64".into()])
        );
        let twice = [tensors[0].clone(), ("t".to_string(), vec!["8".to_string()])];
        assert_eq!(o.tensor_sizes(&twice), None);
        // a CuPy array is no tensor, and a tensor reduced has no sizes read
        assert_eq!(made("x = cp.zeros(n)").unwrap().tensor, None);
        assert_eq!(made("s = torch.randn(64).sum()"), None);
        // a tensor reshaped has the reshape's sizes, one -1 inferred from its elements
        let sizes = |s: &str| made(s).unwrap().tensor;
        assert_eq!(
            sizes("r = torch.randn(64).reshape(8, 8)"),
            Some(vec!["8".into(), "8".into()])
        );
        assert_eq!(
            sizes("r = torch.randn(n, 64).reshape((-1, 4 * k)).cuda()"),
            Some(vec!["((n) * (64)) / ((4 * k))".into(), "4 * k".into()])
        );
        assert_eq!(
            sizes("r = torch.randn(n).reshape(-1)"),
            Some(vec!["(n)".into()])
        );
        // two inferred sizes are an error in PyTorch; a reduction after the reshape changes it
        assert_eq!(sizes("r = torch.randn(64).reshape(-1, -1)"), None);
        assert_eq!(made("r = torch.randn(64).reshape(8, 8).sum(0)"), None);
        assert_eq!(without_moves("x.contiguous().cuda()"), "x");
        assert_eq!(without_moves("x.view(8, 8)"), "x.view(8, 8)");
    }

    #[test]
    fn a_tensor_s_dtype_travels_as_the_options_of_its_c_maker() {
        // the C maker carries it; a model's dtype passes to a `*_like`, a recast name has none
        let tensors = vec![("t".to_string(), vec!["8".to_string()])];
        let like = made("o = torch.empty_like(t)").unwrap();
        assert!(like
            .c_with(&tensors, &[])
            .ends_with("torch::empty({8}, t.options());"));
        let x = made("x = torch.randn(8)").unwrap();
        assert!(x
            .c_with(&[], &["x".into()])
            .ends_with("torch::empty({8}, python_dtype);"));
    }

    #[test]
    fn size_reads_are_container_calls() {
        let flat = ["x".to_string()];
        let e = sizes_read(
            "(x.size + 255) // 256 + len(x) + y.shape[0] + t.numel()",
            &flat,
        );
        assert_eq!(
            as_c(e),
            "(x.size() + 255) // 256 + x.size() + y.shape[0] + t.size()"
        );
    }
}
