/* kerncast-expect
21: k(float*, int) <<<(1024,1,1), (64,1,1), 0>>> x1 {n=65536 x=ptr}
21: k(float*, int) <<<(512,1,1), (128,1,1), 0>>> x1 {n=65536 x=ptr}
21: k(float*, int) <<<(256,1,1), (256,1,1), 0>>> x1 {n=65536 x=ptr}
26: tile(float*, int) <<<(32,32,1), (8,8,1), 0>>> x1 {t=8 x=ptr}
26: tile(float*, int) <<<(16,16,1), (16,16,1), 0>>> x1 {t=16 x=ptr}
*/
// Range-for over a C array and over a std::array: one launch per element.
// 2^16 / 64 = 1024, / 128 = 512, / 256 = 256; tiles of 8 and 16 over 256 x 256.
#include <array>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void tile(float* x, int t) {}

int main() {
  float* x;
  const int n = 1 << 16;
  cudaMalloc(&x, n * sizeof(float));
  int sizes[] = {64, 128, 256};
  for (int b : sizes) k<<<n / b, b>>>(x, n);
  std::array<int, 2> tiles = {8, 16};
  for (const int& t : tiles) {
    dim3 blk(t, t);
    dim3 grd(256 / t, 256 / t);
    tile<<<grd, blk>>>(x, t);
  }
  return 0;
}
