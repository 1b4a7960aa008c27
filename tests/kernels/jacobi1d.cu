// jacobi1d: one sweep of the 1-D 3-point Jacobi stencil, b[i] = (a[i-1] + a[i] + a[i+1]) / 3 for
// 0 < i < n - 1 (PolyBench jacobi-1d, one time step per launch).
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void jacobi1d(int n, const float *a, float *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}
