# kerncast-expect
# 22: <<<>>> tile_sums(float const*, float*, int) <<<(8192,1,1), (128,1,1), 0>>> x1 {out=ptr rows=2048 x=ptr}
# 22: <<<>>> tile_sums(float const*, float*, int) <<<(8192,1,1), (128,1,1), 0>>> x1 {out=ptr rows=512 x=ptr}
# 22: <<<>>> tile_sums(float const*, float*, int) <<<(64,1,1), (128,1,1), 0>>> x1 {out=ptr rows=64 x=ptr}
# embedded 29: torch.utils.cpp_extension.load_inline cuda literal 11:19 []
# end
# PyTorch: shapes through reshape(-1, …), .t(), *_like and view(64, -1) in the script, view({-1, 128}) in the C++.
import torch
from torch.utils.cpp_extension import load_inline

cuda_source = r'''
__global__ void tile_sums(const float* x, float* out, int rows) {
    __shared__ float part[128];
    part[threadIdx.x] = x[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = part[0] + rows;
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
z = ext.sums(x.t().contiguous())
w = ext.sums(torch.zeros_like(y).view(64, -1))
