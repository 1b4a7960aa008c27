// cl_strided (OpenCL): gather y[i] = x[i * stride] with the stride a kernel parameter (2, 3, 4,
// 32 in the workloads), to compare stride classes in OpenCL-lowered PTX.
// kerncast: workload n=1048576 stride=2 grid=(n/256) block=256
// kerncast: workload n=1048576 stride=32 grid=(n/256) block=256
__kernel void cl_strided(int n, int stride, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = x[i * stride];
}
