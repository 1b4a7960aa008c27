/* kerncast-expect
41: cuLaunchKernel scale<4> <<<(4,1,1), (256,1,1), 0>>> x1 {arg0=ptr}
42: cuLaunchKernel scale<8> <<<(8,1,1), (128,1,1), 0>>> x1 {arg0=ptr}
*/
// NVRTC: two instances of a template kernel named by name expressions, their lowered names
// looked up in the module, each launched with cuLaunchKernel.
#include <cuda.h>
#include <nvrtc.h>

static const char* source =
    "template <int N> __global__ void scale(float* x) { x[threadIdx.x] *= N; }\n";

int main() {
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, source, "scale.cu", 0, NULL, NULL);
  nvrtcAddNameExpression(prog, "scale<4>");
  nvrtcAddNameExpression(prog, "scale<8>");
  const char* opts[] = {"--gpu-architecture=compute_80"};
  nvrtcCompileProgram(prog, 1, opts);
  size_t ptx_size;
  nvrtcGetPTXSize(prog, &ptx_size);
  char* ptx = new char[ptx_size];
  nvrtcGetPTX(prog, ptx);
  const char* name4;
  const char* name8;
  nvrtcGetLoweredName(prog, "scale<4>", &name4);
  nvrtcGetLoweredName(prog, "scale<8>", &name8);
  cuInit(0);
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, 0, dev);
  CUmodule mod;
  cuModuleLoadDataEx(&mod, ptx, 0, 0, 0);
  CUfunction f4, f8;
  cuModuleGetFunction(&f4, mod, name4);
  cuModuleGetFunction(&f8, mod, name8);
  CUdeviceptr x;
  cuMemAlloc(&x, 1024 * sizeof(float));
  void* args[] = {&x};
  cuLaunchKernel(f4, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
  cuLaunchKernel(f8, 8, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
  return 0;
}
