// triangular: y = L x for a lower-triangular n x n matrix L (row-major); thread i sums j = 0..i,
// so the loop nest is a triangle: n(n+1)/2 multiply-adds in total.
// kerncast: workload n=4096 grid=(n/128) block=128
extern "C" __global__ void triangular(int n, const float *L, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int j = 0; j <= i; ++j)
        acc += L[i * n + j] * x[j];
    y[i] = acc;
}
