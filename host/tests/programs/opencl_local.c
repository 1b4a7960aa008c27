/* kerncast-expect
show: buffer_bytes
34: clEnqueueNDRangeKernel vadd <<<(4096,1,1), (256,1,1), 0>>> x1 {arg0=ptr arg1=ptr arg2=ptr arg3=1048576} bytes{arg0=4194304 arg1=4194304 arg2=4194304}
40: clEnqueueNDRangeKernel transpose <<<(64,96,1), (16,8,1), 0>>> x1 {arg0=ptr arg1=?{local buffer of 512 bytes}} bytes{arg0=4194304}
*/
// OpenCL with local sizes: a 1-D range of 2^20 work-items in groups of 256 (4096 groups) and a
// 2-D range of 1024 x 768 in groups of 16 x 8 (64 x 96 groups). A __local argument has no
// value, only a size.
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
  const char* src = "__kernel void vadd(__global float* a) {}";
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  clBuildProgram(prog, 1, &dev, NULL, NULL, NULL);
  const int n = 1 << 20;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  cl_kernel k = clCreateKernel(prog, "vadd", &err);
  clSetKernelArg(k, 0, sizeof(cl_mem), &a);
  clSetKernelArg(k, 1, sizeof(cl_mem), &b);
  clSetKernelArg(k, 2, sizeof(cl_mem), &c);
  clSetKernelArg(k, 3, sizeof(int), &n);
  size_t global = n, local = 256;
  clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
  size_t g2[2] = {1024, 768};
  size_t l2[2] = {16, 8};
  cl_kernel t = clCreateKernel(prog, "transpose", &err);
  clSetKernelArg(t, 0, sizeof(cl_mem), &a);
  clSetKernelArg(t, 1, 16 * 8 * sizeof(float), NULL);
  clEnqueueNDRangeKernel(q, t, 2, NULL, g2, l2, 0, NULL, NULL);
  clFinish(q);
  return 0;
}
