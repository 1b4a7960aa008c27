/* kerncast-expect
args: 2
37: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x4 {mode=2 x=ptr}
40: even(float*) <<<(1,1,1), (1,1,1), 0>>> x1 {x=ptr}
43: unreached odd(float*) ?{never reached}
*/
// switch with fallthrough: mode 2 sets block = 256 and falls into case 3 (reps = 4), 4096 /
// 256 = 16 blocks four times; then mode % 2 == 0 picks even().
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int mode) {}
__global__ void even(float* x) {}
__global__ void odd(float* x) {}

int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  int block = 0, reps = 1;
  switch (mode) {
    case 0:
      block = 64;
      break;
    case 1:
      block = 128;
      reps = 2;
      break;
    case 2:
      block = 256;
    case 3:
      reps = 4;
      break;
    default:
      block = 1024;
  }
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  for (int r = 0; r < reps; r++) k<<<4096 / block, block>>>(x, mode);
  switch (mode % 2) {
    case 0:
      even<<<1, 1>>>(x);
      break;
    case 1:
      odd<<<1, 1>>>(x);
      break;
  }
  return 0;
}
