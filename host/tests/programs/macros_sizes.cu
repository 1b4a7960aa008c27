/* kerncast-expect
25: k(float*, int) <<<(4096,1,1), (256,1,1), 2048>>> x1 {n=1048576 x=ptr}
26: k(float*, int) <<<(1366,1,1), (256,1,1), 0>>> x1 {n=349525 x=ptr}
29: k2(float*, int, int) <<<(63,38,1), (16,16,1), 0>>> x1 {h=600 w=1000 x=ptr}
*/
// Sizes computed by macros: BLOCKS(2^20, 256) = 4096 with 256 * 4 * 2 = 2048 bytes of shared
// memory; N / 3 = 349525, (349525 + 255) / 256 = 1366; ROUND_UP(1000, 16) / 16 = 63 and
// BLOCKS(600, 16) = 38.
#include <cuda_runtime.h>

#define N (1 << 20)
#define THREADS 256
#define BLOCKS(n, t) (((n) + (t) - 1) / (t))
#define SMEM(t) ((t) * sizeof(float) * 2)
#define TILE 16
#define ROUND_UP(x, m) (BLOCKS(x, m) * (m))
#define LAUNCH(kernel, n) kernel<<<BLOCKS(n, THREADS), THREADS>>>(x, n)

__global__ void k(float* x, int n) {}
__global__ void k2(float* x, int w, int h) {}

int main() {
  float* x;
  cudaMalloc(&x, N * sizeof(float));
  k<<<BLOCKS(N, THREADS), THREADS, SMEM(THREADS)>>>(x, N);
  LAUNCH(k, N / 3);
  dim3 t(TILE, TILE);
  dim3 g(ROUND_UP(1000, TILE) / TILE, BLOCKS(600, TILE));
  k2<<<g, t>>>(x, 1000, 600);
  return 0;
}
