// pb_3dconv (PolyBench 3DConvolution): B = 3x3x3-neighbourhood stencil of A with fixed coefficients
// on an ni x nj x nk grid (k fastest); interior points only, one thread per point (grid z = i).
// kerncast: workload ni=256 nj=256 nk=256 grid=(nk/32,nj/8,ni) block=(32,8,1)
extern "C" __global__ void pb_3dconv(int ni, int nj, int nk, const float *A, float *B)
{
    const float c11 = 2.0f, c21 = 5.0f, c31 = -8.0f;
    const float c12 = -3.0f, c22 = 6.0f, c32 = -9.0f;
    const float c13 = 4.0f, c23 = 7.0f, c33 = 10.0f;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z;
    if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1 && k > 0 && k < nk - 1) {
#define A3(a, b, c) A[((a) * nj + (b)) * nk + (c)]
        B[(i * nj + j) * nk + k] =
            c11 * A3(i - 1, j - 1, k - 1) + c13 * A3(i + 1, j - 1, k - 1) + c21 * A3(i - 1, j - 1, k - 1) +
            c23 * A3(i + 1, j - 1, k - 1) + c31 * A3(i - 1, j - 1, k - 1) + c33 * A3(i + 1, j - 1, k - 1) +
            c12 * A3(i, j - 1, k) + c22 * A3(i, j, k) + c32 * A3(i, j + 1, k) + c11 * A3(i - 1, j - 1, k + 1) +
            c13 * A3(i + 1, j - 1, k + 1) + c21 * A3(i - 1, j, k + 1) + c23 * A3(i + 1, j, k + 1) +
            c31 * A3(i - 1, j + 1, k + 1) + c33 * A3(i + 1, j + 1, k + 1);
#undef A3
    }
}
