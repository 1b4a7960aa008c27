# kerncast-expect
# 23: cupy f <<<(5,1,1), (226,1,1), 0>>> x1 {arg0=ptr arg1=1365 arg2=1366}
# 24: cupy f <<<(513,1,1), (32,1,1), 0>>> x1 {arg0=ptr arg1=9 arg2=5}
# 28: cupy f <<<(15,1,1), (32,3,1), 0>>> x1 {arg0=ptr arg1=9 arg2=2}
# embedded 11: cupy.RawKernel cuda literal 11:22 [f]
# end
# Python's arithmetic: unbounded ints, // and % toward negative infinity, int() truncating a float.
import math
import cupy as cp

k = cp.RawKernel(r'''
extern "C" __global__ void f(float* x, int a, int b) {
    if (threadIdx.x == 0) x[blockIdx.x] = a + b;
}
''', 'f')
x = cp.zeros(1 << 16, dtype=cp.float32)
big = 2 ** 100
n = big // 2 ** 88
q = -n // 1000
r = -n % 1000
half = int(n / 3)
ceil = math.ceil(n / 3)
k((-q,), (r // 4,), (x, half, ceil))
k((n >> 3 | 1,), (1 << 5,), (x, 7 ** 2 % 10, abs(q) * 2 ** 0))
t = (3, 4)
a, b = t
c, *rest = [1, 2, 3, 4]
k((a * b + len(rest),), (max(rest) * 8, min(t)), (x, sum(rest), round(2.5)))
