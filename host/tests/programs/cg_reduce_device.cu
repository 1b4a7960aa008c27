/* kerncast-expect
25: reduce_kernel(float const*, float*, int) <<<(256,1,1), (256,1,1), 0>>> x1 {in=ptr n=65536 out=ptr}
25: reduce_kernel(float const*, float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {in=ptr n=1000 out=ptr}
*/
// Device code calls cooperative groups' cg::reduce; the host has a launcher of its own named
// reduce(). Device code is never read for host launches (issue 47: the sample once gave 0
// workloads and 213 errors). 2^16 / 256 = 256 blocks; (1000 + 127) / 128 = 8.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void reduce_kernel(const float* in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) atomicAdd(out, v);
}

void reduce(const float* in, float* out, int n, int threads) {
  int blocks = (n + threads - 1) / threads;
  reduce_kernel<<<blocks, threads>>>(in, out, n);
}

int main() {
  float *in, *out;
  cudaMalloc(&in, sizeof(float) << 16);
  cudaMalloc(&out, sizeof(float));
  reduce(in, out, 1 << 16, 256);
  reduce(in, out, 1000, 128);
  return 0;
}
