# kerncast-expect
# 20: cupy norm <<<(?{loop at line 18},1,1), (256,1,1), 0>>> x>=1?{loop at line 18} {arg0=ptr arg1=?{loop at line 18}} when ?{loop at line 18}
# 22: cupy norm <<<(1,1,1), (1,1,1), 0>>> x1 {arg0=ptr arg1=?{written by the loop at line 18}}
# embedded 10: cupy.RawKernel cuda literal 10:22 [norm]
# end
# A loop over data the script reads at run time: its launches are a lower bound, their sizes unknown.
import cupy as cp
import numpy as np

k = cp.RawKernel(r'''
extern "C" __global__ void norm(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] / n;
}
''', 'norm')
batches = np.load("batches.npy")
total = 0
for b in batches:
    y = cp.asarray(b)
    k(((y.size + 255) // 256,), (256,), (y, y.size))
    total += 1
k((1,), (1,), (y, total))
