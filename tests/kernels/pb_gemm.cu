// pb_gemm (PolyBench gemm): C = alpha * A * B + beta * C with A ni x nk, B nk x nj, C ni x nj;
// one thread per element of C, as PolyBench/GPU does.
// kerncast: workload ni=512 nj=512 nk=512 grid=(nj/32,ni/8) block=(32,8)
extern "C" __global__ void pb_gemm(int ni, int nj, int nk, float alpha, float beta, const float *A,
                                   const float *B, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float acc = C[i * nj + j] * beta;
        for (int k = 0; k < nk; ++k)
            acc += alpha * A[i * nk + k] * B[k * nj + j];
        C[i * nj + j] = acc;
    }
}
