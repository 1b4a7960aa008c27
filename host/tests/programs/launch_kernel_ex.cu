/* kerncast-expect
19: cudaLaunchKernelEx k(float*, int) <<<(8,1,1), (128,1,1), 256>>> x1 {n=1024 x=ptr}
*/
// cudaLaunchKernelEx with a cudaLaunchConfig_t (CUDA 12), the C++ form taking the kernel's
// arguments themselves.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  int n = 1024;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(n / 128);
  cfg.blockDim = dim3(128);
  cfg.dynamicSmemBytes = 256;
  cfg.stream = 0;
  cudaLaunchKernelEx(&cfg, k, x, n);
  return 0;
}
