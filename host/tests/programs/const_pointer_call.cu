/* kerncast-expect
args: 100000
30: rows_kernel(float*, long) <<<(391,1,1), (256,1,1), 0>>> x1 {n=100000 x=ptr}
*/
// A class template's constructor copies sizes from a pointer to `const` with `std::copy`,
// which kerncast does not model: it writes through its output, not through its input range,
// so `nrow` (whose address is the input) keeps its value. (100000 + 255) / 256 = 391.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <cuda_runtime.h>

__global__ void rows_kernel(float* x, int64_t n) {}

template <typename T, size_t N, typename index_t = int64_t>
struct Accessor {
  T* data_;
  index_t sizes_[N];
  Accessor(T* data, const index_t* sizes) : data_(data) {
    std::copy(sizes, sizes + N, std::begin(this->sizes_));
  }
};

int main(int argc, char** argv) {
  const int64_t nrow = atol(argv[1]);
  float* x;
  cudaMalloc(&x, nrow * sizeof(float));
  Accessor<float, 1> acc(x, &nrow);
  rows_kernel<<<(nrow + 255) / 256, 256>>>(acc.data_, nrow);
  return 0;
}
