/* kerncast-expect
24: k(float*, int) <<<(16,1,1), (128,1,1), 0>>> x1 {n=2048 x=ptr}
38: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
24: k(float*, int) <<<(8,1,1), (256,1,1), 0>>> x1 {n=2048 x=ptr}
42: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
24: k(float*, int) <<<(20,1,1), (64,1,1), 0>>> x1 {n=1280 x=ptr}
46: k(float*, int) <<<(16,1,1), (64,1,1), 0>>> x1 {n=1024 x=ptr}
*/
// Structs passed and returned by value: run() doubles its own copy's n, the caller's stays;
// an assigned copy changed apart from its source; a struct returned by value.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

struct Launch {
  int n;
  int block;
};

float* x;

void run(Launch cfg) {
  cfg.n *= 2;
  k<<<cfg.n / cfg.block, cfg.block>>>(x, cfg.n);
}

Launch make(int n) {
  Launch l;
  l.n = n;
  l.block = 64;
  return l;
}

int main() {
  cudaMalloc(&x, 4096 * sizeof(float));
  Launch c = {1024, 128};
  run(c);
  k<<<c.n / c.block, c.block>>>(x, c.n);
  Launch d = c;
  d.block = 256;
  run(d);
  k<<<c.n / c.block, c.block>>>(x, c.n);
  run(make(640));
  Launch e;
  e = make(1024);
  k<<<e.n / e.block, e.block>>>(x, e.n);
  return 0;
}
