/* kerncast-expect
16: add(float*, int) <<<(20,1,1), (256,1,1), 0>>> x1 {a=ptr n=5000}
24: mul(float*, int) <<<(79,1,1), (64,1,1), 0>>> x1 {a=ptr n=5000}
24: mul(float*, int) <<<(10,1,1), (64,1,1), 0>>> x1 {a=ptr n=640}
*/
// Two functions each with a local num_blocks, one assigned in several statements (issue 47:
// "given a value at lines 6, 8 and 13"). (5000 + 255) / 256 = 20; 5000 / 64 = 78 remainder 8
// → 79; 640 / 64 = 10 remainder 0 → 10.
#include <cuda_runtime.h>

__global__ void add(float* a, int n) {}
__global__ void mul(float* a, int n) {}

void run_add(float* a, int n) {
  int num_blocks = (n + 255) / 256;
  add<<<num_blocks, 256>>>(a, n);
}

void run_mul(float* a, int n) {
  int block = 64;
  int num_blocks;
  num_blocks = n / block;
  if (n % block != 0) num_blocks++;
  mul<<<num_blocks, block>>>(a, n);
}

int main() {
  float* a;
  cudaMalloc(&a, 5000 * sizeof(float));
  run_add(a, 5000);
  run_mul(a, 5000);
  run_mul(a, 64 * 10);
  return 0;
}
