/* kerncast-expect
22: k(int) <<<(20,1,1), (1,1,1), 0>>> x1 {n=20}
23: k(int) <<<(3,1,1), (2,1,1), 0>>> x1 {n=1}
*/
// Variables of namespace scope are initialised before main, in declaration order: derived is
// 10 * 2 = 20 although main sets base to 100 before reading it; first, unused and second take
// the counter's 1, 2 and 3 in that order, whichever is read first.
#include <cuda_runtime.h>

__global__ void k(int n) {}

int base = 10;
int derived = base * 2;
int counter = 0;
int next() { return ++counter; }
int first = next();
int unused = next();
int second = next();

int main() {
  base = 100;
  k<<<derived, 1>>>(derived);
  k<<<second, 2>>>(first);
  return 0;
}
