/* kerncast-expect
16: k(float*, int) <<<(10,1,1), (128,1,1), 0>>> x1 {n=1280 x=?{`x`: a parameter of `launch_fixed`}}
13: k(float*, int) <<<(2,1,1), (256,1,1), 0>>> x1 {n=512 x=?{`x`: a parameter of `launch_fixed`}}
13: k(float*, int) <<<(?{`n`: a parameter of `launch_param`},1,1), (256,1,1), 0>>> x1 {n=?{`n`: a parameter of `launch_param`} x=?{`x`: a parameter of `launch_param`}}
*/
// A library of launchers without main: each function nothing calls is read, its parameters
// unknown and named. launch_k is called by launch_fixed (n = 512, 2 blocks), so it is not
// read on its own.
#include <cuda_runtime.h>

__global__ void k(float* x, int n) {}

void launch_k(float* x, int n) { k<<<(n + 255) / 256, 256>>>(x, n); }

void launch_fixed(float* x) {
  k<<<10, 128>>>(x, 1280);
  launch_k(x, 512);
}

void launch_param(float* x, int n) { launch_k(x, n); }
