extern "C" __global__ void scale(float* x, float s, int cols) {
    int c = threadIdx.x;
    if (c < cols) x[blockIdx.x * cols + c] *= s;
}
