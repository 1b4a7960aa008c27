// cl_atax (OpenCL, PolyBench atax): tmp = A x (one work-item per row), then y = A^T tmp (one
// work-item per column), A nx x ny.
// kerncast: workload nx=4096 ny=4096 grid=(nx/256) block=256
__kernel void cl_atax_k1(int nx, int ny, __global const float *A, __global const float *x, __global float *tmp)
{
    int i = get_global_id(0);
    if (i < nx) {
        float acc = 0.0f;
        for (int j = 0; j < ny; ++j)
            acc += A[i * ny + j] * x[j];
        tmp[i] = acc;
    }
}
// kerncast: workload nx=4096 ny=4096 grid=(ny/256) block=256
__kernel void cl_atax_k2(int nx, int ny, __global const float *A, __global const float *tmp, __global float *y)
{
    int j = get_global_id(0);
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; ++i)
            acc += A[i * ny + j] * tmp[i];
        y[j] = acc;
    }
}
