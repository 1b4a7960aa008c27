/* kerncast-expect
16: fp32::axpy(float, float const*, float*, int) <<<(391,1,1), (256,1,1), 0>>> x1 {a=2 n=100000 x=ptr y=ptr}
25: fp64::axpy(double, double const*, double*, int) <<<(196,1,1), (128,1,1), 0>>> x1 {a=0.5 n=25000 x=ptr y=ptr}
38: fp64::axpy(double, double const*, double*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {a=1 n=32 x=ptr y=ptr}
*/
// The same kernel name in two namespaces: each launch runs the declaration clang resolves,
// never both (issue 47).
#include <cuda_runtime.h>

namespace fp32 {
__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
// (100000 + 255) / 256 = 391
void run(const float* x, float* y, int n) { axpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n); }
}  // namespace fp32

namespace fp64 {
__global__ void axpy(double a, const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
// (25000 + 127) / 128 = 196
void run(const double* x, double* y, int n) { axpy<<<(n + 127) / 128, 128>>>(0.5, x, y, n); }
}  // namespace fp64

int main() {
  const int n = 100000;
  float *xf, *yf;
  double *xd, *yd;
  cudaMalloc(&xf, n * sizeof(float));
  cudaMalloc(&yf, n * sizeof(float));
  cudaMalloc(&xd, n * sizeof(double));
  cudaMalloc(&yd, n * sizeof(double));
  fp32::run(xf, yf, n);
  fp64::run(xd, yd, n / 4);
  fp64::axpy<<<1, 32>>>(1.0, xd, yd, 32);
  return 0;
}
