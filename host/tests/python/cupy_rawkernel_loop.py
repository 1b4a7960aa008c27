# kerncast-expect
# 19: cupy my_add <<<(4096,1,1), (256,1,1), 0>>> x100 {arg0=ptr arg1=ptr arg2=1048576}
# embedded 8: cupy.RawKernel cuda literal 8:24 [my_add]
# end
# A CuPy RawKernel from a literal, launched 100 times with a grid from the array's size.
import cupy as cp

add = cp.RawKernel(r'''
extern "C" __global__ void my_add(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + y[i];
}
''', 'my_add')

n = 1 << 20
x = cp.zeros(n, dtype=cp.float32)
y = cp.ones_like(x)
for _ in range(100):
    add(((x.size + 255) // 256,), (256,), (x, y, cp.int32(n)))
