# kerncast-expect
# 31: cupy scale_f <<<(16,1,1), (256,1,1), 0>>> x4 {arg0=ptr arg1=4096}
# 33: pycuda tile <<<(32,1,1), (128,1,1), 512>>> x1 {arg0=ptr arg1=4096}
# embedded 15: pycuda.compiler.SourceModule cuda computed [tile] extern-c
# embedded 21: cupy.RawKernel cuda literal 18:10 [scale_f]
# end
# Programs filled in before they compile (`%` with a dict, str.format), and a launch in a lambda
# handed to the script's own timing helper, which calls it `reps` times.
import numpy as np
import cupy as cp
import pycuda.autoinit
from pycuda.compiler import SourceModule

BLOCK = 128
mod = SourceModule("""
__global__ void tile(float* x, int n) { __shared__ float s[%(block)d]; s[threadIdx.x] = x[threadIdx.x]; }
""" % {"block": BLOCK})
src = """
extern "C" __global__ void scale_{name}({ty}* x, int n) {{ x[blockIdx.x * blockDim.x + threadIdx.x] *= 2; }}
"""
scale = cp.RawKernel(src.format(name="f", ty="float"), "scale_f")
x = cp.zeros(4096, dtype=cp.float32)


def bench(fn, reps=3):
    fn()
    for _ in range(reps):
        fn()


bench(lambda: scale((x.size // 256,), (256,), (x, x.size)))
tile = mod.get_function("tile")
tile(x, np.int32(4096), block=(BLOCK, 1, 1), grid=(4096 // BLOCK, 1), shared=BLOCK * 4)
