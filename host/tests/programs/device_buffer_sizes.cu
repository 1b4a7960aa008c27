/* kerncast-expect
show: buffer_bytes
37: k(float*, float*, int) <<<(4096,1,1), (256,1,1), 0>>> x1 {a=ptr b=ptr n=1048576} bytes{a=4194304 b=4190208}
38: k(float*, float*, int) <<<(2048,1,1), (256,1,1), 0>>> x1 {a=ptr b=ptr n=1048576} bytes{a=2097152 b=4194304}
39: c(char*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {a=ptr n=1048576} bytes{a=4194204}
48: k(float*, float*, int) <<<(1,1,1), (64,1,1), 0>>> x1 {a=ptr b=ptr n=64} bytes{a=?{fscanf} b=4194304}
52: k(float*, float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {a=ptr b=ptr n=128} bytes{a=?{pitch cudaMallocPitch chooses} b=4194304}
55: k(float*, float*, int) <<<(4,1,1), (256,1,1), 0>>> x3 {a=ptr b=ptr n=1024} bytes{a=16384 b=4194304}
58: k(float*, float*, int) <<<(8,1,1), (256,1,1), 0>>> x1 {a=ptr b=ptr n=2048} bytes{a=?{depends on the condition at line 57} b=4194304}
61: k(float*, float*, int) <<<(16,1,1), (256,1,1), 0>>> x1 {a=ptr b=ptr n=4096} bytes{a=3000 b=1000}
65: k(float*, float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {a=ptr b=ptr n=3} bytes{a=4194292 b=4194304}
69: s(Bufs) <<<(1,1,1), (32,1,1), 0>>> x1 {b={in:ptr,n:3}} bytes{b.in=4194296}
missing size.txt read by fopen
*/
// Device allocations keep their size, and a pointer into one the bytes left from where it
// points: x holds n floats (4194304 bytes), x + 1024 floats leaves 4190208, &x[n / 2] half
// (2097152), (char*)x + 100 leaves 4194204; y's size is read from a file (unknown), z's
// pitch is the runtime's (unknown). A launch made in a loop on allocations of 4096, 8192 and
// 16384 bytes stands for all of them and keeps the largest; a pointer picked by a condition
// kerncast cannot decide (m > 100) is device memory of a size that depends on it. w = x + 3
// floats by ++ and += leaves 4194292 bytes; a struct's pointer field, w - 1, 4194296.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(float* a, float* b, int n) {}
__global__ void c(char* a, int n) {}
struct Bufs {
  float* in;
  int n;
};
__global__ void s(Bufs b) {}

int main() {
  const int n = 1 << 20;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  k<<<n / 256, 256>>>(x, x + 1024, n);
  k<<<n / 512, 256>>>(&x[n / 2], x, n);
  c<<<1, 32>>>((char*)x + 100, n);
  int m = 64;
  FILE* f = fopen("size.txt", "r");
  if (f) {
    fscanf(f, "%d", &m);
    fclose(f);
  }
  float* y;
  cudaMalloc((void**)&y, m * sizeof(float));
  k<<<1, 64>>>(y, x, 64);
  float* z;
  size_t pitch;
  cudaMallocPitch((void**)&z, &pitch, 100 * sizeof(float), 50);
  k<<<2, 64>>>(z, x, 128);
  float* d[3];
  for (int i = 0; i < 3; i++) cudaMalloc(&d[i], (1024 << i) * sizeof(float));
  for (int i = 0; i < 3; i++) k<<<4, 256>>>(d[i], x, 1024);
  float* e = x;
  if (m > 100) e = d[0];
  k<<<8, 256>>>(e, x, 2048);
  float* g;
  cudaMallocAsync(&g, 3000, 0);
  k<<<16, 256>>>(g, g + 500, 4096);
  float* w = x;
  w++;
  w += 2;
  k<<<1, 32>>>(w, x, 3);
  Bufs bufs;
  bufs.in = w - 1;
  bufs.n = 3;
  s<<<1, 32>>>(bufs);
  cudaFree(x);
  return 0;
}
