# kerncast-expect
# 26: cupy inc <<<(8,1,1), (512,1,1), 0>>> x1 {arg0=ptr arg1=4096}
# 29: cupy inc <<<(64,1,1), (256,1,1), 0>>> x1 {arg0=ptr arg1=16384} when ?{condition at line 27 (`KERNCAST_TEST_BIG`)}
# 32: cupy inc <<<(?{depends on the condition at line 27},1,1), (256,1,1), 0>>> x1 {arg0=ptr arg1=4096}
# embedded 11: cupy.RawKernel cuda literal 11:22 [inc]
# end
# Branches: one on a known value takes its side; one on the environment runs both sides.
import os
import cupy as cp

k = cp.RawKernel(r'''
extern "C" __global__ void inc(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}
''', 'inc')
n = 1 << 12
x = cp.zeros(n, dtype=cp.int32)
mode = "fast"
if mode == "fast":
    block = 512
elif mode == "small":
    block = 64
else:
    block = 128
k((n // block,), (block,), (x, n))
if os.environ.get("KERNCAST_TEST_BIG"):
    big = 4
    k((n * big // 256,), (256,), (x, n * big))
else:
    big = 1
k((n * big // 256,), (256,), (x, n))
