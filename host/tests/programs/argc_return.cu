/* kerncast-expect
args: 300
27: k(float*, int) <<<(3,1,1), (128,1,1), 0>>> x1 {n=300 x=ptr}
24: unreached k(float*, int) ?{never reached}
29: unreached k(float*, int) ?{never reached}
*/
// Early returns on a bad command line: with "300", argc == 2 and n > 0, so the launch runs
// ((300 + 127) / 128 = 3 blocks) and main returns before the last two.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main(int argc, char** argv) {
  if (argc != 2) {
    printf("usage: %s n\n", argv[0]);
    return 1;
  }
  int n = atoi(argv[1]);
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  if (n <= 0) {
    k<<<1, 1>>>(x, 0);
    return 2;
  }
  k<<<(n + 127) / 128, 128>>>(x, n);
  return 0;
  k<<<1, 1>>>(x, -1);
}
