/* kerncast-expect
args: -n 8192 -b 512 -v -r2
37: k(float*, int, int) <<<(16,1,1), (512,1,1), 0>>> x2 {n=8192 verbose=1 x=ptr}
*/
// getopt flags: -n 8192, -b 512, -v, and -r2 with its value joined: 8192 / 512 = 16, twice.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void k(float* x, int n, int verbose) {}

int main(int argc, char** argv) {
  int n = 1024, block = 256, reps = 1, verbose = 0;
  int opt;
  while ((opt = getopt(argc, argv, "n:b:r:v")) != -1) {
    switch (opt) {
      case 'n':
        n = atoi(optarg);
        break;
      case 'b':
        block = atoi(optarg);
        break;
      case 'r':
        reps = atoi(optarg);
        break;
      case 'v':
        verbose = 1;
        break;
      default:
        fprintf(stderr, "usage: %s [-n N] [-b B] [-r R] [-v]\n", argv[0]);
        return 1;
    }
  }
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  for (int r = 0; r < reps; ++r) k<<<n / block, block>>>(x, n, verbose);
  return 0;
}
