/* kerncast-expect
args: medium
31: k(float*, int) <<<(256,1,1), (256,1,1), 0>>> x1 {n=65536 x=ptr}
34: k(float*, int) <<<(256,1,1), (256,1,1), 0>>> x2 {n=65536 x=ptr}
*/
// An else-if chain on strcmp of argv[1] ("medium" → 2^16), an std::string comparison, and a
// helper with early returns (pick(65536) = 256).
#include <cstring>
#include <cuda_runtime.h>
#include <string>

__global__ void k(float* x, int n) {}

int pick(int n) {
  if (n < 1000) return 64;
  if (n < 100000) return 256;
  return 1024;
}

int main(int argc, char** argv) {
  const char* size = argc > 1 ? argv[1] : "small";
  int n;
  if (strcmp(size, "small") == 0)
    n = 1 << 10;
  else if (strcmp(size, "medium") == 0)
    n = 1 << 16;
  else
    n = 1 << 22;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  k<<<n / 256, 256>>>(x, n);
  std::string mode = argv[1];
  int reps = mode == "medium" ? 2 : 5;
  for (int r = 0; r < reps; r++) k<<<n / pick(n), pick(n)>>>(x, n);
  return 0;
}
