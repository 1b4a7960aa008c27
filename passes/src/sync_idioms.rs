//! Control flow that data decides but a completed run fixes, so the counts need no hint:
//!
//! - a branch to a block that aborts the kernel (`trap`, or `__assertfail`, what `assert` and
//!   cooperative groups' launch checks compile to): a run that completes never takes that side;
//! - a spin-wait: a loop whose only memory accesses poll what other threads write (a `.volatile`,
//!   `.relaxed` or `.acquire` load, or an atomic), as a grid barrier (`grid.sync()`), a flag or a
//!   lock compiles to. Its trip count is how long the others take, not a property of the code;
//!   it is counted as one poll, and the wait is left to the models' notes.
//!
//! Both are still listed as assumptions (`trap.`, `spin.` keys), with their default shown.

use crate::cfg::Cfg;
use crate::classify;
use crate::ptx::{Inst, Operand};
use crate::stats::Space;

/// Whether block `b` aborts the kernel: it runs `trap`, or calls `__assertfail`.
pub fn aborts(cfg: &Cfg, b: usize) -> bool {
    cfg.blocks[b].insts.iter().any(|i| {
        i.opcode == "trap"
            || (i.opcode == "call"
                && i.operands.iter().any(|o| {
                    o.leaves()
                        .iter()
                        .any(|l| matches!(l, Operand::Symbol(s) if s == "__assertfail"))
                }))
    })
}

/// Whether loop `li` is a spin-wait: it has no inner loop, and its memory accesses are all
/// polls, of which it has at least one.
pub fn spin_wait(cfg: &Cfg, li: usize) -> bool {
    let l = &cfg.loops[li];
    if cfg.loops.iter().any(|inner| inner.parent == Some(li)) {
        return false;
    }
    let insts: Vec<&Inst> = l
        .blocks
        .iter()
        .flat_map(|&b| cfg.blocks[b].insts.iter())
        .collect();
    // what the counter counts as a memory access, and calls and texture or surface reads,
    // which it does not describe
    let touches_memory = |i: &Inst| {
        classify::mem_access(i).is_some_and(|(space, ..)| space != Space::Param)
            || matches!(i.opcode.as_str(), "call" | "tex" | "tld4" | "suld" | "sust")
    };
    let polls = |i: &Inst| {
        i.opcode == "atom"
            || (i.opcode == "ld"
                && ["volatile", "relaxed", "acquire"]
                    .iter()
                    .any(|m| i.has_modifier(m)))
    };
    let accesses: Vec<&&Inst> = insts.iter().filter(|i| touches_memory(i)).collect();
    !accesses.is_empty() && accesses.iter().all(|i| polls(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(body: &str) -> Cfg {
        let src = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n.extern .func __assertfail(.param .b64 m);\n.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{{\n.reg .pred %p<4>; .reg .b32 %r<9>; .reg .b64 %rd<9>;\n{body}\n}}\n"
        );
        let m = crate::ptx::parse(&src).unwrap();
        Cfg::build(m.functions.iter().find(|f| f.name == "k").unwrap())
    }

    #[test]
    fn polling_loops_are_spin_waits_and_loops_that_work_are_not() {
        let spin = |poll: &str| {
            cfg(&format!(
                "ld.param.u64 %rd1, [k_param_0];
                 $L_wait:
                 {poll}
                 setp.eq.s32 %p1, %r1, 0;
                 @%p1 bra $L_wait;
                 ret;"
            ))
        };
        for poll in [
            "ld.acquire.gpu.u32 %r1, [%rd1];",
            "ld.volatile.global.u32 %r1, [%rd1];",
            "ld.relaxed.gpu.global.u32 %r1, [%rd1];",
            "atom.global.cas.b32 %r1, [%rd1], 0, 1;",
        ] {
            let c = spin(poll);
            assert_eq!(c.loops.len(), 1, "{poll}");
            assert!(spin_wait(&c, 0), "{poll}");
        }
        // a plain load may be a list walk, and a queue that hands out work stores its results
        assert!(!spin_wait(&spin("ld.global.u32 %r1, [%rd1];"), 0));
        let queue = cfg("ld.param.u64 %rd1, [k_param_0];
             $L_next:
             atom.global.add.u32 %r1, [%rd1], 1;
             mul.wide.u32 %rd2, %r1, 4;
             add.s64 %rd3, %rd1, %rd2;
             st.global.u32 [%rd3], %r1;
             setp.lt.u32 %p1, %r1, 4096;
             @%p1 bra $L_next;
             ret;");
        assert!(!spin_wait(&queue, 0));
    }

    #[test]
    fn a_block_that_traps_or_fails_an_assert_aborts() {
        let c = cfg("ld.param.u32 %r1, [k_param_1];
             setp.ne.s32 %p1, %r1, 0;
             @%p1 bra $L_ok;
             trap;
             $L_ok:
             setp.lt.s32 %p2, %r1, 7;
             @%p2 bra $L_end;
             { .param .b64 m; st.param.b64 [m], 0; call.uni __assertfail, (m); }
             $L_end:
             ret;");
        let aborting: Vec<usize> = (0..c.blocks.len()).filter(|&b| aborts(&c, b)).collect();
        assert_eq!(
            aborting.len(),
            2,
            "{:?}",
            c.blocks.iter().map(|b| b.name()).collect::<Vec<_>>()
        );
        assert!(!aborts(&c, 0));
    }
}
