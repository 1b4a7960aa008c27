/* kerncast-expect
28: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
28: k(float*, int) <<<(256,1,1), (256,1,1), 0>>> x1 {n=65536 x=ptr}
28: k(float*, int) <<<(4096,1,1), (1024,1,1), 0>>> x1 {n=4194304 x=ptr}
*/
// A constant table of named problem sizes, walked with sizeof(table) / sizeof(table[0]).
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

struct Shape {
  const char* name;
  int n;
  int block;
};

static const Shape kShapes[] = {
    {"small", 1024, 128},
    {"medium", 65536, 256},
    {"large", 1 << 22, 1024},
};

int main() {
  float* x;
  cudaMalloc(&x, sizeof(float) << 22);
  for (size_t i = 0; i < sizeof(kShapes) / sizeof(kShapes[0]); ++i) {
    const Shape& s = kShapes[i];
    k<<<s.n / s.block, s.block>>>(x, s.n);
  }
  return 0;
}
