/* kerncast-expect
16: copy(float const*, float*, int) <<<(79,1,1), (128,1,1), 0>>> x1 {in=ptr n=10000 out=ptr}
16: copy(float const*, float*, int) <<<(20,1,1), (512,1,1), 0>>> x1 {in=ptr n=10000 out=ptr}
16: copy(float const*, float*, int) <<<(10,1,1), (1024,1,1), 0>>> x1 {in=ptr n=10240 out=ptr}
16: copy(float const*, float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {in=ptr n=8 out=ptr}
*/
// Host function templates: a non-type parameter for the block size and a deduced type.
// (10000 + 127) / 128 = 79; (10000 + 511) / 512 = 20; round_up(10000, 1024) = 10240 → 10;
// round_up<long>(5, 4) = 8 → 1 block of 32.
#include <cuda_runtime.h>

__global__ void copy(const float* in, float* out, int n) {}

template <int BLOCK>
void run_copy(const float* in, float* out, int n) {
  copy<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
}

template <typename T>
T round_up(T x, T m) {
  return (x + m - 1) / m * m;
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 16384 * sizeof(float));
  cudaMalloc(&out, 16384 * sizeof(float));
  run_copy<128>(in, out, 10000);
  run_copy<512>(in, out, 10000);
  int padded = round_up(10000, 1024);
  run_copy<1024>(in, out, padded);
  long lp = round_up<long>(5, 4);
  run_copy<32>(in, out, (int)lp);
  return 0;
}
