// reduce: sum of n floats; a grid-stride loop per thread, a warp-shuffle reduction per warp and
// one atomicAdd per warp into *sum.
// kerncast: workload n=16777216 grid=(1024) block=256
extern "C" __global__ void reduce(int n, const float *in, float *sum)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(sum, v);
}
