// Loopy test_statistics "tiled matmul with prefetch": 16x16 tiles of a and b prefetched into
// shared memory, two barriers per tile; per thread n/16 tiles, 16 fma per tile.
// kerncast: workload n=512 grid=(n/16,n/16) block=(16,16)
#define T 16
extern "C" __global__ void loopy_matmul_prefetch(int n, const float *a, const float *b, float *c)
{
    __shared__ float as[T][T];
    __shared__ float bs[T][T];
    int row = blockIdx.y * T + threadIdx.y;
    int col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n / T; ++t) {
        as[threadIdx.y][threadIdx.x] = a[row * n + t * T + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(t * T + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    c[row * n + col] = acc;
}
