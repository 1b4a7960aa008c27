// Loopy test_statistics "strided footprint": a[i*stride] read by each thread of a 1-D launch,
// guarded by i < n; the stride class follows the lane stride (k/2, k/3, ... in S&K terms).
// kerncast: workload n=4096 grid=(n/256) block=256
extern "C" __global__ void loopy_strided(int n, const float *a, float *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        b[i] = a[2 * i] + a[3 * i + 1];
    }
}
