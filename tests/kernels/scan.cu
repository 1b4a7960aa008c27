// scan: inclusive prefix sum within each block (Hillis-Steele, double-buffered in shared memory,
// log2(blockDim.x) steps, two barriers per step); block totals are written to sums[block].
// kerncast: workload n=1048576 grid=(n/256) block=256 hint.dynamic_shared_bytes=2048
extern "C" __global__ void scan(int n, const float *in, float *out, float *sums)
{
    extern __shared__ float tmp[]; /* 2 * blockDim.x floats */
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    tmp[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        float v = tmp[pin * blockDim.x + tid];
        if (tid >= off)
            v += tmp[pin * blockDim.x + tid - off];
        tmp[pout * blockDim.x + tid] = v;
        __syncthreads();
    }
    if (i < n)
        out[i] = tmp[pout * blockDim.x + tid];
    if (tid == blockDim.x - 1)
        sums[blockIdx.x] = tmp[pout * blockDim.x + tid];
}
