/* kerncast-expect
28: k(float*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=?{fscanf} x=ptr} when ?{condition at line 27}
40: k(float*, int) <<<(2,1,1), (64,1,1), 0>>> x1 {n=1 x=ptr} when ?{condition at line 20}
43: k(float*, int) <<<(3,1,1), (96,1,1), 0>>> x1 {n=0 x=ptr} when ?{condition at line 20} when ?{condition at line 42}
43: k(float*, int) <<<(3,1,1), (96,1,1), 0>>> x1 {n=1 x=ptr} when ?{condition at line 20} when ?{condition at line 42}
43: k(float*, int) <<<(3,1,1), (96,1,1), 0>>> x1 {n=2 x=ptr} when ?{condition at line 20} when ?{condition at line 42}
missing n.txt read by fopen
*/
// Early returns, exits and continues under conditions on data read at run time: what follows
// runs only when the condition lets it, and says so. run() launches unless n > 4096; after
// check(n) everything runs only if n > 0; each launch of the loop only when the clock lets it.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

void check(int n) {
  if (n <= 0) {
    fprintf(stderr, "bad n\n");
    exit(1);
  }
}

int run(float* x, int n) {
  if (n > 4096) return 1;
  k<<<1, 32>>>(x, n);
  return 0;
}

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  int n = 0;
  FILE* f = fopen("n.txt", "r");
  fscanf(f, "%d", &n);
  run(x, n);
  check(n);
  k<<<2, 64>>>(x, 1);
  for (int i = 0; i < 3; i++) {
    if (time(NULL) % 2) continue;
    k<<<3, 96>>>(x, i);
  }
  return 0;
}
