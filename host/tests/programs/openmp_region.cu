/* kerncast-expect
flags: -fopenmp
26: k(float*, int) <<<(?{OpenMP region},1,1), (32,1,1), 0>>> x1 {n=?{OpenMP region} x=?{OpenMP region}}
27: k(float*, int) <<<(3,1,1), (64,1,1), 0>>> x1 {n=3 x=?{OpenMP region}}
note ?{kerncast does not read an OpenMP region}
*/
// A `#pragma omp parallel` region in a unit built with -fopenmp is a captured statement whose
// body libclang does not show: the launch in it cannot be read, and the reading says so (a
// note naming the region) instead of leaving it out without a word. The variable the region
// writes is unknown after it, never the value from before it (the launch after the region).
#include <cuda_runtime.h>
// declared here, not from omp.h, which the bootstrap does not install
extern "C" int omp_get_num_threads();

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  int n = 4;
#pragma omp parallel
  {
    n = omp_get_num_threads();
    k<<<n, 128>>>(x, n);
  }
  k<<<n, 32>>>(x, n);
  k<<<3, 64>>>(x, 3);
  return 0;
}
