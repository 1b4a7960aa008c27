/* kerncast-expect
args: points.txt 256 image.ppm raw.bin
34: k(float*, int) <<<(?{`n`: it comes from `fscanf`, which kerncast does not model},1,1), (256,1,1), 0>>> x1 {n=?{`n`: it comes from `fscanf`, which kerncast does not model} x=ptr}
42: k(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=?{`w`: it comes from `load_ppm`, which kerncast does not model} x=ptr}
missing image.ppm read by load_ppm
missing points.txt read by fopen
missing raw.bin read by open
missing table.dat read by std::ifstream
*/
// A file the program reads that is not in the folder it runs in is listed with the call that
// reads it, and what it reads from it stays unknown: `fopen` for reading, `std::ifstream`,
// POSIX `open` (through a `strdup` copy of the name), and a file named on the command line
// given to a function kerncast has no body for. A file that is there (this one), and one opened
// for writing, are not listed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

// defined in a file this program is not built with
int load_ppm(const char* path, int* w);

int main(int argc, char** argv) {
  float* x;
  cudaMalloc(&x, 1 << 20);
  int b = atoi(argv[2]);
  FILE* f = fopen(argv[1], "r");
  int n = 0;
  fscanf(f, "%d", &n);
  k<<<(n + b - 1) / b, b>>>(x, n);
  FILE* self = fopen("input_files.cu", "r");
  FILE* out = fopen("result.txt", "w");
  std::ifstream table("table.dat");
  int w = 0;
  load_ppm(argv[3], &w);
  char* copy = strdup(argv[4]);
  int fd = open(copy, O_RDONLY);
  k<<<4, b>>>(x, w);
  return 0;
}
