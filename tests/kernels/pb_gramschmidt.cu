// pb_gramschmidt (PolyBench gramschmidt): QR decomposition of A (m x n) by modified Gram-Schmidt.
// For column k: kernel 1 (one thread) computes R[k][k] = ||A[:,k]||; kernel 2 (one thread per row)
// Q[i][k] = A[i][k] / R[k][k]; kernel 3 (one thread per column j > k) R[k][j] = Q[:,k] . A[:,j]
// and A[:,j] -= Q[:,k] R[k][j].
// kerncast: workload m=512 n=512 k=0 grid=(1) block=1
extern "C" __global__ void pb_gs_k1(int m, int n, int k, const float *A, float *R)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        float nrm = 0.0f;
        for (int i = 0; i < m; ++i)
            nrm += A[i * n + k] * A[i * n + k];
        R[k * n + k] = sqrtf(nrm);
    }
}
// kerncast: workload m=512 n=512 k=0 grid=(m/256) block=256
extern "C" __global__ void pb_gs_k2(int m, int n, int k, const float *A, const float *R, float *Q)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        Q[i * n + k] = A[i * n + k] / R[k * n + k];
}
// kerncast: workload m=512 n=512 k=0 grid=(n/256) block=256
extern "C" __global__ void pb_gs_k3(int m, int n, int k, float *A, float *R, const float *Q)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > k && j < n) {
        float r = 0.0f;
        for (int i = 0; i < m; ++i)
            r += Q[i * n + k] * A[i * n + j];
        R[k * n + j] = r;
        for (int i = 0; i < m; ++i)
            A[i * n + j] -= Q[i * n + k] * r;
    }
}
