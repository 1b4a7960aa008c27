# kerncast-expect
# args: 3000 64
# 21: cupy fill <<<(47,1,1), (64,1,1), 0>>> x5 {arg0=ptr arg1=3000}
# embedded 10: cupy.RawKernel cuda literal 10:22 [fill]
# end
# The command line: int(sys.argv[1]), and a block size and a count with defaults where not given.
import sys
import cupy as cp

k = cp.RawKernel(r'''
extern "C" __global__ void fill(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}
''', 'fill')
n = int(sys.argv[1])
block = int(sys.argv[2]) if len(sys.argv) > 2 else 256
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
x = cp.empty(n, dtype=cp.float32)
for r in range(reps):
    k(((n + block - 1) // block,), (block,), (x, n))
