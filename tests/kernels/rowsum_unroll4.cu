// rowsum_unroll4: s[i] = sum of row i of an m x n matrix, one thread per row; the column loop is
// rolled in the source with `#pragma unroll 4`, so the compiler unrolls it by four.
// kerncast: workload m=8192 n=1024 grid=(m/128) block=128
extern "C" __global__ void rowsum_unroll4(int m, int n, const float *A, float *s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    float acc = 0.0f;
#pragma unroll 4
    for (int j = 0; j < n; ++j)
        acc += A[i * n + j];
    s[i] = acc;
}
