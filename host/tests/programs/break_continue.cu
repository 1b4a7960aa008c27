/* kerncast-expect
25: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=1 x=ptr}
25: k(float*, int) <<<(4,1,1), (32,1,1), 0>>> x1 {n=4 x=ptr}
25: k(float*, int) <<<(16,1,1), (32,1,1), 0>>> x1 {n=16 x=ptr}
25: k(float*, int) <<<(64,1,1), (32,1,1), 0>>> x1 {n=64 x=ptr}
25: k(float*, int) <<<(256,1,1), (32,1,1), 0>>> x1 {n=256 x=ptr}
35: k(float*, int) <<<(8,1,1), (64,1,1), 0>>> x1 {n=8 x=ptr}
38: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=0 x=ptr}
38: k(float*, int) <<<(4,1,1), (32,1,1), 0>>> x1 {n=3 x=ptr}
38: k(float*, int) <<<(7,1,1), (32,1,1), 0>>> x1 {n=6 x=ptr}
38: k(float*, int) <<<(10,1,1), (32,1,1), 0>>> x1 {n=9 x=ptr}
*/
// break out of an endless for(;;) once n passes 1000 (n = 1, 4, 16, 64, 256); break with
// the first i whose square passes 50 (8); continue skipping all i but multiples of 3.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  int n = 1;
  for (;;) {
    if (n > 1000) break;
    k<<<n, 32>>>(x, n);
    n *= 4;
  }
  int found = -1;
  for (int i = 0; i < 100; i++) {
    if (i * i > 50) {
      found = i;
      break;
    }
  }
  k<<<found, 64>>>(x, found);
  for (int i = 0; i < 10; i++) {
    if (i % 3 != 0) continue;
    k<<<i + 1, 32>>>(x, i);
  }
  return 0;
}
