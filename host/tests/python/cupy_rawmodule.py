# kerncast-expect
# 29: cupy transpose <<<(60,34,1), (32,32,1), 4224>>> x1 {arg0=ptr arg1=ptr arg2=1920 arg3=1080}
# 30: cupy scale <<<(2025,1,1), (1024,1,1), 0>>> x1 {arg0=ptr arg1=0.5 arg2=2073600}
# embedded 21: cupy.RawModule cuda literal 10:12 [transpose scale] (-std=c++11 -DTILE=32)
# end
# A CuPy RawModule with options; two kernels of it, a 2D grid from math.ceil, dynamic shared memory.
import math
import cupy as cp

code = r'''
extern "C" __global__ void transpose(const float* a, float* b, int w, int h) {
    extern __shared__ float tile[];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    if (x < w && y < h) b[x * h + y] = a[y * w + x];
}
extern "C" __global__ void scale(float* a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= s;
}
'''
mod = cp.RawModule(code=code, options=('-std=c++11', '-DTILE=32'))
transpose = mod.get_function('transpose')
scale = mod.get_function('scale')

w, h = 1920, 1080
a = cp.random.rand(h, w, dtype=cp.float32)
b = cp.empty_like(a)
grid = (math.ceil(w / 32), math.ceil(h / 32))
transpose(grid, (32, 32), (a, b, cp.int32(w), cp.int32(h)), shared_mem=32 * 33 * 4)
scale((a.size // 1024,), (1024,), (b, cp.float32(0.5), a.size))
