// divergence: odd and even lanes of each warp take different branches (a cubic polynomial on one
// side, a rational function on the other), so every warp runs both paths: branch divergence.
// kerncast: workload n=1048576 grid=(n/256) block=256
extern "C" __global__ void divergence(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    if (threadIdx.x % 2 == 0)
        y[i] = ((0.5f * v + 1.0f) * v + 2.0f) * v + 3.0f;
    else
        y[i] = (v + 1.0f) / (v * v + 2.0f);
}
