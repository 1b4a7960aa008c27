/* kerncast-expect
solver.cu:10: void relax<float>(float*, int) <<<(4,1,1), (256,1,1), 0>>> x3 {data=ptr rows=1000}
solver.cu:10: void relax<double>(double*, int) <<<(274,1,1), (256,1,1), 0>>> x1 {data=ptr rows=70000}
solver.cu:15: void relax<float>(float*, int) <<<(8,1,1), (128,1,1), 0>>> x1 {data=ptr rows=1000}
*/
// Function templates defined in one file and instantiated there explicitly (`template void
// f<float>(…);`, a member of a class template too), called from another file that sees only
// their declarations, as a library split into a header and an implementation file is built.
// 1000 rows: (1000 + 255) / 256 = 4 blocks, three sweeps; 70000 rows: 274 blocks, once; the
// smoother's width 128 over 1000 rows: 8 blocks.
#include <cuda_runtime.h>
#include "solver.h"

int main() {
  float* f;
  double* d;
  cudaMalloc(&f, 1000 * sizeof(float));
  cudaMalloc(&d, 70000 * sizeof(double));
  run_solver(f, 1000, 3);
  run_solver<double>(d, 70000, 1);
  lin::Smoother<float> s{128};
  s.apply(f, 1000);
  return 0;
}
