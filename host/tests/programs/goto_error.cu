/* kerncast-expect
30: addKernel(int*, int const*, int const*) <<<(1,1,1), (5,1,1), 0>>> x1 {a=ptr b=ptr c=ptr}
44: unreached addKernel(int*, int const*, int const*) ?{never reached}
*/
// The `goto Error` pattern of Visual Studio's CUDA template: every status is cudaSuccess here,
// so no goto is taken and the launch runs once; in skip(), the goto jumps over a launch.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void addKernel(int* c, const int* a, const int* b) {
  int i = threadIdx.x;
  c[i] = a[i] + b[i];
}

cudaError_t addWithCuda(int* c, const int* a, const int* b, unsigned int size) {
  int *dev_a = 0, *dev_b = 0, *dev_c = 0;
  cudaError_t cudaStatus;
  cudaStatus = cudaSetDevice(0);
  if (cudaStatus != cudaSuccess) {
    fprintf(stderr, "cudaSetDevice failed!");
    goto Error;
  }
  cudaStatus = cudaMalloc((void**)&dev_c, size * sizeof(int));
  if (cudaStatus != cudaSuccess) {
    fprintf(stderr, "cudaMalloc failed!");
    goto Error;
  }
  cudaMalloc((void**)&dev_a, size * sizeof(int));
  cudaMalloc((void**)&dev_b, size * sizeof(int));
  addKernel<<<1, size>>>(dev_c, dev_a, dev_b);
  cudaStatus = cudaGetLastError();
  if (cudaStatus != cudaSuccess) {
    goto Error;
  }
Error:
  cudaFree(dev_c);
  cudaFree(dev_a);
  cudaFree(dev_b);
  return cudaStatus;
}

void skip(int* c, const int* a, const int* b) {
  goto done;
  addKernel<<<1, 64>>>(c, a, b);
done:
  return;
}

int main() {
  const int arraySize = 5;
  const int a[arraySize] = {1, 2, 3, 4, 5};
  const int b[arraySize] = {10, 20, 30, 40, 50};
  int c[arraySize] = {0};
  cudaError_t cudaStatus = addWithCuda(c, a, b, arraySize);
  if (cudaStatus != cudaSuccess) return 1;
  skip(c, a, b);
  return 0;
}
