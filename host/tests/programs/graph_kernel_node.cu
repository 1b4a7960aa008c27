/* kerncast-expect
24: cudaGraphLaunch k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x3 {n=4096 x=ptr}
*/
// A graph built node by node with cudaGraphAddKernelNode, launched three times.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  int n = 4096;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  void* args[] = {&x, &n};
  cudaKernelNodeParams p = {0};
  p.func = (void*)k;
  p.gridDim = dim3(n / 256, 1, 1);
  p.blockDim = dim3(256, 1, 1);
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = NULL;
  cudaGraphNode_t node;
  cudaGraphAddKernelNode(&node, g, NULL, 0, &p);
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, 0);
  for (int i = 0; i < 3; i++) cudaGraphLaunch(e, 0);
  return 0;
}
