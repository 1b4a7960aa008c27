// reduce_warp: sum of n floats with warp shuffles: each warp reduces its 32 values with
// __shfl_down_sync, lane 0 adds the warp sum to *out with one atomicAdd.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void reduce_warp(int n, const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}
