// strided: gather y[i] = x[i * S] for S = 2, 3, 4 and 32, one kernel per stride, to exercise
// the stride classes of global loads (x must hold n * S elements).
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void stride2(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[2 * i];
}
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void stride3(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[3 * i];
}
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void stride4(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[4 * i];
}
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void stride32(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[32 * i];
}
