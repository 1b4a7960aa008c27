// pb_3mm (PolyBench 3mm): E = A * B, F = C * D, G = E * F; one generic matrix-product kernel
// (rows x inner times inner x cols), launched three times; one thread per output element.
// kerncast: workload rows=512 cols=512 inner=512 grid=(cols/32,rows/8) block=(32,8)
extern "C" __global__ void pb_3mm_product(int rows, int cols, int inner, const float *X, const float *Y,
                                          float *Z)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols) {
        float acc = 0.0f;
        for (int k = 0; k < inner; ++k)
            acc += X[i * inner + k] * Y[k * cols + j];
        Z[i * cols + j] = acc;
    }
}
