// cl_mvt (OpenCL, PolyBench mvt): x1 += A y1 (row per work-item) and x2 += A^T y2 (column per
// work-item) for an n x n A.
// kerncast: workload n=4096 grid=(n/256) block=256
__kernel void cl_mvt_k1(int n, __global const float *A, __global const float *y1, __global float *x1)
{
    int i = get_global_id(0);
    if (i < n) {
        float acc = x1[i];
        for (int j = 0; j < n; ++j)
            acc += A[i * n + j] * y1[j];
        x1[i] = acc;
    }
}
// kerncast: workload n=4096 grid=(n/256) block=256
__kernel void cl_mvt_k2(int n, __global const float *A, __global const float *y2, __global float *x2)
{
    int i = get_global_id(0);
    if (i < n) {
        float acc = x2[i];
        for (int j = 0; j < n; ++j)
            acc += A[j * n + i] * y2[j];
        x2[i] = acc;
    }
}
