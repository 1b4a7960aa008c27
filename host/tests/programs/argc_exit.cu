/* kerncast-expect
21: unreached k(float*, int) ?{never reached}
note ?{the program ends at argc_exit.cu:15 (`exit`)}
*/
// Run without arguments, the program prints its usage and exits before any launch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s n reps\n", argv[0]);
    exit(1);
  }
  int n = atoi(argv[1]);
  int reps = atoi(argv[2]);
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  for (int r = 0; r < reps; ++r) k<<<n / 256, 256>>>(x, n);
  return 0;
}
