// dot_unroll4: per-thread partial dot products over a grid-stride loop unrolled by `#pragma unroll 4`,
// then one atomicAdd per thread into *out.
// kerncast: workload n=1048576 grid=(n/1024) block=256
extern "C" __global__ void dot_unroll4(int n, const float *x, const float *y, float *out)
{
    float acc = 0.0f;
    int stride = blockDim.x * gridDim.x;
#pragma unroll 4
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc += x[i] * y[i];
    atomicAdd(out, acc);
}
