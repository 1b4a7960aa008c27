/* kerncast-expect
28: k(float*, int) <<<(3,1,1), (128,1,1), 0>>> x1 {n=384 x=ptr}
31: k(float*, int) <<<(418,1,1), (64,1,1), 0>>> x1 {n=418 x=ptr}
35: k(float*, int) <<<(396,1,1), (32,1,1), 0>>> x1 {n=396 x=ptr}
38: k(float*, int) <<<(418,1,1), (16,1,1), 0>>> x1 {n=418 x=ptr}
41: k(float*, int) <<<(?{`e`: a random number},1,1), (8,1,1), 0>>> x1 {n=?{`e`: a random number} x=ptr}
45: k(float*, int) <<<(?{`f`: a random number},1,1), (4,1,1), 0>>> x1 {n=?{`f`: a random number} x=ptr}
*/
// rand() as glibc computes it: srand(s) then rand() gives the same numbers on every run, and a
// program that never calls srand runs as seeded with 1 (1804289383 % 1000 + 1 = 384, then
// srand(123): 128959393 % 512 + 1 = 418). A fill loop of ten million draws, described rather
// than run, moves the generator on as its iterations would: the next gives 396, as glibc does
// (read with ctypes from libc.so.6). Once a draw may have happened where kerncast did not
// follow it — on one side of a condition it cannot decide, in a function it has no body
// for — what rand() gives is unknown until the program seeds it again.
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

void elsewhere();  // defined in code kerncast does not read

int main() {
  float* x;
  cudaMalloc(&x, 1 << 20);
  int a = rand() % 1000 + 1;
  k<<<(a + 127) / 128, 128>>>(x, a);
  srand(123);
  int b = rand() % 512 + 1;
  k<<<b, 64>>>(x, b);
  int* noise = (int*)malloc(10000000 * sizeof(int));
  for (int i = 0; i < 10000000; i++) noise[i] = rand();
  int c = rand() % 512 + 1;
  k<<<c, 32>>>(x, c);
  srand(123);
  int d = rand() % 512 + 1;
  k<<<d, 16>>>(x, d);
  if (time(NULL) % 2) rand();
  int e = rand() % 512 + 1;
  k<<<e, 8>>>(x, e);
  srand(123);
  elsewhere();
  int f = rand() % 512 + 1;
  k<<<f, 4>>>(x, f);
  return 0;
}
