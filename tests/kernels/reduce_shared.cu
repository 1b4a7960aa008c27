// reduce_shared: sum of n floats; each block loads blockDim.x elements into shared memory and
// reduces them by a tree (halving the active threads, barrier per level); partial[block] = block sum.
// blockDim.x must be a power of two.
// kerncast: workload n=1048576 grid=(n/256) block=256 hint.dynamic_shared_bytes=1024
extern "C" __global__ void reduce_shared(int n, const float *in, float *partial)
{
    extern __shared__ float buf[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[tid] = (i < (unsigned)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = buf[0];
}
