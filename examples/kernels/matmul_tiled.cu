// matmul_tiled: C = A*B for n x n floats with 16x16 shared-memory tiles; the compute-bound example.
// The launch follows TILE, so `kerncast rank --vary TILE=8,16,32` compares tile sizes.
// kerncast: workload n=2048 grid=(n/TILE,n/TILE) block=(TILE,TILE)
#ifndef TILE
#define TILE 16
#endif
extern "C" __global__ void matmul_tiled(int n, const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + threadIdx.x;
        int b_row = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < n && a_col < n) ? A[row * n + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (b_row < n && col < n) ? B[b_row * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
