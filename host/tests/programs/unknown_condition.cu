/* kerncast-expect
26: ka(float*, int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=4096 x=ptr} when ?{condition}
28: kb(float*, int) <<<(32,1,1), (128,1,1), 0>>> x1 {n=4096 x=ptr} when ?{condition}
31: kc(float*) <<<(16,1,1), (256,1,1), 0>>> x>=1?{loop at line 30} {x=ptr}
31: kc(float*) <<<(16,1,1), (256,1,1), 0>>> x>=1?{loop at line 30} {x=ptr} when ?{loop at line 30}
*/
// Conditions on data the device computed: both branches are reported, each under its
// condition; a loop until the device says it converged runs once for sure (converged starts
// at 0), then an unknown number of times more.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void ka(float* x, int n) {}
__global__ void kb(float* x, int n) {}
__global__ void kc(float* x) {}

int main() {
  int n = 4096;
  float* x;
  int* flag;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&flag, sizeof(int));
  int* h = (int*)malloc(sizeof(int));
  cudaMemcpy(h, flag, sizeof(int), cudaMemcpyDeviceToHost);
  if (h[0] > 0)
    ka<<<n / 256, 256>>>(x, n);
  else
    kb<<<n / 128, 128>>>(x, n);
  int converged = 0;
  while (!converged) {
    kc<<<16, 256>>>(x);
    cudaMemcpy(&converged, flag, sizeof(int), cudaMemcpyDeviceToHost);
  }
  return 0;
}
