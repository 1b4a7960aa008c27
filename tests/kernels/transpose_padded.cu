// transpose_padded: as transpose_tiled, but the shared tile has one extra column (32x33) so that
// reading a tile column touches 32 different banks: no shared-memory bank conflicts.
// kerncast: workload rows=2048 cols=2048 grid=(cols/32,rows/32) block=(32,32)
#define TILE 32
extern "C" __global__ void transpose_padded(int rows, int cols, const float *in, float *out)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (y < rows && x < cols)
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x;
    int oy = blockIdx.x * TILE + threadIdx.y;
    if (oy < cols && ox < rows)
        out[oy * rows + ox] = tile[threadIdx.x][threadIdx.y];
}
