/* kerncast-expect
30: void fill<float, 64>(float*, float, int) <<<(16,1,1), (64,1,1), 0>>> x1 {n=1024 out=ptr v=1}
20: void fill<float, 256>(float*, float, int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=4096 out=ptr v=2.5}
20: void fill<double, 128>(double*, double, int) <<<(32,1,1), (128,1,1), 0>>> x1 {n=4096 out=ptr v=0.25}
20: void fill<int, 256>(int*, int, int) <<<(1,1,1), (256,1,1), 0>>> x1 {n=100 out=ptr v=7}
*/
// Template kernels: each launch runs the instance clang resolves (fill<float, 256> is not
// fill<double, 128>). fill_all picks 128 threads for 8-byte types, else 256.
#include <cuda_runtime.h>

template <typename T, int BS>
__global__ void fill(T* out, T v, int n) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) out[i] = v;
}

template <typename T>
void fill_all(T* out, T v, int n) {
  constexpr int bs = sizeof(T) == 8 ? 128 : 256;
  fill<T, bs><<<(n + bs - 1) / bs, bs>>>(out, v, n);
}

int main() {
  float* f;
  double* d;
  int* i;
  cudaMalloc(&f, 4096 * sizeof(float));
  cudaMalloc(&d, 4096 * sizeof(double));
  cudaMalloc(&i, 128 * sizeof(int));
  fill<float, 64><<<16, 64>>>(f, 1.0f, 1024);
  fill_all(f, 2.5f, 4096);
  fill_all(d, 0.25, 4096);
  fill_all<int>(i, 7, 100);
  return 0;
}
