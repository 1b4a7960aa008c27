// dram_sweep: every thread copies 32 elements `stride` floats apart from in to out, and sweeps
// the same 32 again on each of `passes` passes; between two visits of an element the resident
// blocks go through several MiB, more than a 3 MiB L2 holds.
// The access pattern (not the code) of the "DRAM" micro-benchmark of the gpuPTXModel data set
// (GTX Titan X): 32768 blocks of 1024 threads, stride 65536, 32 passes.
// kerncast: workload n=33554432 stride=65536 passes=32 grid=(n/1024) block=1024
extern "C" __global__ void dram_sweep(const float *in, float *out, int n, int stride, int passes)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int p = 0; p < passes; ++p) {
#pragma unroll
        for (int k = 0; k < 32; ++k)
            out[i + (long)stride * k] = in[i + (long)stride * k];
    }
}
