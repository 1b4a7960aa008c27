// cl_saxpy (OpenCL): y[i] = a * x[i] + y[i] for i < n, one work-item per element.
// kerncast: workload n=1048576 grid=(n/256) block=256
__kernel void cl_saxpy(int n, float a, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
