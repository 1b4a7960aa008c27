/* kerncast-expect
20: k(float*, int) <<<(?{device.multiProcessorCount},1,1), (256,1,1), 0>>> x1 {n=1048576 x=ptr}
22: k(float*, int) <<<(64,1,1), (?{device.maxThreadsPerBlock},1,1), 0>>> x1 {n=1048576 x=ptr}
23: k(float*, int) <<<(64,1,1), (128,1,1), 0>>> x1 {n=1048576 x=ptr}
26: k(float*, int) <<<(?{device.multiProcessorCount},1,1), (1024,1,1), 0>>> x1 {n=1048576 x=ptr}
*/
// Sizes from cudaGetDeviceProperties and cudaDeviceGetAttribute need the device: unknown
// without one, each named after its property. warpSize is 32 on every CUDA device.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  int n = 1 << 20;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int blocks = prop.multiProcessorCount * 4;
  k<<<blocks, 256>>>(x, n);
  int threads = prop.maxThreadsPerBlock;
  k<<<64, threads>>>(x, n);
  k<<<64, prop.warpSize * 4>>>(x, n);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  k<<<sms * 2, 1024>>>(x, n);
  return 0;
}
