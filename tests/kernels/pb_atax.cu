// pb_atax (PolyBench atax): y = A^T (A x) for A nx x ny; kernel 1: tmp[i] = sum_j A[i][j] x[j]
// (one thread per row); kernel 2: y[j] = sum_i A[i][j] tmp[i] (one thread per column).
// kerncast: workload nx=4096 ny=4096 grid=(nx/256) block=256
extern "C" __global__ void pb_atax_k1(int nx, int ny, const float *A, const float *x, float *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float acc = 0.0f;
        for (int j = 0; j < ny; ++j)
            acc += A[i * ny + j] * x[j];
        tmp[i] = acc;
    }
}
// kerncast: workload nx=4096 ny=4096 grid=(ny/256) block=256
extern "C" __global__ void pb_atax_k2(int nx, int ny, const float *A, const float *tmp, float *y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; ++i)
            acc += A[i * ny + j] * tmp[i];
        y[j] = acc;
    }
}
