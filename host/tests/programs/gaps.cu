/* kerncast-expect
33: k(int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=?{reference to `x`} b=?{reference to `y`}}
36: k(int, int) <<<(2,1,1), (1,1,1), 0>>> x1 {a=?{swap} b=?{swap}}
38: k(int, int) <<<(3,1,1), (1,1,1), 0>>> x1 {a=?{accumulate} b=0}
40: k(int, int) <<<(4,1,1), (1,1,1), 0>>> x1 {a=?{never set} b=?{never set}}
20: unreached k(int, int) ?{destructor}
*/
// Known gaps of the reader, each a value C fixes that kerncast reports unknown (never a guess):
// structured bindings (x = 16, y = 256), std::swap (s = 5, t = 3), std::accumulate (6), the
// zero-initialised fields of a global struct and those a braced list leaves out (0 and 0), and
// a launch in a destructor, which runs when g goes out of scope but is reported as not run.
#include <cuda_runtime.h>
#include <numeric>
#include <utility>
#include <vector>

__global__ void k(int a, int b) {}

struct Guard {
  ~Guard() { k<<<9, 9>>>(9, 9); }
};

struct Pair {
  int a, b;
};
Pair g_zero;

int main() {
  {
    Guard g;
  }
  auto [x, y] = std::make_pair(16, 256);
  k<<<1, 1>>>(x, y);
  int s = 3, t = 5;
  std::swap(s, t);
  k<<<2, 1>>>(s, t);
  std::vector<int> v = {1, 2, 3};
  k<<<3, 1>>>(std::accumulate(v.begin(), v.end(), 0), 0);
  Pair partial = {7};
  k<<<4, 1>>>(g_zero.a, partial.b);
  return 0;
}
