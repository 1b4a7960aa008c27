/* kerncast-expect
22: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x301 {n=0 x=ptr}
24: k(float*, int) <<<(301,1,1), (64,1,1), 0>>> x1 {n=301 x=ptr}
*/
// A loop whose bound draws from rand() each time it is tested: its remaining trips are not a
// count kerncast may take from one draw once its launches repeat. srand(11): the tests draw
// in turn, and the loop goes on while i < 300 + draw % 2; the 301st test (i = 300) draws an
// odd number and passes, the 302nd (i = 301) fails whatever it draws: 301 iterations (one
// draw, the 257th, is even: a count taken from it would say 300).
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  srand(11);
  int n = 0;
  for (int i = 0; i < 300 + rand() % 2; i++) {
    n++;
    k<<<1, 32>>>(x, 0);
  }
  k<<<n, 64>>>(x, n);
  return 0;
}
