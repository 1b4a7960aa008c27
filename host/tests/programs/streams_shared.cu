/* kerncast-expect
25: k(float*, int) <<<(1024,1,1), (256,1,1), 1024>>> x4 {n=262144 x=ptr}
27: k2(double*) <<<(8,1,1), (128,1,1), 1088>>> x1 {x=ptr}
*/
// Launches on four streams with dynamic shared memory: 2^20 / 4 = 262144 elements a stream,
// 1024 blocks of 256 with 256 floats (1024 bytes) each; 128 doubles plus 64 bytes = 1088.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = x[threadIdx.x];
}
__global__ void k2(double* x) {}

int main() {
  const int n = 1 << 20;
  float* x;
  double* y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(double));
  cudaStream_t streams[4];
  for (int i = 0; i < 4; i++) cudaStreamCreate(&streams[i]);
  int chunk = n / 4;
  for (int i = 0; i < 4; i++) {
    k<<<chunk / 256, 256, 256 * sizeof(float), streams[i]>>>(x + i * chunk, chunk);
  }
  k2<<<8, 128, 128 * sizeof(double) + 64, streams[0]>>>(y);
  for (int i = 0; i < 4; i++) cudaStreamDestroy(streams[i]);
  return 0;
}
