/* kerncast-expect
args: 500
21: k(float*, int) <<<(64,1,1), (256,1,1), 0>>> x10 {n=16384 x=ptr}
23: k(float*, int) <<<(64,1,1), (256,1,1), 0>>> x500 {n=16384 x=ptr}
*/
// A benchmark's warm-up and timed loops, the iteration count from argv: 10 warm-up launches,
// then 500 timed ones (more than are followed one by one: the rest are counted).
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main(int argc, char** argv) {
  int niter = argc > 1 ? atoi(argv[1]) : 100;
  int n = 1 << 14;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 10; i++) k<<<n / 256, 256>>>(x, n);
  cudaEventRecord(start);
  for (int i = 0; i < niter; i++) k<<<n / 256, 256>>>(x, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  return 0;
}
