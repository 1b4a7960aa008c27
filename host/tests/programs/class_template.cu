/* kerncast-expect
17: void transpose<16>(float*, int, int) <<<(32,63,1), (16,16,1), 0>>> x1 {cols=500 m=ptr rows=1000}
17: void transpose<32>(float*, int, int) <<<(2,2,1), (32,32,1), 0>>> x1 {cols=64 m=ptr rows=64}
*/
// A class template whose parameter is the tile: Tiled<16>(1000, 500) makes a grid of
// (500 + 15) / 16 = 32 by (1000 + 15) / 16 = 63 tiles and launches transpose<16>.
#include <cuda_runtime.h>

template <int T>
__global__ void transpose(float* m, int rows, int cols) {}

template <int TILE>
struct Tiled {
  int rows, cols;
  Tiled(int r, int c) : rows(r), cols(c) {}
  dim3 grid() const { return dim3((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE); }
  void run(float* m) { transpose<TILE><<<grid(), dim3(TILE, TILE)>>>(m, rows, cols); }
};

int main() {
  float* m;
  cudaMalloc(&m, 1000 * 500 * sizeof(float));
  Tiled<16> a(1000, 500);
  a.run(m);
  Tiled<32> b(64, 64);
  b.run(m);
  return 0;
}
