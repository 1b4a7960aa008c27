/* kerncast-expect
args: -size 4096 -block 128
27: k(float*, int) <<<(32,1,1), (128,1,1), 0>>> x1 {n=4096 x=ptr}
*/
// A hand-written option parser compares `argv[k] + 1` (the option past its dash) with the
// names it knows, as easyWave's `utlCheckCommandLineOption` does: the suffix of a known
// string is known, so the options are found and the launch's sizes with them.
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int option(int argc, char** argv, const char* name, int letters) {
  int k;
  for (k = 1; k < argc; k++) {
    if (argv[k][0] != '-' && argv[k][0] != '/') continue;
    if (!strncmp(argv[k] + 1, name, letters)) break;
  }
  return k == argc ? 0 : k;
}

int main(int argc, char** argv) {
  int n = 1024, block = 256, at;
  if ((at = option(argc, argv, "size", 4)) != 0) n = atoi(argv[at + 1]);
  if ((at = option(argc, argv, "block", 5)) != 0) block = atoi(argv[at + 1]);
  k<<<n / block, block>>>(0, n);
  return 0;
}
