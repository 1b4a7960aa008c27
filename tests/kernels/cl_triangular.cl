// cl_triangular (OpenCL): y = L x for a lower-triangular n x n L; work-item i sums j = 0..i.
// kerncast: workload n=4096 grid=(n/128) block=128
__kernel void cl_triangular(int n, __global const float *L, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j <= i; ++j)
        acc += L[i * n + j] * x[j];
    y[i] = acc;
}
