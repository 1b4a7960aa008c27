// nbody: all-pairs gravitational acceleration with softening (rsqrtf), one thread per body; the
// arithmetic-heavy example with a loop whose trip count is the problem size.
// kerncast: workload n=32768 grid=(n/128) block=128
extern "C" __global__ void nbody(int n, const float4 *pos, float3 *acc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-4f);
        float s = q.w * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[i] = make_float3(ax, ay, az);
}
