# kerncast-expect
# 28: pyopencl tile_sum <<<(16,192,1), (64,4,1), 0>>> x4 {arg0=ptr arg1=?{__local buffer of 1024 bytes} arg2=ptr arg3=1024}
# 30: pyopencl tile_sum <<<(8,192,1), (64,4,1), 0>>> x1 {arg0=ptr arg1=?{__local buffer of 1024 bytes} arg2=ptr arg3=512}
# embedded 21: pyopencl.Program opencl literal 10:10 [tile_sum]
# end
# PyOpenCL: cl.Kernel with set_args and enqueue_nd_range_kernel, a 2D range and local memory.
import numpy as np
import pyopencl as cl

SRC = """
__kernel void tile_sum(__global const float* x, __local float* part, __global float* out, int w) {
  int lx = get_local_id(0);
  part[lx] = x[get_global_id(1) * w + get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lx == 0) out[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = part[0];
}
"""

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
prg = cl.Program(ctx, SRC).build()
knl = cl.Kernel(prg, "tile_sum")
w, h = 1024, 768
x = cl.Buffer(ctx, cl.mem_flags.READ_ONLY, size=w * h * 4)
out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, size=(w // 64) * (h // 4) * 4)
knl.set_args(x, cl.LocalMemory(64 * 4 * 4), out, np.int32(w))
for _ in range(4):
    cl.enqueue_nd_range_kernel(queue, knl, (w, h), (64, 4))
knl.set_arg(3, np.int32(w // 2))
cl.enqueue_nd_range_kernel(queue, knl, (w // 2, h), (64, 4))
