/* kerncast-expect
launch.cu:9: k(float*, int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=4096 x=ptr}
launch.cu:9: k(float*, int) <<<(8,1,1), (512,1,1), 0>>> x1 {n=4096 x=ptr}
*/
// A global defined in one file, declared extern in another and changed from main: launch.cu
// reads the one variable (g_block = 256, then 512).
#include <cuda_runtime.h>

extern int g_block;
void launch(float* x, int n);

int main() {
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  g_block = 256;
  launch(x, 4096);
  g_block *= 2;
  launch(x, 4096);
  return 0;
}
