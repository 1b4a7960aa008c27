/* kerncast-expect
19: k(float*, int) <<<(?{random},1,1), (32,1,1), 0>>> x1 {n=?{random} x=ptr}
22: k(float*, int) <<<(4,1,1), (?{random},1,1), 0>>> x1 {n=?{random} x=ptr}
26: k(float*, int) <<<(?{random},1,1), (64,1,1), 0>>> x1 {n=?{random} x=ptr}
*/
// Sizes from rand() and <random> are unknown, whatever the seed; so is a block chosen under a
// condition on rand().
#include <cstdlib>
#include <cuda_runtime.h>
#include <random>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  srand(42);
  int n = rand() % 1000 + 1;
  k<<<(n + 31) / 32, 32>>>(x, n);
  int b = 64;
  if (rand() % 2) b = 128;
  k<<<4, b>>>(x, b);
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> dist(1, 10);
  int m = dist(gen) * 64;
  k<<<m / 64, 64>>>(x, m);
  return 0;
}
