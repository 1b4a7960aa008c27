/* kerncast-expect
26: stage(float*, int) <<<(64,1,1), (128,1,1), 0>>> x100 {s=0 x=ptr}
26: stage(float*, int) <<<(64,1,1), (128,1,1), 0>>> x100 {s=1 x=ptr}
26: stage(float*, int) <<<(64,1,1), (128,1,1), 0>>> x100 {s=2 x=ptr}
27: update(float*) <<<(32,1,1), (256,1,1), 0>>> x100 {x=ptr}
29: tick(float*) <<<(1,1,1), (32,1,1), 0>>> x100000 {x=ptr}
30: down(float*, int) <<<(10,1,1), (32,1,1), 0>>> x1 {i=10 x=ptr}
30: down(float*, int) <<<(7,1,1), (32,1,1), 0>>> x1 {i=7 x=ptr}
30: down(float*, int) <<<(4,1,1), (32,1,1), 0>>> x1 {i=4 x=ptr}
30: down(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {i=1 x=ptr}
*/
// Launches repeated by loops: 100 steps of three stages and an update; 100000 ticks; a loop
// stepping down by 3 from 10 (10, 7, 4, 1).
#include <cuda_runtime.h>

__global__ void stage(float* x, int s) {}
__global__ void update(float* x) {}
__global__ void tick(float* x) {}
__global__ void down(float* x, int i) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  const int steps = 100;
  for (int t = 0; t < steps; ++t) {
    for (int s = 0; s < 3; ++s) stage<<<64, 128>>>(x, s);
    update<<<32, 256>>>(x);
  }
  for (int it = 0; it < 100000; it++) tick<<<1, 32>>>(x);
  for (int i = 10; i > 0; i -= 3) down<<<i, 32>>>(x, i);
  return 0;
}
