/* kerncast-expect
19: cudaLaunchKernel vadd(float const*, float const*, float*, int) <<<(196,1,1), (256,1,1), 0>>> x1 {a=ptr b=ptr c=ptr n=50000}
23: cudaLaunchKernel vadd(float const*, float const*, float*, int) <<<(10,1,1), (128,1,1), 1024>>> x1 {a=ptr b=ptr c=ptr n=1280}
*/
// cudaLaunchKernel with a void* args[] of the arguments' addresses: (50000 + 255) / 256 = 196
// blocks; the second call, after n changed through the same array, passes 1280.
#include <cuda_runtime.h>

__global__ void vadd(const float* a, const float* b, float* c, int n) {}

int main() {
  int n = 50000;
  float *a, *b, *c;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  void* args[] = {&a, &b, &c, &n};
  dim3 grid((n + 255) / 256), block(256);
  cudaLaunchKernel((void*)vadd, grid, block, args, 0, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  n = 1280;
  cudaLaunchKernel((const void*)vadd, dim3(10), dim3(128), args, 1024, s);
  return 0;
}
