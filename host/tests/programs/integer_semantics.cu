/* kerncast-expect
22: probe(int, int, int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=3 b=4 c=4 d=3}
28: probe(int, int, int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=15 b=-3 c=4 d=4464}
35: probe(int, int, int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=16 b=25 c=200 d=0}
39: probe(int, int, int, int) <<<(3,1,1), (255,1,1), 0>>> x1 {a=-1 b=1 c=-2147483648 d=7}
*/
// Integers as C computes them: division truncating toward zero, ceil of a double division vs
// of an integer one, unsigned wrap-around, narrowing to short (70000 → 4464) and to char, casts
// truncating floats, size_t wrapping to 0, and conversions of out-of-range values.
#include <cmath>
#include <cstddef>
#include <cuda_runtime.h>

__global__ void probe(int a, int b, int c, int d) {}

int main() {
  int n = 1000;
  int g1 = n / 256;
  int g2 = (n + 255) / 256;
  int g3 = (int)ceil(n / 256.0);
  int g4 = (int)ceil(n / 256);
  probe<<<1, 1>>>(g1, g2, g3, g4);
  unsigned u = 0u - 1u;
  int g5 = u >> 28;
  int neg = -7 / 2;
  int g6 = -7 % 3 + 5;
  short s = 70000;
  probe<<<1, 1>>>(g5, neg, g6, s);
  double dd = 2.5;
  int g8 = (int)dd * 8;
  int g9 = (int)(dd * 10);
  signed char c = (signed char)200;
  int g10 = c + 256;
  size_t z = (size_t)-1;
  probe<<<1, 1>>>(g8, g9, g10, (int)(z + 1));
  float f = n / 256;
  long big = 4294967295L;
  unsigned char uc = 255;
  probe<<<(int)f, uc>>>((int)big, (int)(big + 2), (int)2147483648u, 7);
  return 0;
}
