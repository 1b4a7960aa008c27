/* kerncast CUDA prelude: lets clang compile CUDA device code to PTX with -nocudainc -nocudalib,
 * i.e. without a CUDA SDK. It declares the execution-space attributes, the built-in index
 * variables, and the handful of device functions the corpus uses, each mapped onto the NVPTX
 * builtin that nvcc's headers would also reach. Fast-math forms are used where nvcc's library
 * would call a longer routine (expf -> ex2.approx), which the cost models treat alike. */
#pragma once
#define __KERNCAST_PRELUDE__ 1
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __restrict__ __restrict
#include <__clang_cuda_builtin_vars.h> /* threadIdx, blockIdx, blockDim, gridDim, warpSize */
/* __syncthreads() is a clang NVPTX builtin: it must not be declared here. */
/* The standard types nvcc's headers bring in (cuda_runtime.h includes stddef.h and stdint.h),
 * from the compiler's own macros so no C library headers are needed. */
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;

#define __KC_DEV static __device__ __inline__ __attribute__((always_inline))

__KC_DEV float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
__KC_DEV double rsqrt(double x) { return __nvvm_rsqrt_approx_d(x); }
__KC_DEV float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
__KC_DEV double sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
__KC_DEV float fabsf(float x) { return __builtin_fabsf(x); }
__KC_DEV double fabs(double x) { return __builtin_fabs(x); }
__KC_DEV float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
__KC_DEV float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
__KC_DEV float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__KC_DEV double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
__KC_DEV float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
__KC_DEV float expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
__KC_DEV float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
__KC_DEV int min(int a, int b) { return a < b ? a : b; }
__KC_DEV int max(int a, int b) { return a > b ? a : b; }

__KC_DEV void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
__KC_DEV float __shfl_down_sync(unsigned mask, float v, unsigned d, int w = 32) {
    return __nvvm_shfl_sync_down_f32(mask, v, d, ((32 - w) << 8) | 0x1f);
}
__KC_DEV int __shfl_down_sync(unsigned mask, int v, unsigned d, int w = 32) {
    return __nvvm_shfl_sync_down_i32(mask, v, d, ((32 - w) << 8) | 0x1f);
}
__KC_DEV float __shfl_xor_sync(unsigned mask, float v, int lane, int w = 32) {
    return __nvvm_shfl_sync_bfly_f32(mask, v, lane, ((32 - w) << 8) | 0x1f);
}
__KC_DEV int __shfl_xor_sync(unsigned mask, int v, int lane, int w = 32) {
    return __nvvm_shfl_sync_bfly_i32(mask, v, lane, ((32 - w) << 8) | 0x1f);
}
__KC_DEV float __shfl_up_sync(unsigned mask, float v, unsigned d, int w = 32) {
    return __nvvm_shfl_sync_up_f32(mask, v, d, (32 - w) << 8);
}
__KC_DEV int __shfl_up_sync(unsigned mask, int v, unsigned d, int w = 32) {
    return __nvvm_shfl_sync_up_i32(mask, v, d, (32 - w) << 8);
}

__KC_DEV int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__KC_DEV unsigned atomicAdd(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
__KC_DEV float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__KC_DEV double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__KC_DEV int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }

__KC_DEV unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
__KC_DEV int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__KC_DEV unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
__KC_DEV int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__KC_DEV unsigned atomicSub(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_add_gen_i((int *)p, -(int)v);
}
__KC_DEV unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
__KC_DEV int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__KC_DEV unsigned atomicExch(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_xchg_gen_i((int *)p, (int)v);
}
__KC_DEV float atomicExch(float *p, float v) {
    return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)p, __builtin_bit_cast(int, v)));
}
__KC_DEV int atomicCAS(int *p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
__KC_DEV unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) {
    return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)c, (int)v);
}
__KC_DEV unsigned long long atomicCAS(unsigned long long *p, unsigned long long c,
                                      unsigned long long v) {
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)c, (long long)v);
}
__KC_DEV int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
__KC_DEV int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
__KC_DEV int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
__KC_DEV unsigned atomicAnd(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_and_gen_i((int *)p, (int)v);
}
__KC_DEV unsigned atomicOr(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_or_gen_i((int *)p, (int)v);
}
__KC_DEV unsigned atomicXor(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_xor_gen_i((int *)p, (int)v);
}

/* Read-only loads through the non-coherent path (ld.global.nc), as nvcc's __ldg. */
__KC_DEV float __ldg(const float *p) { return __nvvm_ldg_f(p); }
__KC_DEV double __ldg(const double *p) { return __nvvm_ldg_d(p); }
__KC_DEV int __ldg(const int *p) { return __nvvm_ldg_i(p); }
__KC_DEV unsigned __ldg(const unsigned *p) { return __nvvm_ldg_ui(p); }
__KC_DEV long long __ldg(const long long *p) { return __nvvm_ldg_ll(p); }
__KC_DEV unsigned long long __ldg(const unsigned long long *p) { return __nvvm_ldg_ull(p); }
__KC_DEV char __ldg(const char *p) { return __nvvm_ldg_c(p); }
__KC_DEV unsigned char __ldg(const unsigned char *p) { return __nvvm_ldg_uc(p); }
__KC_DEV short __ldg(const short *p) { return __nvvm_ldg_s(p); }
__KC_DEV unsigned short __ldg(const unsigned short *p) { return __nvvm_ldg_us(p); }

/* Warp votes, the indexed shuffle and bit operations. */
__KC_DEV unsigned __ballot_sync(unsigned mask, int p) { return __nvvm_vote_ballot_sync(mask, p); }
__KC_DEV int __any_sync(unsigned mask, int p) { return __nvvm_vote_any_sync(mask, p); }
__KC_DEV int __all_sync(unsigned mask, int p) { return __nvvm_vote_all_sync(mask, p); }
__KC_DEV unsigned __activemask() { return __nvvm_activemask(); }
__KC_DEV float __shfl_sync(unsigned mask, float v, int lane, int w = 32) {
    return __nvvm_shfl_sync_idx_f32(mask, v, lane, ((32 - w) << 8) | 0x1f);
}
__KC_DEV int __shfl_sync(unsigned mask, int v, int lane, int w = 32) {
    return __nvvm_shfl_sync_idx_i32(mask, v, lane, ((32 - w) << 8) | 0x1f);
}
__KC_DEV unsigned __shfl_sync(unsigned mask, unsigned v, int lane, int w = 32) {
    return (unsigned)__nvvm_shfl_sync_idx_i32(mask, (int)v, lane, ((32 - w) << 8) | 0x1f);
}
__KC_DEV int __popc(unsigned x) { return __builtin_popcount(x); }
__KC_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__KC_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__KC_DEV int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__KC_DEV int __ffs(int x) { return __builtin_ffs(x); }
__KC_DEV unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
__KC_DEV unsigned __umulhi(unsigned a, unsigned b) { return __nvvm_mulhi_ui(a, b); }
__KC_DEV int __mul24(int a, int b) { return __nvvm_mul24_i(a, b); }

/* Fences. */
__KC_DEV void __threadfence() { __nvvm_membar_gl(); }
__KC_DEV void __threadfence_block() { __nvvm_membar_cta(); }

/* Single precision math: the fast intrinsics map to the approx instructions; the library
 * forms (sinf, logf …) use them too, like the fast-math forms above. */
__KC_DEV float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__KC_DEV float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__KC_DEV float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
__KC_DEV float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
__KC_DEV float __powf(float a, float b) { return __nvvm_ex2_approx_f(b * __nvvm_lg2_approx_f(a)); }
__KC_DEV float sinf(float x) { return __nvvm_sin_approx_f(x); }
__KC_DEV float cosf(float x) { return __nvvm_cos_approx_f(x); }
__KC_DEV float log2f(float x) { return __nvvm_lg2_approx_f(x); }
__KC_DEV float logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
__KC_DEV float exp2f(float x) { return __nvvm_ex2_approx_f(x); }
__KC_DEV float powf(float a, float b) { return __nvvm_ex2_approx_f(b * __nvvm_lg2_approx_f(a)); }
__KC_DEV float __saturatef(float x) { return __nvvm_saturate_f(x); }
__KC_DEV int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
__KC_DEV float floorf(float x) { return __builtin_floorf(x); }
__KC_DEV float ceilf(float x) { return __builtin_ceilf(x); }
__KC_DEV double floor(double x) { return __builtin_floor(x); }
__KC_DEV double ceil(double x) { return __builtin_ceil(x); }
__KC_DEV double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
__KC_DEV double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }

/* Half precision: nvcc's cuda_fp16.h is replaced by clang's _Float16. */
typedef _Float16 __half;
__KC_DEV __half __float2half(float f) { return (__half)f; }
__KC_DEV float __half2float(__half h) { return (float)h; }
__KC_DEV __half __hadd(__half a, __half b) { return a + b; }
__KC_DEV __half __hmul(__half a, __half b) { return a * b; }
__KC_DEV __half __hfma(__half a, __half b, __half c) { return a * b + c; }

/* Vector types, with the alignment CUDA's vector_types.h gives them (so loads vectorise alike). */
struct __attribute__((aligned(8))) float2 { float x, y; };
struct float3 { float x, y, z; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(16))) double2 { double x, y; };
__KC_DEV float2 make_float2(float x, float y) { return float2{x, y}; }
__KC_DEV float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
__KC_DEV float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
__KC_DEV int2 make_int2(int x, int y) { return int2{x, y}; }
__KC_DEV int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
__KC_DEV double2 make_double2(double x, double y) { return double2{x, y}; }
