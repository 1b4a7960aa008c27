// dgemm_naive: C = A * B for n x n double-precision matrices (row-major), one thread per element.
// kerncast: workload n=512 grid=(n/16,n/16) block=(16,16)
extern "C" __global__ void dgemm_naive(int n, const double *A, const double *B, double *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        double acc = 0.0;
        for (int p = 0; p < n; ++p)
            acc += A[row * n + p] * B[p * n + col];
        C[row * n + col] = acc;
    }
}
