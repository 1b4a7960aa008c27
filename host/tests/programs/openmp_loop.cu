/* kerncast-expect
flags: -fopenmp
26: k(float*, int) <<<(?{OpenMP loop},1,1), (32,1,1), 0>>> x1 {n=?{OpenMP loop} x=ptr}
29: k(float*, int) <<<(9,1,1), (64,1,1), 0>>> x1 {n=9 x=ptr}
note ?{kerncast does not read an OpenMP loop}
*/
// A loop under `#pragma omp parallel for` runs on threads, each with its own copy of a private
// variable, in no fixed order, and libclang does not show its statement: the variables its
// clauses name are unknown after it (C gives n = 9 and leaves t at 5; skipping the loop would
// say 1 and 5), never the values from before it. A gap: what the body writes that no clause
// names (a shared array) is not seen. A loop with no directive is followed as usual.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  int n = 1;
  int t = 5;
#pragma omp parallel for reduction(+ : n) private(t)
  for (int i = 0; i < 8; i++) {
    t = i + 5;
    n += 1;
  }
  k<<<n, 32>>>(x, t);
  int m = 1;
  for (int i = 0; i < 8; i++) m += 1;
  k<<<m, 64>>>(x, m);
  return 0;
}
