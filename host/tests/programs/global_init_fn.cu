/* kerncast-expect
31: k(float*, int) <<<(12,1,1), (256,1,1), 0>>> x1 {n=3072 x=ptr}
32: k(float*, int) <<<(5,1,1), (64,1,1), 0>>> x1 {n=320 x=ptr}
*/
// Globals initialised by functions, in declaration order: N = 3 * 1024 = 3072, BLOCK = N / 12
// = 256; grid_for(3072) = (3072 + 255) / 256 = 12. P = make_params(5): n = 320, block = 64.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

static int compute_n() { return 3 * 1024; }
int N = compute_n();
const int BLOCK = N / 12;

struct Params {
  int n, block;
};
static Params make_params(int blocks) {
  Params p;
  p.block = 64;
  p.n = blocks * p.block;
  return p;
}
Params P = make_params(5);

int grid_for(int n) { return (n + BLOCK - 1) / BLOCK; }

int main() {
  float* x;
  cudaMalloc(&x, N * sizeof(float));
  k<<<grid_for(N), BLOCK>>>(x, N);
  k<<<P.n / P.block, P.block>>>(x, P.n);
  return 0;
}
