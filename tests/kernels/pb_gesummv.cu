// pb_gesummv (PolyBench gesummv): y = alpha * A x + beta * B x for n x n A and B; one thread per row.
// kerncast: workload n=4096 grid=(n/256) block=256
extern "C" __global__ void pb_gesummv(int n, float alpha, float beta, const float *A, const float *B,
                                      const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float ta = 0.0f, tb = 0.0f;
        for (int j = 0; j < n; ++j) {
            ta += A[i * n + j] * x[j];
            tb += B[i * n + j] * x[j];
        }
        y[i] = alpha * ta + beta * tb;
    }
}
