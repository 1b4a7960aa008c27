//! The floating-point SASS ptxas made from each line of a PTX module, in context: read from
//! `nvdisasm -gp` of a cubin assembled with `ptxas -lineinfo`, which marks every SASS
//! instruction with the PTX line it came from.
//!
//! Why beside the probe table: ptxas does not always make the same code for an instruction in
//! its kernel as in a probe. In haccmk-cuda's loop it scales a non-ftz `sqrt.approx`
//! unconditionally, where the probe scales behind a predicate; in ace-cuda it materialises each
//! stored negation with a `DADD` credited to the store's line; in hexciton-cuda's kernels it
//! leaves out part of what the table counts (0.15 % of their FLOPs, as Nsight measured them).
//! Counted on the kernel's own SASS, these are what Nsight counts. The symbolic counts stay on
//! PTX blocks: a line's FLOPs per copy are weighted by its PTX instruction's executions, so
//! closed forms still apply at any size.
//!
//! Copies: where ptxas unrolls a loop or duplicates a block, a line's SASS appears several
//! times, each copy running a share of the line's executions. A line's FLOPs per execution are
//! its SASS's FLOPs over its copies: the `MUFU`s of a division, root or special function (one
//! per copy of its expansion), else its floating-point instructions (a simple operation is one
//! per copy).
//!
//! As the probe table does, a predicated instruction inside a division's or root's expansion
//! (a range fix-up, off for ordinary data) and the out-of-line slow paths (`$__internal_…`
//! subroutines, which carry no line) are left out. A simple operation ptxas predicated counts
//! only where its PTX instruction has that guard; otherwise its line does not say how often it
//! runs (a value only a select keeps, or a branch ptxas if-converted): the data decides.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// FLOPs by precision: FP32 (FADD + FMUL + 2 × FFMA), FP64 (likewise), half per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Flops {
    pub f32: f64,
    pub f64: f64,
    pub f16: f64,
}

impl Flops {
    fn add(&mut self, o: Flops) {
        self.f32 += o.f32;
        self.f64 += o.f64;
        self.f16 += o.f16;
    }

    fn scaled(self, by: f64) -> Flops {
        Flops {
            f32: self.f32 * by,
            f64: self.f64 * by,
            f16: self.f16 * by,
        }
    }
}

/// The floating-point SASS of one PTX line, over all its copies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LineSass {
    /// FLOPs of its unpredicated instructions.
    pub plain: Flops,
    /// FLOPs of its predicated instructions (`@P0`, `@!P1`).
    pub guarded: Flops,
    /// Its unpredicated floating-point arithmetic instructions.
    pub plain_insts: u32,
    /// Its predicated ones.
    pub guarded_insts: u32,
    /// Its `MUFU` instructions (reciprocal, root, exponential …).
    pub mufu: u32,
    /// Its `FCHK`s: the range check of an FP32 division, one per copy (a division by a
    /// constant has no `MUFU`).
    pub checks: u32,
}

impl LineSass {
    /// FLOPs per execution of the line's PTX instruction, `expansion` when it is a division,
    /// root or special function (whose predicated SASS are range fix-ups), `guarded` when the
    /// PTX instruction has a guard of its own. `None` where the SASS does not say: a simple
    /// operation ptxas predicated although its PTX runs unguarded (a value only a select
    /// keeps, or a branch ptxas if-converted), which runs as the data decides.
    pub fn per_execution(&self, expansion: bool, guarded: bool) -> Option<Flops> {
        if expansion {
            // one reciprocal, root or special-function unit op, or one range check of a
            // division by a constant, per copy
            let anchors = self.mufu.max(self.checks);
            let copies = if anchors > 0 {
                anchors
            } else {
                self.plain_insts
            };
            return Some(self.plain.scaled(1.0 / f64::from(copies.max(1))));
        }
        if self.guarded_insts > 0 && !guarded {
            return None;
        }
        let mut all = self.plain;
        all.add(self.guarded);
        let copies = self.plain_insts + self.guarded_insts;
        Some(all.scaled(1.0 / f64::from(copies.max(1))))
    }
}

/// The floating-point SASS of a module by PTX line (1-based, as the PTX text numbers them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SassLines {
    /// The architecture the SASS is for (`sm_86`).
    pub arch: String,
    pub lines: BTreeMap<u32, LineSass>,
}

/// The FLOPs of one SASS opcode (`FFMA.FTZ`, `DADD`, `HFMA2.MMA`), or `None` when it is no
/// floating-point arithmetic; `MUFU` is arithmetic of no FLOP.
pub fn opcode_flops(op: &str) -> Option<Flops> {
    let base = op.split('.').next().unwrap_or(op);
    let (f32, f64, f16) = match base {
        "FADD" | "FADD32I" | "FMUL" | "FMUL32I" => (1.0, 0.0, 0.0),
        "FFMA" | "FFMA32I" => (2.0, 0.0, 0.0),
        "DADD" | "DMUL" => (0.0, 1.0, 0.0),
        "DFMA" => (0.0, 2.0, 0.0),
        "HADD2" | "HMUL2" | "HADD2_32I" | "HMUL2_32I" => (0.0, 0.0, 1.0),
        "HFMA2" | "HFMA2_32I" => (0.0, 0.0, 2.0),
        "MUFU" => (0.0, 0.0, 0.0),
        _ => return None,
    };
    Some(Flops { f32, f64, f16 })
}

/// A SASS instruction line of `nvdisasm -c`: `(guard, opcode)`, the guard `None` when the
/// instruction always runs (no guard, or `@PT`).
pub(super) fn instruction(line: &str) -> Option<(Option<&str>, &str)> {
    // `/*0040*/   @!P0 FMUL R0, R0, 0.5 ;`
    let rest = line.trim().strip_prefix("/*")?.split_once("*/")?.1;
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    match first.strip_prefix('@') {
        Some(p) => {
            let op = words.next()?;
            let always = matches!(p, "PT" | "UPT");
            Some(((!always).then_some(p), op))
        }
        None => Some((None, first)),
    }
}

/// The PTX line a `//## File ".nv_debug_ptx_txt", line 57` marker names.
fn ptx_line_marker(line: &str) -> Option<u32> {
    let rest = line.trim().strip_prefix("//##")?;
    if !rest.contains(".nv_debug_ptx_txt") {
        return None;
    }
    rest.rsplit_once("line ")?
        .1
        .trim()
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()
}

/// Reads `nvdisasm -gp -c` output (of a cubin ptxas assembled with `-lineinfo` for `arch`).
pub fn parse(listing: &str, arch: &str) -> SassLines {
    let mut lines: BTreeMap<u32, LineSass> = BTreeMap::new();
    let mut current: Option<u32> = None;
    for text in listing.lines() {
        let t = text.trim();
        if let Some(n) = ptx_line_marker(t) {
            current = Some(n);
            continue;
        }
        // a new function: its first instruction is marked again, unless it is an out-of-line
        // slow path, which has no PTX line of its own
        if t.starts_with(".type") || t.starts_with(".section") || t.starts_with("//----") {
            current = None;
            continue;
        }
        let Some(line) = current else { continue };
        let Some((guard, op)) = instruction(t) else {
            continue;
        };
        if op.starts_with("FCHK") {
            lines.entry(line).or_default().checks += 1;
            continue;
        }
        let Some(flops) = opcode_flops(op) else {
            continue;
        };
        let entry = lines.entry(line).or_default();
        if op.starts_with("MUFU") {
            entry.mufu += 1;
            continue;
        }
        match guard {
            Some(_) => {
                entry.guarded_insts += 1;
                entry.guarded.add(flops);
            }
            None => {
                entry.plain_insts += 1;
                entry.plain.add(flops);
            }
        }
    }
    SassLines {
        arch: arch.to_string(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nvdisasm -gp -c` of ptxas 13's sm_86 code for a loop `s += t / (b[i] + j) + t` with
    /// `t = b[i + j] * 3` (PTX lines 54–59), and the start of its division's slow path.
    const LOOP: &str = r#"
        .section	.text._Z1kPfPKfii,"ax",@progbits
.L_x_3:
	//## File ".nv_debug_ptx_txt", line 53
        /*0110*/                   LDG.E R0, [R8.64] ;
	//## File ".nv_debug_ptx_txt", line 56
        /*0150*/                   FADD R11, R6, R3 ;
	//## File ".nv_debug_ptx_txt", line 57
        /*0170*/                   MUFU.RCP R2, R11 ;
        /*0180*/                   FFMA R3, -R11, R2, 1 ;
        /*0190*/                   FFMA R3, R2, R3, R2 ;
	//## File ".nv_debug_ptx_txt", line 54
        /*01a0*/                   FMUL R0, R0, 3 ;
	//## File ".nv_debug_ptx_txt", line 57
        /*01b0*/                   FCHK P0, R0, R11 ;
        /*01c0*/                   FFMA R2, R0, R3, RZ ;
        /*01d0*/                   FFMA R10, -R11, R2, R0 ;
        /*01e0*/                   FFMA R3, R3, R10, R2 ;
        /*01f0*/              @!P0 BRA `(.L_x_2) ;
        /*0210*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;
	//## File ".nv_debug_ptx_txt", line 58
        /*0240*/                   FADD R0, R0, R3 ;
	//## File ".nv_debug_ptx_txt", line 59
        /*0250*/               @P1 FADD R5, R0, R5 ;
        /*0260*/                   IMAD.X R9, RZ, RZ, R9, P0 ;
        .type           $__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath,@function
$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:
        /*0380*/                   FSETP.GTU.FTZ.AND P0, PT, |R0|, +INF , PT ;
        /*0390*/                   FFMA R3, R3, R10, R2 ;
        /*03a0*/              @!P0 FMUL R3, R3, 0.5 ;
"#;

    #[test]
    fn lines_take_their_own_sass_and_slow_paths_none() {
        let s = parse(LOOP, "sm_86");
        assert_eq!(s.arch, "sm_86");
        let keys: Vec<u32> = s.lines.keys().copied().collect();
        assert_eq!(keys, [54, 56, 57, 58, 59], "{s:?}");
        let div = &s.lines[&57];
        assert_eq!((div.mufu, div.plain_insts), (1, 5));
        assert_eq!(div.checks, 1);
        assert_eq!(div.per_execution(true, false).map(|f| f.f32), Some(10.0));
        assert_eq!(
            s.lines[&54].per_execution(false, false).map(|f| f.f32),
            Some(1.0)
        );
        // an add ptxas predicated runs as the data decides, unless its PTX has that guard
        assert_eq!(s.lines[&59].per_execution(false, false), None);
        assert_eq!(
            s.lines[&59].per_execution(false, true).map(|f| f.f32),
            Some(1.0)
        );
    }

    #[test]
    fn copies_of_an_unrolled_line_share_its_executions() {
        let mut listing = String::new();
        for _ in 0..4 {
            listing.push_str(
                "  //## File \".nv_debug_ptx_txt\", line 9\n  /*0010*/  MUFU.RSQ R3, R6 ;\n  /*0020*/  FMUL.FTZ R7, R6, R3 ;\n  /*0030*/  FFMA R0, -R7, R7, R6 ;\n  /*0040*/ @!P0 FMUL R0, R0, 4096 ;\n  //## File \".nv_debug_ptx_txt\", line 10\n  /*0050*/  FFMA R5, R0, R2, R5 ;\n",
            );
        }
        let s = parse(&listing, "sm_86");
        // a root: its predicated range fix-up left out, three FLOPs a copy
        assert_eq!(
            s.lines[&9].per_execution(true, false).map(|f| f.f32),
            Some(3.0)
        );
        assert_eq!(
            s.lines[&10].per_execution(false, false).map(|f| f.f32),
            Some(2.0)
        );
    }

    /// A division by a constant has no reciprocal to compute: its copies are its range checks.
    #[test]
    fn a_division_by_a_constant_counts_a_copy_per_range_check() {
        let copy = "  //## File \".nv_debug_ptx_txt\", line 68\n  /*0490*/  FFMA R3, R12, -R3, 1 ;\n  /*04b0*/  FFMA R3, R3, R12, 0.14285714924335479736 ;\n  /*04c0*/  FCHK P0, R0, 7 ;\n  /*04d0*/  FFMA R12, R0, R3, RZ ;\n  /*04e0*/  FFMA R14, R12, -7, R0 ;\n  /*04f0*/  FFMA R12, R3, R14, R12 ;\n";
        let s = parse(&copy.repeat(4), "sm_86");
        let div = &s.lines[&68];
        assert_eq!((div.mufu, div.checks, div.plain_insts), (0, 4, 20));
        assert_eq!(div.per_execution(true, false).map(|f| f.f32), Some(10.0));
    }

    #[test]
    fn markers_and_guards_read_as_nvdisasm_writes_them() {
        assert_eq!(
            ptx_line_marker("\t//## File \".nv_debug_ptx_txt\", line 1234"),
            Some(1234)
        );
        assert_eq!(ptx_line_marker("//## File \"k.cu\", line 12"), None);
        assert_eq!(
            instruction("/*0040*/   @!P0 FMUL R0, R0, 0.5 ;"),
            Some((Some("!P0"), "FMUL"))
        );
        assert_eq!(
            instruction("/*0050*/   @PT DFMA R0, R2, R4, R6 ;"),
            Some((None, "DFMA"))
        );
        assert_eq!(opcode_flops("HFMA2.MMA").map(|f| f.f16), Some(2.0));
        assert_eq!(opcode_flops("FSETP.GT.AND"), None);
    }
}
