/* kerncast-expect
65: push(double*, int) <<<(1954,1,1), (256,1,1), 0>>> x1 {n=?{did not follow to its end} p=ptr}
68: cells(double*, int, int) <<<(63,500,1), (32,4,1), 0>>> x1 {rho=ptr sx=2000 sy=?{did not follow to its end}}
*/
// A loop too long to follow fills particles through a helper that writes the species' count
// and its particles (through a pointer it uses only for that), and a loop over cells writes
// some fields of a struct: only what they write becomes unknown. The capacity and the grid's
// sizes, which they do not write, stay known: (500000 + 255) / 256 = 1954 and
// (2000 + 31) / 32 = 63 by (2000 + 3) / 4 = 500. The count the helper keeps is unknown.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void push(double* p, int n) {}
__global__ void cells(double* rho, int sx, int sy) {}

struct Particle {
  double x, v;
  bool alive;
};

struct Species {
  Particle* part;
  int np;
  int np_alloc;
};

struct Grid {
  int sizex, sizey, mmc_cells;
  double* rho;
};

void add_particle(Species* s, double x, double v) {
  if (s->np > s->np_alloc - 1) {
    printf("too many particles\n");
    exit(1);
  }
  s->part[s->np].x = x;
  s->part[s->np].v = v;
  s->part[s->np].alive = true;
  s->np++;
}

int main() {
  Species ions;
  ions.np = 0;
  ions.np_alloc = 500000;
  ions.part = new Particle[500000];
  for (int p = 0; p < 500000; p++) add_particle(&ions, p * 0.5, 1.0);

  Grid g;
  g.sizex = 2000;
  g.sizey = 2000;
  g.mmc_cells = 0;
  g.rho = new double[2000 * 2000];
  for (int j = 0; j < g.sizey; j++)
    for (int i = 0; i < g.sizex; i++) {
      g.rho[i + g.sizex * j] = 1.0;
      if ((i + j) % 3 == 0) g.mmc_cells++;
    }

  double* d;
  cudaMalloc(&d, 8 * 500000);
  int size = ions.np_alloc;
  push<<<(size + 255) / 256, 256>>>(d, ions.np);
  dim3 block(32, 4);
  dim3 grid((g.sizex + 31) / 32, (g.sizey + 3) / 4);
  cells<<<grid, block>>>(d, g.sizex, g.mmc_cells);
  return 0;
}
