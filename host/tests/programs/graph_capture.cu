/* kerncast-expect
22: cudaGraphLaunch k1(float*, int) <<<(64,1,1), (256,1,1), 0>>> x20 {n=16384 x=ptr}
23: cudaGraphLaunch k2(float*, int) <<<(32,1,1), (128,1,1), 512>>> x20 {n=16384 x=ptr}
28: k1(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=0 x=ptr}
*/
// Stream capture into a CUDA graph, launched 20 times: the captured launches run 20 times each,
// none when captured. The last launch is outside the capture and runs once.
#include <cuda_runtime.h>

__global__ void k1(float* x, int n) {}
__global__ void k2(float* x, int n) {}

int main() {
  int n = 1 << 14;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  k1<<<n / 256, 256, 0, s>>>(x, n);
  k2<<<n / 512, 128, 512, s>>>(x, n);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (int i = 0; i < 20; ++i) cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  k1<<<1, 32, 0, s>>>(x, 0);
  return 0;
}
