/* kerncast-expect
30: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
31: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
*/
// A __host__ __device__ helper branching on __CUDA_ARCH__: the host launch sees the host side
// (256). CUDART_VERSION comes from the CUDA 12 headers: 128 threads.
#include <cuda_runtime.h>

__host__ __device__ int preferred_block() {
#ifdef __CUDA_ARCH__
  return 32;
#else
  return 256;
#endif
}

#if CUDART_VERSION >= 11000
#define SECOND_BLOCK 128
#else
#define SECOND_BLOCK 64
#endif

__global__ void k(float* x, int n) {}

int main() {
  int n = 1024;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  int b = preferred_block();
  k<<<n / b, b>>>(x, n);
  k<<<n / SECOND_BLOCK, SECOND_BLOCK>>>(x, n);
  return 0;
}
