// cl_transpose_padded (OpenCL): out = in^T through a 16x17 __local tile (one padding column
// against bank conflicts); coalesced global reads and writes.
// kerncast: workload rows=2048 cols=2048 grid=(cols/16,rows/16) block=(16,16)
#define TILE 16
__kernel void cl_transpose_padded(int rows, int cols, __global const float *in, __global float *out)
{
    __local float tile[TILE][TILE + 1];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_group_id(0) * TILE + lx;
    int y = get_group_id(1) * TILE + ly;
    if (y < rows && x < cols)
        tile[ly][lx] = in[y * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    int ox = get_group_id(1) * TILE + lx;
    int oy = get_group_id(0) * TILE + ly;
    if (oy < cols && ox < rows)
        out[oy * rows + ox] = tile[lx][ly];
}
