/* kerncast-expect
19: k(float*, int) <<<(4,2,2), (32,32,1), 0>>> x1 {n=2 x=ptr}
23: k(float*, int) <<<(10,1,1), (64,1,1), 0>>> x1 {n=10 x=ptr}
23: k(float*, int) <<<(20,1,1), (64,1,1), 0>>> x1 {n=20 x=ptr}
*/
// Pointers into host arrays: p[0], *q with q = p + 1, *(p + 2); a heap block walked with a
// pointer until h + 2.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  int dims[3] = {128, 64, 2};
  int* p = dims;
  int* q = p + 1;
  k<<<dim3(p[0] / 32, *q / 32, p[2]), dim3(32, 32)>>>(x, *(p + 2));
  int* h = (int*)malloc(4 * sizeof(int));
  h[0] = 10;
  h[1] = 20;
  for (int* it = h; it != h + 2; ++it) k<<<*it, 64>>>(x, *it);
  free(h);
  return 0;
}
