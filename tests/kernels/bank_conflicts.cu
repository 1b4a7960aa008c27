// bank_conflicts: each thread writes shared memory at stride `stride` words (stride 1: no
// conflicts; 2: two-way; 32: all lanes in one bank) and reads it back after a barrier.
// Shared buffer of 32 * 256 floats; block of 256 threads.
// kerncast: workload n=1048576 stride=2 grid=(n/256) block=256
extern "C" __global__ void bank_conflicts(int n, int stride, const float *x, float *y)
{
    __shared__ float buf[32 * 256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int slot = (t * stride) % (32 * 256);
    buf[slot] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    if (i < n)
        y[i] = 2.0f * buf[slot];
}
