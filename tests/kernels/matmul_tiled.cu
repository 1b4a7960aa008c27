// matmul_tiled: C = A * B (n x n, row-major) with 16x16 tiles of A and B staged in shared memory;
// two barriers per tile; out-of-range tile elements are loaded as zero so any n works.
// kerncast: workload n=1024 grid=(n/16,n/16) block=(16,16)
#define TILE 16
extern "C" __global__ void matmul_tiled(int n, const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < n && ak < n) ? A[row * n + ak] : 0.0f;
        Bs[ty][tx] = (bk < n && col < n) ? B[bk * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < TILE; ++p)
            acc += As[ty][p] * Bs[p][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
