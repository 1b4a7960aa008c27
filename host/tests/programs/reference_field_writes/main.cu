/* kerncast-expect
25: boundary(int*, int, int) <<<(16,1,1), (256,1,1), 0>>> x>=1?{the loop at line 47, whose end kerncast cannot tell (`dt`)} {n=4096 s1=0 symm=ptr}
25: boundary(int*, int, int) <<<(16,1,1), (256,1,1), 0>>> x>=1?{the loop at line 47, whose end kerncast cannot tell (`dt`)} {n=4096 s1=0 symm=ptr} when ?{the loop at line 47, whose end kerncast cannot tell (`dt`)}
52: regions(int*, int) <<<(?{it is written by the loop at line 47, whose end kerncast cannot tell (`dt`)},1,1), (64,1,1), 0>>> x1 {n=?{it is written by the loop at line 47, whose end kerncast cannot tell (`dt`)} x=ptr}
53: nodes(int*, int) <<<(16,1,1), (256,1,1), 0>>> x1 {n=4096 x=ptr}
54: nodes(int*, int) <<<(?{it is written by the loop at line 47, whose end kerncast cannot tell (`dt`)},1,1), (256,1,1), 0>>> x1 {n=?{it is written by the loop at line 47, whose end kerncast cannot tell (`dt`)} x=ptr}
*/
// A time loop whose end depends on a floating-point step from the environment (not
// followed to its end) hands the mesh to its phases by reference, two calls deep, through
// a reference its body declares (as LULESH's main loop does). What a phase writes of it
// (the cycle and the time, through accessors; the regions, directly) becomes unknown after
// the loop, and so does all of a record written through a reference bound to one of its
// fields; the fields only read (the node count, the symmetry planes) keep their values.
// 16^3 = 4096 nodes: 16 blocks of 256.
#include <cuda_runtime.h>
#include <stdlib.h>
#include "domain.h"

__global__ void boundary(int* symm, int s1, int n) {}
__global__ void regions(int* x, int n) {}
__global__ void nodes(int* x, int n) {}

static void LagrangeNodal(Domain& domain, int* d) {
  int s1 = domain.symmXempty();
  boundary<<<(domain.numNode() + 255) / 256, 256>>>(d, s1, domain.numNode());
}

// writes a field under another name, a reference bound to it: all of `stats` may change
static void CountSteps(Stats& stats) {
  int& steps = stats.steps;
  steps += 1;
}

static void LagrangeLeapFrog(Domain& domain, int* d, double dt) {
  LagrangeNodal(domain, d);
  domain.time() += dt;
  domain.cycle()++;
  domain.m_regions = domain.m_regions + domain.cycle() % 2;
}

int main(int argc, char** argv) {
  double dt = atof(getenv("DT"));
  Domain* locDom = new Domain(0, 16);
  int* d;
  cudaMalloc(&d, 4 * 4096);
  Stats stats = {0, 8};
  while (locDom->time() < 1.0 && locDom->cycle() < 100) {
    Domain& domain = *locDom;
    LagrangeLeapFrog(domain, d, dt);
    CountSteps(stats);
  }
  regions<<<locDom->m_regions, 64>>>(d, locDom->m_regions);
  nodes<<<(locDom->numNode() + 255) / 256, 256>>>(d, locDom->numNode());
  nodes<<<stats.blocks, 256>>>(d, stats.blocks * 256);
  return 0;
}
