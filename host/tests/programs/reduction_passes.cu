/* kerncast-expect
18: reduce(float*, int) <<<(2048,1,1), (256,1,1), 1024>>> x1 {n=1048576 x=ptr}
18: reduce(float*, int) <<<(4,1,1), (256,1,1), 1024>>> x1 {n=2048 x=ptr}
18: reduce(float*, int) <<<(1,1,1), (256,1,1), 1024>>> x1 {n=4 x=ptr}
*/
// A multi-pass reduction: each pass reduces 512 elements a block until one is left:
// 2^20 → 2048 → 4 → 1.
#include <cuda_runtime.h>

__global__ void reduce(float* x, int n) {}

int main() {
  int n = 1 << 20;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  while (n > 1) {
    int blocks = (n + 511) / 512;
    reduce<<<blocks, 256, 256 * sizeof(float)>>>(x, n);
    n = blocks;
  }
  return 0;
}
