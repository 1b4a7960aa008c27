/* kerncast-expect
show: buffer_data
55: k(float const*, float const*, char const*, int const*, int const*, double const*, int, int) <<<(1,1,1), (32,1,1), 0>>> x1 {a=ptr c=ptr g=ptr next=491 next48=30 sum=ptr u=ptr z=ptr} data{a=~f32[1048576]ramp(0,1)@the_fill_loop_at_draw_loop_data.cu:29 c=~u8[4194304]ramp(7,0)@a_cudaMemset g=~i8[1048576]pick(65x60,67x69,71x65,84x62)@the_fill_loop_at_draw_loop_data.cu:31 u=~f64[1048576]uniform(-0.4750870621415899..0.49868845987295174,reals)@the_fill_loop_at_draw_loop_data.cu:35 z=~f32[2097152]uniform(1131..1047860,ints)@the_fill_loop_at_draw_loop_data.cu:30}
*/
// A large loop that stores a new value at each iteration runs its first 256 iterations as
// written, and the rest is described from them: `a[i] = i` exactly (a ramp), `rand() % m`
// as integers over the range the samples span, `seq[rand() % 4]` (into a std::vector) as
// those few values, and a cudaMemset of a large allocation as its one byte. The C library's
// generator moves on as the iterations not run would have moved it: `next` is glibc's
// 3145729th number after srand(2), modulo 1000 (read with ctypes from libc.so.6: 491), and
// `next48` lrand48's 1048577th after srand48(4096), modulo 1000 (glibc: 30); `u`'s
// reals from drand48 span what their samples span.
// A loop whose value reads what it writes (a running sum) is not described.
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void k(const float* a, const float* z, const char* g, const int* c,
                  const int* sum, const double* u, int next, int next48) {}

int main() {
  const size_t n = 1 << 20;
  float* a = (float*)malloc(n * sizeof(float));
  float* z = (float*)malloc(2 * n * sizeof(float));
  int* s = (int*)malloc(n * sizeof(int));
  std::vector<char> g(n);
  const char seq[] = {'A', 'C', 'T', 'G'};
  srand(2);
  for (size_t i = 0; i < n; i++) a[i] = i;
  for (size_t i = 0; i < 2 * n; i++) z[i] = rand() % (n - 1);
  for (int i = 0; i < (int)n; i++) g[i] = seq[rand() % 4];
  int next = rand() % 1000;
  double* u = (double*)malloc(n * sizeof(double));
  srand48(4096);
  for (size_t i = 0; i < n; i++) u[i] = drand48() - 0.5;
  int next48 = lrand48() % 1000;
  s[0] = 0;
  for (size_t i = 1; i < n; i++) s[i] = s[i - 1] + 3;
  float *da, *dz;
  char* dg;
  int *dc, *ds;
  double* du;
  cudaMalloc(&du, n * sizeof(double));
  cudaMemcpy(du, u, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&dz, 2 * n * sizeof(float));
  cudaMalloc(&dg, n);
  cudaMalloc(&dc, n * sizeof(int));
  cudaMalloc(&ds, n * sizeof(int));
  cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dz, z, 2 * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dg, g.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(dc, 7, n * sizeof(int));
  cudaMemcpy(ds, s, n * sizeof(int), cudaMemcpyHostToDevice);
  k<<<1, 32>>>(da, dz, dg, dc, ds, du, next, next48);
  return 0;
}
