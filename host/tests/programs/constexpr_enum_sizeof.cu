/* kerncast-expect
25: k(float*, int) <<<(16384,1,1), (256,1,1), 4096>>> x1 {n=1024 x=ptr}
27: k(float*, int) <<<(5,1,1), (64,1,1), 0>>> x1 {n=2 x=ptr}
*/
// constexpr values and functions, enums (plain and scoped) and sizeof a struct: kBlock = 32 *
// 8 = 256, blocks(LARGE = 2^22, 256) = 16384, 256 * sizeof(Elem) = 256 * 16 = 4096 bytes.
#include <cuda_runtime.h>

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 8;
constexpr int kBlock = kWarp * kWarpsPerBlock;
enum Sizes { SMALL = 1 << 10, LARGE = 1 << 22 };
enum class Mode : int { Fast = 2, Slow = 5 };
struct Elem {
  double v;
  int i;
};
constexpr int blocks(int n, int b) { return (n + b - 1) / b; }

__global__ void k(float* x, int n) {}

int main() {
  float* x;
  cudaMalloc(&x, LARGE * sizeof(float));
  k<<<blocks(LARGE, kBlock), kBlock, kBlock * sizeof(Elem)>>>(x, SMALL);
  Mode m = Mode::Slow;
  k<<<static_cast<int>(m), sizeof(Elem) * 4>>>(x, (int)Mode::Fast);
  return 0;
}
