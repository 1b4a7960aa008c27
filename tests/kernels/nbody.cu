// nbody: one step of all-pairs gravitational acceleration; body i sums m_j * d / |d|^3 over all j
// with a softening term, using rsqrtf; positions and masses in separate arrays.
// kerncast: workload n=16384 grid=(n/256) block=256
extern "C" __global__ void nbody(int n, float eps2, const float *px, const float *py, const float *pz,
                                 const float *mass, float *ax, float *ay, float *az)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float xi = px[i], yi = py[i], zi = pz[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;
        float d2 = dx * dx + dy * dy + dz * dz + eps2;
        float inv = rsqrtf(d2);
        float s = mass[j] * inv * inv * inv;
        fx += dx * s;
        fy += dy * s;
        fz += dz * s;
    }
    ax[i] = fx;
    ay[i] = fy;
    az[i] = fz;
}
