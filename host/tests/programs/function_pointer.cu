/* kerncast-expect
15: ka(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
16: kb(float*, int) <<<(16,1,1), (64,1,1), 0>>> x1 {n=1024 x=ptr}
16: kb(float*, int) <<<(4,1,1), (64,1,1), 0>>> x1 {n=256 x=ptr}
16: kb(float*, int) <<<(8,1,1), (64,1,1), 0>>> x1 {n=512 x=ptr}
*/
// Launchers called through a global table of function pointers, a pointer variable and an
// explicit dereference.
#include <cuda_runtime.h>

__global__ void ka(float* x, int n) {}
__global__ void kb(float* x, int n) {}

typedef void (*launcher_t)(float*, int);
void launch_a(float* x, int n) { ka<<<n / 128, 128>>>(x, n); }
void launch_b(float* x, int n) { kb<<<n / 64, 64>>>(x, n); }
launcher_t table[] = {launch_a, launch_b};

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  for (int i = 0; i < 2; i++) table[i](x, 1024);
  launcher_t f = launch_b;
  f(x, 256);
  (*f)(x, 512);
  return 0;
}
