# kerncast-expect
# args: --size 5000 --block=128 -v
# 28: cupy saxpy <<<(40,1,1), (128,1,1), 0>>> x3 {arg0=2 arg1=ptr arg2=ptr arg3=5000}
# 30: cupy saxpy <<<(1,1,1), (32,1,1), 0>>> x1 {arg0=0 arg1=ptr arg2=ptr arg3=32}
# embedded 18: cupy.RawKernel cuda literal 18:26 [saxpy]
# end
# argparse: options with type=int and defaults, given on the command line or left to defaults.
import argparse
import cupy as cp

p = argparse.ArgumentParser(description="saxpy")
p.add_argument("-n", "--size", type=int, default=1024)
p.add_argument("--block", type=int, default=256)
p.add_argument("--iters", type=int, default=3)
p.add_argument("-v", "--verbose", action="store_true")
args = p.parse_args()

saxpy = cp.RawKernel(r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
''', 'saxpy')
x = cp.ones(args.size, dtype=cp.float32)
y = cp.zeros_like(x)
blocks = -(-args.size // args.block)
for it in range(args.iters):
    saxpy((blocks,), (args.block,), (cp.float32(2.0), x, y, cp.int32(args.size)))
if args.verbose:
    saxpy((1,), (32,), (cp.float32(0.0), x, y, cp.int32(32)))
