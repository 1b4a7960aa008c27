/* kerncast-expect
23: k(float*, int) <<<(4,1,1), (?{`block`: it depends on the condition},1,1), 0>>> x1 {n=1 x=ptr}
26: k(float*, int) <<<(4,1,1), (?{whose end kerncast cannot tell},1,1), 0>>> x1 {n=2 x=ptr}
*/
// A helper that changes a global, called on one side of a condition kerncast cannot decide
// and inside a loop whose end it cannot tell: after them the global is unknown, not the value
// one run of the helper left (C gives 64 or 128 for the first; any multiple of 64 from 64 up
// for the second).
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

static int block = 64;

void widen() { block *= 2; }

int main(int argc, char** argv) {
  float* x;
  cudaMalloc(&x, 4096);
  if (time(NULL) % 2) widen();
  k<<<4, block>>>(x, 1);
  block = 64;
  while (time(NULL) % 3) widen();
  k<<<4, block>>>(x, 2);
  return 0;
}
