/* kerncast-expect
43: k(float*, int) <<<(?{condition at line 22},1,1), (32,1,1), 0>>> x1 {n=1 x=ptr}
47: k(float*, int) <<<(2,1,1), (32,1,1), 0>>> x1 {n=2 x=ptr} when ?{condition at line 46}
50: k(float*, int) <<<(3,1,1), (?{condition at line 28},1,1), 0>>> x1 {n=3 x=ptr} when ?{condition at line 46}
53: k(float*, int) <<<(4,1,1), (32,1,1), 0>>> x1 {n=?{condition at line 32} x=ptr} when ?{condition at line 46}
*/
// Writes through a pointer on one side of a condition kerncast cannot decide: after set(&n),
// n is 32 or 64; after clear(&m), m is null or not; after widen(&cfg.block), the block is 128
// or 256. A function that jumps to its failure label on one side returns 0 or 1. None of them
// is decided.
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

struct Cfg {
  int block;
};

void set(int* p) {
  if (time(NULL) % 3) *p = 64;
}
void clear(int** p) {
  if (time(NULL) % 3) *p = NULL;
}
void widen(int* b) {
  if (time(NULL) % 2) *b = 256;
}
int parse(int* out) {
  *out = 7;
  if (time(NULL) % 2) goto fail;
  return 0;
fail:
  return 1;
}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  int n = 32;
  set(&n);
  k<<<n, 32>>>(x, 1);
  int* m = (int*)calloc(4, 4);
  clear(&m);
  if (m == NULL) return 1;
  k<<<2, 32>>>(x, 2);
  Cfg cfg = {128};
  widen(&cfg.block);
  k<<<3, cfg.block>>>(x, 3);
  int v = 0;
  int r = parse(&v);
  k<<<4, 32>>>(x, r);
  return 0;
}
