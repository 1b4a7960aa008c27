/* kerncast-expect
args: 4096
33: k(int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=4096 b=0}
39: k(int, int) <<<(2,1,1), (64,1,1), 0>>> x1 {a=1000 b=1}
41: k(int, int) <<<(3,1,1), (1,1,1), 0>>> x1 {a=0 b=2}
36: unreached k(int, int) ?{never reached}
43: unreached k(int, int) ?{never reached}
*/
// Exceptions: with n = 4096, check() throws a std::runtime_error, so the launch after it in
// the try block never runs and the handler for std::exception does (n clamped to 1000); a
// throw caught by catch (...) in a helper; a last throw nobody catches ends the program.
#include <cstdlib>
#include <cuda_runtime.h>
#include <stdexcept>

__global__ void k(int a, int b) {}

void check(int n) {
  if (n > 1000) throw std::runtime_error("too big");
}

int safe_half(int n) {
  try {
    if (n % 2) throw 1;
    return n / 2;
  } catch (...) {
    return 0;
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  k<<<1, 1>>>(n, 0);
  try {
    check(n);
    k<<<2, 32>>>(n, 0);
  } catch (const std::exception& e) {
    n = 1000;
    k<<<2, 64>>>(n, 1);
  }
  k<<<3, 1>>>(safe_half(7), 2);
  throw std::logic_error("done");
  k<<<4, 1>>>(0, 3);
  return 0;
}
