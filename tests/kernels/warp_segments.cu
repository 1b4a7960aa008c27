// warp_segments: CUB-style warp collectives in inline PTX over 8-lane segments: an inclusive scan
// with shfl.up, a segment sum with shfl.down, a butterfly max and an indexed broadcast, each add
// predicated on the shuffle's in-range flag as CUB's WarpScanShfl and WarpReduceShfl write them.
// kerncast: workload n=65536 grid=(n/128) block=128
// kerncast: workload n=1000 grid=(n/96) block=96
extern "C" __global__ void warp_segments(int n, const float *in, float *scan, float *sum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    float s = v;
    float t = v;
    float m = v;
    // c = (32 - width) << 8 | clamp: segments of 8 lanes; up clamps at the segment's first lane.
    for (int off = 1; off < 8; off *= 2) {
        asm volatile("{ .reg .f32 r0; .reg .pred p;"
                     " shfl.sync.up.b32 r0|p, %1, %2, %3, -1;"
                     " @p add.f32 r0, r0, %1; mov.f32 %0, r0; }"
                     : "=f"(s) : "f"(s), "r"(off), "r"(24 << 8));
        asm volatile("{ .reg .f32 r0; .reg .pred p;"
                     " shfl.sync.down.b32 r0|p, %1, %2, %3, -1;"
                     " @p add.f32 r0, r0, %1; mov.f32 %0, r0; }"
                     : "=f"(t) : "f"(t), "r"(off), "r"((24 << 8) | 31));
        asm volatile("{ .reg .f32 r0; .reg .pred p;"
                     " shfl.sync.bfly.b32 r0|p, %1, %2, %3, -1;"
                     " @p max.f32 r0, r0, %1; mov.f32 %0, r0; }"
                     : "=f"(m) : "f"(m), "r"(off), "r"((24 << 8) | 31));
    }
    // down with the clamp below the segment's end: lanes past the clamp keep their value.
    asm volatile("{ .reg .f32 r0; .reg .pred p;"
                 " shfl.sync.down.b32 r0|p, %1, 2, %2, -1;"
                 " @p sub.f32 r0, r0, %1; mov.f32 %0, r0; }"
                 : "=f"(t) : "f"(t), "r"((24 << 8) | 5));
    // idx lane 6 of the segment is past clamp 5 (never in range); lane 1 is always in range.
    asm volatile("{ .reg .f32 r0; .reg .pred p;"
                 " shfl.sync.idx.b32 r0|p, %1, 6, %2, -1;"
                 " @p mul.f32 r0, r0, %1; mov.f32 %0, r0; }"
                 : "=f"(m) : "f"(m), "r"((24 << 8) | 5));
    asm volatile("{ .reg .f32 r0; .reg .pred p;"
                 " shfl.sync.idx.b32 r0|p, %1, 1, %2, -1;"
                 " @p fma.rn.f32 r0, r0, %1, %1; mov.f32 %0, r0; }"
                 : "=f"(m) : "f"(m), "r"((24 << 8) | 5));
    if (i < n) {
        scan[i] = s + m;
        sum[i] = t;
    }
}
