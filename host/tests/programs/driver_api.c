/* kerncast-expect
show: buffer_bytes
29: cuLaunchKernel vecAdd <<<(40,1,1), (256,1,1), 0>>> x1 {arg0=ptr arg1=ptr arg2=ptr arg3=10000} bytes{arg0=40000 arg1=40000 arg2=40000}
31: cuLaunchKernel transpose <<<(32,32,1), (16,16,1), 1088>>> x1
*/
// The driver API from C: kernels looked up by name in a module, launched with cuLaunchKernel.
// (10000 + 255) / 256 = 40 blocks; transpose's shared memory is 16 * 17 * 4 = 1088 bytes.
#include <cuda.h>
#include <stddef.h>

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction f, g;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, 0, dev);
  cuModuleLoad(&mod, "vecadd.ptx");
  cuModuleGetFunction(&f, mod, "vecAdd");
  int n = 10000;
  CUdeviceptr a, b, c;
  cuMemAlloc(&a, n * sizeof(float));
  cuMemAlloc(&b, n * sizeof(float));
  cuMemAlloc(&c, n * sizeof(float));
  void* args[] = {&a, &b, &c, &n};
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, 0, args, 0);
  cuModuleGetFunction(&g, mod, "transpose");
  cuLaunchKernel(g, 32, 32, 1, 16, 16, 1, 16 * 17 * sizeof(float), 0, NULL, 0);
  return 0;
}
