// pb_2mm (PolyBench 2mm): tmp = alpha * A * B, then D = beta * D + tmp * C; two kernels, one thread
// per output element. A ni x nk, B nk x nj, C nj x nl, D ni x nl.
// kerncast: workload ni=512 nj=512 nk=512 grid=(nj/32,ni/8) block=(32,8)
extern "C" __global__ void pb_2mm_k1(int ni, int nj, int nk, float alpha, const float *A, const float *B,
                                     float *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float acc = 0.0f;
        for (int k = 0; k < nk; ++k)
            acc += alpha * A[i * nk + k] * B[k * nj + j];
        tmp[i * nj + j] = acc;
    }
}
// kerncast: workload ni=512 nj=512 nl=512 grid=(nl/32,ni/8) block=(32,8)
extern "C" __global__ void pb_2mm_k2(int ni, int nj, int nl, float beta, const float *tmp, const float *C,
                                     float *D)
{
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && l < nl) {
        float acc = D[i * nl + l] * beta;
        for (int j = 0; j < nj; ++j)
            acc += tmp[i * nj + j] * C[j * nl + l];
        D[i * nl + l] = acc;
    }
}
