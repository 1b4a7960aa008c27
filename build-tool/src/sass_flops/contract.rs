//! Multiplications ptxas contracts into the additions that read them.
//!
//! PTX leaves a `mul` or `add` without a rounding modifier free to be fused (PTX ISA, "Floating
//! Point Instructions: mul": "mul/add sequences with no rounding modifiers may be optimized to
//! use fused-multiply-add instructions"), and ptxas fuses them where clang or NVVM did not: a
//! product with several readers, or one computed outside the loop that reads it. Each addition
//! becomes an FFMA (two FLOPs where Nsight counted one for the FADD) and the multiplication
//! disappears. Probed with ptxas for sm_86:
//! - a product read only by such additions (same type, same flush-to-zero) is fused into each of
//!   them and not computed itself; if anything else reads it (a store, a rounded `add.rn`, a
//!   move), ptxas keeps the FMUL and fuses none;
//! - an addition of two products fuses the first and reads the second;
//! - into an addition in another block (a loop reading a product made before it), only when the
//!   product's operands hold no more registers than the product: at most one is a value the
//!   kernel computed, the other an immediate or a kernel parameter (a constant-bank operand).
//!   clenergy-cuda's `gridspacing * 8` and `gridspacing * yindex` are fused into nine additions
//!   in its loop: 52 FP32 FLOPs an iteration measured, 43 without this rule.

use super::{DefUse, Pos};
use kerncast_passes::ptx::{Inst, Operand, PtxType};
use std::collections::BTreeSet;

/// What ptxas fuses in one function.
#[derive(Debug, Default)]
pub(super) struct Contracted {
    /// Additions that become FFMA/DFMA.
    pub fused_adds: BTreeSet<Pos>,
    /// Multiplications fused into every reader, so never computed.
    pub gone_muls: BTreeSet<Pos>,
}

/// The rounding and flush modifiers that decide whether two instructions may be fused.
fn rounding(inst: &Inst) -> Option<bool> {
    let mut ftz = false;
    for m in &inst.modifiers {
        match m.as_str() {
            "ftz" => ftz = true,
            // a rounded or saturated operation is computed as written
            _ => return None,
        }
    }
    Some(ftz)
}

/// `mul.f32`/`mul.f64` (or `add`/`sub`) free to be fused: no guard, no rounding modifier.
fn contractable(inst: &Inst, opcodes: &[&str]) -> Option<(PtxType, bool)> {
    if inst.pred.is_some() || !opcodes.contains(&inst.opcode.as_str()) {
        return None;
    }
    let ty = match inst.types.as_slice() {
        [t @ (PtxType::F32 | PtxType::F64)] => *t,
        _ => return None,
    };
    Some((ty, rounding(inst)?))
}

fn reg(o: &Operand) -> Option<&str> {
    match o {
        Operand::Reg(r) => Some(r.as_str()),
        _ => None,
    }
}

impl Contracted {
    pub(super) fn of(du: &DefUse) -> Contracted {
        let at = |p: Pos| du.at(p);
        let (defs, uses) = (&du.defs, &du.uses);
        // a register the kernel computes, not a parameter read from the constant bank
        let computed = |o: &Operand| match reg(o) {
            None => false,
            Some(r) => !defs.get(r).is_some_and(|ds| {
                ds.iter().all(|p| {
                    at(*p).opcode == "ld" && at(*p).modifiers.first().is_some_and(|m| m == "param")
                })
            }),
        };
        // the products every reader of which may fuse them
        let mut candidates: BTreeSet<Pos> = BTreeSet::new();
        for (&r, ds) in defs {
            let [m] = ds.as_slice() else { continue };
            let mul = at(*m);
            let Some(kind) = contractable(mul, &["mul"]) else {
                continue;
            };
            let Some(readers) = uses.get(r) else { continue };
            let cheap = mul.operands.iter().skip(1).filter(|o| computed(o)).count() <= 1;
            let fusable = readers.iter().all(|p| {
                contractable(at(*p), &["add", "sub"]) == Some(kind) && (p.0 == m.0 || cheap)
            });
            if fusable {
                candidates.insert(*m);
            }
        }
        // each addition fuses its first candidate product; a product some addition reads
        // without fusing it is computed after all, and fused nowhere
        let product = |o: &Operand| -> Option<Pos> {
            let [d] = defs.get(reg(o)?)?.as_slice() else {
                return None;
            };
            Some(*d)
        };
        let adds: BTreeSet<Pos> = candidates
            .iter()
            .flat_map(|m| {
                let r = super::dest(at(*m)).unwrap_or_default();
                uses.get(r).into_iter().flatten().copied()
            })
            .collect();
        loop {
            let mut dropped = false;
            for a in &adds {
                let operands: Vec<Pos> = at(*a)
                    .operands
                    .iter()
                    .skip(1)
                    .filter_map(product)
                    .filter(|m| candidates.contains(m))
                    .collect();
                if let [_, second, ..] = operands.as_slice() {
                    if second != &operands[0] {
                        dropped |= candidates.remove(second);
                    }
                }
            }
            if !dropped {
                break;
            }
        }
        let fused_adds = adds
            .into_iter()
            .filter(|a| {
                at(*a)
                    .operands
                    .iter()
                    .skip(1)
                    .filter_map(product)
                    .any(|m| candidates.contains(&m))
            })
            .collect();
        Contracted {
            fused_adds,
            gone_muls: candidates,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{count, FlopTable, SassFlops, SM_86};
    use kerncast_passes::ptx::Module;
    use kerncast_passes::stats::{BlockExecs, BoundStats};

    /// The SASS FLOPs of the kernel `body` (after loading `%f1`..`%f3` and the parameter
    /// `%f4`), its CFG blocks run `threads[b]` times each.
    fn count_blocks(body: &str, threads: &[f64]) -> SassFlops {
        let ptx = format!(
            ".version 8.5\n.target sm_86\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0, .param .f32 k_param_1, .param .u32 k_param_2)\n{{\n\
             .reg .pred %p<3>;\n.reg .f32 %f<20>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n\
             ld.param.u64 %rd1, [k_param_0];\n\
             ld.param.f32 %f4, [k_param_1];\n\
             ld.param.u32 %r1, [k_param_2];\n\
             ld.global.f32 %f1, [%rd1];\n\
             ld.global.f32 %f2, [%rd1+4];\n\
             ld.global.f32 %f3, [%rd1+8];\n\
             {body}\n\
             ret;\n}}\n"
        );
        let m = Module::parse(&ptx).expect("parses");
        let f = m.kernels().next().expect("a kernel");
        let mut s = BoundStats::default();
        for (b, t) in threads.iter().enumerate() {
            s.block_execs.insert(
                b,
                BlockExecs {
                    threads: *t,
                    warps: 1.0,
                },
            );
        }
        count(
            f,
            &s,
            &FlopTable::parse(SM_86).expect("the shipped table parses"),
            None,
        )
    }

    /// A loop of ten trips adding a product made before it; blocks: entry, loop, exit.
    fn product_before_a_loop(product: &str) -> SassFlops {
        let body = format!(
            "{product}\n\
             mov.u32 %r2, 0;\n\
             mov.f32 %f9, %f3;\n\
             $L1:\n\
             add.f32 %f9, %f9, %f5;\n\
             add.s32 %r2, %r2, 1;\n\
             setp.lt.s32 %p1, %r2, %r1;\n\
             @%p1 bra $L1;\n\
             st.global.f32 [%rd1], %f9;"
        );
        count_blocks(&body, &[1.0, 10.0, 1.0])
    }

    #[test]
    fn a_product_read_only_by_additions_is_fused_into_each() {
        let c = count_blocks(
            "mul.f32 %f5, %f1, %f2;\n\
             add.f32 %f6, %f5, %f3;\n\
             sub.f32 %f7, %f3, %f5;\n\
             st.global.f32 [%rd1], %f6;\n\
             st.global.f32 [%rd1+4], %f7;",
            &[1.0],
        );
        // two FFMAs, no FMUL (ptxas sm_86)
        assert_eq!(c.f32, 4.0, "{c:?}");
        assert_eq!(c.ptx_f32, 3.0);
    }

    #[test]
    fn a_product_read_otherwise_too_or_by_a_rounded_add_is_not_fused() {
        // FMUL and FADD: the product is stored too
        let stored = count_blocks(
            "mul.f32 %f5, %f1, %f2;\n\
             add.f32 %f6, %f5, %f3;\n\
             st.global.f32 [%rd1], %f6;\n\
             st.global.f32 [%rd1+4], %f5;",
            &[1.0],
        );
        assert_eq!(stored.f32, 2.0, "{stored:?}");
        // add.rn, or a flush-to-zero difference, forbids the fusion
        for add in ["add.rn.f32", "add.ftz.f32"] {
            let c = count_blocks(
                &format!(
                    "mul.f32 %f5, %f1, %f2;\n\
                     {add} %f6, %f5, %f3;\n\
                     st.global.f32 [%rd1], %f6;"
                ),
                &[1.0],
            );
            assert_eq!(c.f32, 2.0, "{add}: {c:?}");
        }
    }

    #[test]
    fn an_addition_of_two_products_fuses_one() {
        let c = count_blocks(
            "mul.f32 %f5, %f1, %f2;\n\
             mul.f32 %f6, %f3, %f4;\n\
             add.f32 %f7, %f5, %f6;\n\
             st.global.f32 [%rd1], %f7;",
            &[1.0],
        );
        // FMUL and FFMA (ptxas sm_86)
        assert_eq!(c.f32, 3.0, "{c:?}");
    }

    #[test]
    fn a_product_before_a_loop_is_fused_into_it_only_when_it_holds_no_more_registers() {
        // one computed operand and an immediate, or one and a parameter: an FFMA each trip
        for product in ["mul.f32 %f5, %f1, 0f41000000;", "mul.f32 %f5, %f4, %f1;"] {
            let c = product_before_a_loop(product);
            assert_eq!(c.f32, 20.0, "{product}: {c:?}");
            assert_eq!(c.ptx_f32, 11.0);
        }
        // two computed operands: FMUL before the loop, FADD in it
        let c = product_before_a_loop("mul.f32 %f5, %f1, %f2;");
        assert_eq!(c.f32, 11.0, "{c:?}");
    }
}
