// pb_covariance (PolyBench covariance): covariance matrix of m attributes over n data points
// (data n x m). Kernels: column means, centring, and the symmetric m x m covariance matrix
// (one thread per row j1, a triangular loop over j2 >= j1).
// kerncast: workload m=1024 n=1024 grid=(m/256) block=256
extern "C" __global__ void pb_cov_mean(int m, int n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float acc = 0.0f;
        for (int i = 0; i < n; ++i)
            acc += data[i * m + j];
        mean[j] = acc / (float)n;
    }
}
// kerncast: workload m=1024 n=1024 grid=(m/32,n/8) block=(32,8)
extern "C" __global__ void pb_cov_reduce(int m, int n, const float *mean, float *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < m)
        data[i * m + j] -= mean[j];
}
// kerncast: workload m=1024 n=1024 grid=(m/256) block=256
extern "C" __global__ void pb_cov_covar(int m, int n, const float *data, float *symmat)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; ++j2) {
            float acc = 0.0f;
            for (int i = 0; i < n; ++i)
                acc += data[i * m + j1] * data[i * m + j2];
            acc /= (float)(n - 1);
            symmat[j1 * m + j2] = acc;
            symmat[j2 * m + j1] = acc;
        }
    }
}
