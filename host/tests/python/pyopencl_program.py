# kerncast-expect
# 27: pyopencl sum <<<(196,1,1), (256,1,1), 0>>> x1 {arg0=ptr arg1=ptr arg2=50000}
# 28: pyopencl sum <<<(?{runtime picks},1,1), (?{runtime picks},1,1), 0>>> x1 {arg0=ptr arg1=ptr arg2=50000}
# embedded 18: pyopencl.Program opencl literal 18:26 [sum] (-cl-fast-relaxed-math)
# end
# PyOpenCL: a program's kernel called as its attribute; a local size of None is the runtime's.
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
n = 50000
a_np = np.random.rand(n).astype(np.float32)
a_g = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a_np)
res_g = cl.Buffer(ctx, mf.WRITE_ONLY, a_np.nbytes)

prg = cl.Program(ctx, """
__kernel void sum(__global const float *a_g, __global float *res_g, int n) {
  int gid = get_global_id(0);
  if (gid < n) res_g[gid] = a_g[gid] + a_g[gid];
}
""").build(options=["-cl-fast-relaxed-math"])

local = 256
global_size = ((n + local - 1) // local) * local
prg.sum(queue, (global_size,), (local,), a_g, res_g, np.int32(n))
prg.sum(queue, a_np.shape, None, a_g, res_g, np.int32(n))
