/* kerncast-expect
23: mm(float*, int) <<<(32,32,1), (16,16,1), 0>>> x1 {i=0 x=ptr}
23: mm(float*, int) <<<(16,64,1), (32,8,1), 0>>> x1 {i=1 x=ptr}
28: k(float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {n=1 x=ptr}
28: k(float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {n=2 x=ptr}
*/
// A 2-D array of tile shapes ({16, 16}, {32, 8}) over a 512 x 512 problem; a plain struct
// array written element by element (each element its own: a[0] is not a[1]).
#include <cuda_runtime.h>

__global__ void mm(float* x, int i) {}
__global__ void k(float* x, int n) {}

struct Job {
  int n;
};

int main() {
  float* x;
  cudaMalloc(&x, 512 * 512 * sizeof(float));
  const int cfg[][2] = {{16, 16}, {32, 8}};
  for (int i = 0; i < 2; i++) {
    mm<<<dim3(512 / cfg[i][0], 512 / cfg[i][1]), dim3(cfg[i][0], cfg[i][1])>>>(x, i);
  }
  Job jobs[2];
  jobs[0].n = 1;
  jobs[1].n = 2;
  for (int i = 0; i < 2; i++) k<<<jobs[i].n, 64>>>(x, jobs[i].n);
  return 0;
}
