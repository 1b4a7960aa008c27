// cl_reduce_local (OpenCL): per-work-group sum of n floats with a 256-element __local buffer and
// a tree reduction (barrier per level); partial[group] = group sum. Work-group size 256.
// kerncast: workload n=1048576 grid=(n/256) block=256
__kernel void cl_reduce_local(int n, __global const float *in, __global float *partial)
{
    __local float buf[256];
    int lid = get_local_id(0);
    int i = get_global_id(0);
    buf[lid] = (i < n) ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
        if (lid < s)
            buf[lid] += buf[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = buf[0];
}
