// histogram: 256-bin histogram of n bytes; each block counts into a shared-memory histogram with
// shared atomics, then adds its bins to the global histogram with global atomics.
// kerncast: workload n=4194304 grid=(n/256) block=256
#define BINS 256
extern "C" __global__ void histogram(int n, const unsigned char *data, unsigned *hist)
{
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&hist[b], local[b]);
}
