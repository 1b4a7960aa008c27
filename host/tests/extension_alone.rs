//! A PyTorch extension's `.cu` read without the script that calls it: the functions its
//! module binds are entry points, and the tensors they are given have sizes named after them
//! (`x.sizes[0]`, `a.numel`), which values can be given for; each `AT_DISPATCH` instance runs
//! under the dtype kerncast cannot decide.

use kerncast_host::{read, Options, Program, Scalar, Toolchain};

const EXTENSION: &str = r#"#include <torch/extension.h>
template <typename scalar_t>
__global__ void add_kernel(const scalar_t* a, scalar_t* out, int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + a[i];
}
template <typename scalar_t>
__global__ void row_scale(torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> x) {
  if (threadIdx.x < x.size(1)) x[blockIdx.y][threadIdx.x] *= 2;
}
torch::Tensor add_cuda(torch::Tensor a) {
  auto out = torch::empty_like(a);
  const int64_t n = a.numel();
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "add", ([&] {
    add_kernel<scalar_t><<<(n + 255) / 256, 256>>>(a.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), n);
  }));
  return out;
}
void scale_rows(torch::Tensor x) {
  const dim3 blocks((x.size(1) + 255) / 256, x.size(0));
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", [&] {
    row_scale<scalar_t><<<blocks, 256>>>(x.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
  });
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("add", &add_cuda);
  m.def("scale_rows", &scale_rows);
}
"#;

#[test]
fn an_extension_s_bound_functions_run_with_named_tensors() {
    let dir = std::env::temp_dir().join(format!("kerncast-ext-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ext.cu");
    std::fs::write(&file, EXTENSION).unwrap();
    let tools = Toolchain::discover();
    let given = [
        ("a.numel", 1048576.0),
        ("x.sizes[0]", 64.0),
        ("x.sizes[1]", 4096.0),
    ];
    let opts = Options {
        toolchain: tools.clone(),
        params: given.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ..Options::default()
    };
    let r = read(&Program::from_files(&[file], &[], &tools), &opts).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let mut got: Vec<(String, [Scalar; 3], bool)> = r
        .launches
        .iter()
        .map(|l| (l.name.clone(), l.grid.clone(), l.conditions.is_empty()))
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    let g = |x: i64, y: i64| [Scalar::Int(x), Scalar::Int(y), Scalar::Int(1)];
    // two dtypes each, under the dtype's condition
    assert_eq!(
        got,
        [
            ("add_kernel".to_string(), g(4096, 1), false),
            ("add_kernel".to_string(), g(4096, 1), false),
            ("row_scale".to_string(), g(16, 64), false),
            ("row_scale".to_string(), g(16, 64), false),
        ]
    );
    let row = r.launches.iter().find(|l| l.name == "row_scale").unwrap();
    assert_eq!(row.fields["x.sizes[1]"], Scalar::Int(4096));
    assert_eq!(row.fields["x.strides[0]"], Scalar::Int(4096));
    let used: Vec<&str> = r.params_used.iter().map(String::as_str).collect();
    assert_eq!(used, ["a.numel", "x.sizes[0]", "x.sizes[1]"]);
}
