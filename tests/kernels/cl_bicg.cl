// cl_bicg (OpenCL, PolyBench bicg): s = A^T r (one work-item per column) and q = A p (one per row).
// kerncast: workload nx=4096 ny=4096 grid=(ny/256) block=256
__kernel void cl_bicg_k1(int nx, int ny, __global const float *A, __global const float *r, __global float *s)
{
    int j = get_global_id(0);
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; ++i)
            acc += r[i] * A[i * ny + j];
        s[j] = acc;
    }
}
// kerncast: workload nx=4096 ny=4096 grid=(nx/256) block=256
__kernel void cl_bicg_k2(int nx, int ny, __global const float *A, __global const float *p, __global float *q)
{
    int i = get_global_id(0);
    if (i < nx) {
        float acc = 0.0f;
        for (int j = 0; j < ny; ++j)
            acc += A[i * ny + j] * p[j];
        q[i] = acc;
    }
}
