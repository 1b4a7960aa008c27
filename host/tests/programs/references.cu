/* kerncast-expect
28: k(float*, int) <<<(8,1,1), (512,1,1), 0>>> x1 {n=4096 x=ptr}
34: k(float*, int) <<<(8,1,1), (250,1,1), 0>>> x1 {n=2000 x=ptr}
37: k(float*, int) <<<(64,1,1), (192,1,1), 0>>> x1 {n=128 x=ptr}
40: k(float*, int) <<<(8,1,1), (512,1,1), 0>>> x1 {n=4096 x=ptr}
*/
// References: out-parameters set by a function (given variables, then fields), a reference to
// a field written through, a const reference that sees the field change, a range-for by
// reference scaling an array.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

void set_size(int& n, int& block) {
  n = 1 << 12;
  block = 512;
}

struct Cfg {
  int n, block;
};

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  int n = 1, block = 1;
  set_size(n, block);
  k<<<n / block, block>>>(x, n);
  Cfg c{100, 10};
  int& r = c.n;
  r = 2000;
  const int& b = c.block;
  c.block = 250;
  k<<<r / b, b>>>(x, c.n);
  int arr[3] = {1, 2, 3};
  for (int& v : arr) v *= 64;
  k<<<arr[0], arr[2]>>>(x, arr[1]);
  Cfg d{0, 0};
  set_size(d.n, d.block);
  k<<<d.n / d.block, d.block>>>(x, d.n);
  return 0;
}
