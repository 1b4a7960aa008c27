/* kerncast-expect
18: k(float*, int) <<<(?{random},1,1), (32,1,1), 0>>> x1 {n=?{random} x=ptr}
21: k(float*, int) <<<(76,1,1), (32,1,1), 0>>> x1 {n=76 x=ptr}
*/
// rand() in the initialiser of a variable of namespace scope: such initialisers run before
// main in an order C++ leaves open across files, so that draw and the generator after it are
// unknown; srand(5) in main makes it known again (rand() % 100 + 1 = 76).
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int drawn = rand() % 100;

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  k<<<drawn + 1, 32>>>(x, drawn);
  srand(5);
  int n = rand() % 100 + 1;
  k<<<n, 32>>>(x, n);
  return 0;
}
