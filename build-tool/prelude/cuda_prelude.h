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
