/* kerncast-expect
33: k(float*, int) <<<(40,1,1), (256,1,1), 0>>> x1 {n=10000 x=ptr}
34: k(float*, int) <<<(16,1,1), (128,1,1), 0>>> x1 {n=2048 x=ptr}
34: k(float*, int) <<<(8,1,1), (256,1,1), 0>>> x1 {n=2048 x=ptr}
37: k(float*, int) <<<(32,1,1), (64,1,1), 0>>> x1 {n=2048 x=ptr}
22: k(float*, int) <<<(16,1,1), (128,1,1), 0>>> x1 {n=2048 x=ptr}
22: k(float*, int) <<<(32,1,1), (128,1,1), 0>>> x1 {n=4096 x=ptr}
*/
// Lambdas as helpers: one computing a grid size, a generic lambda, one stored in a
// std::function, a lambda calling another, and one capturing `this` in a method (which sees
// the object's later changes). (10000 + 255) / 256 = 40.
#include <cuda_runtime.h>
#include <functional>

__global__ void k(float* x, int n) {}

struct Runner {
  float* x;
  int n = 2048;
  int block = 128;
  void go() {
    auto l = [this]() { k<<<n / block, block>>>(x, n); };
    l();
    n = 4096;
    l();
  }
};

int main() {
  float* x;
  cudaMalloc(&x, 16384 * sizeof(float));
  auto blocks = [](int n, int b) { return (n + b - 1) / b; };
  k<<<blocks(10000, 256), 256>>>(x, 10000);
  auto any = [&](auto b) { k<<<2048 / b, b>>>(x, 2048); };
  any(128);
  any(256L);
  std::function<void(int)> f = [x](int b) { k<<<2048 / b, b>>>(x, 2048); };
  f(64);
  Runner r;
  r.x = x;
  r.go();
  return 0;
}
