// pb_syr2k (PolyBench syr2k): C = alpha * (A B^T + B A^T) + beta * C for A, B n x m; one thread
// per element of C.
// kerncast: workload n=1024 m=1024 grid=(n/32,n/8) block=(32,8)
extern "C" __global__ void pb_syr2k(int n, int m, float alpha, float beta, const float *A, const float *B,
                                    float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = C[i * n + j] * beta;
        for (int k = 0; k < m; ++k)
            acc += alpha * A[i * m + k] * B[j * m + k] + alpha * B[i * m + k] * A[j * m + k];
        C[i * n + j] = acc;
    }
}
