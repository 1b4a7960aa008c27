// saxpy: y = a*x + y over n floats, one thread per element; the memory-bound baseline of the demo.
// kerncast: workload n=16777216 grid=(n/256) block=256
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
