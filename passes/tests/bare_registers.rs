//! Registers declared without `%` inside a `{ }` scope, as CUB's and cooperative groups' inline
//! assembly writes them: they are registers to the parser, the emulator and the counter.

use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::{Operand, Statement};
use kerncast_passes::stats::{DType, Feature, Launch, OpKind};

mod common;
use common::{analyze, data_dependent, kernel, workload};

/// Each lane adds its right neighbour's `tid` through `shfl.sync.down` into a scoped `r0`, as
/// `cub::WarpReduce` does, and stores it.
const BODY: &str = "mov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f1, %r1;\n\
    {\n.reg .pred p;\n.reg .f32 r0;\nshfl.sync.down.b32 r0|p, %f1, 1, 31, -1;\n@p add.f32 r0, r0, %f1;\nmov.f32 %f2, r0;\n}\n\
    mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.f32 [%rd4], %f2;\nret;";

#[test]
fn scoped_bare_registers_parse_as_registers() {
    let m = kernel(0, BODY);
    let f = m.kernels().next().unwrap();
    let shfl = f
        .statements()
        .into_iter()
        .find_map(|s| match s {
            Statement::Inst(i) if i.opcode == "shfl" => Some(i.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        shfl.operands[0],
        Operand::Pair(
            Box::new(Operand::Reg("r0".into())),
            Box::new(Operand::Reg("p".into()))
        )
    );
    // and the module prints as it was written
    let again = kerncast_passes::ptx::Module::parse(&m.to_string()).unwrap();
    assert_eq!(again.without_spans(), m.without_spans());
}

#[test]
fn the_emulator_runs_them_and_the_counter_agrees_where_it_can() {
    let m = kernel(0, BODY);
    let (grid, block) = ([1, 1, 1], [64, 1, 1]);
    let r = emu::run_with(
        &m,
        "k",
        &Launch { grid, block },
        &[KernelArg::Buffer(vec![0; 1 << 16])],
        &emu::Options::default(),
    )
    .expect("emulates");
    let out = &r.buffers[&0];
    for t in 0..64u32 {
        let v = f32::from_le_bytes(out[t as usize * 4..t as usize * 4 + 4].try_into().unwrap());
        // lane 31 of a warp has no lane below it to read: p is false and r0 keeps its own value
        let want = if t % 32 == 31 {
            t as f32
        } else {
            (2 * t + 1) as f32
        };
        assert_eq!(v, want, "thread {t}");
    }
    // The shuffle's in-range predicate depends on the lane alone (lane + 1 <= 31): the counter
    // decides it, assumes nothing, and every count equals the emulator's, the guarded add too.
    let ks = analyze(&m, "k", block);
    assert_eq!(
        data_dependent(&ks.assumptions),
        Vec::<String>::new(),
        "{:?}",
        ks.assumptions
    );
    let s = ks.bind(&workload(grid, block, &[])).expect("binds");
    assert_eq!(s.features, r.stats.features);
    let f32_adds = Feature::Op {
        kind: OpKind::AddSub,
        ty: DType::F32,
        gran: kerncast_passes::stats::Granularity::Thread,
    };
    assert_eq!(s.get(&f32_adds), 62.0, "lanes 0..30 of both warps");
}
