/* kerncast-expect
args: photo.jpg
errors: use of undeclared identifier 'load_image' | use of undeclared identifier 'table'
22: k(float*, int) <<<(?{load_image},1,1), (128,1,1), 0>>> x1 {n=?{load_image} x=ptr}
24: k(float*, int) <<<(?{does not compile},1,1), (64,1,1), 0>>> x1 {n=?{does not compile} x=ptr}
25: k(float*, int) <<<(4,1,1), (32,1,1), 0>>> x1 {n=1 x=ptr}
missing photo.jpg read by load_image
*/
// Code that does not compile here because the build that was profiled had a header kerncast
// does not see. A call of a function no header declares may write what it is given by
// address, so `w` is unknown after it, never 64; a variable whose initialiser names what the
// header declares is unknown, never uninitialised or zero.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main(int argc, char** argv) {
  int w = 64, h;
  float* x;
  cudaMalloc(&x, 1 << 20);
  load_image(argv[1], &w, &h);
  k<<<w, 128>>>(x, w);
  const int m = table.rows, unused = 3;
  k<<<m, 64>>>(x, m);
  k<<<4, 32>>>(x, 1);
  return 0;
}
