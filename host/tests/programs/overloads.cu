/* kerncast-expect
15: scale(float*, float, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1000 s=2 x=ptr}
16: scale(double*, double, int) <<<(47,1,1), (64,1,1), 0>>> x1 {n=3000 s=3 x=ptr}
*/
// Overloaded kernels and overloaded host helpers: each call runs the overload clang resolves.
// float: (1000 + 255) / 256 = 4; double: blocks_for(long, int) = (3000 + 63) / 64 = 47.
#include <cuda_runtime.h>

__global__ void scale(float* x, float s, int n) {}
__global__ void scale(double* x, double s, int n) {}

static int blocks_for(int n) { return (n + 255) / 256; }
static int blocks_for(long n, int block) { return (int)((n + block - 1) / block); }

void launch(float* x, int n) { scale<<<blocks_for(n), 256>>>(x, 2.0f, n); }
void launch(double* x, int n) { scale<<<blocks_for((long)n, 64), 64>>>(x, 3.0, n); }

int main() {
  float* f;
  double* d;
  cudaMalloc(&f, 1000 * sizeof(float));
  cudaMalloc(&d, 3000 * sizeof(double));
  launch(f, 1000);
  launch(d, 3000);
  return 0;
}
