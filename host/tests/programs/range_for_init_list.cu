/* kerncast-expect
21: k(float*, int) <<<(32,1,1), (32,1,1), 0>>> x1 {n=32 x=ptr}
21: k(float*, int) <<<(16,1,1), (64,1,1), 0>>> x1 {n=64 x=ptr}
21: k(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {n=128 x=ptr}
23: mm(float*, int, int) <<<(4,4,1), (16,16,1), 0>>> x1 {cols=64 rows=64 x=ptr}
23: mm(float*, int, int) <<<(2,8,1), (16,16,1), 0>>> x1 {cols=32 rows=128 x=ptr}
*/
// Range-for over braced initializer lists, of integers and of structs.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}
__global__ void mm(float* x, int rows, int cols) {}

struct Shape {
  int rows, cols;
};

int main() {
  float* x;
  cudaMalloc(&x, 1 << 16);
  for (int b : {32, 64, 128}) k<<<1024 / b, b>>>(x, b);
  for (Shape s : {Shape{64, 64}, Shape{128, 32}}) {
    mm<<<dim3(s.cols / 16, s.rows / 16), dim3(16, 16)>>>(x, s.rows, s.cols);
  }
  return 0;
}
