// cl_matmul_naive (OpenCL): C = A * B for n x n row-major matrices, one work-item per element of C.
// kerncast: workload n=1024 grid=(n/16,n/16) block=(16,16)
__kernel void cl_matmul_naive(int n, __global const float *A, __global const float *B, __global float *C)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < n; ++p)
            acc += A[row * n + p] * B[p * n + col];
        C[row * n + col] = acc;
    }
}
