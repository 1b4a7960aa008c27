/* kerncast-expect
45: k(float*, int) <<<(6,1,1), (3,1,1), 0>>> x1 {n=?{`mode`: it depends on the condition at line 36 (`x`), which may end the switch at line 34 early} x=ptr}
missing x.txt read by fopen
*/
// A `break` on a side of an undecided condition inside a `switch` ends the switch, not the
// loop around it, whether the switch is in the loop's body or in a function it calls: the
// loop runs to its end and its values are known (6 blocks of 3 threads), and the variable
// the switch sets is what differs between its sides.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int parse(int c, int x) {
  int r = 0;
  switch (c) {
    case 1:
      if (x > 3) break;
      r = 5;
      break;
    default:
      r = 1;
  }
  return r;
}

int main() {
  FILE* f = fopen("x.txt", "r");
  int x;
  fscanf(f, "%d", &x);
  int total = 0, last = 0, mode = 0;
  for (int i = 0; i < 3; i++) {
    int got = parse(i, x);
    switch (i) {
      case 2:
        if (x == 2) break;
        mode = got;
        break;
      default:
        break;
    }
    total += 2;
    last = i;
  }
  k<<<total, last + 1>>>(0, mode);
  return 0;
}
