// matmul_naive: C = A * B with A m x k, B k x n, C m x n (row-major); one thread per element of C,
// each thread walks a row of A and a column of B straight from global memory.
// kerncast: workload m=1024 n=1024 k=1024 grid=(n/16,m/16) block=(16,16)
extern "C" __global__ void matmul_naive(int m, int n, int k, const float *A, const float *B, float *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < k; ++p)
            acc += A[row * k + p] * B[p * n + col];
        C[row * n + col] = acc;
    }
}
