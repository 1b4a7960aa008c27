#include <torch/extension.h>
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

// Sizes as the host code reads them: a.numel(), x.size(0), x.size(1).
// The scalar type picks the AT_DISPATCH instance.
//
//
//
//
//
//
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
