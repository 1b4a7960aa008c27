/* kerncast-expect
21: k(float*, int) <<<(6,1,1), (32,1,1), 0>>> x1 {n=167 x=ptr}
24: k(float*, int) <<<(4,1,1), (64,1,1), 0>>> x1 {n=64 x=ptr}
28: k(float*, int) <<<(5,1,1), (64,1,1), 0>>> x1 {n=320 x=ptr}
*/
// Sizes from rand() are glibc's numbers for the seed (srand(42): 71876166 % 1000 + 1 = 167, so
// 6 blocks of 32; the next draw is even, so the block stays 64); from <random>'s engines and
// distributions they are libstdc++'s numbers (mt19937 seeded with 1, uniform in 1..10: 5, as a
// build with g++ 12 prints; `cpp_random.cu` covers the rest).
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
