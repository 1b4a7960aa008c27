# kerncast-expect
# 19: <<<>>> relu_kernel(float const*, float*, int) <<<(65536,1,1), (256,1,1), 0>>> x10 {n=16777216 x=ptr y=ptr}
# embedded 24: torch.utils.cpp_extension.load_inline cuda literal 10:19 [relu]
# embedded 24: torch.utils.cpp_extension.load_inline c++ literal 24:52 [relu]
# end
# PyTorch load_inline: the CUDA string's launcher runs with the script's tensor, at the script's lines.
import torch
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
x = torch.randn(4096, 4096, device="cuda")
for _ in range(10):
    y = module.relu(x)
