/* kerncast-expect
flags: -std=c++14 -fopenmp
26: k(float*, int) <<<(?{random},1,1), (32,1,1), 0>>> x1 {n=?{random} x=ptr}
32: k(float*, int) <<<(?{random},1,1), (64,1,1), 0>>> x1 {n=?{random} x=ptr}
35: k(float*, int) <<<(59,1,1), (128,1,1), 0>>> x1 {n=59 x=ptr}
note ?{kerncast does not read an OpenMP loop}
*/
// Draws of rand() kerncast does not follow: std::random_shuffle draws with rand() inside
// libstdc++, and a loop under an OpenMP directive runs on threads in no fixed order (and is
// not read); after either, what rand() gives is unknown. srand(3) makes it known again:
// 1205554746 % 64 + 1 = 59.
#include <algorithm>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  srand(3);
  std::vector<int> v(16, 1);
  std::random_shuffle(v.begin(), v.end());
  int a = rand() % 64 + 1;
  k<<<a, 32>>>(x, a);
  srand(3);
  int draws[8];
#pragma omp parallel for
  for (int i = 0; i < 8; i++) draws[i] = rand();
  int b = rand() % 64 + 1;
  k<<<b, 64>>>(x, b);
  srand(3);
  int c = rand() % 64 + 1;
  k<<<c, 128>>>(x, c);
  return 0;
}
