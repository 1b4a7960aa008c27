// vecadd_float4: c = a + b over n4 float4 vectors (4*n4 floats), one thread per float4, so each
// thread issues 128-bit vector loads and stores.
// kerncast: workload n4=262144 grid=(n4/256) block=256
extern "C" __global__ void vecadd_float4(int n4, const float4 *a, const float4 *b, float4 *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
