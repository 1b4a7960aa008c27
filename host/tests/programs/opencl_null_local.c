/* kerncast-expect
27: clEnqueueNDRangeKernel scale <<<(?{runtime picks},1,1), (?{runtime picks},1,1), 0>>> x1 {arg0=ptr arg1=2}
*/
// OpenCL without a local size: the runtime picks the work-group size, so the block and the
// number of groups are unknown (the 65536 work-items are known, but not how they are grouped).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stddef.h>

int main(void) {
  cl_int err;
  cl_platform_id plat;
  cl_device_id dev;
  clGetPlatformIDs(1, &plat, NULL);
  clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  const char* src = "__kernel void scale(__global float* a, float s) {}";
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  clBuildProgram(prog, 1, &dev, NULL, NULL, NULL);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 65536 * sizeof(float), NULL, &err);
  cl_kernel k = clCreateKernel(prog, "scale", &err);
  float s = 2.0f;
  clSetKernelArg(k, 0, sizeof(cl_mem), &a);
  clSetKernelArg(k, 1, sizeof(float), &s);
  size_t global = 65536;
  clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  clFinish(q);
  return 0;
}
