// stencil (OpenCL): one Jacobi sweep of the 5-point Laplace stencil on an n x n grid, interior only.
// kerncast: workload n=4096 grid=(n/16,n/16) block=(16,16)
__kernel void stencil(int n, __global const float *in, __global float *out)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        out[i * n + j] = 0.25f * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1]);
}
