/* kerncast-expect
22: probe(int, int, int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=25 b=-56 c=-5 d=-4}
28: probe(int, int, int, int) <<<(1,1,1), (1,1,1), 0>>> x1 {a=0 b=-2147483648 c=6 d=1}
*/
// Compound assignments convert back to the left side's type: 10 *= 2.5 is 25; a char
// 100 += 100 wraps to -56; unsigned 5 -= 10 wraps to 4294967291, which as an int is -5;
// -16 >> 2 is -4; 65536u * 65536u wraps to 0; 1u << 31 as an int is INT_MIN; 7 / 2 * 2 + 7 % 2
// is 7, and 7 - 1 = 6; true + false is 1.
#include <cuda_runtime.h>

__global__ void probe(int a, int b, int c, int d) {}

int main() {
  int a = 10;
  a *= 2.5;
  signed char c = 100;
  c += 100;
  unsigned u = 5;
  u -= 10;
  int s = -16;
  s >>= 2;
  probe<<<1, 1>>>(a, c, (int)u, s);
  unsigned w = 65536u * 65536u;
  int m = (int)(1u << 31);
  int q = 7 / 2 * 2 + 7 % 2;
  q -= 1;
  bool t = true;
  probe<<<1, 1>>>(w, m, q, t + false);
  return 0;
}
