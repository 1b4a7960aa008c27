// pb_correlation (PolyBench correlation): correlation matrix of m attributes over n data points
// (data is n x m, row-major). Kernels: column means, column standard deviations, centring and
// scaling of the data, and the symmetric m x m correlation matrix (one thread per row j1, a
// triangular loop over j2 > j1).
// kerncast: workload m=1024 n=1024 grid=(m/256) block=256
extern "C" __global__ void pb_corr_mean(int m, int n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float acc = 0.0f;
        for (int i = 0; i < n; ++i)
            acc += data[i * m + j];
        mean[j] = acc / (float)n;
    }
}
// kerncast: workload m=1024 n=1024 grid=(m/256) block=256
extern "C" __global__ void pb_corr_std(int m, int n, const float *data, const float *mean, float *stddev)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float acc = 0.0f;
        for (int i = 0; i < n; ++i) {
            float d = data[i * m + j] - mean[j];
            acc += d * d;
        }
        float s = sqrtf(acc / (float)n);
        stddev[j] = (s <= 0.005f) ? 1.0f : s;
    }
}
// kerncast: workload m=1024 n=1024 grid=(m/32,n/8) block=(32,8)
extern "C" __global__ void pb_corr_reduce(int m, int n, const float *mean, const float *stddev, float *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < m)
        data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrtf((float)n) * stddev[j]);
}
// kerncast: workload m=1024 n=1024 grid=(m/256) block=256
extern "C" __global__ void pb_corr_corr(int m, int n, const float *data, float *symmat)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        symmat[j1 * m + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 < m; ++j2) {
            float acc = 0.0f;
            for (int i = 0; i < n; ++i)
                acc += data[i * m + j1] * data[i * m + j2];
            symmat[j1 * m + j2] = acc;
            symmat[j2 * m + j1] = acc;
        }
    }
}
