/* kerncast-expect
args: 2
43: layernorm_forward_kernel2(float*, float const*, int, int) <<<(64,1,1), (32,1,1), 0>>> x101 {C=768 N=2048 inp=ptr out=ptr}
43: layernorm_forward_kernel2(float*, float const*, int, int) <<<(32,1,1), (64,1,1), 0>>> x101 {C=768 N=2048 inp=ptr out=ptr}
43: layernorm_forward_kernel2(float*, float const*, int, int) <<<(16,1,1), (128,1,1), 0>>> x101 {C=768 N=2048 inp=ptr out=ptr}
43: layernorm_forward_kernel2(float*, float const*, int, int) <<<(8,1,1), (256,1,1), 0>>> x101 {C=768 N=2048 inp=ptr out=ptr}
43: layernorm_forward_kernel2(float*, float const*, int, int) <<<(4,1,1), (512,1,1), 0>>> x101 {C=768 N=2048 inp=ptr out=ptr}
43: layernorm_forward_kernel2(float*, float const*, int, int) <<<(2,1,1), (1024,1,1), 0>>> x101 {C=768 N=2048 inp=ptr out=ptr}
37: unreached layernorm_forward_kernel1(float*, float const*, int, int) ?{never reached}
*/
// The shape of llm.c's kernel benchmarks: the kernel number from argv picks a forward
// function through a switch; each block size of a sweep is checked once, then timed by a
// benchmark helper that runs a callable 100 times: each launch once plus 100 times. N = B * T
// = 8 * 256 = 2048 rows; kernel 2 uses one thread per row: ceil_div(2048, block_size) blocks.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

void cudaCheck(cudaError_t error, const char* file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))

template <class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}

__global__ void layernorm_forward_kernel1(float* out, const float* inp, int N, int C) {}
__global__ void layernorm_forward_kernel2(float* out, const float* inp, int N, int C) {}

void layernorm_forward1(float* out, const float* inp, int N, int C, const int block_size) {
  const int grid_size = ceil_div(N * 32, block_size);
  layernorm_forward_kernel1<<<grid_size, block_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void layernorm_forward2(float* out, const float* inp, int N, int C, const int block_size) {
  const int grid_size = ceil_div(N, block_size);
  layernorm_forward_kernel2<<<grid_size, block_size>>>(out, inp, N, C);
  cudaCheck(cudaGetLastError());
}

void layernorm_forward(int kernel_num, float* out, const float* inp, int B, int T, int C,
                       const int block_size) {
  switch (kernel_num) {
    case 1:
      layernorm_forward1(out, inp, B * T, C, block_size);
      break;
    case 2:
      layernorm_forward2(out, inp, B * T, C, block_size);
      break;
    default:
      printf("Invalid kernel number\n");
      exit(1);
  }
}

template <class Kernel, class... KernelArgs>
float benchmark_kernel(int repeats, Kernel kernel, KernelArgs&&... kernel_args) {
  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  cudaCheck(cudaEventRecord(start, nullptr));
  for (int i = 0; i < repeats; i++) {
    kernel(kernel_args...);
  }
  cudaCheck(cudaEventRecord(stop, nullptr));
  cudaCheck(cudaEventSynchronize(start));
  cudaCheck(cudaEventSynchronize(stop));
  float elapsed_time;
  cudaCheck(cudaEventElapsedTime(&elapsed_time, start, stop));
  return elapsed_time / repeats;
}

int main(int argc, char** argv) {
  int B = 8;
  int T = 256;
  int C = 768;
  float *d_out, *d_inp;
  cudaCheck(cudaMalloc(&d_out, B * T * C * sizeof(float)));
  cudaCheck(cudaMalloc(&d_inp, B * T * C * sizeof(float)));
  int kernel_num = 1;
  if (argc > 1) {
    kernel_num = atoi(argv[1]);
  }
  printf("Using kernel %d\n", kernel_num);
  int block_sizes[] = {32, 64, 128, 256, 512, 1024};
  for (int j = 0; j < sizeof(block_sizes) / sizeof(int); j++) {
    int block_size = block_sizes[j];
    printf("Checking block size %d.\n", block_size);
    layernorm_forward(kernel_num, d_out, d_inp, B, T, C, block_size);
  }
  int repeat_times = 100;
  for (int j = 0; j < sizeof(block_sizes) / sizeof(int); j++) {
    int block_size = block_sizes[j];
    float elapsed_time = benchmark_kernel(repeat_times, layernorm_forward, kernel_num, d_out,
                                          d_inp, B, T, C, block_size);
    printf("block_size %4d | time %.4f ms\n", block_size, elapsed_time);
  }
  return 0;
}
