/* kerncast-expect
args: 0x1000 010 12abc 2.5e3
22: k(float*, int, float) <<<(16,1,1), (64,1,1), 0>>> x1 {n=12 s=2500 x=ptr}
24: k(float*, int, float) <<<(4096,1,1), (1,1,1), 0>>> x1 {n=-8 s=0.5 x=ptr}
*/
// strtol with base 0 (hex 0x1000 = 4096, octal 010 = 8), base 10 stopping at a letter
// ("12abc" → 12), strtoul in base 16, strtod, and a negative sign.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n, float s) {}

int main(int argc, char** argv) {
  if (argc < 5) return 1;
  char* end;
  long n = strtol(argv[1], NULL, 0);
  long o = strtol(argv[2], NULL, 0);
  long d = strtol(argv[3], &end, 10);
  double s = strtod(argv[4], NULL);
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  k<<<n / 256, o * 8>>>(x, d, s);
  unsigned long u = strtoul(argv[1], NULL, 16);
  k<<<u, 1>>>(x, (int)strtol("-8", NULL, 10), 0.5f);
  return 0;
}
