// pb_bicg (PolyBench bicg, BiCG sub-kernel): s = A^T r (one thread per column j) and q = A p
// (one thread per row i) for A nx x ny.
// kerncast: workload nx=4096 ny=4096 grid=(ny/256) block=256
extern "C" __global__ void pb_bicg_k1(int nx, int ny, const float *A, const float *r, float *s)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; ++i)
            acc += r[i] * A[i * ny + j];
        s[j] = acc;
    }
}
// kerncast: workload nx=4096 ny=4096 grid=(nx/256) block=256
extern "C" __global__ void pb_bicg_k2(int nx, int ny, const float *A, const float *p, float *q)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float acc = 0.0f;
        for (int j = 0; j < ny; ++j)
            acc += A[i * ny + j] * p[j];
        q[i] = acc;
    }
}
