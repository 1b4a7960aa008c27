# kerncast-expect
# 25: pycuda multiply_them <<<(4,1,1), (128,1,1), 0>>> x1 {arg0=ptr arg1=ptr arg2=ptr arg3=400}
# 28: pycuda prepared_call multiply_them <<<(2,2,1), (64,2,1), 0>>> x3 {arg0=ptr arg1=ptr arg2=ptr arg3=200}
# embedded 12: pycuda.compiler.SourceModule cuda literal 12:23 [multiply_them] (-O3) extern-c
# end
# PyCUDA: SourceModule, get_function, a launch with block= and grid=, and prepared_call.
import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dest[i] = a[i] * b[i];
}
""", options=["-O3"])
multiply_them = mod.get_function("multiply_them")

n = 400
a = np.random.randn(n).astype(np.float32)
b = np.random.randn(n).astype(np.float32)
dest = np.zeros_like(a)
multiply_them(drv.Out(dest), drv.In(a), drv.In(b), np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))
multiply_them.prepare("PPPi")
for i in range(3):
    multiply_them.prepared_call((2, 2), (64, 2, 1), dest, a, b, np.int32(n // 2))
