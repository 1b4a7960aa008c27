/* kerncast-expect
28: scale(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=2 x=ptr}
29: scale(float*, int) <<<(32,1,1), (256,1,1), 0>>> x1 {n=1 x=ptr}
*/
// <iterator>'s free functions on C arrays: an accessor-style class copies its sizes into a
// member array with `std::copy(sizes, sizes + N, std::begin(sizes_))`, as PyTorch's packed
// accessors do, from an array or from one variable (`&n`, which C takes for an array of one
// element); `std::size` gives an array's length. 1024 / 256 = 4 blocks; 8192 / 256 = 32.
#include <algorithm>
#include <cuda_runtime.h>
#include <iterator>

__global__ void scale(float* x, int n) {}

template <int N>
struct Shape {
  Shape(const long* sizes) { std::copy(sizes, sizes + N, std::begin(sizes_)); }
  long sizes_[N];
};

int main() {
  const long dims[2] = {64, 1024};
  const long rows = 8192;
  Shape<2> s(dims);
  Shape<1> r(&rows);
  float* x;
  cudaMalloc(&x, sizeof(float) * dims[0] * dims[1]);
  scale<<<s.sizes_[1] / 256, 256>>>(x, (int)std::size(s.sizes_));
  scale<<<r.sizes_[0] / 256, 256>>>(x, (int)std::size(r.sizes_));
  return 0;
}
