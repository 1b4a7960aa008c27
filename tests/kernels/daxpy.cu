// daxpy: y[i] = a * x[i] + y[i] in double precision, one thread per element.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void daxpy(int n, double a, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
