/* kerncast-expect
17: k(int) <<<(64,1,1), (128,1,1), 0>>> x1 {n=0}
20: k(int) <<<(?{operator[]},1,1), (128,1,1), 0>>> x1 {n=1}
*/
// A `std::string`'s characters read with `[]` and `at` (an option's leading '-', its letter),
// and the NUL `[]` gives at `size()`. A character written through `[]` leaves the string
// unknown: kerncast keeps strings whole. "-s" picks 64 blocks; "x" is not an option.
#include <cuda_runtime.h>
#include <string>

__global__ void k(int n) {}

int main(int argc, char** argv) {
  std::string opt = "-s";
  int blocks = 1;
  if (opt[0] == '-' && opt.at(1) == 's') blocks = 64;
  k<<<blocks, 128>>>(opt[opt.size()]);
  std::string word = "x";
  word[0] = 'y';
  k<<<word[0] == 'x' ? 2 : 3, 128>>>(1);
  return 0;
}
