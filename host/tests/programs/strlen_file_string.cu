/* kerncast-expect
39: fold(char const*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=8 seq=ptr}
42: fold(char const*, int) <<<(?{its characters: it is written by the loop at line 25},1,1), (32,1,1), 0>>> x1 {n=?{its characters: it is written by the loop at line 25} seq=ptr}
missing input.seq read by fopen
*/
// The length of a string is where its first NUL is. A string built in the program is
// measured; one whose characters come from a file is unknown, and the reason names the read
// (the loop at line 24 that fills it from `fgetc`), not just "a string kerncast does not
// know". "ACGUACGU" has 8 characters: one block of 32 threads for the first launch.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void fold(const char* seq, int n) {}

char* read_sequence(const char* path) {
  FILE* f = fopen(path, "r");
  int n = 0;
  int c;
  while ((c = fgetc(f)) != EOF) n++;
  char* s = (char*)malloc(n + 1);
  rewind(f);
  n = 0;
  while ((c = fgetc(f)) != EOF) s[n++] = (char)c;
  s[n] = 0;
  fclose(f);
  return s;
}

int main() {
  char* d;
  cudaMalloc(&d, 1 << 20);
  char built[16];
  const char* bases = "ACGU";
  for (int i = 0; i < 8; i++) built[i] = bases[i % 4];
  built[8] = 0;
  int n = strlen(built);
  fold<<<(n + 31) / 32, 32>>>(d, n);
  char* seq = read_sequence("input.seq");
  int m = strlen(seq);
  fold<<<(m + 31) / 32, 32>>>(d, m);
  free(seq);
  return 0;
}
