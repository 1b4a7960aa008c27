/* kerncast-expect
24: k(int) <<<(4,2,1), (16,16,1), 0>>> x1 {tag=1}
25: k(int) <<<(8,1,1), (32,4,1), 0>>> x1 {tag=2}
26: k(int) <<<(4,2,3), (64,1,1), 0>>> x1 {tag=3}
27: k(int) <<<(2,2,2), (8,8,8), 0>>> x1 {tag=4}
29: k(int) <<<(4,2,1), (1,1,1), 0>>> x1 {tag=5}
31: k(int) <<<(5,6,7), (2,1,1), 0>>> x1 {tag=6}
*/
// dim3 in its forms: (x, y), copy-initialised, braced, default (1, 1, 1) then assigned, a copy
// changed apart from its source, a temporary, and one made from make_uint3.
#include <cuda_runtime.h>

__global__ void k(int tag) {}

int main() {
  dim3 a(4, 2);
  dim3 b = dim3(16, 16);
  dim3 c{8};
  dim3 d;
  d.x = 32;
  d.y = 4;
  dim3 e(a);
  e.z = 3;
  k<<<a, b>>>(1);
  k<<<c, d>>>(2);
  k<<<e, 64>>>(3);
  k<<<dim3(2, 2, 2), dim3(8, 8, 8)>>>(4);
  dim3 one;
  k<<<a, one>>>(5);
  uint3 u = make_uint3(5, 6, 7);
  k<<<dim3(u), 2>>>(6);
  return 0;
}
