//! Which registers hold an address inside a by-value aggregate parameter (a struct passed to a
//! kernel), and where: the one labelling that placing struct fields, finding arrays indexed
//! inside a struct and deciding which of those reads matter all read.

use super::{AddrBase, Function, Inst, Operand, StateSpace};
use std::collections::{BTreeMap, BTreeSet};

/// How far into its parameter a register points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamOffset {
    /// A constant number of bytes from the start (`mov.b64 %rd1, k_param_0; add %rd2, %rd1, 8`).
    Constant(i64),
    /// An offset the body computes (an array inside the struct indexed at run time).
    Computed,
}

/// An address inside the aggregate parameter at position `param`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamAddress {
    pub param: usize,
    pub offset: ParamOffset,
}

impl Function {
    /// Every register that holds an address inside an aggregate parameter, with where it
    /// points. One pass in text order suffices: the compilers that write PTX define a
    /// register before they use it. A load's result is data, never such an address.
    pub fn param_addresses(&self) -> BTreeMap<&str, ParamAddress> {
        let aggregate = |s: &str| {
            self.param_index(s)
                .filter(|&k| self.params[k].is_aggregate())
        };
        let mut held: BTreeMap<&str, ParamAddress> = BTreeMap::new();
        for i in self.instructions() {
            if i.is_load() {
                continue;
            }
            if let Some((d, a)) = address_move(i, &held, &aggregate) {
                held.insert(d, a);
                continue;
            }
            let Some(param) = reads(i).find_map(|r| held.get(r)).map(|a| a.param) else {
                continue;
            };
            let computed = ParamAddress {
                param,
                offset: ParamOffset::Computed,
            };
            for o in writes(i) {
                held.insert(o, computed);
            }
        }
        held
    }

    /// The aggregate parameters whose address the body computes with beyond a constant offset
    /// (`add.s64 %rd2, %rd1, %rd7` on `mov.b64 %rd1, k_param_6`): an array inside a by-value
    /// struct indexed at run time, whose reads [`Function::param_fields`] cannot place.
    pub fn params_read_at_computed_offsets(&self) -> BTreeSet<usize> {
        let held = self.param_addresses();
        let mut out: BTreeSet<usize> = held
            .values()
            .filter(|a| a.offset == ParamOffset::Computed)
            .map(|a| a.param)
            .collect();
        // an address used where it yields no register of its own: stored, or the base of a
        // load from another space
        for i in self.instructions() {
            let param_load = i.is_load() && i.state_space() == Some(StateSpace::Param);
            if param_load || !(i.is_load() || writes(i).next().is_none()) {
                continue;
            }
            out.extend(reads(i).filter_map(|r| held.get(r)).map(|a| a.param));
        }
        out
    }
}

/// A move that keeps an address's offset known: from the parameter's symbol, from a register
/// that holds one, or such a register plus a constant.
fn address_move<'a>(
    i: &'a Inst,
    held: &BTreeMap<&str, ParamAddress>,
    aggregate: &impl Fn(&str) -> Option<usize>,
) -> Option<(&'a str, ParamAddress)> {
    let (d, a) = match (i.opcode.as_str(), i.operands.as_slice()) {
        ("mov", [Operand::Reg(d), Operand::Symbol(s)]) => (
            d,
            ParamAddress {
                param: aggregate(s)?,
                offset: ParamOffset::Constant(0),
            },
        ),
        ("mov", [Operand::Reg(d), Operand::Reg(r)]) => (d, *held.get(r.as_str())?),
        ("add", [Operand::Reg(d), Operand::Reg(r), Operand::Imm(c)]) => {
            let a = *held.get(r.as_str())?;
            let offset = match a.offset {
                ParamOffset::Constant(o) => ParamOffset::Constant(o + c),
                ParamOffset::Computed => ParamOffset::Computed,
            };
            (d, ParamAddress { offset, ..a })
        }
        _ => return None,
    };
    Some((d.as_str(), a))
}

/// The registers an instruction writes: its first operand, unless it writes none.
fn writes(i: &Inst) -> impl Iterator<Item = &str> {
    let none = matches!(
        i.opcode.as_str(),
        "st" | "bra" | "ret" | "exit" | "bar" | "barrier" | "membar" | "fence" | "red" | "prefetch"
    );
    let first = if none { None } else { i.operands.first() };
    first
        .into_iter()
        .flat_map(|o| o.leaves())
        .filter_map(Operand::reg)
}

/// The registers an instruction reads: every operand after the ones it writes, address bases
/// included.
fn reads(i: &Inst) -> impl Iterator<Item = &str> {
    let skip = usize::from(writes(i).next().is_some());
    i.operands.iter().skip(skip).flat_map(|o| {
        o.leaves().into_iter().filter_map(|l| match l {
            Operand::Reg(r)
            | Operand::Addr {
                base: AddrBase::Reg(r),
                ..
            } => Some(r.as_str()),
            _ => None,
        })
    })
}
