/* kerncast-expect
47: k(int) <<<(64,1,1), (32,1,1), 0>>> x1 {n=?{loop at line 43, whose end kerncast cannot tell}}
48: k(int) <<<(8,1,1), (32,1,1), 0>>> x1 {n=?{loop at line 43, whose end kerncast cannot tell}}
missing plan.txt read by fopen
*/
// What functions that call each other write (`down` → `step` → `down`): the writes of every
// path through the recursion, their summaries made again until they settle, not "anything"
// for the call that closes the cycle. In a loop whose end kerncast cannot tell (its count read
// from a file), `down` and `step` write `depth` alone: `size` stays 64. A global written only
// at the deepest level of another recursion (`visit` → `leaf` → `visit`) is unknown after the
// loop, since the cycle's summary includes it; `limit`, which neither writes, stays 8.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(int n) {}

int visits = 0, limit = 8;

void visit(int d);
void leaf(int d) {
  if (d > 0)
    visit(d - 1);
  else
    visits++;
}
void visit(int d) { leaf(d); }

struct Plan {
  int size = 64, depth = 0;
  void down(int d);
  void step(int d);
};
void Plan::down(int d) {
  if (d > 0) step(d - 1);
  depth = d;
}
void Plan::step(int d) { down(d); }

int main() {
  Plan p;
  int v = 0;
  FILE* f = fopen("plan.txt", "r");
  while (f && fscanf(f, "%d", &v) == 1) {
    p.down(1);
    visit(2);
  }
  k<<<p.size, 32>>>(p.depth);
  k<<<limit, 32>>>(visits);
  return 0;
}
