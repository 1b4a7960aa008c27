/* kerncast-expect
19: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x2 {n=1000 x=ptr}
19: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=4000 x=ptr}
25: k(float*, int) <<<(8,1,1), (64,1,1), 0>>> x1 {n=1024 x=ptr}
*/
// Lambdas capturing by reference see the variables as they are when called, not when made.
// launch(2) with n = 1000, block = 128: 8 blocks, twice; after n = 4000, block = 256:
// (4000 + 255) / 256 = 16. twice(64) with n = 512: 8 blocks, argument 1024.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  int n = 1000;
  int block = 128;
  auto launch = [&](int reps) {
    for (int r = 0; r < reps; ++r) k<<<(n + block - 1) / block, block>>>(x, n);
  };
  launch(2);
  n = 4000;
  block = 256;
  launch(1);
  auto twice = [&n, x](int b) { k<<<n / b, b>>>(x, n * 2); };
  n = 512;
  twice(64);
  return 0;
}
