# kerncast-expect
# 25: cupy touch <<<(16384,1,1), (1024,1,1), 0>>> x1 {arg0=ptr arg1=16777216}
# 31: cupy touch <<<(4,1,1), (256,1,1), 0>>> x2 {arg0=ptr arg1=1024}
# 40: cupy touch <<<(8,1,1), (128,1,1), 0>>> x1 {arg0=ptr arg1=1000}
# 40: cupy touch <<<(8,1,1), (128,1,1), 0>>> x1 {arg0=ptr arg1=2000}
# 50: cupy touch <<<(2,1,1), (32,1,1), 0>>> x1 {arg0=ptr arg1=1024}
# embedded 12: cupy.RawKernel cuda literal 12:22 [touch]
# end
# Scopes: a local shadowing a global, `global`, and a closure over its maker's variable (`nonlocal`).
import cupy as cp

k = cp.RawKernel(r'''
extern "C" __global__ void touch(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 0.f;
}
''', 'touch')
x = cp.zeros(1 << 24, dtype=cp.float32)
n = 1024
calls = 0


def local_shadow():
    n = 1 << 24
    k((n // 1024,), (1024,), (x, n))


def uses_global():
    global calls
    calls += 1
    k((n // 256,), (256,), (x, n))


def make_launcher(block):
    count = 0

    def launch(m):
        nonlocal count
        count += 1
        k(((m + block - 1) // block,), (block,), (x, m * count))
    return launch


local_shadow()
uses_global()
uses_global()
go = make_launcher(128)
go(1000)
go(1000)
k((calls,), (32,), (x, n))
