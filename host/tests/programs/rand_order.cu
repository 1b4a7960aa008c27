/* kerncast-expect
23: k(float*, int) <<<(?{random},1,1), (32,1,1), 0>>> x1 {n=?{random} x=ptr}
27: k(float*, int) <<<(5,1,1), (64,1,1), 0>>> x1 {n=5 x=ptr}
30: k(float*, int) <<<(?{random},1,1), (128,1,1), 0>>> x1 {n=?{random} x=ptr}
32: k(float*, int) <<<(?{random},1,1), (?{random},1,1), 0>>> x1 {n=0 x=ptr}
*/
// Draws of rand() whose order C leaves to the compiler: the two operands of `+` and the
// values of a launch's configuration are evaluated in an order GCC and clang choose
// differently, so what each draw gives is unknown (and every draw after). In two statements
// the order is fixed: srand(9) gives 444454915 % 64 = 3, then 1502197874 % 8 = 2. A draw on
// the right of `&&` whose left side is unknown may not happen at all.
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  srand(9);
  int a = rand() % 64 + rand() % 8;
  k<<<a, 32>>>(x, a);
  srand(9);
  int b = rand() % 64;
  int c = rand() % 8;
  k<<<b + c, 64>>>(x, b + c);
  if (time(NULL) % 2 && rand() % 2) b = 1;
  int d = rand() % 16;
  k<<<d + 1, 128>>>(x, d);
  srand(9);
  k<<<rand() % 16 + 1, rand() % 4 * 32 + 32>>>(x, 0);
  return 0;
}
