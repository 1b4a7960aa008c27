/* kerncast-expect
20: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=4096 x=ptr}
20: k(float*, int) <<<(2,1,1), (256,1,1), 0>>> x1 {n=512 x=ptr}
20: k(float*, int) <<<(1,1,1), (256,1,1), 0>>> x1 {n=64 x=ptr}
20: k(float*, int) <<<(1,1,1), (256,1,1), 0>>> x1 {n=8 x=ptr}
24: count(int) <<<(4,1,1), (32,1,1), 0>>> x1 {passes=4}
*/
// do-while: the body runs before the test. size 4096, 512, 64, 8 (then 1 ends it); the grid is
// at least 1. Four passes.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void count(int passes) {}

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  int size = 4096, passes = 0;
  do {
    k<<<size / 256 > 0 ? size / 256 : 1, 256>>>(x, size);
    size /= 8;
    passes++;
  } while (size > 1);
  count<<<passes, 32>>>(passes);
  return 0;
}
