/* kerncast-expect
20: void k<float>(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
20: void k<double>(double*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
*/
// if constexpr on the element size in a template launcher: 256 threads for 4-byte types,
// 128 for 8-byte ones.
#include <cuda_runtime.h>

template <typename T>
__global__ void k(T* x, int n) {}

template <typename T>
void run(T* x, int n) {
  int block;
  if constexpr (sizeof(T) == 8) {
    block = 128;
  } else {
    block = 256;
  }
  k<T><<<n / block, block>>>(x, n);
}

int main() {
  float* f;
  double* d;
  cudaMalloc(&f, 1024 * sizeof(float));
  cudaMalloc(&d, 1024 * sizeof(double));
  run(f, 1024);
  run(d, 1024);
  return 0;
}
