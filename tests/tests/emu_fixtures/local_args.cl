// Fixture for the emulator's OpenCL `__local` arguments (tests/tests/emu_functional.rs): a
// work-group sum in one `__local` buffer and a count of positive inputs in another, so a wrong
// placement of either corrupts the other. Regenerate (clang, as kerncast lowers OpenCL):
// kerncast lower local_args.cl -o local_args.ptx
__kernel void local_sum(__global const float *in, __global float *out, __local float *scratch,
                        __local int *positives, int n)
{
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    if (lid == 0)
        positives[0] = 0;
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n && in[gid] > 0.0f)
        atomic_add(positives, 1);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[2 * get_group_id(0)] = scratch[0];
        out[2 * get_group_id(0) + 1] = (float)positives[0];
    }
}
