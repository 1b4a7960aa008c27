// scale: y = a*x over n floats, one thread per element, coalesced.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void scale(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}
