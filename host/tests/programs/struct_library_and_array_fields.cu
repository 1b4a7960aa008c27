/* kerncast-expect
show: field_offsets
41: seeded(int, std::pair<unsigned long, unsigned long>) <<<(8,1,1), (32,1,1), 0>>> x1 {n=256 seeds={first:12345678,second:87654321}} at{seeds.first@0 seeds.second@8}
47: streamed(Stream) <<<(1,1,1), (32,1,1), 0>>> x1 {s={id:3,seed:{first:5,second:6}}} at{s.id@0 s.seed.first@4 s.seed.second@8}
57: tabled(Table) <<<(5,1,1), (64,1,1), 0>>> x1 {t={mapping:array,terms:array,weights:array}} at{t.mapping[0]@44 t.mapping[1]@48 t.terms[0][0].factor@4 t.terms[1][0].factor@20 t.terms[1][1].idx@24 t.weights[0]@32 t.weights[1]@36 t.weights[2]@40}
*/
// By-value struct arguments the reader gives by offset beyond plain fields: a library record
// (`std::pair`, which the interpreter models itself, laid out as clang lays it out; alone or
// inside the program's own struct), an array
// member (each element at its own offset, `weights[0]` zero as the memset left it), and an
// array of records inside a struct (only the fields the program wrote: the others of an
// uninitialised record are left out, not guessed).
#include <cuda_runtime.h>
#include <cstring>
#include <utility>

struct Term {
  int idx;
  float factor;
};

struct Table {
  Term terms[2][2];
  float weights[3];
  int mapping[2];
};

struct Stream {
  int id;
  std::pair<unsigned, unsigned> seed;
};

__global__ void seeded(int n, std::pair<unsigned long, unsigned long> seeds) {}
__global__ void streamed(Stream s) {}
__global__ void tabled(Table t) {}

int main() {
  std::pair<unsigned long, unsigned long> seeds;
  seeds.first = 12345678;
  seeds.second = 87654321;
  seeded<<<8, 32>>>(256, seeds);

  Stream s;
  s.id = 3;
  s.seed.first = 5;
  s.seed.second = 6;
  streamed<<<1, 32>>>(s);

  Table t;
  memset(&t, 0, sizeof t);
  for (int i = 0; i < 2; i++) {
    t.terms[i][0].factor = 1.0f;
    t.mapping[i] = i + 4;
  }
  t.terms[1][1].idx = 9;
  t.weights[2] = 0.5f;
  tabled<<<t.mapping[1], 64>>>(t);
  return 0;
}
