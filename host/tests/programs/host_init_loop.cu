/* kerncast-expect
21: k(float*, int) <<<(65536,1,1), (256,1,1), 0>>> x1 {n=16777216 x=ptr}
25: k(float*, int) <<<(?{loop at line 23},1,1), (32,1,1), 0>>> x1 {n=?{loop at line 23} x=ptr}
*/
// Host loops over 2^24 elements are too long to follow: what they write becomes unknown, the
// launch sizes that do not depend on them stay known. A gap: C fixes the checksum (the sum of
// i % 7 for i < 2^24 is 50331645, so g = 1), but kerncast stops following the loop and
// reports it unknown.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  const int n = 1 << 24;
  float* h = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) h[i] = 1.0f * i;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
  k<<<n / 256, 256>>>(x, n);
  long sum = 0;
  for (int i = 0; i < n; i++) sum += i % 7;
  int g = sum % 5 + 1;
  k<<<g, 32>>>(x, g);
  free(h);
  return 0;
}
