/* kerncast-expect
23: small(float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {i=0 x=ptr}
31: after(float*) <<<(1,1,1), (32,1,1), 0>>> x4 {x=ptr}
26: big(float*, int) <<<(2,1,1), (128,1,1), 0>>> x1 {i=1 x=ptr}
23: small(float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {i=3 x=ptr}
26: big(float*, int) <<<(2,1,1), (128,1,1), 0>>> x1 {i=4 x=ptr}
*/
// A switch inside a loop: `break` leaves the switch, `continue` the iteration. For i = 0..5:
// i % 3 == 0 → small, == 1 → big, == 2 → continue (skipping after()); after() runs for the
// other four.
#include <cuda_runtime.h>

__global__ void small(float* x, int i) {}
__global__ void big(float* x, int i) {}
__global__ void after(float* x) {}

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  for (int i = 0; i < 6; i++) {
    switch (i % 3) {
      case 0:
        small<<<1, 64>>>(x, i);
        break;
      case 1:
        big<<<2, 128>>>(x, i);
        break;
      default:
        continue;
    }
    after<<<1, 32>>>(x);
  }
  return 0;
}
