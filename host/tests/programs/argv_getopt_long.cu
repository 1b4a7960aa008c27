/* kerncast-expect
args: --size=4096 --tile 640x480 -v
35: k(int, int, int) <<<(16,1,1), (256,1,1), 0>>> x1 {h=480 verbose=1 w=640}
*/
// getopt_long with --name=value and --name value forms and a short flag; the tile parsed by
// sscanf with "%dx%d" (640 and 480).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <getopt.h>

__global__ void k(int w, int h, int verbose) {}

int main(int argc, char** argv) {
  static struct option opts[] = {
      {"size", required_argument, 0, 's'},
      {"tile", required_argument, 0, 't'},
      {"verbose", no_argument, 0, 'v'},
      {0, 0, 0, 0},
  };
  int size = 1024, w = 16, h = 16, verbose = 0, c;
  while ((c = getopt_long(argc, argv, "s:t:v", opts, NULL)) != -1) {
    switch (c) {
      case 's':
        size = atoi(optarg);
        break;
      case 't':
        sscanf(optarg, "%dx%d", &w, &h);
        break;
      case 'v':
        verbose = 1;
        break;
    }
  }
  k<<<size / 256, 256>>>(w, h, verbose);
  return 0;
}
