/* kerncast-expect
32: k(float*, int) <<<(16,1,1), (64,1,1), 0>>> x1 {i=0 x=ptr}
32: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {i=1 x=ptr}
32: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {i=2 x=ptr}
34: k(float*, int) <<<(3,1,1), (96,1,1), 0>>> x2 {i=9 x=ptr}
*/
// Static locals keep their values across calls: next_block() returns 32 << 1, << 2, << 3;
// base() initialises its static once (3 * 32 = 96), so the second call returns the same.
#include <cuda_runtime.h>

__global__ void k(float* x, int i) {}

int next_block() {
  static int calls = 0;
  calls++;
  return 32 << calls;
}

int compute() { return 3 * 32; }

int base() {
  static int b = compute();
  // initialised once, at the first call
  return b;
}

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  for (int i = 0; i < 3; i++) {
    int b = next_block();
    k<<<1024 / b, b>>>(x, i);
  }
  for (int i = 0; i < 2; i++) k<<<288 / base(), base()>>>(x, 9);
  return 0;
}
