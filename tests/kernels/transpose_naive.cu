// transpose_naive: out[j][i] = in[i][j] for an rows x cols matrix; reads coalesce, writes stride by rows.
// kerncast: workload rows=2048 cols=2048 grid=(cols/16,rows/16) block=(16,16)
extern "C" __global__ void transpose_naive(int rows, int cols, const float *in, float *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols)
        out[j * rows + i] = in[i * cols + j];
}
