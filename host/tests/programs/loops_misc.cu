/* kerncast-expect
20: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=2 x=ptr}
20: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=1 x=ptr}
20: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=0 x=ptr}
24: k(float*, int) <<<(100,1,1), (32,1,1), 0>>> x1 {n=-1 x=ptr}
27: k(float*, int) <<<(6,1,1), (64,1,1), 0>>> x1 {n=6 x=ptr}
31: k(float*, int) <<<(7,1,1), (128,1,1), 0>>> x1 {n=16 x=ptr}
*/
// while (reps--) runs 3 times (reps 2, 1, 0 inside) and leaves reps at -1; a for-loop's own i
// shadows the outer i (still 100 after it); a loop with two counters (i up, j down) meeting;
// a condition with a side effect (&& short-circuits: m is assigned only when n > 0).
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  int reps = 3;
  while (reps--) k<<<1, 32>>>(x, reps);
  int i = 100;
  for (int i = 0; i < 2; i++) {
  }
  k<<<i, 32>>>(x, reps);
  int steps = 0;
  for (int i = 0, j = 12; i < j; i++, j--) steps++;
  k<<<steps, 64>>>(x, steps);
  int n = 5, m = 16;
  if (n < 0 && (m = 0) == 0) n = 0;
  if (n > 0 || (m = 1) == 1) n = 7;
  k<<<n, 128>>>(x, m);
  return 0;
}
