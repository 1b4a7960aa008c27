/* kerncast-expect
25: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
17: k(float*, int) <<<(3,1,1), (32,1,1), 0>>> x1 {n=3 x=ptr}
17: k(float*, int) <<<(2,1,1), (32,1,1), 0>>> x1 {n=2 x=ptr}
17: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=1 x=ptr}
*/
// Recursive helpers: the next power of two at least 1000 (1024), and a launcher recursing
// from depth 3 to 1.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int pow2_at_least(int n) { return n <= 1 ? 1 : 2 * pow2_at_least((n + 1) / 2); }

void tree(float* x, int depth) {
  if (depth == 0) return;
  k<<<depth, 32>>>(x, depth);
  tree(x, depth - 1);
}

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  int n = pow2_at_least(1000);
  k<<<n / 256, 256>>>(x, n);
  tree(x, 3);
  return 0;
}
