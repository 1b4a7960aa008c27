// cl_spmv_csr (OpenCL): y = A x for a CSR sparse matrix, one work-item per row; data-dependent
// inner loop bounds from rowptr.
// kerncast: workload rows=65536 grid=(rows/128) block=128
__kernel void cl_spmv_csr(int rows, __global const int *rowptr, __global const int *colidx,
                          __global const float *vals, __global const float *x, __global float *y)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int p = rowptr[r]; p < rowptr[r + 1]; ++p)
        acc += vals[p] * x[colidx[p]];
    y[r] = acc;
}
