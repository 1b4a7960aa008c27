// spmv_csr: y = A x for a sparse matrix in CSR form (rowptr, colidx, vals); one thread per row,
// the inner loop bound comes from memory (data-dependent trip count).
// kerncast: workload rows=65536 grid=(rows/128) block=128
extern "C" __global__ void spmv_csr(int rows, const int *rowptr, const int *colidx, const float *vals,
                                    const float *x, float *y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int p = rowptr[r]; p < rowptr[r + 1]; ++p)
        acc += vals[p] * x[colidx[p]];
    y[r] = acc;
}
