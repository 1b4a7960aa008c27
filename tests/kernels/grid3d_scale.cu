// grid3d_scale: b = 2a over an nx × ny × nz box, one thread per cell on a 3-D grid of 3-D blocks,
// the shape of a 3-D stencil's launch, with the bounds check of a box that need not fill the grid.
// kerncast: workload nx=512 ny=512 nz=64 grid=(nx/8,ny/8,nz/4) block=(8,8,4)
// kerncast: workload nx=60 ny=50 nz=10 grid=(nx/8,ny/8,nz/4) block=(8,8,4)
extern "C" __global__ void grid3d_scale(const float *a, float *b, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        size_t i = ((size_t)z * ny + y) * nx + x;
        b[i] = 2.0f * a[i];
    }
}
