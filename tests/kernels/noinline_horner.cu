// noinline_horner: y[i] = p(x[i]), a degree-`deg` polynomial with unit coefficients evaluated by
// Horner's rule in a __noinline__ device function, so the PTX keeps a real call.
__device__ __noinline__ float horner(float x, int deg)
{
    float r = 0.0f;
    for (int k = 0; k < deg; ++k)
        r = r * x + 1.0f;
    return r;
}

// kerncast: workload n=1048576 deg=16 grid=(n/256) block=256
extern "C" __global__ void noinline_horner(int n, int deg, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = horner(x[i], deg);
}
