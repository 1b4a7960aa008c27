/* kerncast-expect
20: scale(float*, int) <<<(4,1,1), (256,1,1), 0>>> x1 {n=1024 x=ptr}
28: scale(float*, int) <<<(65536,1,1), (256,1,1), 0>>> x1 {n=16777216 x=ptr}
31: scale(float*, int) <<<(3,1,1), (128,1,1), 0>>> x1 {n=300 x=ptr}
34: scale(float*, int) <<<(16384,1,1), (1024,1,1), 0>>> x1 {n=1024 x=ptr}
*/
// A local `n` shadows the file-scope `n`: each launch takes the `n` in scope at its site
// (issue 47: both once took the large one).
#include <cuda_runtime.h>

static int n = 1024;

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

// The file-scope n: (1024 + 255) / 256 = 4 blocks.
void small_pass(float* x) {
  scale<<<(n + 255) / 256, 256>>>(x, n);
}

int main() {
  float* x;
  cudaMalloc(&x, sizeof(float) << 24);
  small_pass(x);
  int n = 1 << 24;
  scale<<<(n + 255) / 256, 256>>>(x, n);
  {
    int n = 300;
    scale<<<(n + 127) / 128, 128>>>(x, n);
  }
  // The local n for the grid (16777216 / 1024), the file-scope one for the argument.
  scale<<<n / 1024, 1024>>>(x, ::n);
  cudaFree(x);
  return 0;
}
