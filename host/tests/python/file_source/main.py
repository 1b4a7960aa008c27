# kerncast-expect
# 17: cupy scale <<<(64,1,1), (1000,1,1), 0>>> x1 {arg0=ptr arg1=2 arg2=1000}
# embedded 13: cupy.RawKernel cuda file scale.cu [scale]
# embedded 14: cupy.RawModule cuda computed [] ?{does not exist}
# end
# Kernel programs read from files: open(path).read() in a `with`, and RawModule(path=…).
import os
import cupy as cp

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "scale.cu")) as f:
    src = f.read()
scale = cp.RawKernel(src, "scale")
mod = cp.RawModule(path=os.path.join(here, "missing.cubin"))
x = cp.ones((64, 1000), dtype=cp.float32)
rows, cols = x.shape
scale((rows,), (min(cols, 1024),), (x, cp.float32(2), cols))
