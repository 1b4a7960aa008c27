/* kerncast-expect
show: buffer_data
48: rows(int const*, float*, int) <<<(3,1,1), (32,1,1), 0>>> x1 {n=3 offs=ptr out=ptr} data{offs=00000000030000000500000009000000}
49: rows(int const*, float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=3 offs=ptr out=ptr} data{offs=00000000030000000500000009000000}
50: scale(double const*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=3 par=ptr} data{par=000000000000e03f00000000000000400000000000000000?{an uninitialised variable}}
51: fill(unsigned char*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {b=ptr n=4} data{b=07070707}
52: rows(int const*, float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {n=3 offs=ptr out=ptr} data{offs=00000000030000000500000009000000!}
56: rows(int const*, float*, int) <<<(4,1,1), (32,1,1), 0>>> x1 {n=3 offs=ptr out=ptr}
59: rows(int const*, float*, int) <<<(1,1,1), (128,1,1), 0>>> x1 {n=3 offs=ptr out=ptr} data{offs=00000000040000000500000009000000}
72: rows(int const*, float*, int) <<<(1,1,1), (256,1,1), 0>>> x1 {n=3 offs=ptr out=ptr}
76: rows(int const*, float*, int) <<<(2,1,1), (32,1,1), 0>>> x1 {n=1 offs=ptr out=ptr}
missing more.txt read by fopen
*/
// What the host writes into device memory reaches the launches that read it, as C lays it
// out: offs holds the ints 0, 3, 5, 9 (little-endian), par the doubles 0.5 and 2 with a third
// the program never sets (zero, and the reader says why). The second launch on offs comes
// after one that may have written it (`!`); once the whole of offs is copied again, the
// host's bytes are the launch's own. A device-to-device copy carries the bytes (dup), but
// not once a kernel ran on the source (late), whose bytes may then be the kernel's. A memset
// fills bytes; a copy on one side of a condition the reader cannot decide (on a number read
// from a file) loses the allocation's data, and a copy of half an element is not followed.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void rows(const int* offs, float* out, int n) {}
__global__ void scale(const double* par, int n) {}
__global__ void fill(unsigned char* b, int n) {}

int main(int argc, char** argv) {
  int h[4] = {0, 3, 5, 9};
  int* offs;
  cudaMalloc(&offs, sizeof(h));
  cudaMemcpy(offs, h, sizeof(h), cudaMemcpyHostToDevice);
  float* out;
  cudaMalloc(&out, 16 * sizeof(float));
  double p[3];
  p[0] = 0.5;
  p[1] = 2;
  double* par;
  cudaMalloc(&par, 3 * sizeof(double));
  cudaMemcpy(par, p, sizeof(p), cudaMemcpyHostToDevice);
  unsigned char* b;
  cudaMalloc(&b, 4);
  cudaMemset(b, 7, 4);
  int* dup;
  cudaMalloc(&dup, sizeof(h));
  cudaMemcpy(dup, offs, sizeof(h), cudaMemcpyDeviceToDevice);
  rows<<<3, 32>>>(dup, out, 3);
  rows<<<1, 32>>>(offs, out, 3);
  scale<<<1, 32>>>(par, 3);
  fill<<<1, 32>>>(b, 4);
  rows<<<1, 64>>>(offs, out, 3);
  int* late;
  cudaMalloc(&late, sizeof(h));
  cudaMemcpy(late, offs, sizeof(h), cudaMemcpyDeviceToDevice);
  rows<<<4, 32>>>(late, out, 3);
  h[1] = 4;
  cudaMemcpy(offs, h, sizeof(h), cudaMemcpyHostToDevice);
  rows<<<1, 128>>>(offs, out, 3);
  if (argc > 5) {
    h[0] = 1;  // argc is 1: not taken, and the reader knows it
  }
  int m = 0;
  FILE* f = fopen("more.txt", "r");
  if (f) {
    fscanf(f, "%d", &m);
    fclose(f);
  }
  if (m > 2) {
    cudaMemcpy(offs, h, sizeof(h), cudaMemcpyHostToDevice);
  }
  rows<<<1, 256>>>(offs, out, 3);
  int* half;
  cudaMalloc(&half, sizeof(int));
  cudaMemcpy(half, h, 2, cudaMemcpyHostToDevice);
  rows<<<2, 32>>>(half, out, 1);
  return 0;
}
