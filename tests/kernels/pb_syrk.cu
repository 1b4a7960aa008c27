// pb_syrk (PolyBench syrk): C = alpha * A A^T + beta * C for A n x m, C n x n; one thread per
// element of C (the full square, as PolyBench/GPU computes it).
// kerncast: workload n=1024 m=1024 grid=(n/32,n/8) block=(32,8)
extern "C" __global__ void pb_syrk(int n, int m, float alpha, float beta, const float *A, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = C[i * n + j] * beta;
        for (int k = 0; k < m; ++k)
            acc += alpha * A[i * m + k] * A[j * m + k];
        C[i * n + j] = acc;
    }
}
