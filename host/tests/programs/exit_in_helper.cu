/* kerncast-expect
args: 0
26: first(float*) <<<(1,1,1), (1,1,1), 0>>> x1 {x=ptr}
28: unreached k(float*, int) ?{never reached}
note ?{the program ends at exit_in_helper.cu:18 (`exit`), via check (line 27)}
*/
// A helper that exits on a bad size: with "0" the first launch runs, then check() exits.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void first(float* x) {}
__global__ void k(float* x, int n) {}

void check(int n) {
  if (n <= 0) {
    fprintf(stderr, "bad n\n");
    exit(EXIT_FAILURE);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  first<<<1, 1>>>(x);
  check(n);
  k<<<n / 256, 256>>>(x, n);
  return 0;
}
