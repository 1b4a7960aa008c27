/* kerncast-expect
18: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
19: unreached extra(float*) ?{never reached}
*/
// argv_atoi.cu's defaults, run without arguments: argc = 1, n = 1024 → 4 blocks, once; the
// launch under argc > 3 is never made.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void extra(float* x) {}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  float* x;
  cudaMalloc(&x, sizeof(float) << 22);
  for (int r = 0; r < reps; ++r) k<<<(n + 255) / 256, 256>>>(x, n);
  if (argc > 3) extra<<<1, 1>>>(x);
  return 0;
}
