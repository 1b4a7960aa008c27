// banded_matvec: y = A x for an n x n matrix with half-bandwidth w (row-major, only the band is
// read); row i sums j from max(0, i - w) to min(n - 1, i + w): loop bounds with min and max.
// kerncast: workload n=8192 w=16 grid=(n/128) block=128
extern "C" __global__ void banded_matvec(int n, int w, const float *A, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int lo = max(0, i - w);
    int hi = min(n - 1, i + w);
    float acc = 0.0f;
    for (int j = lo; j <= hi; ++j)
        acc += A[i * n + j] * x[j];
    y[i] = acc;
}
