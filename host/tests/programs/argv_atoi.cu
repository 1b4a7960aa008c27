/* kerncast-expect
args: 4096 3
18: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x3 {n=4096 x=ptr}
20: k(float*, int) <<<(4000,1,1), (1024,1,1), 0>>> x1 {n=4096000 x=ptr}
*/
// Sizes from the command line through atoi and atol: n = 4096, 3 repetitions of
// (4096 + 255) / 256 = 16 blocks; big = 4096 * 1000 = 4096000, / 1024 = 4000 blocks.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  float* x;
  cudaMalloc(&x, sizeof(float) << 22);
  for (int r = 0; r < reps; ++r) k<<<(n + 255) / 256, 256>>>(x, n);
  long big = argc > 1 ? atol(argv[1]) * 1000L : 0;
  k<<<(int)(big / 1024), 1024>>>(x, (int)big);
  return 0;
}
