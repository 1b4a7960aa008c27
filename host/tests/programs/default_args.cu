/* kerncast-expect
14: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1000 x=ptr}
14: k(float*, int) <<<(2,1,1), (512,1,1), 0>>> x1 {n=1000 x=ptr}
14: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x3 {n=1000 x=ptr}
*/
// Default arguments: run(x, 1000) takes block = 128 and reps = 1; (1000 + 511) / 512 = 2.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

const int kDefaultBlock = 128;

void run(float* x, int n, int block = kDefaultBlock, int reps = 1) {
  for (int r = 0; r < reps; r++) k<<<(n + block - 1) / block, block>>>(x, n);
}

int main() {
  float* x;
  cudaMalloc(&x, 1000 * sizeof(float));
  run(x, 1000);
  run(x, 1000, 512);
  run(x, 1000, 256, 3);
  return 0;
}
