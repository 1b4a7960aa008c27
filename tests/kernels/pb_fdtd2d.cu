// pb_fdtd2d (PolyBench fdtd-2d): one time step t of the 2-D finite-difference time-domain method
// on nx x ny fields ex, ey, hz; three kernels (update ey, update ex, update hz), one thread per point.
// kerncast: workload nx=2048 ny=2048 t=0 grid=(ny/32,nx/8) block=(32,8)
extern "C" __global__ void pb_fdtd_step1(int nx, int ny, int t, const float *fict, float *ey, const float *hz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny) {
        if (i == 0)
            ey[j] = fict[t];
        else
            ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    }
}
// kerncast: workload nx=2048 ny=2048 grid=(ny/32,nx/8) block=(32,8)
extern "C" __global__ void pb_fdtd_step2(int nx, int ny, float *ex, const float *hz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx && j < ny && j > 0)
        ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
}
// kerncast: workload nx=2048 ny=2048 grid=(ny/32,nx/8) block=(32,8)
extern "C" __global__ void pb_fdtd_step3(int nx, int ny, const float *ex, const float *ey, float *hz)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nx - 1 && j < ny - 1)
        hz[i * ny + j] = hz[i * ny + j] -
                         0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
