/* kerncast-expect
28: gelu_forward_kernel(float*, float const*, int) <<<(196608,1,1), (32,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
28: gelu_forward_kernel(float*, float const*, int) <<<(98304,1,1), (64,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
28: gelu_forward_kernel(float*, float const*, int) <<<(49152,1,1), (128,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
28: gelu_forward_kernel(float*, float const*, int) <<<(24576,1,1), (256,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
28: gelu_forward_kernel(float*, float const*, int) <<<(12288,1,1), (512,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
28: gelu_forward_kernel(float*, float const*, int) <<<(6144,1,1), (1024,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
45: gelu_forward_kernel(float*, float const*, int) <<<(196608,1,1), (32,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
45: gelu_forward_kernel(float*, float const*, int) <<<(98304,1,1), (64,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
45: gelu_forward_kernel(float*, float const*, int) <<<(49152,1,1), (128,1,1), 0>>> x1 {N=6291456 inp=ptr out=ptr}
*/
// The block-size sweep of llm.c's kernel benchmarks (issue 47: once not followed, the error
// blaming ceil_div): one launch per element of block_sizes. N = 8 * 1024 * 768 = 6291456.
#include <cuda_runtime.h>

template <class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}

__global__ void gelu_forward_kernel(float* out, const float* inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = inp[i];
}

void gelu_forward(float* out, const float* inp, int N, const int block_size) {
  const int grid_size = ceil_div(N, block_size);
  gelu_forward_kernel<<<grid_size, block_size>>>(out, inp, N);
}

int main(int argc, char** argv) {
  int B = 8, T = 1024, C = 768;
  int N = B * T * C;
  float *out, *inp;
  cudaMalloc(&out, N * sizeof(float));
  cudaMalloc(&inp, N * sizeof(float));
  int block_sizes[] = {32, 64, 128, 256, 512, 1024};
  for (int j = 0; j < sizeof(block_sizes) / sizeof(int); j++) {
    int block_size = block_sizes[j];
    gelu_forward(out, inp, N, block_size);
  }
  // The same sweep written inline, over the first three sizes.
  for (int j = 0; j < 3; j++) {
    int block_size = block_sizes[j];
    gelu_forward_kernel<<<ceil_div(N, block_size), block_size>>>(out, inp, N);
  }
  return 0;
}
