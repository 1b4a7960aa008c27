//! Which instruction starts which basic block, with the block indices of `crate::cfg`, so the
//! emulator's `block_execs` and the static counter's agree.

use crate::ptx::{Function, Statement};

/// For each instruction index: the basic block it starts, or `usize::MAX`.
pub fn block_starts(f: &Function, ninsts: usize) -> Vec<usize> {
    let mut leader = vec![false; ninsts];
    let mut i = 0usize;
    let mut after_label = false;
    for s in f.statements() {
        match s {
            Statement::Label(_) => after_label = true,
            Statement::Inst(inst) => {
                if i == 0 || after_label {
                    leader[i] = true;
                }
                after_label = false;
                if matches!(inst.opcode.as_str(), "bra" | "ret" | "exit" | "brx") && i + 1 < ninsts
                {
                    leader[i + 1] = true;
                }
                i += 1;
            }
            _ => {}
        }
    }
    let mut next = 0;
    leader
        .iter()
        .map(|l| {
            if *l {
                next += 1;
                next - 1
            } else {
                usize::MAX
            }
        })
        .collect()
}
