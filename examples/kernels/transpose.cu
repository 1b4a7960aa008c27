// transpose: out = in^T for an n x n matrix through a padded 32x33 shared tile (coalesced both ways,
// no bank conflicts).
// kerncast: workload n=4096 grid=(n/32,n/32) block=(32,32)
#define TILE 32
extern "C" __global__ void transpose(int n, const float *in, float *out)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n)
        tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < n && y < n)
        out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
