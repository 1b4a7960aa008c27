/* kerncast-expect
59: k(int) <<<(?{loop at line 26, whose end kerncast cannot tell},1,1), (32,1,1), 0>>> x1 {n=?{loop at line 26, whose end kerncast cannot tell}}
62: k(int) <<<(?{fgetc},1,1), (64,1,1), 0>>> x1 {n=64}
66: k(int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=?{size of a container}}
69: k(int) <<<(1,1,1), (?{condition at line 30},1,1), 0>>> x1 {n=4}
73: k(int) <<<(1,1,1), (?{loop at line 72, whose end kerncast cannot tell},1,1), 0>>> x1 {n=1}
missing input.txt read by fopen
*/
// What a method writes of its object. A loop inside a method whose end depends on a file
// leaves the member it counts unknown (not the value after one pass); a method of another
// object called in such a loop writes only the members it names, so the object's others keep
// their values (a sparse matrix's row count while entries are read from a file); a virtual
// method that a derived class overrides may write any member. The rows: 4096 / 256 = 16
// blocks; the undecided condition leaves `mode` 1 or 2, unknown.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

__global__ void k(int n) {}

struct Counter {
  int count = 4;
  int rows = 64;
  void fill(FILE* f) {
    int c;
    while ((c = fgetc(f)) != EOF) count++;
  }
  void grow(int by) { count += by; }
  void pick(int c) {
    if (c > 10)
      this->rows = 1;
    else
      rows = 2;
  }
};

struct Coo {
  int rows, cols;
  std::vector<int> r, c;
  Coo(int n) : rows(n), cols(n) {}
  void add(int i, int j) {
    r.push_back(i);
    c.push_back(j);
  }
};

struct Base {
  int width = 32;
  virtual void reset(int v) {}
};
struct Wide : Base {
  void reset(int v) override { width = v; }
};

int main() {
  FILE* f = fopen("input.txt", "r");
  Counter a;
  a.fill(f);
  k<<<a.count, 32>>>(a.count);
  Counter b;
  for (int i = 0; i < 3; i++) b.grow(fgetc(f));
  k<<<b.count, b.rows>>>(b.rows);
  Coo m(4096);
  int i, j;
  while (fscanf(f, "%d %d", &i, &j) == 2) m.add(i, j);
  k<<<m.rows / 256, 256>>>((int)m.r.size());
  Counter p;
  p.pick(fgetc(f));
  k<<<1, p.rows>>>(p.count);
  Wide w;
  Base* q = &w;
  while (fgetc(f) != EOF) q->reset(fgetc(f));
  k<<<1, q->width>>>(1);
  return 0;
}
