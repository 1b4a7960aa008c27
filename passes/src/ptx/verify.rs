//! A verifier over parsed PTX that rejects what `ptxas` would, before any analysis reads it: an
//! opcode PTX does not have, a memory instruction with an unknown state space or qualifier
//! (once silently a `generic` access), a register no `.reg` declares, a branch to a label the
//! function lacks, and an operand register whose width does not match the instruction's type.
//! Each error carries the line and column of the instruction.
//!
//! Why a pass of its own: the parser reads any `opcode.mod.mod operands;` into one generic form
//! (so it never fails on a PTX version it has not seen), and every analysis matches opcode
//! families; without this pass a typo would be counted as an unknown instruction and predicted.
//! An opcode that PTX has but the analysis does not classify is still valid here: it is counted
//! under `unknown.*` and listed, as before.

use super::error::ParseError;
use super::ir::*;
use std::collections::BTreeSet;

/// Every instruction opcode of the PTX ISA (9.x), without its modifiers.
const OPCODES: &[&str] = &[
    // integer and floating-point arithmetic
    "add",
    "sub",
    "mul",
    "mad",
    "mul24",
    "mad24",
    "sad",
    "div",
    "rem",
    "abs",
    "neg",
    "min",
    "max",
    "popc",
    "clz",
    "bfind",
    "fns",
    "brev",
    "bfe",
    "bfi",
    "szext",
    "bmsk",
    "dp4a",
    "dp2a",
    "addc",
    "subc",
    "madc",
    "fma",
    "rcp",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "lg2",
    "ex2",
    "tanh",
    "copysign",
    "testp",
    // comparison, selection, logic, shifts
    "set",
    "setp",
    "selp",
    "slct",
    "and",
    "or",
    "xor",
    "not",
    "cnot",
    "lop3",
    "shf",
    "shl",
    "shr",
    // data movement and conversion
    "mov",
    "shfl",
    "prmt",
    "ld",
    "ldu",
    "st",
    "prefetch",
    "prefetchu",
    "isspacep",
    "cvta",
    "cvt",
    "cp",
    "multimem",
    "tensormap",
    "mapa",
    "getctarank",
    "ldmatrix",
    "stmatrix",
    "movmatrix",
    "applypriority",
    "discard",
    "createpolicy",
    "alloca",
    "stacksave",
    "stackrestore",
    // textures and surfaces
    "tex",
    "tld4",
    "txq",
    "suld",
    "sust",
    "sured",
    "suq",
    "istypep",
    // control flow
    "bra",
    "brx",
    "call",
    "ret",
    "exit",
    // synchronisation and communication
    "bar",
    "barrier",
    "membar",
    "fence",
    "atom",
    "red",
    "vote",
    "match",
    "activemask",
    "redux",
    "griddepcontrol",
    "elect",
    "mbarrier",
    "nanosleep",
    "clusterlaunchcontrol",
    // matrix and tensor-core
    "wmma",
    "mma",
    "wgmma",
    "tcgen05",
    // miscellaneous
    "trap",
    "brkpt",
    "pmevent",
    "setmaxnreg",
    // video
    "vadd",
    "vsub",
    "vabsdiff",
    "vmin",
    "vmax",
    "vshl",
    "vshr",
    "vmad",
    "vset",
    "vadd2",
    "vsub2",
    "vavrg2",
    "vabsdiff2",
    "vmin2",
    "vmax2",
    "vset2",
    "vadd4",
    "vsub4",
    "vavrg4",
    "vabsdiff4",
    "vmin4",
    "vmax4",
    "vset4",
];

/// Qualifiers a memory instruction (`ld`, `st`, `atom` …) may carry besides its type: state
/// spaces, memory-model semantics and scopes, cache operators, vectors, atomic operations.
/// Anything else there is an unknown state space or qualifier. Qualifiers written with `::`
/// (`L2::cache_hint`, `shared::cta`) are checked by their first part.
const MEMORY_OPS: &[&str] = &["ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu"];
const MEMORY_QUALIFIERS: &[&str] = &[
    // state spaces
    "global",
    "shared",
    "local",
    "const",
    "param",
    "tex",
    // semantics and scopes
    "weak",
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "volatile",
    "mmio",
    "cta",
    "cluster",
    "gpu",
    "sys",
    // cache operators, eviction and prefetch hints
    "nc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "L1",
    "L2",
    "level",
    "unified",
    // vectors
    "v2",
    "v4",
    "v8",
    // atomic operations and their options
    "add",
    "inc",
    "dec",
    "min",
    "max",
    "and",
    "or",
    "xor",
    "exch",
    "cas",
    "noftz",
    "sem",
    // async and bulk forms
    "async",
    "bulk",
    "mbarrier",
    "complete_tx",
    "bytes",
];

/// Instructions whose register operands all have the width of the instruction's type.
const SAME_WIDTH: &[&str] = &[
    "add", "sub", "div", "rem", "min", "max", "neg", "abs", "and", "or", "xor", "not",
];

/// Instructions whose destination is a `.u32` whatever their type (a bit count or position),
/// and whose sources have the type's width: `popc.b64 %r1, %rd1` (PTX ISA, popc, clz, bfind).
const COUNT_TO_U32: &[&str] = &["popc", "clz", "bfind"];

/// Checks every function of `m`; the first problem in text order.
pub fn verify(m: &Module) -> Result<(), ParseError> {
    let opcodes: BTreeSet<&str> = OPCODES.iter().copied().collect();
    let functions: BTreeSet<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    for f in m.functions.iter().filter(|f| !f.is_declaration) {
        let regs = f.reg_decls();
        let reg_type =
            |name: &str| -> Option<PtxType> { regs.iter().find(|d| d.covers(name)).map(|d| d.ty) };
        let labels: BTreeSet<&str> = f
            .statements()
            .into_iter()
            .filter_map(|s| match s {
                Statement::Label(l) => Some(l.name.as_str()),
                _ => None,
            })
            .collect();
        for i in f.instructions() {
            let err = |message: String| Err(ParseError::new(message, i.span));
            if !opcodes.contains(i.opcode.as_str()) {
                return err(format!("unknown instruction `{}`", i.opcode));
            }
            if MEMORY_OPS.contains(&i.opcode.as_str()) {
                for m in &i.modifiers {
                    let head = m.split("::").next().unwrap_or(m);
                    if !MEMORY_QUALIFIERS.contains(&head) {
                        return err(format!(
                            "`{}`: unknown state space or qualifier `.{m}`",
                            i.opcode
                        ));
                    }
                }
            }
            if let Some(g) = &i.pred {
                if reg_type(&g.reg).is_none() {
                    let r = &g.reg;
                    return err(format!("undefined register `{r}` (no `.reg` declares it)"));
                }
            }
            for o in i.operands.iter().flat_map(|o| o.leaves()) {
                let r = match o {
                    Operand::Reg(r)
                    | Operand::Addr {
                        base: AddrBase::Reg(r),
                        ..
                    } => r,
                    _ => continue,
                };
                if reg_type(r).is_none() {
                    return err(format!("undefined register `{r}` (no `.reg` declares it)"));
                }
            }
            match i.opcode.as_str() {
                "bra" | "brx" => {
                    for o in &i.operands {
                        if let Operand::Label(l) | Operand::Symbol(l) = o {
                            if !labels.contains(l.as_str()) {
                                return err(format!("`{}` to undefined label `{l}`", i.opcode));
                            }
                        }
                    }
                }
                "call" => {
                    let callee = i.operands.iter().find_map(|o| match o {
                        Operand::Symbol(s) | Operand::Label(s) => Some(s.as_str()),
                        _ => None,
                    });
                    if let Some(c) = callee {
                        let is_reg = reg_type(c).is_some();
                        if !functions.contains(c) && !is_reg && !labels.contains(c) {
                            return err(format!("`call` to undefined function `{c}`"));
                        }
                    }
                }
                _ => {}
            }
            if let Some(message) = width_mismatch(i, &reg_type) {
                return err(message);
            }
        }
    }
    Ok(())
}

/// An operand register of another width than the instruction's type, where PTX requires the
/// same (`add.f32 %rd1, …` with `%rd1` a `.b64`), or a predicate where a value belongs.
fn width_mismatch(i: &Inst, reg_type: &dyn Fn(&str) -> Option<PtxType>) -> Option<String> {
    let ty = *i.types.first()?;
    let count_to_u32 = COUNT_TO_U32.contains(&i.opcode.as_str());
    if i.types.len() != 1 || !(SAME_WIDTH.contains(&i.opcode.as_str()) || count_to_u32) {
        return None;
    }
    for (k, o) in i.operands.iter().enumerate() {
        let Operand::Reg(r) = o else { continue };
        let Some(rt) = reg_type(r) else { continue };
        let want = if count_to_u32 && k == 0 {
            PtxType::U32
        } else {
            ty
        };
        let pred = |t: PtxType| t == PtxType::Pred;
        if pred(want) != pred(rt) || (!pred(want) && rt.bits() != want.bits()) {
            return Some(format!(
                "`{}.{}`: operand `{r}` is a .{} register (type mismatch)",
                i.opcode,
                ty.as_str(),
                rt.as_str()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(body: &str) -> String {
        format!(
            ".version 9.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{{\n\
             .reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n.reg .f32 %f<2>;\n{body}\nret;\n}}\n"
        )
    }

    fn verdict(body: &str) -> Result<(), String> {
        let m = crate::ptx::parse(&kernel(body)).map_err(|e| format!("parse: {e}"))?;
        verify(&m).map_err(|e| e.to_string())
    }

    #[test]
    fn what_ptxas_rejects_is_rejected_at_its_line() {
        let bad = [
            (
                "frobnicate.u32 %r1, %r2;",
                "10:1: unknown instruction `frobnicate`",
            ),
            (
                "ld.foo.f32 %f1, [%rd1];",
                "unknown state space or qualifier `.foo`",
            ),
            ("add.u32 %r1, %r9, 1;", "undefined register `%r9`"),
            ("add.u32 %q1, %r1, 1;", "undefined register `%q1`"),
            ("@%p7 bra L;", "undefined register `%p7`"),
            ("bra NOWHERE;", "undefined label `NOWHERE`"),
            ("add.u32 %r1, %rd1, 1;", "operand `%rd1` is a .b64 register"),
            (
                "and.pred %p1, %r1, %p0;",
                "operand `%r1` is a .b32 register",
            ),
            ("popc.b64 %rd2, %rd1;", "operand `%rd2` is a .b64 register"),
            ("clz.b64 %r1, %r2;", "operand `%r2` is a .b32 register"),
        ];
        for (body, want) in bad {
            let e = verdict(body).unwrap_err();
            assert!(e.contains(want), "{body}: {e}");
            assert!(
                e.starts_with("10:"),
                "{body}: the line of the instruction: {e}"
            );
        }
    }

    #[test]
    fn valid_ptx_passes_and_the_corpus_verifies() {
        for ok in [
            "ld.global.nc.v2.f32 {%f0, %f1}, [%rd1+8];",
            "ld.shared::cta.u32 %r1, [%rd1];",
            "ld.global.L2::128B.u32 %r1, [%rd1];",
            "atom.global.add.u32 %r1, [%rd1], 1;",
            "mul.wide.u32 %rd1, %r1, 4;",
            "L: add.u32 %r1, %r1, 1; @%p1 bra L;",
            "and.pred %p0, %p1, %p0;",
            "popc.b64 %r1, %rd1;",
            "clz.b32 %r1, %r2;",
            "bfind.u64 %r1, %rd1;",
        ] {
            assert_eq!(verdict(ok), Ok(()), "{ok}");
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut n = 0;
        for dir in [
            "tests/ptx/nvcc",
            "tests/ptx/clang",
            "tests/ptx/llvm",
            "tests/ptx",
        ] {
            let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "ptx") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let m = crate::ptx::parse(&text).unwrap();
                    assert_eq!(verify(&m), Ok(()), "{}", p.display());
                    n += 1;
                }
            }
        }
        assert!(n > 50, "{n} corpus files");
    }
}
