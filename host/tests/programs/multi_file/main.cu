/* kerncast-expect
launchers.cu:12: saxpy(float, float const*, float*, int) <<<(512,1,1), (512,1,1), 0>>> x1 {a=3 n=262144 x=ptr y=ptr}
launchers.cu:12: saxpy(float, float const*, float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {a=1.5 n=1000 x=ptr y=ptr}
launchers.cu:16: scale(float*, int) <<<(16,1,1), (256,1,1), 0>>> x5 {n=4096 x=ptr}
*/
// Launchers in another file, declared in a header, sizes from a shared header. DEFAULT_N =
// 2^18 picks kMaxBlock = 512: 512 blocks; 1000 picks 128: (1000 + 127) / 128 = 8.
#include <cuda_runtime.h>
#include "launchers.h"
#include "sizes.h"

int main() {
  float *x, *y;
  cudaMalloc(&x, DEFAULT_N * sizeof(float));
  cudaMalloc(&y, DEFAULT_N * sizeof(float));
  launch_saxpy(3.0f, x, y, DEFAULT_N);
  launch_saxpy(1.5f, x, y, 1000);
  launch_scale(x, 4096, 5);
  return 0;
}
