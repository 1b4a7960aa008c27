/* kerncast-expect
18: cudaLaunchCooperativeKernel sync_all(int*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {flags=ptr n=1024}
23: cudaLaunchCooperativeKernel sync_all(int*, int) <<<(?{device},1,1), (128,1,1), 0>>> x1 {flags=ptr n=1024}
*/
// cudaLaunchCooperativeKernel: a fixed grid of 8, then one sized to the device (SM count times
// the blocks per SM the occupancy API gives), which needs a device: unknown.
#include <cuda_runtime.h>

__global__ void sync_all(int* flags, int n) {}

int main() {
  int n = 1024;
  int* f;
  cudaMalloc(&f, n * sizeof(int));
  void* params[2];
  params[0] = &f;
  params[1] = &n;
  cudaLaunchCooperativeKernel((void*)sync_all, 8, 128, params);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sync_all, 128, 0);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  cudaLaunchCooperativeKernel((void*)sync_all, prop.multiProcessorCount * per_sm, 128, params, 0, 0);
  return 0;
}
