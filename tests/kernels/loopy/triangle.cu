// Loopy test_statistics "triangle": one thread walks 0 <= j < i < n and does one multiply-add
// per point; the exact count is n(n-1)/2 (78 at n = 13), where a box count gives (n-1)^2.
// kerncast: workload n=13 grid=1 block=32
extern "C" __global__ void loopy_triangle(int n, float *out)
{
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) {
            acc = acc * 0.5f + (float)j;
        }
    }
    out[threadIdx.x] = acc;
}
