/* kerncast-expect
35: update(int) <<<(8,1,1), (256,1,1), 0>>> x1 {n=2048}
45: row_sum(int, int) <<<(1,256,1), (16,4,1), 0>>> x1 {cols=512 rows=1024}
*/
// Long host loops that store into memory while they count: once a loop has run its
// allowance, it goes on without its stores (whose places become unknown, lengths kept), so
// what it counts stays exact. Particles on a 13 x 13 x 15 lattice (spacing 1/8, exact in
// binary), the first 2048 kept: 2048, (2048 + 255) / 256 = 8 blocks. A matrix of 1024 rows
// of 512 random values, pushed row by row: 1024 rows (256 blocks of 4), 512 columns.
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void update(int n) {}
__global__ void row_sum(int rows, int cols) {}

struct Particle {
  double x, y, z;
};

int main() {
  const int n = 2048;
  Particle* p = (Particle*)malloc(n * sizeof(Particle));
  const double spacing = 0.125;
  int i = 0;
  for (double z = 0.0; z <= 1.75; z += spacing)
    for (double y = 0.0; y <= 1.5; y += spacing)
      for (double x = 0.0; x <= 1.5; x += spacing)
        if (i < n) {
          p[i].x = x;
          p[i].y = y;
          p[i].z = z;
          i++;
        }
  update<<<(i + 255) / 256, 256>>>(i);

  std::vector<std::vector<int>> m;
  std::vector<int> row(512);
  for (int r = 0; r < 1024; r++) {
    for (int c = 0; c < 512; c++) row[c] = rand() % 10;
    m.push_back(row);
  }
  int rows = m.size();
  int cols = m[0].size();
  row_sum<<<dim3(1, (rows + 3) / 4), dim3(16, 4)>>>(rows, cols);
  free(p);
  return 0;
}
