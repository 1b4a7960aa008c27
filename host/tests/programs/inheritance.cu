/* kerncast-expect
19: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=1024 x=ptr}
24: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
29: k(float*, int) <<<(2,1,1), (512,1,1), 0>>> x2 {n=1024 x=ptr}
19: k(float*, int) <<<(2,1,1), (512,1,1), 0>>> x1 {n=1024 x=ptr}
*/
// A base class's constructor run from a derived one's initialiser list, and virtual calls:
// on the object itself, through a base pointer and a base reference (each runs Wider::run),
// and on a copy sliced into a Base (which runs Base::run, with the block Wider's constructor
// gave the base part).
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

struct Base {
  int block;
  explicit Base(int b) : block(b) {}
  virtual ~Base() {}
  virtual void run(float* x, int n) { k<<<n / block, block>>>(x, n); }
};

struct Wide : Base {
  Wide() : Base(256) {}
  void run(float* x, int n) override { k<<<n / block, block>>>(x, n); }
};

struct Wider : Wide {
  Wider() { block = 512; }
  void run(float* x, int n) override { k<<<n / block, block>>>(x, n); }
};

void run_any(Base& b, float* x) { b.run(x, 1024); }

int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  Base b(128);
  b.run(x, 1024);
  Wide w;
  w.run(x, 1024);
  Wider wr;
  Base* p = &wr;
  p->run(x, 1024);
  run_any(wr, x);
  Base sliced = wr;
  sliced.run(x, 1024);
  return 0;
}
