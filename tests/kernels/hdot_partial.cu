// hdot_partial: per-block partial dot products of two fp16 vectors, products in half precision,
// accumulated in float; a grid-stride loop, then a shared-memory tree per block (256 threads).
// kerncast: workload n=1048576 grid=(256) block=256
#ifndef __KERNCAST_PRELUDE__
#include <cuda_fp16.h>
#endif
extern "C" __global__ void hdot_partial(int n, const __half *x, const __half *y, float *partial)
{
    __shared__ float buf[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += __half2float(__hmul(x[i], y[i]));
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = buf[0];
}
