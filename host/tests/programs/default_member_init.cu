/* kerncast-expect
33: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x3 {n=4096 x=ptr}
35: k(float*, int) <<<(1024,1,1), (1024,1,1), 0>>> x1 {n=1048576 x=ptr}
39: k2(float*, int, int) <<<(40,30,1), (16,16,1), 0>>> x1 {h=480 w=640 x=ptr}
*/
// Default member initialisers, aggregate initialisation over them, and a constructor that
// assigns in its body. Config{}: 4096 / 256 = 16 blocks, 3 times; big: 2^20 / 1024 = 1024;
// Grid2D(640, 480) with 16x16 tiles: (640 + 15) / 16 = 40, (480 + 15) / 16 = 30.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void k2(float* x, int w, int h) {}

struct Config {
  int n = 4096;
  int block = 256;
  int reps = 3;
};

struct Grid2D {
  int w, h;
  int bx = 16, by = 16;
  Grid2D(int w_, int h_) {
    w = w_;
    h = h_;
  }
};

int main() {
  float* x;
  cudaMalloc(&x, sizeof(float) << 20);
  Config c;
  for (int r = 0; r < c.reps; ++r) k<<<c.n / c.block, c.block>>>(x, c.n);
  Config big{1 << 20, 1024, 1};
  k<<<big.n / big.block, big.block>>>(x, big.n);
  Grid2D g(640, 480);
  dim3 grid((g.w + g.bx - 1) / g.bx, (g.h + g.by - 1) / g.by);
  dim3 block(g.bx, g.by);
  k2<<<grid, block>>>(x, g.w, g.h);
  return 0;
}
