/* kerncast-expect
34: fill(float*, int) <<<(64,1,1), (128,1,1), 0>>> x1 {n=1048576 x=ptr}
*/
// ifdef_block.cu without flags: the #else branches. BLOCK = 128, 2^20 / 128 = 8192 blocks,
// capped at GRID_CAP = 64.
#include <cuda_runtime.h>

#ifdef BIG_BLOCKS
#define BLOCK 512
#else
#define BLOCK 128
#endif

#if defined(BIG_BLOCKS) && !defined(SMALL_GRID)
static const int GRID_CAP = 1024;
#elif defined(SMALL_GRID)
static const int GRID_CAP = 8;
#else
static const int GRID_CAP = 64;
#endif

#ifndef N_LOG2
#define N_LOG2 20
#endif

__global__ void fill(float* x, int n) {}

int main() {
  float* x;
  int n = 1 << N_LOG2;
  cudaMalloc(&x, n * sizeof(float));
  int blocks = (n + BLOCK - 1) / BLOCK;
  if (blocks > GRID_CAP) blocks = GRID_CAP;
  fill<<<blocks, BLOCK>>>(x, n);
  return 0;
}
