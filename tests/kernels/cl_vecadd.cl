// cl_vecadd (OpenCL): c[i] = a[i] + b[i] for i < n, one work-item per element.
// kerncast: workload n=1048576 grid=(n/256) block=256
__kernel void cl_vecadd(int n, __global const float *a, __global const float *b, __global float *c)
{
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
