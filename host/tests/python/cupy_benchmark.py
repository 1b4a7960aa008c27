# kerncast-expect
# 19: cupy axpy <<<(8,1,1), (512,1,1), 0>>> x30 {arg0=3 arg1=ptr arg2=4096}
# 19: cupy axpy <<<(16,1,1), (512,1,1), 0>>> x5 {arg0=3 arg1=ptr arg2=8192}
# embedded 10: cupy.RawKernel cuda literal 10:22 [axpy]
# end
# cupyx.profiler.benchmark calls the function n_warmup (10 unless given) + n_repeat times.
import cupy as cp
from cupyx.profiler import benchmark

k = cp.RawKernel(r'''
extern "C" __global__ void axpy(float a, float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
''', 'axpy')


def step(x, n):
    k(((n + 511) // 512,), (512,), (cp.float32(3.0), x, cp.int32(n)))


x = cp.zeros(4096, dtype=cp.float32)
print(benchmark(step, (x, 4096), n_repeat=20))
print(benchmark(step, (x, 8192), n_repeat=5, n_warmup=0))
