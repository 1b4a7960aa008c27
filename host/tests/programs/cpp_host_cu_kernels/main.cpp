/* kerncast-expect
kernels.cu:11: saxpy(int, float, float const*, float*) <<<(3907,1,1), (256,1,1), 0>>> x1 {a=2 n=1000000 x=ptr y=ptr}
kernels.cu:14: scale(int, float*) <<<(40,1,1), (128,1,1), 0>>> x2 {n=5000 y=ptr}
*/
// A C++ host (main.cpp, no CUDA syntax) calling extern "C" launchers in a .cu file:
// (10^6 + 255) / 256 = 3907 blocks; (5000 + 127) / 128 = 40, twice.
#include <cuda_runtime.h>

extern "C" void run_saxpy(int n, float a, const float* x, float* y);
extern "C" void run_scale(int n, float* y);

int main() {
  const int n = 1000000;
  float *x, *y;
  cudaMalloc((void**)&x, n * sizeof(float));
  cudaMalloc((void**)&y, n * sizeof(float));
  run_saxpy(n, 2.0f, x, y);
  for (int i = 0; i < 2; i++) run_scale(5000, y);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
