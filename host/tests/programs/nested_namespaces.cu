/* kerncast-expect
32: a::b::k(int*) <<<(1,1,1), (32,1,1), 0>>> x1 {x=ptr}
33: a::k(int*) <<<(2,1,1), (64,1,1), 0>>> x1 {x=ptr}
34: (anonymous namespace)::k(int*) <<<(3,1,1), (96,1,1), 0>>> x1 {x=ptr}
26: a::b::k(int*) <<<(4,1,1), (128,1,1), 0>>> x1 {x=ptr}
*/
// Three kernels named k: in a::b (also through a namespace alias and a using-declaration), in
// a, and in an anonymous namespace. Each launch runs the one clang resolves.
#include <cuda_runtime.h>

namespace a {
namespace b {
__global__ void k(int* x) {}
}  // namespace b
__global__ void k(int* x) {}
}  // namespace a

namespace {
__global__ void k(int* x) {}
}  // namespace

namespace ab = a::b;

void other(int* x) {
  using a::b::k;
  k<<<4, 128>>>(x);
}

int main() {
  int* x;
  cudaMalloc(&x, 1024 * sizeof(int));
  ab::k<<<1, 32>>>(x);
  a::k<<<2, 64>>>(x);
  k<<<3, 96>>>(x);
  other(x);
  return 0;
}
