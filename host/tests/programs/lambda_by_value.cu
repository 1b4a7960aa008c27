/* kerncast-expect
21: k(float*, int) <<<(8,1,1), (256,1,1), 0>>> x1 {n=2048 x=ptr}
25: k(float*, int) <<<(32768,1,1), (32,1,1), 0>>> x1 {n=1048576 x=ptr}
30: k(float*, int) <<<(100,1,1), (64,1,1), 0>>> x1 {n=164 x=ptr}
35: k(float*, int) <<<(4,1,1), (512,1,1), 0>>> x1 {n=2048 x=ptr}
40: k(float*, int) <<<(14,1,1), (32,1,1), 0>>> x1 {n=7 x=ptr}
*/
// Lambdas capturing by value keep the values of when they were made: launch() still sees
// n = 2048, block = 256 after both change; by_copy sees n = 2^20, block = 32; mixed copies m
// (100) but reads n by reference (64); an init capture bs = block * 2 is 512 when made; outer
// captures r (7) by copy because the lambda inside it names r.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* d;
  cudaMalloc(&d, sizeof(float) << 20);
  int n = 2048;
  int block = 256;
  auto launch = [=]() { k<<<n / block, block>>>(d, n); };
  n = 1 << 20;
  block = 32;
  launch();
  auto by_copy = [n, block](float* p) { k<<<n / block, block>>>(p, n); };
  n = 1;
  block = 1;
  by_copy(d);
  int m = 100;
  auto mixed = [m, &n, d]() { k<<<m, n>>>(d, m + n); };
  m = 7;
  n = 64;
  mixed();
  block = 256;
  auto sized = [bs = block * 2, d](int total) { k<<<total / bs, bs>>>(d, total); };
  block = 1;
  sized(2048);
  int r = 7;
  auto outer = [=]() {
    auto inner = [=]() { k<<<r * 2, 32>>>(d, r); };
    inner();
  };
  r = 100;
  outer();
  return 0;
}
