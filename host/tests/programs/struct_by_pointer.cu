/* kerncast-expect
25: k(float*, int) <<<(40,1,1), (256,1,1), 0>>> x1 {n=10000 x=ptr}
25: k(float*, int) <<<(160,1,1), (256,1,1), 0>>> x1 {n=40000 x=ptr}
25: k(float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {n=100 x=ptr}
25: k(float*, int) <<<(20,1,1), (256,1,1), 0>>> x1 {n=5000 x=ptr}
*/
// Structs filled through a pointer and a reference: setup(&cfg, 10000) picks 256 threads and
// (10000 + 255) / 256 = 40 blocks; grow() multiplies n and grid by 4; an array of configs.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

struct Config {
  int n, block, grid;
};

float* x;

void setup(Config* c, int n) {
  c->n = n;
  c->block = n >= 4096 ? 256 : 64;
  c->grid = (c->n + c->block - 1) / c->block;
}

void launch(const Config* c) { k<<<c->grid, c->block>>>(x, c->n); }

void grow(Config& c) {
  c.n *= 4;
  c.grid *= 4;
}

int main() {
  cudaMalloc(&x, 40000 * sizeof(float));
  Config cfg;
  setup(&cfg, 10000);
  launch(&cfg);
  grow(cfg);
  launch(&cfg);
  Config arr[2];
  setup(&arr[0], 100);
  setup(&arr[1], 5000);
  for (int i = 0; i < 2; i++) launch(&arr[i]);
  return 0;
}
