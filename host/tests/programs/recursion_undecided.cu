/* kerncast-expect
45: init(int, int*) <<<(1,1,1), (1,1,1), 0>>> x1 {n=?{`n`: it depends on the condition} w=ptr}
46: step(int, int, int*) <<<(1,1,1), (128,1,1), 0>>> x1 {d=0 n=?{`lines_seen`: it depends on the condition} w=ptr}
missing params.txt read by fopen
*/
// A parser that skips comment and blank lines by calling itself, on lines read from a file:
// each level's conditions are undecided, and following both sides at every level would
// double the work per level. The recursive call made under an undecided condition is not
// followed: its result and what it writes (the line, and the global count it or its callee
// keeps) are unknown, and the reading goes on to the launches: one sized by the file (unknown),
// one fixed.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void init(int n, int* w) {}
__global__ void step(int d, int n, int* w) {}

static int lines_seen = 0;

static void count_line() { lines_seen++; }

static int only_space(const char* b) {
  for (; *b; b++)
    if (*b != ' ' && *b != '\n') return 0;
  return 1;
}

static int next_line(FILE* f, char* buf) {
  if (!fgets(buf, 256, f)) return 0;
  count_line();
  if (buf[0] == '#') return next_line(f, buf);
  if (only_space(buf)) return next_line(f, buf);
  return 1;
}

int main() {
  FILE* f = fopen("params.txt", "r");
  char buf[256];
  int n = 0;
  for (int i = 0; i < 40; i++)
    if (next_line(f, buf)) n += (int)strlen(buf);
  int* w;
  cudaMalloc(&w, 1024);
  init<<<1, 1>>>(n, w);
  step<<<1, 128>>>(0, lines_seen, w);
  return 0;
}
