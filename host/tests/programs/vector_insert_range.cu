/* kerncast-expect
20: k(float*, int) <<<(2048,1,1), (256,1,1), 0>>> x1 {n=524288 x=ptr}
*/
// A vector filled from another with insert(end(), first, last): end() is an iterator that
// insert takes as a const_iterator (a conversion of the library's iterator type), at the same
// position. shape = {3, 1024, 1024, 1024}: grid 1024 * 1024 / 2 / 256 = 2048, block 4 * 64.
#include <cuda_runtime.h>
#include <vector>

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  std::vector<int> dims;
  for (int i = 0; i < 3; i++) dims.push_back(1024);
  std::vector<int> shape = {3};
  shape.insert(shape.end(), dims.begin(), dims.end());
  int half = shape[2] * shape[3] / 2;
  k<<<half / 256, shape.size() * 64>>>(x, half);
  return 0;
}
