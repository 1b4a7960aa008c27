/* kerncast-expect
15: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
15: k2(float*, float*, float) <<<(8,1,1), (128,1,1), 0>>> x1 {a=ptr b=ptr s=0.5}
26: k(float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {n=128 x=ptr}
*/
// A generic launcher taking the kernel as a function pointer and its arguments as a pack (a
// common wrapper in benchmarks), and a macro with __VA_ARGS__.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void k2(float* a, float* b, float s) {}

template <typename... Args>
void launch(void (*kernel)(Args...), dim3 grid, dim3 block, Args... args) {
  kernel<<<grid, block>>>(args...);
}

#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)

int main() {
  float *x, *y;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  launch(k, dim3(4), dim3(256), x, 1024);
  launch(k2, dim3(8), dim3(128), x, y, 0.5f);
  LAUNCH(k, 2, 64, x, 128);
  return 0;
}
