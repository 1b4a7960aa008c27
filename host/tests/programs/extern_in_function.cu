/* kerncast-expect
args: -n 300 data.txt
23: k(int) <<<(3,1,1), (128,1,1), 0>>> x1 {n=300}
missing data.txt read by fopen
*/
// `extern char *optarg;` inside a function (as old C programs declare getopt's variables) names
// the library's variable, not a new local: the sizes getopt gives are known, and so is the file
// named after the options (not in this folder, so it is listed).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cuda_runtime.h>

__global__ void k(int n) {}

int main(int argc, char** argv) {
  extern char* optarg;
  extern int optind;
  int opt, n = 64;
  while ((opt = getopt(argc, argv, "n:")) != -1) {
    if (opt == 'n') n = atoi(optarg);
  }
  k<<<(n + 127) / 128, 128>>>(n);
  FILE* f = fopen(argv[optind], "r");
  return 0;
}
