/* kerncast-expect
args: 2048 128 0.5
19: k(float*, double) <<<(16,1,1), (128,1,1), 0>>> x1 {scale=0.5 x=ptr}
21: k(float*, double) <<<(8,1,1), (256,1,1), 0>>> x1 {scale=0.25 x=ptr}
*/
// std::stoi and std::stod on std::string and on char*: n = 2048, b = 128 → 16 blocks.
#include <cuda_runtime.h>
#include <string>

__global__ void k(float* x, double scale) {}

int main(int argc, char** argv) {
  std::string a = argv[1];
  int n = std::stoi(a);
  int b = std::stoi(std::string(argv[2]));
  double scale = std::stod(argv[3]);
  float* x;
  cudaMalloc(&x, 4096 * sizeof(float));
  k<<<n / b, b>>>(x, scale);
  std::string bs = "256";
  k<<<n / std::stoi(bs), std::stoi(bs)>>>(x, scale / 2);
  return 0;
}
