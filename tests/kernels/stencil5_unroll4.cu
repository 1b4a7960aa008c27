// stencil5_unroll4: 5-point stencil where each thread computes a column strip of `rows_per_thread`
// interior points; the strip loop is rolled with `#pragma unroll 4`.
// kerncast: workload n=2048 rows_per_thread=16 grid=(n/128,n/16) block=(128,1)
extern "C" __global__ void stencil5_unroll4(int n, int rows_per_thread, const float *in, float *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i0 = blockIdx.y * rows_per_thread;
    if (j < 1 || j >= n - 1)
        return;
#pragma unroll 4
    for (int r = 0; r < rows_per_thread; ++r) {
        int i = i0 + r;
        if (i >= 1 && i < n - 1)
            out[i * n + j] = 0.25f * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
    }
}
