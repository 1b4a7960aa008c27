// cl_nbody (OpenCL): all-pairs gravitational acceleration with softening, using rsqrt.
// kerncast: workload n=16384 grid=(n/256) block=256
__kernel void cl_nbody(int n, float eps2, __global const float *px, __global const float *py,
                       __global const float *pz, __global const float *mass, __global float *ax,
                       __global float *ay, __global float *az)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float xi = px[i], yi = py[i], zi = pz[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;
        float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
        float s = mass[j] * inv * inv * inv;
        fx += dx * s;
        fy += dy * s;
        fz += dz * s;
    }
    ax[i] = fx;
    ay[i] = fy;
    az[i] = fz;
}
