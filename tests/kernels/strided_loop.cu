// strided_loop: s[i] = sum of x[i*n + j] over j = 0, 3, 6, ... < n, one thread per row: a loop
// with step 3, whose trip count is ceil(n / 3).
// kerncast: workload m=4096 n=999 grid=(m/128) block=128
extern "C" __global__ void strided_loop(int m, int n, const float *x, float *s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    float acc = 0.0f;
    for (int j = 0; j < n; j += 3)
        acc += x[i * n + j];
    s[i] = acc;
}
