# kerncast-expect
# 31: cupy step <<<(63,32,1), (16,16,1), 0>>> x10 {arg0=ptr arg1=ptr arg2=1000 arg3=500}
# embedded 21: cupy.RawKernel cuda literal 8:11 [step]
# end
# A script's class holding its kernel and sizes; a method launches with the instance's attributes.
import cupy as cp

SRC = r'''
extern "C" __global__ void step(float* u, float* v, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny) v[y * nx + x] = u[y * nx + x];
}
'''


class Stencil:
    block = (16, 16)

    def __init__(self, nx, ny):
        self.nx, self.ny = nx, ny
        self.kernel = cp.RawKernel(SRC, "step")
        self.u = cp.zeros((ny, nx), dtype=cp.float32)
        self.v = cp.zeros_like(self.u)

    def grid(self):
        bx, by = self.block
        return ((self.nx + bx - 1) // bx, (self.ny + by - 1) // by)

    def run(self, steps):
        for _ in range(steps):
            self.kernel(self.grid(), self.block, (self.u, self.v, self.nx, self.ny))
            self.u, self.v = self.v, self.u


s = Stencil(1000, 500)
s.run(10)
