/* kerncast-expect
args: --quiet -s 4
37: k(int, int) <<<(128,1,1), (256,1,1), 0>>> x1 {n=4 quiet=1}
39: k(int, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=1 quiet=1}
42: unreached k(int, int) ?{never reached}
*/
// An `else` with a comment between it and its statement (`else // a short option`,
// `else /* … */ x`, a comment on a line of its own): libclang's tokens keep comments, and the
// `if` still has its else. Read as the token before the block, the comment made the else's
// block the `then` and the `then` the condition (s3d-cuda's option parser lost its long
// options). "--quiet" sets quiet; "-s 4" is a short option with its value: 4 * 32 = 128
// blocks.
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void k(int n, int quiet) {}

int main(int argc, char** argv) {
  int quiet = 0, size = 1, bad = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '-')
      bad = 1;
    else if (argv[i][1] == '-')  // a long option
    {
      if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
    }
    else  // a short option
    {
      if (argv[i][1] == 's' && i + 1 < argc) size = atoi(argv[++i]);
    }
  }
  int blocks;
  if (bad)
    blocks = 1;
  else /* known good */ blocks = size * 32;
  k<<<blocks, 256>>>(size, quiet);
  if (quiet)
    k<<<1, 32>>>(1, quiet);
  else
    // a comment on its own line
    k<<<2, 32>>>(2, quiet);
  return 0;
}
