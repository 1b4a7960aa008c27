// gemv_shared: y = A x (m x n, row-major), one thread per row; x is staged through shared memory
// in chunks of blockDim.x elements (ceil(n / blockDim.x) chunks, two barriers each).
// kerncast: workload m=8192 n=4096 grid=(m/256) block=256 hint.dynamic_shared_bytes=1024
extern "C" __global__ void gemv_shared(int m, int n, const float *A, const float *x, float *y)
{
    extern __shared__ float xs[]; /* blockDim.x floats */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int c = 0; c < n; c += blockDim.x) {
        int j = c + threadIdx.x;
        xs[threadIdx.x] = (j < n) ? x[j] : 0.0f;
        __syncthreads();
        if (i < m) {
            int len = min((int)blockDim.x, n - c);
            for (int k = 0; k < len; ++k)
                acc += A[i * n + c + k] * xs[k];
        }
        __syncthreads();
    }
    if (i < m)
        y[i] = acc;
}
