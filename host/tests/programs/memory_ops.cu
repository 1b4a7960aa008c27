/* kerncast-expect
31: k(int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=0 b=0}
34: k(int, int) <<<(2,1,1), (1,1,1), 0>>> x1 {a=7 b=8}
37: k(int, int) <<<(3,1,1), (1,1,1), 0>>> x1 {a=0 b=30}
40: k(int, int) <<<(4,1,1), (1,1,1), 0>>> x1 {a=?{memset} b=?{memset}}
43: k(int, int) <<<(5,1,1), (1,1,1), 0>>> x1 {a=16 b=64}
47: k(int, int) <<<(6,1,1), (1,1,1), 0>>> x1 {a=9 b=3}
*/
// memset and memcpy on host structs and arrays: zeroing a struct, copying one, zeroing the
// first two of three ints (the third stays 30), and memset with a byte other than 0 (each int
// becomes 0x01010101, which kerncast leaves unknown rather than guess). std::pair and
// make_pair; fields of a struct inside a struct set one by one.
#include <cstring>
#include <cuda_runtime.h>
#include <utility>

__global__ void k(int a, int b) {}

struct Cfg {
  int n;
  int b;
};
struct Outer {
  Cfg inner;
  dim3 grid;
};

int main() {
  Cfg c = {5, 6};
  memset(&c, 0, sizeof c);
  k<<<1, 1>>>(c.n, c.b);
  Cfg src = {7, 8}, dst = {1, 2};
  memcpy(&dst, &src, sizeof src);
  k<<<2, 1>>>(dst.n, dst.b);
  int a[3] = {10, 20, 30};
  memset(a, 0, 2 * sizeof(int));
  k<<<3, 1>>>(a[1], a[2]);
  int ones[2] = {1, 1};
  memset(ones, 1, sizeof ones);
  k<<<4, 1>>>(ones[0], ones[1]);
  std::pair<int, int> p = std::make_pair(16, 256);
  std::pair<int, int> q = {32, 64};
  k<<<5, 1>>>(p.first, q.second);
  Outer o;
  o.inner.n = 9;
  o.grid.x = 6;
  k<<<o.grid.x, 1>>>(o.inner.n, 3);
  return 0;
}
