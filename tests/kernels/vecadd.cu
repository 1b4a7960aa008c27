// vecadd: c[i] = a[i] + b[i] for i < n, one thread per element.
// kerncast: workload n=1048576 grid=(n/256) block=256
// kerncast: workload n=1000 grid=(n/128) block=128
extern "C" __global__ void vecadd(int n, const float *a, const float *b, float *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
