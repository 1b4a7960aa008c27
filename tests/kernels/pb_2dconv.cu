// pb_2dconv (PolyBench 2DConvolution): B = 3x3 stencil of A with fixed coefficients on an
// ni x nj grid; interior points only, one thread per point.
// kerncast: workload ni=4096 nj=4096 grid=(nj/32,ni/8) block=(32,8)
extern "C" __global__ void pb_2dconv(int ni, int nj, const float *A, float *B)
{
    const float c11 = 0.2f, c21 = 0.5f, c31 = -0.8f;
    const float c12 = -0.3f, c22 = 0.6f, c32 = -0.9f;
    const float c13 = 0.4f, c23 = 0.7f, c33 = 0.1f;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1) {
        B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c12 * A[i * nj + (j - 1)] + c13 * A[(i + 1) * nj + (j - 1)] +
                        c21 * A[(i - 1) * nj + j] + c22 * A[i * nj + j] + c23 * A[(i + 1) * nj + j] +
                        c31 * A[(i - 1) * nj + (j + 1)] + c32 * A[i * nj + (j + 1)] + c33 * A[(i + 1) * nj + (j + 1)];
    }
}
