/* kerncast-expect
args: -n 4096 -b 128
36: k(float*, int) <<<(32,1,1), (128,1,1), 0>>> x1 {n=5 x=ptr}
37: k(float*, int) <<<(?{declared `extern` and defined in code kerncast did not read},1,1), (128,1,1), 0>>> x1 {n=4096 x=ptr}
*/
// A C program that declares the library's getopt globals itself (`extern char *optarg;`,
// `extern int optind;`) reads them as the library sets them, not as zero: n = 4096, block 128,
// and optind 5 once the four words are read. A variable only declared `extern` and defined in
// no file read is unknown, not zero.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <unistd.h>

extern char* optarg;
extern int optind;
extern int scale;  // defined in a file not read

__global__ void k(float* x, int n) {}

int main(int argc, char** argv) {
  int n = 0, b = 0, c;
  while ((c = getopt(argc, argv, "n:b:")) != -1) {
    switch (c) {
      case 'n':
        n = atoi(optarg);
        break;
      case 'b':
        b = atoi(optarg);
        break;
      default:
        return 1;
    }
  }
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  k<<<n / b, b>>>(x, optind);
  k<<<scale, b>>>(x, n);
  return 0;
}
