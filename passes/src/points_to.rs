//! Which module variables a register's value may point into.
//!
//! Why: a global load whose address depends on data makes the emulator's reuse profile of
//! zero-filled buffers wrong, so the L2 model refuses it and counts every sector as a DRAM
//! transfer. But libdevice's `sin`, `cos` and `asin` index small constant tables in global
//! memory (`__cudart_sin_cos_coeffs`, 128 bytes; `__cudart_i2opi_d`, 144 bytes) by a quadrant
//! computed from the argument. Wherever such an index lands, it lands in the table, whose few
//! sectors stay in the L2. Refusing the profile for them put haversine's DRAM bytes at 2.6× the
//! measured.
//!
//! The same holds of a generic access into the thread's own stack frame (the slow path of
//! `sin` keeps its reduction's words there), which reaches no global memory at all.
//!
//! This is a flow-insensitive points-to analysis over a function's registers. A register
//! holds an integer (any value 32 bits wide or narrower, a special register, an immediate, or
//! arithmetic over integers), the address of a known set of module variables plus an integer
//! offset, or anything. Loads of 64-bit values, calls and packed moves give anything. A
//! register defined in several places takes the join of its definitions. So "into these
//! variables" is only said when every definition says it.

use crate::affine::transfer::dests;
use crate::ptx::{AddrBase, Function, Inst, Module, Operand, StateSpace};
use std::collections::{BTreeMap, BTreeSet};

/// What a register may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Points {
    /// An integer, not an address.
    Int,
    /// An address in one of these module variables (names), possibly offset.
    Into(BTreeSet<String>),
    /// Anything: a loaded pointer, a parameter, a value this analysis does not follow.
    Any,
}

impl Points {
    fn join(&self, other: &Points) -> Points {
        match (self, other) {
            (Points::Int, Points::Int) => Points::Int,
            (Points::Into(a), Points::Into(b)) => Points::Into(a.union(b).cloned().collect()),
            _ => Points::Any,
        }
    }

    /// `a + b` (and `a − b` with `subtract`): an address plus an integer stays in its variables.
    fn add(a: &Points, b: &Points, subtract: bool) -> Points {
        match (a, b) {
            (Points::Int, Points::Int) => Points::Int,
            (Points::Into(s), Points::Int) => Points::Into(s.clone()),
            (Points::Int, Points::Into(s)) if !subtract => Points::Into(s.clone()),
            _ => Points::Any,
        }
    }

    /// Any other arithmetic: an integer where every operand is one.
    fn arith<'a>(operands: impl IntoIterator<Item = &'a Points>) -> Points {
        if operands.into_iter().all(|p| *p == Points::Int) {
            Points::Int
        } else {
            Points::Any
        }
    }
}

/// The points-to facts of one function's registers.
pub struct PointsTo {
    regs: BTreeMap<String, Points>,
}

impl PointsTo {
    pub fn new(m: &Module, f: &Function) -> PointsTo {
        // a function's own `.local` arrays too: a generic pointer into its stack frame
        // (`cvta.local` of the depot) reaches no global memory at all
        let vars: BTreeSet<&str> = m
            .globals
            .iter()
            .filter(|g| matches!(g.space, StateSpace::Global | StateSpace::Const))
            .chain(f.var_decls().filter(|d| d.space == StateSpace::Local))
            .map(|g| g.name.as_str())
            .collect();
        let insts: Vec<&Inst> = f.instructions().collect();
        let mut read = BTreeSet::new();
        for i in &insts {
            i.operands.iter().for_each(|o| o.collect_reads(&mut read));
        }
        let mut regs: BTreeMap<String, Points> = BTreeMap::new();
        // Optimistic rounds: a register read before any definition of it is seen contributes
        // nothing yet. What stays unset at the fixed point (read but never defined, or defined
        // only in a cycle of itself) becomes anything, and the rounds run again.
        loop {
            fixed_point(&insts, &mut regs, &vars);
            let unset: Vec<String> = read
                .iter()
                .filter(|r| !regs.contains_key(*r))
                .cloned()
                .collect();
            if unset.is_empty() {
                break;
            }
            regs.extend(unset.into_iter().map(|r| (r, Points::Any)));
        }
        PointsTo { regs }
    }

    /// What register `r` may hold (anything where no instruction defines it, such as a
    /// parameter copied in by a caller).
    pub fn of(&self, r: &str) -> Points {
        self.regs.get(r).cloned().unwrap_or(Points::Any)
    }

    /// The module variables a memory instruction's address can only lie in, where its address
    /// is a register that points into known variables (or is a variable itself).
    pub fn accessed_vars(&self, i: &Inst) -> Option<BTreeSet<String>> {
        i.operands
            .iter()
            .flat_map(Operand::leaves)
            .find_map(|o| match o {
                Operand::Addr {
                    base: AddrBase::Reg(r),
                    ..
                } => match self.of(r) {
                    Points::Into(s) => Some(s),
                    _ => None,
                },
                Operand::Addr {
                    base: AddrBase::Symbol(s),
                    ..
                } => Some(BTreeSet::from([s.clone()])),
                _ => None,
            })
    }
}

/// Applies every instruction until no register's fact changes. Each change only moves a
/// register up the lattice (unset, then Int or Into, a wider Into, Any), so this ends.
fn fixed_point(insts: &[&Inst], regs: &mut BTreeMap<String, Points>, vars: &BTreeSet<&str>) {
    loop {
        let mut changed = false;
        for i in insts {
            let Some(value) = transfer(i, regs, vars) else {
                continue;
            };
            for d in dests(i) {
                let next = match regs.get(&d) {
                    Some(old) => old.join(&value),
                    None => value.clone(),
                };
                if regs.get(&d) != Some(&next) {
                    regs.insert(d, next);
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Bits of the value an instruction writes, where its types say it.
fn dest_bits(i: &Inst) -> Option<u32> {
    let t = i.types.first()?;
    let wide = i.modifiers.iter().any(|m| m == "wide");
    Some(if wide { 2 * t.bits() } else { t.bits() })
}

/// What an operand holds; `None` for a register no definition has reached yet.
fn operand(o: &Operand, regs: &BTreeMap<String, Points>, vars: &BTreeSet<&str>) -> Option<Points> {
    Some(match o {
        Operand::Reg(r) => regs.get(r)?.clone(),
        Operand::Imm(_)
        | Operand::ImmF32(_)
        | Operand::ImmF64(_)
        | Operand::ImmFloat(_)
        | Operand::SpecialReg(_) => Points::Int,
        Operand::Symbol(s) | Operand::SymOffset { name: s, .. } if vars.contains(s.as_str()) => {
            Points::Into(BTreeSet::from([s.clone()]))
        }
        _ => Points::Any,
    })
}

/// What the destination of `i` holds, given what its operands hold; `None` while an operand
/// register has no fact yet.
fn transfer(i: &Inst, regs: &BTreeMap<String, Points>, vars: &BTreeSet<&str>) -> Option<Points> {
    if matches!(i.opcode.as_str(), "setp" | "set") {
        return Some(Points::Int);
    }
    let src: Vec<Points> = i
        .operands
        .iter()
        .skip(1)
        .map(|o| operand(o, regs, vars))
        .collect::<Option<_>>()?;
    let narrow = dest_bits(i).is_some_and(|b| b <= 32);
    Some(match i.opcode.as_str() {
        // a loaded or exchanged 64-bit value may be a pointer
        "ld" | "ldu" | "atom" | "shfl" | "call" | "tex" | "suld" | "vote" | "match" => {
            if narrow {
                Points::Int
            } else {
                Points::Any
            }
        }
        _ if narrow => Points::Int,
        // a packed `{a, b}` source is anything already
        "mov" | "cvta" if src.len() == 1 => src[0].clone(),
        "add" if src.len() == 2 => Points::add(&src[0], &src[1], false),
        "sub" if src.len() == 2 => Points::add(&src[0], &src[1], true),
        "mad" if src.len() == 3 => Points::add(&Points::arith([&src[0], &src[1]]), &src[2], false),
        "selp" if src.len() == 3 => src[0].join(&src[1]),
        "mul" | "shl" | "shr" | "and" | "or" | "xor" | "not" | "neg" | "cvt" | "min" | "max"
        | "rem" | "div" | "abs" | "bfe" | "bfi" | "popc" | "clz" | "brev" => Points::arith(&src),
        _ => Points::Any,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyse(body: &str) -> (Module, PointsTo) {
        let src = format!(
            ".version 8.0\n.target sm_86\n.address_size 64\n\
             .global .align 8 .b8 table[128];\n\
             .global .align 8 .b8 other[64];\n\
             .visible .entry k(.param .u64 k_param_0)\n{{\n{body}\n}}\n"
        );
        let m = Module::parse(&src).expect("parses");
        let p = PointsTo::new(&m, m.kernels().next().unwrap());
        (m, p)
    }

    fn into(names: &[&str]) -> Points {
        Points::Into(names.iter().map(|s| s.to_string()).collect())
    }

    /// libdevice's quadrant lookup: an index computed from a loaded value, scaled and added to
    /// the table's address, stays in the table; a pointer loaded from memory does not.
    #[test]
    fn a_data_index_into_a_table_stays_in_the_table() {
        let (m, p) = analyse(
            ".reg .b32 %r<4>;\n.reg .b64 %rd<12>;\n.reg .f64 %fd<2>;\n\
             ld.param.u64 %rd1, [k_param_0];\n\
             cvta.to.global.u64 %rd2, %rd1;\n\
             ld.global.f64 %fd1, [%rd2];\n\
             cvt.rni.s32.f64 %r1, %fd1;\n\
             and.b32 %r2, %r1, 3;\n\
             mul.wide.u32 %rd3, %r2, 32;\n\
             mov.u64 %rd4, table;\n\
             add.s64 %rd5, %rd4, %rd3;\n\
             ld.global.nc.f64 %fd1, [%rd5+8];\n\
             ld.global.u64 %rd6, [%rd2];\n\
             ld.global.f64 %fd1, [%rd6];\n\
             add.s64 %rd7, %rd5, %rd6;\n",
        );
        assert_eq!(p.of("%rd3"), Points::Int);
        assert_eq!(p.of("%rd5"), into(&["table"]));
        assert_eq!(p.of("%rd2"), Points::Any, "a kernel parameter");
        assert_eq!(p.of("%rd6"), Points::Any, "a loaded 64-bit value");
        assert_eq!(
            p.of("%rd7"),
            Points::Any,
            "a table plus a loaded 64-bit value"
        );
        let lds: Vec<&Inst> = m
            .kernels()
            .next()
            .unwrap()
            .instructions()
            .filter(|i| i.opcode == "ld")
            .collect();
        assert_eq!(
            p.accessed_vars(lds[2]),
            Some(BTreeSet::from(["table".to_string()]))
        );
        assert_eq!(p.accessed_vars(lds[4]), None);
    }

    /// A register set on two paths to two tables may point into either; set to a table on one
    /// and to a parameter's buffer on the other, it may point anywhere.
    #[test]
    fn a_register_defined_twice_takes_both_definitions() {
        let (_, p) = analyse(
            ".reg .pred %p<2>;\n.reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [k_param_0];\n\
             setp.eq.u64 %p1, %rd1, 0;\n\
             mov.u64 %rd2, table;\n\
             @%p1 mov.u64 %rd2, other;\n\
             selp.b64 %rd3, %rd2, %rd1, %p1;\n\
             mov.u64 %rd4, table;\n\
             @%p1 mov.u64 %rd4, %rd1;\n",
        );
        assert_eq!(p.of("%rd2"), into(&["other", "table"]));
        assert_eq!(p.of("%rd3"), Points::Any);
        assert_eq!(p.of("%rd4"), Points::Any);
    }

    /// A pointer stepped in a loop stays in its table: the step's join reaches a fixed point.
    #[test]
    fn a_pointer_stepped_in_a_loop_stays_in_its_table() {
        let (_, p) = analyse(
            ".reg .pred %p<2>;\n.reg .b64 %rd<8>;\n\
             mov.u64 %rd1, table;\n\
             $L_loop:\n\
             add.s64 %rd1, %rd1, 8;\n\
             sub.s64 %rd2, %rd1, %rd1;\n\
             setp.lt.u64 %p1, %rd1, 100;\n\
             @%p1 bra $L_loop;\n",
        );
        assert_eq!(p.of("%rd1"), into(&["table"]));
        assert_eq!(p.of("%rd2"), Points::Any, "the difference of two addresses");
    }
}
