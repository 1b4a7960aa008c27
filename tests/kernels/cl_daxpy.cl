// cl_daxpy (OpenCL, double precision): y[i] = a * x[i] + y[i].
// kerncast: workload n=1048576 grid=(n/256) block=256
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void cl_daxpy(int n, double a, __global const double *x, __global double *y)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
