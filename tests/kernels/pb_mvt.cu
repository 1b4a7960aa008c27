// pb_mvt (PolyBench mvt): x1 += A y1 (one thread per row) and x2 += A^T y2 (one thread per column)
// for an n x n matrix A.
// kerncast: workload n=4096 grid=(n/256) block=256
extern "C" __global__ void pb_mvt_k1(int n, const float *A, const float *y1, float *x1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = x1[i];
        for (int j = 0; j < n; ++j)
            acc += A[i * n + j] * y1[j];
        x1[i] = acc;
    }
}
// kerncast: workload n=4096 grid=(n/256) block=256
extern "C" __global__ void pb_mvt_k2(int n, const float *A, const float *y2, float *x2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = x2[i];
        for (int j = 0; j < n; ++j)
            acc += A[j * n + i] * y2[j];
        x2[i] = acc;
    }
}
