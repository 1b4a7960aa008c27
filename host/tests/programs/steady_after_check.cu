/* kerncast-expect
23: check(int, int*) <<<(3907,1,1), (256,1,1), 0>>> x1 {divisor=7 results=ptr}
23: check(int, int*) <<<(3907,1,1), (256,1,1), 0>>> x99998 {divisor=7 results=ptr} when ?{data copied from the device}
35: bench(int, int*) <<<(32768,1,1), (256,1,1), 0>>> x100 {a=3 out=ptr} when ?{data copied from the device}
*/
// A functional test that launches once per divisor and stops at the first failure, which it
// learns from the device: the first iteration's launch runs unconditionally, every later one
// only if no earlier check failed. From the second iteration on, each launches the same
// shape (under the same condition), so the 99999 iterations are counted, not all run, and
// the launches after the loop are reached. (1000000 + 255) / 256 = 3907.
#include <cuda_runtime.h>

__global__ void check(int divisor, int* results) {}
__global__ void bench(int a, int* out) {}

int test() {
  const int blocks = 256;
  const int grids = (1000000 + blocks - 1) / blocks;
  int buf[4];
  int* buf_d;
  cudaMalloc(&buf_d, sizeof(int) * 4);
  for (int d = 1; d < 100000; ++d) {
    check<<<grids, blocks>>>(7, buf_d);
    cudaMemcpy(buf, buf_d, sizeof(int) * 4, cudaMemcpyDeviceToHost);
    if (buf[0] > 0) return 1;
  }
  cudaFree(buf_d);
  return 0;
}

int main() {
  if (test()) return 1;
  int* out;
  cudaMalloc(&out, 4);
  for (int i = 0; i < 100; i++) bench<<<32 * 1024, 256>>>(3, out);
  return 0;
}
