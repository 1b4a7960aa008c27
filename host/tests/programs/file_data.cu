/* kerncast-expect
29: k(float*, int) <<<(?{fscanf},1,1), (256,1,1), 0>>> x1 {n=?{fscanf} x=ptr}
33: k(float*, int) <<<(?{stream},1,1), (128,1,1), 0>>> x1 {n=?{stream} x=ptr}
38: k(float*, int) <<<(?{fread},1,1), (64,1,1), 0>>> x1 {n=?{fread} x=ptr}
missing config.txt read by std::ifstream
missing matrix.bin read by fopen
missing sizes.txt read by fopen
*/
// Sizes read from files at run time are unknown, never the defaults they replace.
#include <cstdio>
#include <cuda_runtime.h>
#include <fstream>

__global__ void k(float* x, int n) {}

struct Header {
  int rows, cols;
};

int main() {
  float* x;
  cudaMalloc(&x, 1 << 24);
  int n = 1024;
  FILE* f = fopen("sizes.txt", "r");
  if (f) {
    fscanf(f, "%d", &n);
    fclose(f);
  }
  k<<<(n + 255) / 256, 256>>>(x, n);
  int m = 2048;
  std::ifstream in("config.txt");
  in >> m;
  k<<<m / 128, 128>>>(x, m);
  Header h = {16, 16};
  FILE* g = fopen("matrix.bin", "rb");
  fread(&h, sizeof h, 1, g);
  fclose(g);
  k<<<h.rows * h.cols / 64, 64>>>(x, h.rows);
  return 0;
}
