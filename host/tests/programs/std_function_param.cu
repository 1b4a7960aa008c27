/* kerncast-expect
26: k(float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {n=0 x=ptr}
26: k(float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {n=1 x=ptr}
26: k(float*, int) <<<(3,1,1), (64,1,1), 0>>> x1 {n=2 x=ptr}
28: k(float*, int) <<<(10,1,1), (32,1,1), 0>>> x5 {n=320 x=ptr}
*/
// Callbacks passed to helpers: a std::function run for each of three steps, and a template
// taking any callable, run five times.
#include <cuda_runtime.h>
#include <functional>

__global__ void k(float* x, int n) {}

void each_step(int steps, const std::function<void(int)>& f) {
  for (int s = 0; s < steps; s++) f(s);
}

template <typename F>
void repeat(int times, F f) {
  for (int i = 0; i < times; i++) f();
}

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  each_step(3, [&](int s) { k<<<s + 1, 64>>>(x, s); });
  int n = 320;
  repeat(5, [=]() { k<<<n / 32, 32>>>(x, n); });
  return 0;
}
