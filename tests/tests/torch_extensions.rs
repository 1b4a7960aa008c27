//! PyTorch C++/CUDA extensions, analysed without PyTorch: a `.cu` that includes
//! `torch/extension.h` and a Python file that builds its CUDA with `load_inline` are lowered
//! with kerncast's declarations of the extension API, their `AT_DISPATCH_*` instances are
//! predicted one by one, the host totals add up the one the tensors' dtype picks, and a packed
//! accessor's sizes are set by name.

use kerncast::lower::LowerArgs;
use kerncast::ops::analyze::{analyze, Inputs};
use kerncast::report::Report;
use std::path::PathBuf;

const EXTENSION: &str = r#"#include <torch/extension.h>
#include <ATen/AccumulateType.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

template <typename scalar_t>
__global__ void add_kernel(const scalar_t* __restrict__ a, const scalar_t* __restrict__ b,
                           scalar_t* __restrict__ out, int64_t n) {
  using acc_t = at::acc_type<scalar_t, true>;
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<scalar_t>(static_cast<acc_t>(a[i]) + static_cast<acc_t>(b[i]));
}

template <typename scalar_t>
__global__ void row_scale(torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> x,
                          float s) {
  const int r = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < x.size(1)) x[r][c] = x[r][c] * s;
}

torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b) {
  TORCH_CHECK(a.is_cuda(), "a must be a CUDA tensor");
  const at::cuda::OptionalCUDAGuard guard(device_of(a));
  auto out = torch::empty_like(a);
  const int64_t n = a.numel();
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(a.scalar_type(), "add_cuda", ([&] {
    add_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), n);
  }));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

void scale_rows(torch::Tensor x, double s) {
  const int rows = x.size(0);
  const int cols = x.size(1);
  const dim3 blocks((cols + 255) / 256, rows);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale_rows", [&] {
    row_scale<scalar_t><<<blocks, 256>>>(
        x.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(), static_cast<float>(s));
  });
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("add", &add_cuda, "add (CUDA)", py::arg("a"), py::arg("b"));
  m.def("scale_rows", &scale_rows, "scale each row");
}
"#;

const LOAD_INLINE: &str = r#"import torch
from torch.utils.cpp_extension import load_inline

cuda_source = r'''
__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
'''

module = load_inline(name="relu_ext", cpp_sources="torch::Tensor relu(torch::Tensor x);",
                     cuda_sources=cuda_source, functions=["relu"])
y = module.relu(torch.randn(1000000, device="cuda"))
"#;

fn analyze_with(files: Vec<PathBuf>, params: &[&str]) -> Report {
    let inputs = Inputs {
        files,
        config: None,
        devices: vec!["rtx-2080-ti".into()],
        model: None,
        jobs: 1,
        no_cache: true,
        lower: LowerArgs::default(),
        host: Default::default(),
        params: params.iter().map(|p| p.to_string()).collect(),
        size_chart: false,
        sass_in_context: false,
    };
    analyze(&inputs, None).expect("analyze")
}

/// The report of the one file `name` holding `text`, given by name.
fn analyze_file(name: &str, text: &str, params: &[&str]) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    analyze_with(vec![file], params)
}

/// The report of a folder holding `files` (name, text), given as the folder.
fn analyze_folder(files: &[(&str, &str)], params: &[&str]) -> Report {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    analyze_with(vec![dir.path().to_path_buf()], params)
}

#[test]
fn an_extension_lowers_without_pytorch_and_its_dispatch_instances_stay_apart() {
    // sizes as the host code reads them: `a.numel()`, `x.size(0)` and `x.size(1)`
    let r = analyze_file(
        "ext.cu",
        EXTENSION,
        &["a.numel=1048576", "x.sizes[0]=64", "x.sizes[1]=4096"],
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    let mut names: Vec<&str> = r.kernels.iter().map(|k| k.display_name.as_str()).collect();
    names.sort();
    // one entry per scalar type of each dispatch set, c10::Half among them
    assert_eq!(
        names,
        [
            "add_kernel<c10::Half>",
            "add_kernel<double>",
            "add_kernel<float>",
            "row_scale<double>",
            "row_scale<float>"
        ]
    );
    for k in &r.kernels {
        assert!(
            k.notes.iter().any(|n| n
                .starts_with("lowered with kerncast's declarations of the PyTorch extension API")),
            "{:#?}",
            k.notes
        );
    }
    let time = |name: &str| {
        r.kernels
            .iter()
            .find(|k| k.display_name == name)
            .map(|k| k.prediction.time_s)
            .unwrap()
    };
    // a streaming add moves twice the bytes in double as in float
    let ratio = time("add_kernel<double>") / time("add_kernel<float>");
    assert!((1.8..2.2).contains(&ratio), "{ratio}");
    // the tensor's sizes give the host's grid and the accessor's fields: 64 rows of 4096
    // columns in blocks of 256; the strides are a contiguous tensor's, which the note says
    let rows = r
        .kernels
        .iter()
        .find(|k| k.display_name == "row_scale<float>")
        .unwrap();
    assert_eq!(rows.workload.grid, [16, 64, 1]);
    let field = |key: &str| rows.workload.params[key];
    assert_eq!((field("x+8"), field("x+12")), (64, 4096));
    assert_eq!((field("x+16"), field("x+20")), (4096, 1));
    // the strides are the host's, a contiguous tensor's, and a workload value like the sizes
    assert_eq!(
        rows.workload.name,
        "x.sizes[0]=64,x.sizes[1]=4096,x.strides[0]=4096,x.strides[1]=1"
    );
    let notes = rows.notes.join("\n");
    assert!(
        notes.contains("`x.strides` are those of a contiguous tensor of `x`'s sizes"),
        "{notes}"
    );
    // with every field set, the addresses are walked (as many blocks as the walk's budget
    // takes): each row is read and written once, so nothing hits in the L2
    assert!(
        notes.contains("l2_hit_rate 0.000 from the addresses of the first"),
        "{notes}"
    );
    // each call runs one instance, chosen by the tensor's dtype, which kerncast does not
    // know: each runs only under the dispatch's condition, and none is added up
    let total = &r.host_totals[0];
    assert_eq!(total.launches, 0, "{total:#?}");
    assert_eq!(total.left_out.len(), 5, "{total:#?}");
    assert!(total
        .left_out
        .iter()
        .all(|l| l.contains("it runs only if the condition at line")
            && l.contains("(`kerncast_dispatch_type`), which kerncast could not decide")));
}

#[test]
fn load_inline_cuda_sources_get_the_includes_pytorch_gives_them() {
    let r = analyze_file("relu.py", LOAD_INLINE, &[]);
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.kernels.len(), 1);
    let k = &r.kernels[0];
    assert_eq!(k.display_name, "relu_kernel");
    assert_eq!(k.workload.grid, [3907, 1, 1]);
    assert!(
        k.notes
            .iter()
            .any(|n| n.contains("built by PyTorch's `load_inline` with nvcc")),
        "{:#?}",
        k.notes
    );
    // the kernel's lines are the Python file's
    assert!(k.hot_lines.iter().all(|h| h.loc.file.ends_with("relu.py")));
}

#[test]
fn an_api_the_declarations_lack_is_a_compile_error_that_says_so() {
    let r = analyze_file(
        "native.cu",
        "#include <ATen/native/cuda/Loops.cuh>\n\
         __global__ void k(float *x) { x[threadIdx.x] = 0.f; }\n\
         void run(at::TensorIteratorBase& iter) { at::native::gpu_kernel(iter, 0); }\n",
        &[],
    );
    assert_eq!(r.errors.len(), 1, "{:#?}", r.errors);
    let e = &r.errors[0];
    assert_eq!(e.stage, "lower");
    assert_eq!(e.line, Some(3), "{e:#?}");
    assert!(
        e.message
            .contains("kerncast lowered this PyTorch extension with its own declarations"),
        "{}",
        e.message
    );
}

/// The Python code's calls of a `load_inline` module reach the C++ function's launches with
/// the shapes of the tensors it passes: no `--param`.
const LOAD_INLINE_CALLED: &str = r#"import torch
from torch.utils.cpp_extension import load_inline

cuda_source = r'''
__global__ void scale_rows(const float* x, float* y, int rows, int cols) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) y[r * cols + c] = 2.f * x[r * cols + c];
}

torch::Tensor scale_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int rows = x.size(0), cols = x.size(-1);
    dim3 grid((cols + 127) / 128, rows);
    scale_rows<<<grid, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale_cuda); }
'''

ext = load_inline(name="scale_ext", cpp_sources="", cuda_sources=cuda_source)
x = torch.randn((1000, 300), device="cuda")
for _ in range(10):
    y = ext.scale(x.contiguous())
"#;

#[test]
fn load_inline_calls_are_followed_with_the_shapes_of_their_tensors() {
    let r = analyze_file("scale.py", LOAD_INLINE_CALLED, &[]);
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.kernels.len(), 1);
    let k = &r.kernels[0];
    assert_eq!(k.workload.grid, [3, 1000, 1]);
    assert_eq!(
        (k.workload.params["rows"], k.workload.params["cols"]),
        (1000, 300)
    );
    // the launch, at its line of the Python file, runs once per trip of the loop
    let runs: Vec<(u32, Option<u64>)> = k.host_runs.iter().map(|h| (h.line, h.times)).collect();
    assert_eq!(runs, [(15, Some(10))], "{:#?}", k.host_runs);
    assert!(
        k.notes.iter().any(
            |n| n.contains("the launch at line 15: scale_rows<<<grid, 128>>>(")
                && n.ends_with(", in scale_cuda called at line 25")
        ),
        "{:#?}",
        k.notes
    );
}

/// An extension's host code as PyTorch's tutorials write it: output tensors made like an input,
/// a reshaped tensor, accessors passed under their tensors' names, and a constexpr host
/// function (`fmax`) in device code, which PyTorch's nvcc flags allow.
const CELL: &str = r#"#include <torch/extension.h>
#include <vector>

template <typename scalar_t>
__device__ __forceinline__ scalar_t relu_like(scalar_t z) { return fmax(0.0, z); }

template <typename scalar_t>
__global__ void cell_kernel(
    const torch::PackedTensorAccessor32<scalar_t, 3, torch::RestrictPtrTraits> gates,
    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> new_h) {
  const int n = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < gates.size(2)) new_h[n][c] = relu_like(gates[n][0][c]) * gates[n][1][c];
}

std::vector<torch::Tensor> cell_forward(torch::Tensor weights, torch::Tensor old_cell) {
  auto gate_weights = torch::addmm(old_cell, old_cell, weights.transpose(0, 1));
  const auto batch_size = old_cell.size(0);
  const auto state_size = old_cell.size(1);
  auto gates = gate_weights.reshape({batch_size, 2, state_size});
  auto new_h = torch::zeros_like(old_cell);
  const int threads = 256;
  const dim3 blocks((state_size + threads - 1) / threads, batch_size);
  AT_DISPATCH_FLOATING_TYPES(gates.scalar_type(), "cell_forward", ([&] {
    cell_kernel<scalar_t><<<blocks, threads>>>(
        gates.packed_accessor32<scalar_t, 3, torch::RestrictPtrTraits>(),
        new_h.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
  }));
  return {new_h, gates};
}
"#;

#[test]
fn tensors_made_like_and_reshaped_size_the_accessors_from_two_given_sizes() {
    let r = analyze_file(
        "cell.cu",
        CELL,
        &["old_cell.sizes[0]=64", "old_cell.sizes[1]=1024"],
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.kernels.len(), 2);
    for k in &r.kernels {
        assert_eq!(k.workload.grid, [4, 64, 1], "{}", k.display_name);
        let p = &k.workload.params;
        // `gates` from its reshape, `new_h` like `old_cell`
        assert_eq!((p["gates+16"], p["gates+24"]), (1024, 1024), "{p:?}");
        assert_eq!(p["new_h+12"], 1024, "{p:?}");
        assert!(
            k.notes
                .iter()
                .any(|n| n.contains("--expt-relaxed-constexpr")),
            "{:#?}",
            k.notes
        );
    }
}

/// An extension built from files, as `cpp_extension.load(sources=[…])` or `setup.py` builds
/// it: the Python script calls the binding (`ext.forward`), which calls the launcher in the
/// `.cu`; the launch takes the shapes of the script's tensors and its loop's runs.
#[test]
fn a_script_s_calls_reach_an_extension_built_from_files() {
    let r = analyze_folder(
        &[
            ("cell_kernel.cu", CELL),
            (
                "cell.cpp",
                "#include <torch/extension.h>\n\
                #include <vector>\n\
                std::vector<torch::Tensor> cell_forward(torch::Tensor weights, torch::Tensor old_cell);\n\
                std::vector<torch::Tensor> forward(torch::Tensor weights, torch::Tensor old_cell) {\n\
                return cell_forward(weights, old_cell);\n\
                }\n\
                PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &forward); }\n",
            ),
            (
                "bench.py",
                "import torch\n\
                from torch.utils.cpp_extension import load\n\
                cell = load(name='cell', sources=['cell.cpp', 'cell_kernel.cu'])\n\
                W = torch.randn(2048, 1024, device='cuda')\n\
                c = torch.randn(32, 1024, device='cuda')\n\
                for _ in range(50):\n    h, g = cell.forward(W, c)\n",
            ),
        ],
        &[],
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    // the script's tensors are float32: the dispatch runs the float instance, and the double
    // instance is never made
    let names: Vec<&str> = r.kernels.iter().map(|k| k.display_name.as_str()).collect();
    assert_eq!(names, ["cell_kernel<float>"]);
    let k = &r.kernels[0];
    assert_eq!(k.workload.grid, [4, 32, 1], "{}", k.display_name);
    let runs: Vec<Option<u64>> = k.host_runs.iter().map(|h| h.times).collect();
    assert_eq!(runs, [Some(50)]);
    let at = &k.host_runs[0].at;
    assert!(
        at.contains("cell.cpp:5") && at.ends_with("bench.py:7"),
        "{at}"
    );
    let not: Vec<(&str, bool)> = r
        .not_launched
        .iter()
        .map(|n| {
            let why = n
                .why
                .contains("the program launches another instance here, `cell_kernel<float>`");
            (n.kernel.as_str(), why)
        })
        .collect();
    assert_eq!(
        not,
        [("cell_kernel<double>", true)],
        "{:#?}",
        r.not_launched
    );
}

/// An extension built by a `setup.py` (`CUDAExtension`) and imported by name in a script of the
/// same folder: the script is read as the extension's host, though it names no kernel, and its
/// calls reach the launcher with its tensors' shapes. A script that imports nothing the folder
/// builds is not read.
#[test]
fn a_script_importing_an_extension_a_setup_py_builds_reaches_its_launches() {
    let r = analyze_folder(
        &[
            ("cell_kernel.cu", CELL),
            ("cell.cpp", "#include <torch/extension.h>\n\
                #include <vector>\n\
                std::vector<torch::Tensor> cell_forward(torch::Tensor weights, torch::Tensor old_cell);\n\
                PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &cell_forward); }\n"),
            ("setup.py", "from setuptools import setup\n\
                from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\
                setup(name='cell', ext_modules=[CUDAExtension('cell_cuda', ['cell.cpp', 'cell_kernel.cu'])],\n\
                cmdclass={'build_ext': BuildExtension})\n"),
            ("bench.py", "import torch\n\
                import cell_cuda as cell\n\
                W = torch.randn(2048, 1024, device='cuda')\n\
                c = torch.randn(32, 1024, device='cuda')\n\
                for _ in range(20):\n    h, g = cell.forward(W, c)\n"),
            ("plot.py", "import matplotlib\nprint('plots')\n"),
        ],
        &[],
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    // the script's tensors are float32, so the dispatch runs the float instance, 20 times;
    // the double instance is never made
    let names: Vec<&str> = r.kernels.iter().map(|k| k.display_name.as_str()).collect();
    assert_eq!(names, ["cell_kernel<float>"]);
    let k = &r.kernels[0];
    assert_eq!(k.workload.grid, [4, 32, 1], "{}", k.display_name);
    let runs: Vec<Option<u64>> = k.host_runs.iter().map(|h| h.times).collect();
    assert_eq!(runs, [Some(20)], "{:#?}", k.host_runs);
    assert!(
        k.host_runs[0].at.ends_with("bench.py:6"),
        "{:#?}",
        k.host_runs
    );
    let total = &r.host_totals[0];
    assert_eq!(total.launches, 20, "{total:#?}");
    assert_eq!(total.kernels.len(), 1, "{total:#?}");
    assert!(total.left_out.is_empty(), "{total:#?}");
    assert!(
        r.not_launched
            .iter()
            .any(|n| n.kernel == "cell_kernel<double>"
                && n.why
                    .contains("another instance here, `cell_kernel<float>`")),
        "{:#?}",
        r.not_launched
    );
    // the host files read: the script and the setup.py that names its module, not the plot
    let read = &r.host_only;
    assert!(read.iter().any(|f| f.ends_with("bench.py")), "{read:?}");
    assert!(read.iter().any(|f| f.ends_with("setup.py")), "{read:?}");
    assert!(!read.iter().any(|f| f.ends_with("plot.py")), "{read:?}");
}

/// Reshapes that leave one size to PyTorch (`-1`): the Python script's and the C++'s sizes are
/// inferred from the element count, as PyTorch infers them.
const RESHAPED_INFERRED: &str = r#"import torch
from torch.utils.cpp_extension import load_inline

cuda_source = r'''
__global__ void tile_sums(const float* x, float* out, int rows) {
    __shared__ float part[128];
    part[threadIdx.x] = x[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (int i = 0; i < 128; i++) s += part[i];
        out[blockIdx.x] = s + rows;
    }
}

torch::Tensor sums_cuda(torch::Tensor x) {
    auto tiles = x.view({-1, 128});
    auto out = torch::empty({tiles.size(0)}, x.options());
    tile_sums<<<tiles.size(0), 128>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.size(0));
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("sums", &sums_cuda); }
'''

ext = load_inline(name="sums_ext", cpp_sources="", cuda_sources=cuda_source)
x = torch.randn(1024, 1024, device="cuda").reshape(-1, 512)
y = ext.sums(x)
"#;

#[test]
fn a_size_left_to_pytorch_in_a_reshape_is_inferred_from_the_element_count() {
    let r = analyze_file("sums.py", RESHAPED_INFERRED, &[]);
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.kernels.len(), 1);
    let k = &r.kernels[0];
    // x: 1024 × 1024 elements as (-1, 512) is 2048 rows; tiles: (-1, 128) is 8192 of them
    assert_eq!(k.workload.grid, [8192, 1, 1], "{:#?}", k.workload);
    assert_eq!(k.workload.params["rows"], 2048);
}

/// The tensors a script makes give their dtypes to the `AT_DISPATCH_*` calls they reach: the
/// instance of that scalar type is added up in the host totals, the others are listed as never
/// made, and so are the launches of a binding the script never calls (`scale_rows`).
#[test]
fn a_dispatch_runs_the_instance_of_its_tensor_s_dtype() {
    let r = analyze_folder(
        &[
            ("ext.cu", EXTENSION),
            (
                "bench.py",
                "import torch\n\
                from torch.utils.cpp_extension import load\n\
                ext = load(name='ext', sources=['ext.cu'])\n\
                a = torch.randn(1 << 20, device='cuda').half()\n\
                b = torch.ones_like(a)\n\
                for _ in range(5):\n    c = ext.add(a, b)\n",
            ),
        ],
        &[],
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    let total = r
        .host_totals
        .iter()
        .find(|t| t.file.ends_with("ext.cu"))
        .expect("ext.cu's total");
    // add_kernel<c10::Half> 5 times; the float and double instances do not run, and
    // scale_rows is never called
    assert_eq!(total.launches, 5, "{total:#?}");
    assert_eq!(total.kernels.len(), 1, "{total:#?}");
    assert_eq!(
        total.kernels[0].kernel, "add_kernel<c10::Half>",
        "{total:#?}"
    );
    assert!(total.left_out.is_empty(), "{total:#?}");
    let why = |instance: &str| {
        r.not_launched
            .iter()
            .find(|n| n.kernel == instance)
            .map(|n| n.why.clone())
            .unwrap_or_default()
    };
    for other in ["add_kernel<float>", "add_kernel<double>"] {
        assert!(
            why(other)
                .contains("the program launches another instance here, `add_kernel<c10::Half>`"),
            "{other}: {:#?}",
            r.not_launched
        );
    }
    for never in ["row_scale<float>", "row_scale<double>"] {
        assert!(
            why(never).contains("is never reached when the program runs"),
            "{never}: {:#?}",
            r.not_launched
        );
    }
}
