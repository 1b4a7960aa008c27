/* kerncast-expect
31: k1(int*, int) <<<(8192,1,1), (128,1,1), 0>>> x4 {n=1048576 out=ptr}
31: k1(int*, int) <<<(4096,1,1), (256,1,1), 0>>> x4 {n=1048576 out=ptr}
33: k2(int*, int) <<<(8,1,1), (64,1,1), 0>>> x2 {n=1048576 out=ptr}
*/
// Loops and branches written inside macros (a benchmark harness's `#define benchmark(k, g)`):
// the `for` header and the `else` are read from the macro's definition.
#include <cuda_runtime.h>

__global__ void k1(int* out, int n) {}
__global__ void k2(int* out, int n) {}

#define REPEAT(kernel, grid, block, times)            \
  for (int i = 0; i < (times); i++) {                  \
    kernel<<<dim3(grid), dim3(block)>>>(out, n);       \
  }

#define PICK(cond, a, b) \
  if (cond) {            \
    a;                   \
  } else {               \
    b;                   \
  }

int main() {
  int n = 1 << 20;
  int* out;
  cudaMalloc(&out, sizeof(int));
  int sizes[] = {128, 256};
  for (int s = 0; s < 2; s++) {
    REPEAT(k1, (n + sizes[s] - 1) / sizes[s], sizes[s], 4);
  }
  PICK(n > 1000, REPEAT(k2, 8, 64, 2), REPEAT(k2, 1, 32, 3));
  return 0;
}
