// cl_histogram (OpenCL): 256-bin histogram of n bytes with global atomic increments.
// kerncast: workload n=4194304 grid=(n/256) block=256
__kernel void cl_histogram(int n, __global const uchar *data, __global int *hist)
{
    int i = get_global_id(0);
    if (i < n)
        atomic_inc(&hist[data[i]]);
}
