/* kerncast-expect
20: k(float*, int) <<<(1,1,1), (256,1,1), 0>>> x1 {n=256 x=ptr}
20: k(float*, int) <<<(2,1,1), (256,1,1), 0>>> x1 {n=512 x=ptr}
20: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
20: k(float*, int) <<<(8,1,1), (256,1,1), 0>>> x1 {n=2048 x=ptr}
24: k(float*, int) <<<(3,1,1), (64,1,1), 0>>> x1 {n=192 x=ptr}
*/
// std::vector of sizes: built from a list, grown by push_back, indexed up to size(); a vector
// of three 64s summed by a range-for (192).
#include <cuda_runtime.h>
#include <vector>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 2048 * sizeof(float));
  std::vector<int> sizes = {256, 512, 1024};
  sizes.push_back(2048);
  for (size_t i = 0; i < sizes.size(); ++i) k<<<sizes[i] / 256, 256>>>(x, sizes[i]);
  std::vector<int> blocks(3, 64);
  int total = 0;
  for (int b : blocks) total += b;
  k<<<total / 64, 64>>>(x, total);
  return 0;
}
