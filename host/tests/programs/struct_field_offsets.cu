/* kerncast-expect
show: field_offsets
28: k(Params, int) <<<(64,1,1), (32,1,1), 0>>> x1 {m=3 p={n:64,scale:0.5,tag:1}} at{p.n@16 p.scale@8 p.tag@0}
33: kb(Box) <<<(1,1,1), (32,1,1), 0>>> x1 {b={hi:7,lo:2,p:{n:64,scale:0.5,tag:1}}} at{b.hi@32 b.lo@0 b.p.n@24 b.p.scale@16 b.p.tag@8}
*/
// A kernel reads a struct passed by value by byte offset, so the reader gives each field's
// offset as clang lays the struct out: padding before a double, a typedef of an anonymous
// struct, a struct nested in another (its fields at the outer offset plus their own).
#include <cuda_runtime.h>

typedef struct {
  char tag;
  double scale;
  int n;
} Params;

struct Box {
  short lo;
  Params p;
  int hi;
};

__global__ void k(Params p, int m) {}
__global__ void kb(Box b) {}

int main() {
  Params p = {1, 0.5, 64};
  k<<<p.n, 32>>>(p, 3);
  Box b;
  b.lo = 2;
  b.p = p;
  b.hi = 7;
  kb<<<1, 32>>>(b);
  return 0;
}
