/* kerncast-expect
25: k(float*, int) <<<(?{`i`: it depends on the condition at line 19 (`limit`), which may end the loop at line 18 early},1,1), (32,1,1), 0>>> x1 {n=4 x=ptr}
missing limit.txt read by fopen
*/
// A search loop whose `break` depends on a value read from a file: where it ends is
// unknown, so the index it leaves is too (not the loop's last value, 4, which a loop run
// past its undecided break would give). The count of a loop with no such break is known.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

int main() {
  FILE* f = fopen("limit.txt", "r");
  int limit;
  fscanf(f, "%d", &limit);
  int i;
  for (i = 0; i < 4; i++) {
    if (i == limit) break;
  }
  int j;
  for (j = 0; j < 4; j++) {
    if (j == 9) break;
  }
  k<<<i + 1, 32>>>(0, j);
  return 0;
}
