// l2_reread: every thread copies its own element from in to out, 32 times per trip of a loop
// of `trips`; what a block touches (8 KiB) is touched again at once, so it stays in the L2.
// The access pattern (not the code) of the "L2" micro-benchmark of the gpuPTXModel data set
// (GTX Titan X): 32760 blocks of 1024 threads, 5120 load/store pairs per thread.
// kerncast: workload n=33546240 trips=160 grid=(n/1024) block=1024
extern "C" __global__ void l2_reread(const float *in, float *out, int n, int trips)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int u = 0; u < 32; ++u)
            out[i] = in[i];
    }
}
