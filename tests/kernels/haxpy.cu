// haxpy: y[i] = a * x[i] + y[i] in half precision (fp16 fused multiply-add), one thread per element.
// kerncast: workload n=1048576 grid=(n/256) block=256
#ifndef __KERNCAST_PRELUDE__
#include <cuda_fp16.h>
#endif
extern "C" __global__ void haxpy(int n, float a, const __half *x, __half *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __hfma(__float2half(a), x[i], y[i]);
}
