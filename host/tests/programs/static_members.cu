/* kerncast-expect
18: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x2 {n=4096 x=ptr}
29: count(int) <<<(2,1,1), (32,1,1), 0>>> x1 {calls=2}
*/
// Static data members and static methods: a constexpr block size in the class, a counter
// defined out of the class and bumped by each run().
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void count(int calls) {}

struct Runner {
  static constexpr int kBlock = 256;
  static int calls;
  static int blocks(int n) { return (n + kBlock - 1) / kBlock; }
  static void run(float* x, int n) {
    calls++;
    k<<<blocks(n), kBlock>>>(x, n);
  }
};
int Runner::calls = 0;

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  Runner::run(x, 4096);
  Runner r;
  r.run(x, 4096);
  count<<<Runner::calls, 32>>>(Runner::calls);
  return 0;
}
