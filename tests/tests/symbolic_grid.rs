//! The symbolic counter re-analyses a kernel that reads the grid size for the workload's grid
//! when the symbolic grid leaves a data-dependent assumption (a grid-stride loop), instead of
//! falling back to the emulator.

use kerncast::engine::Counter;
use kerncast::symbolic::SymbolicCounter;

const SRC: &str = r#"
// kerncast: workload n=150 grid=3 block=32
extern "C" __global__ void k(int n, int *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = i;
}
"#;

/// The loop of `SRC` as PTX (guard, then a do-while over the grid stride).
const PTX: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .u32 k_n, .param .u64 k_out)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<8>;\n\
ld.param.u32 %r20, [k_n];\nld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd2, %rd1;\n\
mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.s32 %r4, %r1, %r2, %r3;\n\
mov.u32 %r5, %nctaid.x;\nmul.lo.s32 %r6, %r5, %r2;\nsetp.ge.s32 %p1, %r4, %r20;\n@%p1 bra DONE;\n\
LOOP:\nmul.wide.s32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r4;\n\
add.s32 %r4, %r4, %r6;\nsetp.lt.s32 %p2, %r4, %r20;\n@%p2 bra LOOP;\nDONE:\nret;\n}\n";

#[test]
fn grid_stride_loop_is_counted_symbolically_for_the_workload_grid() {
    let m = kerncast_passes::ptx::Module::parse(PTX).unwrap();
    let sk = kerncast::annotations::scan(SRC).unwrap()[0].clone();
    let p = SymbolicCounter::default().prepare(&m, "k").unwrap();
    for n in [150, 40] {
        let o = [("n".to_string(), n)].into_iter().collect();
        let b = p.bind_spec(&sk.workloads[0], &o, &sk.params).unwrap();
        assert_eq!(b.counter, "symbolic", "{:?}", b.notes);
        let stores = b.stats.sum_where(|f| {
            matches!(
                f,
                kerncast_passes::stats::Feature::Mem {
                    space: kerncast_passes::stats::Space::Global,
                    gran: kerncast_passes::stats::Granularity::Thread,
                    ..
                }
            )
        });
        assert_eq!(stores, n as f64, "one store per element");
    }
}
