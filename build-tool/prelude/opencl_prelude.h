/* kerncast OpenCL prelude: used only when libclc (/usr/lib/clc/nvptx64--nvidiacl.bc) is absent.
 * It maps the OpenCL work-item functions and the barrier onto NVPTX builtins so that clang can
 * lower OpenCL C to PTX that ptxas accepts (no unresolved get_local_id calls). */
#define __KERNCAST_PRELUDE__ 1
#define get_local_id(d) ((d) == 0 ? __nvvm_read_ptx_sreg_tid_x() : (d) == 1 ? __nvvm_read_ptx_sreg_tid_y() : __nvvm_read_ptx_sreg_tid_z())
#define get_group_id(d) ((d) == 0 ? __nvvm_read_ptx_sreg_ctaid_x() : (d) == 1 ? __nvvm_read_ptx_sreg_ctaid_y() : __nvvm_read_ptx_sreg_ctaid_z())
#define get_local_size(d) ((d) == 0 ? __nvvm_read_ptx_sreg_ntid_x() : (d) == 1 ? __nvvm_read_ptx_sreg_ntid_y() : __nvvm_read_ptx_sreg_ntid_z())
#define get_num_groups(d) ((d) == 0 ? __nvvm_read_ptx_sreg_nctaid_x() : (d) == 1 ? __nvvm_read_ptx_sreg_nctaid_y() : __nvvm_read_ptx_sreg_nctaid_z())
#define get_global_id(d) (get_group_id(d) * get_local_size(d) + get_local_id(d))
#define get_global_size(d) (get_num_groups(d) * get_local_size(d))
#define barrier(flags) __syncthreads()
#define rsqrt(x) __nvvm_rsqrt_approx_f(x)
#define native_rsqrt(x) __nvvm_rsqrt_approx_f(x)
#define sqrt(x) __nvvm_sqrt_rn_f(x)
#define fabs(x) __builtin_fabsf(x)
#define mad(a, b, c) __nvvm_fma_rn_f((a), (b), (c))
#define fma(a, b, c) __nvvm_fma_rn_f((a), (b), (c))
#define atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define atomic_inc(p) __atomic_fetch_add((p), 1, __ATOMIC_RELAXED)
