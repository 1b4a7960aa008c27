/* kerncast-expect
26: sampled(float const*, float*, int) <<<(7813,1,1), (256,1,1), 0>>> x200 {b=ptr d=ptr n=2000000}
*/
// Long host loops that launch nothing, inside a loop that launches: each time round they are
// not followed to their end (what they write becomes unknown), and each time they run again
// they are given half the work of the time before, so the reading reaches the launch after
// them instead of spending its whole budget on them. The launch's sizes do not depend on
// what they compute: (2000 * 1000 + 255) / 256 = 7813.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void sampled(const float* b, float* d, int n) {}

int main() {
  const int rows = 1000, cols = 2000;
  float* b = (float*)malloc(sizeof(float) * rows * cols);
  float *d_b, *d_d;
  cudaMalloc(&d_b, sizeof(float) * rows * cols);
  cudaMalloc(&d_d, sizeof(float) * rows * cols);
  for (int r = 0; r < 200; r++) {
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) b[i * cols + j] = (i * 2) + 1;
    long sum = 0;
    for (int i = 0; i < rows * cols; i++) sum += (long)b[i];
    cudaMemcpy(d_b, b, sizeof(float) * rows * cols, cudaMemcpyHostToDevice);
    sampled<<<(rows * cols + 255) / 256, 256>>>(d_b, d_d, rows * cols);
  }
  free(b);
  return 0;
}
