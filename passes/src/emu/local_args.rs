//! OpenCL `__local` kernel arguments. The host gives each one bytes of the block's shared memory
//! (`clSetKernelArg(k, i, bytes, NULL)`) and the kernel receives a shared-memory address, which
//! it uses as the base of `.shared` accesses. In PTX such a parameter is a plain `.u64`, like a
//! global pointer, so the emulator finds them by where their value goes: a 64-bit parameter
//! whose value reaches the address of a `.shared` access that no shared variable is the base of.

use crate::affine::transfer::dests;
use crate::ptx::{AddrBase, Function, Inst, Operand, StateSpace, Statement};
use std::collections::{BTreeMap, BTreeSet};

/// What a register's value may be derived from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    Param(usize),
    /// A variable's address (`mov.u64 %rd, smem`): the access is based on it.
    Symbol,
}

/// Indices of the 64-bit parameters used as the base of shared-memory accesses.
pub fn local_pointer_params(f: &Function) -> Vec<usize> {
    let by_name: BTreeMap<&str, usize> = f
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.ty.bits() == 64 && !p.is_aggregate())
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    let insts: Vec<&Inst> = f
        .statements()
        .into_iter()
        .filter_map(|s| match s {
            Statement::Inst(i) => Some(i),
            _ => None,
        })
        .collect();
    // Flow-insensitive: a register's origins are those of every value written to it, iterated
    // until nothing changes (loops carry pointers around).
    let mut origins: BTreeMap<String, BTreeSet<Origin>> = BTreeMap::new();
    loop {
        let mut changed = false;
        for i in &insts {
            let from = sources(i, &by_name, &origins);
            if from.is_empty() {
                continue;
            }
            for d in dests(i) {
                let set = origins.entry(d).or_default();
                let before = set.len();
                set.extend(from.iter().copied());
                changed |= set.len() != before;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = BTreeSet::new();
    for i in &insts {
        for o in shared_addresses(i) {
            let Operand::Addr {
                base: AddrBase::Reg(r),
                ..
            } = o
            else {
                continue;
            };
            let Some(set) = origins.get(r) else { continue };
            if set.contains(&Origin::Symbol) {
                continue;
            }
            out.extend(set.iter().filter_map(|o| match o {
                Origin::Param(p) => Some(*p),
                Origin::Symbol => None,
            }));
        }
    }
    out.into_iter().collect()
}

/// The address operands of `i` that are in shared memory. A copy between two spaces
/// (`cp.async.ca.shared.global [dst], [src], …`, `cp.async.bulk.global.shared::cta [dst], [src], …`)
/// writes its destination's space first and its source's second, and only that operand is shared;
/// every address of a one-space instruction (`ld.shared`, `st.shared::cta`, `atom.shared`) is.
fn shared_addresses(i: &Inst) -> Vec<&Operand> {
    let spaces: Vec<StateSpace> = i
        .modifiers
        .iter()
        .filter_map(|m| StateSpace::from_name(m))
        .collect();
    let addresses = i
        .operands
        .iter()
        .filter(|o| matches!(o, Operand::Addr { .. }));
    match spaces.as_slice() {
        [StateSpace::Shared] => addresses.collect(),
        [_, _] if i.opcode == "cp" => addresses
            .zip(&spaces)
            .filter(|(_, s)| **s == StateSpace::Shared)
            .map(|(o, _)| o)
            .collect(),
        _ => Vec::new(),
    }
}

/// The origins of the value `i` writes: a parameter it loads, a variable whose address it
/// takes, or those of the registers it reads. A load from memory (other than a parameter's)
/// starts a new value.
fn sources(
    i: &Inst,
    by_name: &BTreeMap<&str, usize>,
    origins: &BTreeMap<String, BTreeSet<Origin>>,
) -> BTreeSet<Origin> {
    let mut out = BTreeSet::new();
    let is_param_load = i.opcode == "ld" && i.modifiers.iter().any(|m| m == "param");
    if matches!(i.opcode.as_str(), "ld" | "ldu" | "atom" | "tex" | "suld") && !is_param_load {
        return out;
    }
    let written = dests(i);
    for o in i.operands.iter().flat_map(|o| o.leaves()) {
        match o {
            Operand::Addr {
                base: AddrBase::Symbol(s),
                ..
            } if is_param_load => {
                if let Some(p) = by_name.get(s.as_str()) {
                    out.insert(Origin::Param(*p));
                }
            }
            Operand::Symbol(_) | Operand::SymOffset { .. } => {
                out.insert(Origin::Symbol);
            }
            Operand::Reg(r) if !written.contains(r) => {
                if let Some(s) = origins.get(r) {
                    out.extend(s.iter().copied());
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(body: &str, params: &str) -> Function {
        let src = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k({params})\n{{\n{body}\n}}\n"
        );
        crate::ptx::parse(&src).unwrap().functions.remove(0)
    }

    #[test]
    fn a_pointer_that_bases_a_shared_access_is_local() {
        // in, out, scratch (local), n; scratch[tid] = in[tid]
        let f = kernel(
            ".reg .b32 %r<3>; .reg .f32 %f<2>; .reg .b64 %rd<8>;
             ld.param.u64 %rd1, [k_param_0];
             ld.param.u64 %rd2, [k_param_2];
             ld.param.u32 %r1, [k_param_3];
             mov.u32 %r2, %tid.x;
             mul.wide.u32 %rd3, %r2, 4;
             add.s64 %rd4, %rd1, %rd3;
             ld.global.f32 %f1, [%rd4];
             add.s64 %rd5, %rd2, %rd3;
             st.shared.f32 [%rd5], %f1;
             ret;",
            ".param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2, .param .u32 k_param_3",
        );
        assert_eq!(local_pointer_params(&f), vec![2]);
    }

    #[test]
    fn the_global_source_of_an_async_copy_is_not_local() {
        // cp.async copies in[i] (a global pointer, operand 1) to scratch (a local pointer,
        // operand 0) and a shared variable: only the destination is shared
        let f = kernel(
            ".reg .b32 %r<4>; .reg .b64 %rd<8>;
             .shared .align 4 .b8 tile[1024];
             ld.param.u64 %rd1, [k_param_0];
             ld.param.u64 %rd2, [k_param_1];
             mov.u32 %r1, %tid.x;
             mul.wide.u32 %rd3, %r1, 4;
             add.s64 %rd4, %rd1, %rd3;
             shl.b32 %r2, %r1, 2;
             mov.u32 %r3, tile;
             add.s32 %r2, %r3, %r2;
             cp.async.ca.shared.global [%r2], [%rd4], 4, 4;
             add.s64 %rd5, %rd2, %rd3;
             cp.async.cg.shared::cta.global [%rd5], [%rd4], 16;
             cp.async.commit_group;
             ret;",
            ".param .u64 k_param_0, .param .u64 k_param_1",
        );
        assert_eq!(local_pointer_params(&f), vec![1]);
    }

    #[test]
    fn an_offset_into_a_shared_variable_is_not_local() {
        // a 64-bit size used as an index into a `__shared__` array: the array is the base
        let f = kernel(
            ".reg .f32 %f<2>; .reg .b64 %rd<6>;
             .shared .align 4 .b8 tile[1024];
             ld.param.u64 %rd1, [k_param_0];
             shl.b64 %rd2, %rd1, 2;
             mov.u64 %rd3, tile;
             add.s64 %rd4, %rd3, %rd2;
             ld.shared.f32 %f1, [%rd4];
             ret;",
            ".param .u64 k_param_0",
        );
        assert_eq!(local_pointer_params(&f), Vec::<usize>::new());
    }
}
