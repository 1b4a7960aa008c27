/* kerncast-expect
21: k(float*, int) <<<(4,1,1), (1024,1,1), 0>>> x1 {n=5000 x=ptr}
24: k(float*, int) <<<(400,1,1), (512,1,1), 0>>> x1 {n=5000 x=ptr}
26: k(float*, int) <<<(256,1,1), (256,1,1), 0>>> x1 {n=5000 x=ptr}
*/
// std::min, std::max, std::min<int>, std::clamp, fmin and the conditional operator:
// min(5000, 1024) = 1024, max(1, 5000 / 1024) = 4, min(400, 65535) = 400, 5000 > 4096 → 512,
// clamp(500, 1, 256) = 256, fmin(300, 256) = 256.
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  int n = 5000;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  int block = std::min(n, 1024);
  int grid = std::max(1, n / block);
  k<<<grid, block>>>(x, n);
  int g2 = std::min<int>(grid * 100, 65535);
  int b2 = n > 4096 ? 512 : 128;
  k<<<g2, b2>>>(x, n);
  int b3 = fmin(300.0, 256.0);
  k<<<std::clamp(n / 10, 1, 256), b3>>>(x, n);
  return 0;
}
