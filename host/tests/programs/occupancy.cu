/* kerncast-expect
18: k(float*, int) <<<(?{cudaOccupancyMaxPotentialBlockSize},1,1), (?{cudaOccupancyMaxPotentialBlockSize},1,1), 0>>> x1 {n=100000 x=ptr}
21: k(float*, int) <<<(?{cudaOccupancyMaxActiveBlocksPerMultiprocessor},1,1), (256,1,1), 0>>> x1 {n=100000 x=ptr}
*/
// Block sizes from the occupancy API depend on the device and the compiled kernel: unknown,
// never the zeros the variables held before the calls.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  int n = 100000;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  int min_grid = 0, block = 0;
  cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, k, 0, 0);
  int grid = (n + block - 1) / block;
  k<<<grid, block>>>(x, n);
  int active = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, k, 256, 0);
  k<<<active * 80, 256>>>(x, n);
  return 0;
}
