/* kerncast-expect
21: k(float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {n=0 x=ptr}
21: k(float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {n=1 x=ptr}
21: k(float*, int) <<<(3,1,1), (64,1,1), 0>>> x1 {n=2 x=ptr}
21: k(float*, int) <<<(4,1,1), (64,1,1), 0>>> x1 {n=3 x=ptr}
21: k(float*, int) <<<(5,1,1), (64,1,1), 0>>> x1 {n=4 x=ptr}
27: k(float*, int) <<<(4,1,1), (64,1,1), 0>>> x3 {n=256 x=ptr}
27: k(float*, int) <<<(4,1,1), (64,1,1), 0>>> x1 {n=232 x=ptr}
*/
// While loops stepping a counter, and one walking 1000 elements in chunks of 256: three full
// chunks and one of 232, each (len + 63) / 64 = 4 blocks.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1000 * sizeof(float));
  int i = 0;
  while (i < 5) {
    k<<<i + 1, 64>>>(x, i);
    i++;
  }
  int left = 1000, chunk = 256, offset = 0;
  while (left > 0) {
    int len = left < chunk ? left : chunk;
    k<<<(len + 63) / 64, 64>>>(x + offset, len);
    offset += len;
    left -= len;
  }
  return 0;
}
