/* kerncast-expect
37: k(int) <<<(64,1,1), (32,1,1), 0>>> x1 {n=?{condition at line 33}}
38: k(int) <<<(192,1,1), (32,1,1), 0>>> x1 {n=?{condition at line 33}}
missing plan.txt read by fopen
*/
// A method that writes one member of an object, called on one side of a condition kerncast
// cannot decide (a value read from a file): afterwards that member is unknown (it depends on
// the condition) and the object's other members keep their values, whether the method writes
// the member itself or through another method that calls it back (a recursion whose own
// conditions are known). `size` stays 64 and `reps` 3; `depth` is 0 or 2.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(int n) {}

struct Plan {
  int size = 64, depth = 0, reps = 3;
  void down(int d);
  void step(int d);
  void set(int d) { depth = d; }
};

void Plan::down(int d) {
  if (d > 0) step(d - 1);
  depth = d;
}
void Plan::step(int d) { down(d); }

int main() {
  Plan p, q;
  int v = 0;
  FILE* f = fopen("plan.txt", "r");
  if (f && fscanf(f, "%d", &v) == 1 && v > 3) {
    p.down(2);
    q.set(2);
  }
  k<<<p.size, 32>>>(p.depth);
  k<<<q.size * q.reps, 32>>>(q.depth);
  return 0;
}
