/* kerncast-expect
16: step(float*, int, float) <<<(8,1,1), (128,1,1), 0>>> x1 {dt=0.5 n=1000 u=ptr}
16: step(float*, int, float) <<<(16,1,1), (128,1,1), 0>>> x1 {dt=0.25 n=2000 u=ptr}
16: step(float*, int, float) <<<(1,1,1), (64,1,1), 0>>> x1 {dt=0.5 n=64 u=ptr}
*/
// A class with a constructor's member initialisers, const and mutating methods, and an object
// made with new. (1000 + 127) / 128 = 8; after refine() n = 2000: (2000 + 127) / 128 = 16.
#include <cuda_runtime.h>

__global__ void step(float* u, int n, float dt) {}

class Solver {
 public:
  Solver(int n, int block) : n_(n), block_(block), dt_(0.5f) {}
  int blocks() const { return (n_ + block_ - 1) / block_; }
  void advance(float* u) { step<<<blocks(), block_>>>(u, n_, dt_); }
  void refine() {
    n_ *= 2;
    dt_ /= 2;
  }

 private:
  int n_, block_;
  float dt_;
};

int main() {
  float* u;
  cudaMalloc(&u, 4096 * sizeof(float));
  Solver s(1000, 128);
  s.advance(u);
  s.refine();
  s.advance(u);
  Solver* p = new Solver(64, 64);
  p->advance(u);
  delete p;
  return 0;
}
