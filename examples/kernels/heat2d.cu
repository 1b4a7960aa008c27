// heat2d: explicit 2-D heat diffusion (5-point stencil) and a residual check. Its workloads come
// from the launches in main: 500 time steps, then a residual every 50 of them, which the report
// adds up as what main's launches cost together.
#include <cuda_runtime.h>

#define TILE 16

__global__ void heat_step(const float *u, float *v, int nx, int ny, float alpha)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
        int i = y * nx + x;
        v[i] = u[i] + alpha * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * u[i]);
    }
}

__global__ void residual(const float *u, const float *v, float *sum, int n)
{
    __shared__ float part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float d = i < n ? u[i] - v[i] : 0.0f;
    part[threadIdx.x] = d * d;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(sum, part[0]);
}

int main()
{
    const int nx = 2048, ny = 2048, steps = 500, check_every = 50;
    float *u, *v, *sum;
    cudaMalloc(&u, nx * ny * sizeof(float));
    cudaMalloc(&v, nx * ny * sizeof(float));
    cudaMalloc(&sum, sizeof(float));
    dim3 block(TILE, TILE);
    dim3 grid((nx + TILE - 1) / TILE, (ny + TILE - 1) / TILE);
    for (int c = 0; c < steps / check_every; ++c) {
        for (int t = 0; t < check_every; ++t) {
            heat_step<<<grid, block>>>(u, v, nx, ny, 0.2f);
            float *w = u;
            u = v;
            v = w;
        }
        residual<<<(nx * ny + 255) / 256, 256>>>(u, v, sum, nx * ny);
    }
    cudaDeviceSynchronize();
    return 0;
}
