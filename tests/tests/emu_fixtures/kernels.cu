// Fixtures for the emulator's functional tests (tests/tests/emu*.rs). Each kernel has a Rust
// reference in the test. Regenerate: .toolchain/bin/nvcc -ptx -arch=sm_80 -O3 -lineinfo kernels.cu -o kernels.ptx
#define TILE 16

extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void matmul_naive(int n, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
  }
}

extern "C" __global__ void matmul_tiled(int n, const float* A, const float* B, float* C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void transpose(int n, const float* in, float* out) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void reduce_sum(int n, const float* in, float* out) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int st = blockDim.x / 2; st >= 32; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid < 32) {
    float v = s[tid];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

extern "C" __global__ void histogram(int n, const unsigned* data, unsigned* bins, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i] % nbins], 1u);
}

extern "C" __global__ void scan_block(int n, const int* in, int* out) {
  __shared__ int s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    int v = tid >= off ? s[tid - off] : 0;
    __syncthreads();
    s[tid] += v;
    __syncthreads();
  }
  if (i < n) out[i] = s[tid];
}

extern "C" __global__ void stencil5(int n, const double* in, double* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < n - 1 && y < n - 1) {
    int c = y * n + x;
    out[c] = 0.5 * in[c] + 0.125 * (in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
  }
}

extern "C" __global__ void spmv_csr(int rows, const int* rowptr, const int* cols, const float* vals,
                                    const float* x, float* y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int j = rowptr[r]; j < rowptr[r + 1]; ++j) acc += vals[j] * x[cols[j]];
    y[r] = acc;
  }
}

extern "C" __global__ void vote_ballot(int n, const int* in, unsigned* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, i < n && in[i] > 0);
  int all = __all_sync(0xffffffff, i < n && in[i] > 0);
  int any = __any_sync(0xffffffff, i < n && in[i] > 0);
  if ((threadIdx.x & 31) == 0) {
    out[3 * (i / 32)] = b;
    out[3 * (i / 32) + 1] = all;
    out[3 * (i / 32) + 2] = any;
  }
}

extern "C" __global__ void int_mix(int n, const int* a, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = a[i];
    unsigned u = (unsigned)v;
    int r = __popc(u) + __clz(v) * 3 + (int)(__brev(u) >> 20) + (v / 7) - (v % 5) + min(v, 100) - max(v, -100)
          + abs(v) + (int)(((long long)v * 123456789LL) >> 33) + __mulhi(v, 0x12345) + (int)((u >> 3) & 0x1f);
    out[i] = r + __byte_perm(u, 0x01020304u, 0x5140);
  }
}

extern "C" __global__ void float_mix(int n, const float* a, float* out, double* dout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = a[i];
    out[i] = sqrtf(fabsf(v)) + 1.0f / (v + 3.0f) + __expf(v * 0.1f) + rsqrtf(fabsf(v) + 1.0f) + fminf(v, 0.5f);
    double d = (double)v;
    dout[i] = d * d / (d + 7.0) + sqrt(d * d + 1.0) + (double)(int)(v * 3.7f);
  }
}

// Double-precision sin: nvcc keeps libdevice's Payne-Hanek argument reduction as a called
// function (inlined by kerncast before emulation) with carry-chain multiplies and scoped asm
// registers; large arguments take that path.
extern "C" __global__ void sin_f64(int n, const double* x, double* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sin(x[i]);
}
