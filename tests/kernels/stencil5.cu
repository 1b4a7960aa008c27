// stencil5: one Jacobi step of the 2-D 5-point Laplace stencil on an n x n grid (row-major);
// interior points get the average of their four neighbours, boundary points are copied.
// kerncast: workload n=2048 grid=(n/16,n/16) block=(16,16)
extern "C" __global__ void stencil5(int n, const float *in, float *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n)
        return;
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        out[i * n + j] = 0.25f * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
    else
        out[i * n + j] = in[i * n + j];
}
