# kerncast-expect
# 18: cupy fill <<<(?{argv[1]},1,1), (128,1,1), 0>>> x1 {arg0=ptr arg1=?{run without arguments}}
# embedded 9: cupy.RawKernel cuda literal 9:22 [fill]
# end
# Run without arguments, the script reads sys.argv[1]: the size is a named unknown, never a guess.
import sys
import cupy as cp

k = cp.RawKernel(r'''
extern "C" __global__ void fill(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}
''', 'fill')

n = int(sys.argv[1])
x = cp.empty(n, dtype=cp.float32)
k(((n + 127) // 128,), (128,), (x, n))
