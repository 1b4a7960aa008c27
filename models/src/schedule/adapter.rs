//! PTX → scheduler input: the instructions of every basic block of a kernel's CFG as
//! [`SchedInst`]s (unit class, registers written and read, latency from the device).
//!
//! Classification goes through `kerncast_passes::classify`, the same table the counters use, so
//! the scheduler and the counts agree on what each instruction is. Memory accesses go to the LSU
//! with a `global` / `shared` tag; their latency is set by the schedule model per launch (the
//! global-latency regression) — here it is left 0. Operand roles: the first operand is the
//! destination except for instructions that write no register (stores, reductions, branches,
//! barriers, fences, calls, exits, `cp`, `stmatrix`, `wmma.store`), whose operands are all
//! sources; the guard predicate is a source. A latency key missing from the device is an error
//! naming `latency.<key>`.

use super::{classify_op, mem_key};
use crate::device::{Device, DeviceError};
use crate::sched_inst::{MemOrder, SchedInst, UnitClass};
use kerncast_passes::cfg::Cfg;
use kerncast_passes::classify::{is_cta_barrier, mem_access, op_feature};
use kerncast_passes::ptx::{AddrBase, Inst, Operand};
use kerncast_passes::stats::{Dir, Space};
use std::collections::BTreeMap;

const NO_DST: &[&str] = &[
    "st",
    "red",
    "bra",
    "brx",
    "bar",
    "barrier",
    "ret",
    "exit",
    "membar",
    "fence",
    "prefetch",
    "prefetchu",
    "trap",
    "brkpt",
    "call",
    "nanosleep",
    "pmevent",
    "cp",
    "stmatrix",
];

fn regs(op: &Operand, out: &mut Vec<String>) {
    for leaf in op.leaves() {
        if let Operand::Reg(r)
        | Operand::Addr {
            base: AddrBase::Reg(r),
            ..
        } = leaf
        {
            out.push(r.clone());
        }
    }
}

/// The registers an instruction writes and those it reads (its guard among them).
pub fn operand_regs(inst: &Inst) -> (Vec<String>, Vec<String>) {
    let (mut dst, mut src) = (Vec::new(), Vec::new());
    // `wmma.store.d… [p], r, ldm` writes memory only (opcode `wmma`, like `wmma.load`, which
    // writes its fragment)
    let wmma_store = inst.opcode == "wmma" && inst.has_modifier("store");
    let writes = !NO_DST.contains(&inst.opcode.as_str()) && !wmma_store;
    for (i, op) in inst.operands.iter().enumerate() {
        if i == 0 && writes {
            regs(op, &mut dst);
        } else {
            regs(op, &mut src);
        }
    }
    if let Some(g) = &inst.pred {
        src.push(g.reg.clone());
    }
    (dst, src)
}

/// One instruction for the scheduler.
pub fn sched_inst(inst: &Inst, d: &Device) -> Result<SchedInst, DeviceError> {
    let (dst, src) = operand_regs(inst);
    let (class, latency, mem, key) = if let Some((space, _dir, _bits, _nc)) = mem_access(inst) {
        let k = mem_key(space).to_string();
        (UnitClass::Lsu, 0, k.clone(), k)
    } else {
        let (kind, ty) = op_feature(inst).unwrap_or((
            kerncast_passes::stats::OpKind::Other,
            kerncast_passes::stats::DType::None,
        ));
        let (class, key) = classify_op(kind, ty);
        let l = d.latency(key, "schedule")?;
        (class, l.ceil() as u32, String::new(), key.to_string())
    };
    Ok(SchedInst {
        class,
        dst,
        src,
        latency,
        mem,
        key,
        order: mem_order(inst),
        cta_barrier: is_cta_barrier(inst),
    })
}

/// The instruction's part in the order of global accesses ([`MemOrder`]).
fn mem_order(inst: &Inst) -> MemOrder {
    if matches!(inst.opcode.as_str(), "bar" | "barrier" | "membar" | "fence") {
        return MemOrder::Barrier;
    }
    let Some((space, dir, _, nc)) = mem_access(inst) else {
        return MemOrder::Free;
    };
    if matches!(space, Space::Shared | Space::Const | Space::Param) {
        return MemOrder::Free;
    }
    let ordered = ["volatile", "acquire", "relaxed", "mmio"]
        .iter()
        .any(|m| inst.has_modifier(m));
    match dir {
        // `cp.async` writes shared memory, no register: nothing waits on it as on a load
        Dir::Load if inst.opcode == "cp" => MemOrder::Free,
        Dir::Load if ordered => MemOrder::Fence,
        Dir::Load if nc => MemOrder::ReadOnlyLoad,
        Dir::Load => MemOrder::Load,
        Dir::Store | Dir::Atomic => MemOrder::Fence,
    }
}

/// Every block of the CFG, by block index (the index `BoundStats::block_execs` uses).
pub fn blocks_from_cfg(
    cfg: &Cfg,
    d: &Device,
) -> Result<BTreeMap<usize, Vec<SchedInst>>, DeviceError> {
    cfg.blocks
        .iter()
        .map(|b| {
            let v = b
                .insts
                .iter()
                .map(|i| sched_inst(i, d))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((b.id, v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kerncast_passes::ptx::Module;

    const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry add1(.param .u64 a, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra $L_end;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.f32 %f1, [%rd2];
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd2], %f2;
$L_end:
    ret;
}
"#;

    /// The first kernel of `text`, instruction by instruction, with the K20's latencies.
    fn k20_insts(text: &str) -> Vec<SchedInst> {
        let m = Module::parse(text).unwrap();
        let f = m.kernels().next().unwrap();
        let d = Device::load("k20").unwrap();
        f.instructions()
            .map(|i| sched_inst(i, &d).unwrap())
            .collect()
    }

    #[test]
    fn blocks_of_a_small_kernel() {
        let m = Module::parse(PTX).unwrap();
        let f = m.kernels().next().unwrap();
        let cfg = Cfg::build(f);
        let d = Device::load("k20").unwrap();
        let blocks = blocks_from_cfg(&cfg, &d).unwrap();
        let all: Vec<&SchedInst> = blocks.values().flatten().collect();
        assert_eq!(all.len(), 12);
        let ld = all
            .iter()
            .find(|i| i.mem == "global" && !i.dst.is_empty())
            .unwrap();
        assert_eq!(ld.class, UnitClass::Lsu);
        assert_eq!(ld.dst, vec!["%f1".to_string()]);
        assert_eq!(ld.src, vec!["%rd2".to_string()]);
        let st = all
            .iter()
            .find(|i| i.mem == "global" && i.dst.is_empty())
            .unwrap();
        assert_eq!(st.src, vec!["%rd2".to_string(), "%f2".to_string()]);
        let add = all
            .iter()
            .find(|i| i.dst == vec!["%f2".to_string()])
            .unwrap();
        assert_eq!((add.class, add.latency), (UnitClass::Sp, 9));
        let bra = all
            .iter()
            .find(|i| i.src == vec!["%p1".to_string()] && i.dst.is_empty());
        assert!(bra.is_some(), "guarded branch reads its predicate");
    }

    /// nvcc's PTX for an unrolled FIR leaves each read-only load beside its FMA. The adapter
    /// tags the accesses so that `mlp` can issue the loads together, as ptxas's SASS does
    /// (`LDG.E.CONSTANT` ×4, then `FFMA` ×4): one wait for four loads.
    #[test]
    fn memory_order_tags_let_read_only_loads_issue_together() {
        let text = r#"
.version 7.0
.target sm_80
.address_size 64
.const .align 4 .b8 coef[16];
.visible .entry fir4(.param .u64 x, .param .u64 y)
{
    .reg .f32 %f<13>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.global.nc.f32 %f1, [%rd1];
    ld.const.f32 %f2, [coef];
    fma.rn.f32 %f3, %f2, %f1, 0f00000000;
    ld.global.nc.f32 %f4, [%rd1+4];
    ld.const.f32 %f5, [coef+4];
    fma.rn.f32 %f6, %f5, %f4, %f3;
    ld.global.nc.f32 %f7, [%rd1+8];
    ld.const.f32 %f8, [coef+8];
    fma.rn.f32 %f9, %f8, %f7, %f6;
    ld.global.nc.f32 %f10, [%rd1+12];
    ld.const.f32 %f11, [coef+12];
    fma.rn.f32 %f12, %f11, %f10, %f9;
    st.global.f32 [%rd2], %f12;
    bar.sync 0;
    ld.global.f32 %f1, [%rd2];
    ret;
}
"#;
        let insts = k20_insts(text);
        let orders: Vec<MemOrder> = insts.iter().map(|i| i.order).collect();
        use MemOrder::*;
        assert_eq!(
            orders,
            [
                Free,
                Free,
                ReadOnlyLoad,
                Free,
                Free,
                ReadOnlyLoad,
                Free,
                Free,
                ReadOnlyLoad,
                Free,
                Free,
                ReadOnlyLoad,
                Free,
                Free,
                Fence,
                Barrier,
                Load,
                Free
            ]
        );
        // the four FIR loads wait once; the load after the barrier cannot join them
        let m = crate::mlp::block_mlp(&insts, None);
        assert_eq!((m.loads, m.waits), (5, 2));
    }

    /// `wmma.store` and `cp.async` write no register; `wmma.load` writes its fragment; all of
    /// them are LSU accesses, and the `cp.async` group operations are not.
    #[test]
    fn sm80_memory_instructions() {
        let text = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a)
{
    .reg .b32 %r<20>;
    .reg .f32 %f<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [a];
    cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;
    cp.async.commit_group;
    cp.async.wait_group 0;
    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}, [%rd1], %r3;
    wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, %r3;
    ret;
}
"#;
        let all = k20_insts(text);
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let cp = &all[1];
        assert_eq!((cp.class, cp.mem.as_str()), (UnitClass::Lsu, "global"));
        assert_eq!(cp.dst, Vec::<String>::new());
        assert_eq!(cp.src, s(&["%r1", "%rd1", "%r2"]));
        for group in &all[2..4] {
            assert_ne!(group.class, UnitClass::Lsu);
            assert!(group.mem.is_empty());
        }
        let load = &all[4];
        assert_eq!((load.class, load.mem.as_str()), (UnitClass::Lsu, "global"));
        assert_eq!(load.dst.len(), 8);
        assert_eq!(load.src, s(&["%rd1", "%r3"]));
        let store = &all[5];
        assert_eq!(
            (store.class, store.mem.as_str()),
            (UnitClass::Lsu, "global")
        );
        assert_eq!(store.dst, Vec::<String>::new());
        assert_eq!(store.src.len(), 10);
    }
}
