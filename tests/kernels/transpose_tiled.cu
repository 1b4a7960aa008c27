// transpose_tiled: out = in^T through a 32x32 shared-memory tile so both the global read and the
// global write are coalesced; the tile is unpadded, so the column read of the tile hits one bank.
// kerncast: workload rows=2048 cols=2048 grid=(cols/32,rows/32) block=(32,32)
#define TILE 32
extern "C" __global__ void transpose_tiled(int rows, int cols, const float *in, float *out)
{
    __shared__ float tile[TILE][TILE];
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
