// softmax_row: row-wise softmax of an m x n matrix, one thread per row: a max pass, an exp-sum
// pass with expf, and a normalising pass (three rolled loops over the row).
// kerncast: workload m=4096 n=512 grid=(m/128) block=128
extern "C" __global__ void softmax_row(int m, int n, const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const float *row = in + (long)i * n;
    float mx = row[0];
    for (int j = 1; j < n; ++j)
        mx = fmaxf(mx, row[j]);
    float sum = 0.0f;
    for (int j = 0; j < n; ++j)
        sum += expf(row[j] - mx);
    float inv = 1.0f / sum;
    for (int j = 0; j < n; ++j)
        out[(long)i * n + j] = expf(row[j] - mx) * inv;
}
