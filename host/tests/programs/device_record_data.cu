/* kerncast-expect
show: buffer_data
74: step(Params const*) <<<(8,1,1), (256,1,1), 0>>> x1 {p=ptr} data{p=000000000000e03f00080000f40100000700000000000000}
81: step(Params const*) <<<(1,1,1), (32,1,1), 0>>> x1 {p=ptr} data{p=000000000000004003000000040000000000000000000000?{the field `unset`, which the host never set}}
85: step(Params const*) <<<(1,1,1), (64,1,1), 0>>> x1 {p=ptr} data{p=000000000000000000000000000000000000000000000000}
100: outer(Outer const*) <<<(1,1,1), (32,1,1), 0>>> x1 {o=ptr} data{o=000000000000e03f0300000005000000ffff00000000000000000000000000000100000002000000?{a pointer stored in device memory}}
112: particles(Particle const*, int) <<<(1,1,1), (32,1,1), 0>>> x1 {n=2 p=ptr} data{p=0000000000000000000000000000e03f00000000000000c00a00000000000000000000000000f03f000000000000e03f00000000000000c00b00000000000000}
117: particles(Particle const*, int) <<<(2,1,1), (32,1,1), 0>>> x1 {n=2 p=ptr} data{p=0000000000000000000000000000000000000000000000000000000000000000000000000000e03f000000000000000000000000000000000100000000000000?{the field `y`, which the host never set}}
*/
// A record copied to the device whole reaches the kernels that read it as clang lays it out:
// a simulation's parameters (a double, three ints, the padding after them) and a record holding
// a nested record (an int and a short, padded to 8 bytes), a pointer and an int array. The
// pointer is an address the emulator cannot share with the host, and a field the program
// never sets is unknown: both stay zero, and the reader says why. An array of records with a
// CUDA vector member (`double3`, laid out as its header declares it) is copied element by
// element, from the stack and from `malloc`ed memory a helper fills member by member (its
// members never written, `pos.y` and `pos.z`, stay zero). A `calloc`ed record is zeros.
#include <cstdlib>
#include <cuda_runtime.h>

struct Params {
  double rest_density;
  int particles;
  int steps;
  int unset;
};

struct Inner {
  int x;
  short y;
};

struct Outer {
  double a;
  int n;
  Inner in;
  float* ptr;
  int arr[2];
};

__global__ void step(const Params* p) {}
__global__ void outer(const Outer* o) {}

struct Particle {
  double3 pos;
  int id;
};

__global__ void particles(const Particle* p, int n) {}

void place(Particle** out, int n) {
  *out = (Particle*)malloc(n * sizeof(Particle));
  for (int i = 0; i < n; i++) {
    (*out)[i].id = i;
  }
  int i = 0;
  for (double x = 0.0; x <= 1.0; x += 0.5) {
    if (i < n) {
      (*out)[i].pos.x = x;
      i++;
    }
  }
}

int main() {
  Params params;
  params.rest_density = 0.5;
  params.particles = 2048;
  params.steps = 500;
  params.unset = 7;
  Params* d_params;
  cudaMalloc(&d_params, sizeof(Params));
  cudaMemcpy(d_params, &params, sizeof(Params), cudaMemcpyHostToDevice);
  step<<<8, 256>>>(d_params);

  Params partial;
  partial.rest_density = 2;
  partial.particles = 3;
  partial.steps = 4;
  cudaMemcpy(d_params, &partial, sizeof(Params), cudaMemcpyHostToDevice);
  step<<<1, 32>>>(d_params);

  Params* zeroed = (Params*)calloc(1, sizeof(Params));
  cudaMemcpy(d_params, zeroed, sizeof(Params), cudaMemcpyHostToDevice);
  step<<<1, 64>>>(d_params);

  float* data;
  cudaMalloc(&data, 64);
  Outer o;
  o.a = 0.5;
  o.n = 3;
  o.in.x = 5;
  o.in.y = -1;
  o.ptr = data;
  o.arr[0] = 1;
  o.arr[1] = 2;
  Outer* d_o;
  cudaMalloc(&d_o, sizeof(Outer));
  cudaMemcpy(d_o, &o, sizeof(Outer), cudaMemcpyHostToDevice);
  outer<<<1, 32>>>(d_o);

  Particle h[2];
  for (int i = 0; i < 2; i++) {
    h[i].pos.x = i;
    h[i].pos.y = 0.5;
    h[i].pos.z = -2;
    h[i].id = 10 + i;
  }
  Particle* d_p;
  cudaMalloc(&d_p, 2 * sizeof(Particle));
  cudaMemcpy(d_p, h, 2 * sizeof(Particle), cudaMemcpyHostToDevice);
  particles<<<1, 32>>>(d_p, 2);

  Particle* m = NULL;
  place(&m, 2);
  cudaMemcpy(d_p, m, 2 * sizeof(Particle), cudaMemcpyHostToDevice);
  particles<<<2, 32>>>(d_p, 2);
  return 0;
}
