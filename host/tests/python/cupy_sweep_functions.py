# kerncast-expect
# 25: cupy relu <<<(8,1,1), (128,1,1), 0>>> x1 {arg0=ptr arg1=1000}
# 25: cupy relu <<<(4,1,1), (256,1,1), 0>>> x3 {arg0=ptr arg1=1000}
# 25: cupy relu <<<(512,1,1), (128,1,1), 0>>> x1 {arg0=ptr arg1=65536}
# 25: cupy relu <<<(256,1,1), (256,1,1), 0>>> x3 {arg0=ptr arg1=65536}
# embedded 11: cupy.RawKernel cuda literal 11:22 [relu]
# end
# A block-size sweep through the script's own functions: defaults, keywords, a helper.
import cupy as cp

k = cp.RawKernel(r'''
extern "C" __global__ void relu(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0.f) x[i] = 0.f;
}
''', 'relu')


def ceil_div(a, b):
    return (a + b - 1) // b


def run(x, n, block=256, reps=1):
    for _ in range(reps):
        k((ceil_div(n, block),), (block,), (x, n))


sizes = [1000, 1 << 16]
for n in sizes:
    x = cp.zeros(n, dtype=cp.float32)
    for block in (128, 256):
        run(x, n, block=block)
    run(x, n, reps=2)
