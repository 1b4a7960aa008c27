// cl_conv2d (OpenCL): 2-D convolution of an h x w image with a (2r+1)^2 filter, zero padding,
// one work-item per output pixel.
// kerncast: workload h=1024 w=1024 r=2 grid=(w/16,h/16) block=(16,16)
__kernel void cl_conv2d(int h, int w, int r, __global const float *img, __global const float *filt,
                        __global float *out)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
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
