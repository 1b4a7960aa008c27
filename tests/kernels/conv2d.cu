// conv2d: 2-D convolution of an h x w image with a (2r+1) x (2r+1) filter, zero padding at the
// borders; one thread per output pixel, the filter loops stay rolled.
// kerncast: workload h=1024 w=1024 r=2 grid=(w/16,h/16) block=(16,16)
extern "C" __global__ void conv2d(int h, int w, int r, const float *img, const float *filt, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y >= h || x >= w)
        return;
    int fw = 2 * r + 1;
    float acc = 0.0f;
    for (int dy = -r; dy <= r; ++dy) {
        for (int dx = -r; dx <= r; ++dx) {
            int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w)
                acc += img[yy * w + xx] * filt[(dy + r) * fw + (dx + r)];
        }
    }
    out[y * w + x] = acc;
}
