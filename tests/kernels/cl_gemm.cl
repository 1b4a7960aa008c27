// cl_gemm (OpenCL, PolyBench gemm): C = alpha * A * B + beta * C, A ni x nk, B nk x nj; one
// work-item per element of C.
// kerncast: workload ni=512 nj=512 nk=512 grid=(nj/32,ni/8) block=(32,8)
__kernel void cl_gemm(int ni, int nj, int nk, float alpha, float beta, __global const float *A,
                      __global const float *B, __global float *C)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < ni && j < nj) {
        float acc = C[i * nj + j] * beta;
        for (int k = 0; k < nk; ++k)
            acc += alpha * A[i * nk + k] * B[k * nj + j];
        C[i * nj + j] = acc;
    }
}
