// Prints the properties of device 0 that a kerncast device profile holds, as JSON, so that a
// profile's values can be sourced to a reading of the device itself.
#include <cstdio>
#include <cuda_runtime.h>

static int attr(cudaDeviceAttr a) {
  int v = -1;
  cudaDeviceGetAttribute(&v, a, 0);
  return v;
}

int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  printf("{\n");
  printf("  \"name\": \"%s\",\n", p.name);
  printf("  \"compute_capability\": \"%d.%d\",\n", p.major, p.minor);
  printf("  \"runtime_version\": %d,\n  \"driver_version\": %d,\n", rt, drv);
  printf("  \"multiProcessorCount\": %d,\n", p.multiProcessorCount);
  printf("  \"totalGlobalMem\": %zu,\n", p.totalGlobalMem);
  printf("  \"l2CacheSize\": %d,\n", p.l2CacheSize);
  printf("  \"persistingL2CacheMaxSize\": %d,\n", p.persistingL2CacheMaxSize);
  printf("  \"memoryBusWidth\": %d,\n", p.memoryBusWidth);
  printf("  \"clockRate_khz\": %d,\n", attr(cudaDevAttrClockRate));
  printf("  \"memoryClockRate_khz\": %d,\n", attr(cudaDevAttrMemoryClockRate));
  printf("  \"sharedMemPerMultiprocessor\": %zu,\n", p.sharedMemPerMultiprocessor);
  printf("  \"sharedMemPerBlock\": %zu,\n", p.sharedMemPerBlock);
  printf("  \"sharedMemPerBlockOptin\": %zu,\n", p.sharedMemPerBlockOptin);
  printf("  \"regsPerMultiprocessor\": %d,\n", p.regsPerMultiprocessor);
  printf("  \"regsPerBlock\": %d,\n", p.regsPerBlock);
  printf("  \"maxThreadsPerMultiProcessor\": %d,\n", p.maxThreadsPerMultiProcessor);
  printf("  \"maxBlocksPerMultiProcessor\": %d,\n", p.maxBlocksPerMultiProcessor);
  printf("  \"maxThreadsPerBlock\": %d,\n", p.maxThreadsPerBlock);
  printf("  \"warpSize\": %d\n", p.warpSize);
  printf("}\n");
  return 0;
}
