/* kerncast-expect
show: buffer_data
32: k(int const*, int const*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=2 r=ptr s=ptr} data{r=00000000020000000400000006000000 s=000000000000000009000000090000000900000000000000}
*/
// A loop that stores one value into each element of a run is applied at once, as its
// iterations would leave the array: big's four million ones are known (the launch's n reads
// the last of them), although a loop that launches nothing is followed only for a few
// thousand iterations. The value is converted as the store converts it (9.5 into an int is
// 9), and a run may start past the first element and end at `<=`. A loop whose value reads
// the counter is followed as any other loop.
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void k(const int* s, const int* r, int n) {}

int main() {
  const size_t nbig = 1 << 22;
  float* big = (float*)malloc(nbig * sizeof(float));
  for (size_t i = 0; i < nbig; i++) big[i] = 1;
  int hs[6];
  for (int i = 0; i < 6; ++i) hs[i] = 0;
  for (int i = 2; i <= 4; i += 1) {
    hs[i] = 9.5;
  }
  int hr[4];
  for (int i = 0; i < 4; i++) hr[i] = i * 2;
  int *s, *r;
  cudaMalloc(&s, sizeof(hs));
  cudaMemcpy(s, hs, sizeof(hs), cudaMemcpyHostToDevice);
  cudaMalloc(&r, sizeof(hr));
  cudaMemcpy(r, hr, sizeof(hr), cudaMemcpyHostToDevice);
  k<<<1, 32>>>(s, r, (int)big[nbig - 1] + 1);
  free(big);
  return 0;
}
