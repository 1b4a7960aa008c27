/* kerncast OpenCL native-math prelude, included in every OpenCL lowering. libclc maps the
 * native_* functions onto LLVM's generic exp/log/sin/cos intrinsics, which LLVM 19's NVPTX back
 * end cannot select ("Cannot select: fsin", "no libcall available for fexp"). They are mapped
 * here onto the approx instructions, as nvcc's fast-math forms are; float, float2 and float4. */
#define __KC_CL static inline __attribute__((overloadable, always_inline))
#define __KC_LOG2E 1.4426950408889634f
#define __KC_LN2 0.6931471805599453f
#define __KC_LOG2_10 3.321928094887362f
#define __KC_LOG10_2 0.3010299956639812f
#define __KC_UNARY(name, expr)                                                               \
    __KC_CL float __kc_##name(float x) { return expr; }                                     \
    __KC_CL float2 __kc_##name(float2 v) {                                                   \
        return (float2)(__kc_##name(v.x), __kc_##name(v.y));                                 \
    }                                                                                        \
    __KC_CL float4 __kc_##name(float4 v) {                                                   \
        return (float4)(__kc_##name(v.x), __kc_##name(v.y), __kc_##name(v.z), __kc_##name(v.w)); \
    }
__KC_UNARY(native_exp2, __nvvm_ex2_approx_f(x))
__KC_UNARY(native_exp, __nvvm_ex2_approx_f(x * __KC_LOG2E))
__KC_UNARY(native_exp10, __nvvm_ex2_approx_f(x * __KC_LOG2_10))
__KC_UNARY(native_log2, __nvvm_lg2_approx_f(x))
__KC_UNARY(native_log, __nvvm_lg2_approx_f(x) * __KC_LN2)
__KC_UNARY(native_log10, __nvvm_lg2_approx_f(x) * __KC_LOG10_2)
__KC_UNARY(native_sin, __nvvm_sin_approx_f(x))
__KC_UNARY(native_cos, __nvvm_cos_approx_f(x))
__KC_UNARY(native_tan, __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)))
__KC_CL float __kc_native_powr(float x, float y) {
    return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x));
}
__KC_CL float2 __kc_native_powr(float2 x, float2 y) {
    return (float2)(__kc_native_powr(x.x, y.x), __kc_native_powr(x.y, y.y));
}
__KC_CL float4 __kc_native_powr(float4 x, float4 y) {
    return (float4)(__kc_native_powr(x.x, y.x), __kc_native_powr(x.y, y.y),
                    __kc_native_powr(x.z, y.z), __kc_native_powr(x.w, y.w));
}
#define native_exp2(x) __kc_native_exp2(x)
#define native_exp(x) __kc_native_exp(x)
#define native_exp10(x) __kc_native_exp10(x)
#define native_log2(x) __kc_native_log2(x)
#define native_log(x) __kc_native_log(x)
#define native_log10(x) __kc_native_log10(x)
#define native_sin(x) __kc_native_sin(x)
#define native_cos(x) __kc_native_cos(x)
#define native_tan(x) __kc_native_tan(x)
#define native_powr(x, y) __kc_native_powr((x), (y))
