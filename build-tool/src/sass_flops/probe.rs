//! Making a FLOP expansion table: one probe kernel per floating-point PTX form, compiled with
//! ptxas for the architecture and read back with nvdisasm (`kerncast flop-table`).

use super::{Expansion, FlopTable};
use std::collections::BTreeMap;

/// A PTX form to probe: the instruction as written, its source and result types.
struct Form {
    text: String,
    srcs: usize,
    src: &'static str,
    dst: &'static str,
}

fn form(text: &str, srcs: usize, src: &'static str, dst: &'static str) -> Form {
    Form {
        text: text.to_string(),
        srcs,
        src,
        dst,
    }
}

/// Every form the table holds.
fn forms() -> Vec<Form> {
    let mut v = Vec::new();
    for (ty, variants) in [
        (
            "f32",
            &[
                "", ".rn", ".rz", ".rm", ".rp", ".ftz", ".rn.ftz", ".sat", ".rn.sat", ".ftz.sat",
            ][..],
        ),
        ("f64", &["", ".rn", ".rz", ".rm", ".rp"][..]),
    ] {
        for op in ["add", "sub", "mul"] {
            for m in variants {
                v.push(form(&format!("{op}{m}.{ty}"), 2, ty, ty));
            }
        }
    }
    for m in [
        ".rn",
        ".rz",
        ".rm",
        ".rp",
        ".rn.ftz",
        ".rn.sat",
        ".rn.ftz.sat",
    ] {
        v.push(form(&format!("fma{m}.f32"), 3, "f32", "f32"));
        v.push(form(&format!("mad{m}.f32"), 3, "f32", "f32"));
    }
    for m in [".rn", ".rz", ".rm", ".rp"] {
        v.push(form(&format!("fma{m}.f64"), 3, "f64", "f64"));
        v.push(form(&format!("div{m}.f64"), 2, "f64", "f64"));
        v.push(form(&format!("rcp{m}.f64"), 1, "f64", "f64"));
        v.push(form(&format!("sqrt{m}.f64"), 1, "f64", "f64"));
    }
    for m in ["", ".ftz"] {
        for d in [".rn", ".rz", ".rm", ".rp", ".full", ".approx"] {
            v.push(form(&format!("div{d}{m}.f32"), 2, "f32", "f32"));
        }
        for d in [".rn", ".rz", ".rm", ".rp", ".approx"] {
            v.push(form(&format!("rcp{d}{m}.f32"), 1, "f32", "f32"));
            v.push(form(&format!("sqrt{d}{m}.f32"), 1, "f32", "f32"));
        }
        for op in ["rsqrt", "ex2", "lg2", "sin", "cos"] {
            v.push(form(&format!("{op}.approx{m}.f32"), 1, "f32", "f32"));
        }
        v.push(form(&format!("neg{m}.f32"), 1, "f32", "f32"));
        v.push(form(&format!("abs{m}.f32"), 1, "f32", "f32"));
    }
    v.push(form("tanh.approx.f32", 1, "f32", "f32"));
    v.push(form("rcp.approx.ftz.f64", 1, "f64", "f64"));
    v.push(form("rsqrt.approx.f64", 1, "f64", "f64"));
    v.push(form("rsqrt.approx.ftz.f64", 1, "f64", "f64"));
    v.push(form("neg.f64", 1, "f64", "f64"));
    v.push(form("abs.f64", 1, "f64", "f64"));
    for ty in ["f16", "f16x2", "bf16", "bf16x2"] {
        for op in ["add", "sub", "mul"] {
            for m in ["", ".rn", ".ftz", ".rn.ftz", ".sat", ".rn.sat"] {
                if ty.starts_with("bf") && (m.contains("ftz") || m.contains("sat")) {
                    continue;
                }
                v.push(form(&format!("{op}{m}.{ty}"), 2, ty, ty));
            }
        }
        for m in [".rn", ".rn.ftz", ".rn.sat", ".rn.ftz.sat"] {
            if ty.starts_with("bf") && m != ".rn" {
                continue;
            }
            v.push(form(&format!("fma{m}.{ty}"), 3, ty, ty));
        }
        v.push(form(&format!("neg.{ty}"), 1, ty, ty));
        v.push(form(&format!("abs.{ty}"), 1, ty, ty));
    }
    for (text, src, dst) in [
        ("cvt.f32.f16", "f16", "f32"),
        ("cvt.rn.f16.f32", "f32", "f16"),
        ("cvt.f32.bf16", "bf16", "f32"),
        ("cvt.rn.bf16.f32", "f32", "bf16"),
        ("cvt.f64.f16", "f16", "f64"),
        ("cvt.rn.f16.f64", "f64", "f16"),
        ("cvt.f64.f32", "f32", "f64"),
        ("cvt.rn.f32.f64", "f64", "f32"),
        ("cvt.rni.f32.f32", "f32", "f32"),
        ("cvt.rzi.f32.f32", "f32", "f32"),
        ("cvt.rmi.f32.f32", "f32", "f32"),
        ("cvt.rpi.f32.f32", "f32", "f32"),
        ("cvt.rni.f64.f64", "f64", "f64"),
        ("cvt.rzi.f64.f64", "f64", "f64"),
    ] {
        v.push(form(text, 1, src, dst));
    }
    v
}

/// Register declaration, load/store type and byte size of a probe type.
fn reg_of(ty: &str) -> (&'static str, &'static str, u32) {
    match ty {
        "f64" => (".f64", "f64", 8),
        "f16" | "bf16" => (".b16", "b16", 2),
        "f16x2" | "bf16x2" => (".b32", "b32", 4),
        _ => (".f32", "f32", 4),
    }
}

/// The probe kernel: load the operands (so nothing folds), run the instruction (or nothing,
/// for the baseline), store the result.
fn probe_ptx(f: &Form, baseline: bool) -> String {
    let (sdecl, sld, ssz) = reg_of(f.src);
    let (ddecl, dst, _) = reg_of(f.dst);
    let mut loads = String::new();
    for i in 0..f.srcs {
        loads.push_str(&format!(
            "  ld.global.{sld} %s{i}, [%rd1+{}];\n",
            i as u32 * ssz
        ));
    }
    let ops: Vec<String> = (0..f.srcs).map(|i| format!("%s{i}")).collect();
    let body = if baseline {
        // the same loads, and the first operand stored as it is
        if f.src == f.dst {
            "  mov.b".to_string() + &reg_of(f.dst).0[2..] + " %d0, %s0;\n"
        } else {
            String::new()
        }
    } else {
        format!("  {} %d0, {};\n", f.text, ops.join(", "))
    };
    let store = if baseline && f.src != f.dst {
        format!("  st.global.{sld} [%rd2], %s0;\n")
    } else {
        format!("  st.global.{dst} [%rd2], %d0;\n")
    };
    format!(
        ".version 8.5\n.target {{arch}}\n.address_size 64\n\
         .visible .entry probe(.param .u64 a, .param .u64 b)\n{{\n\
         \x20 .reg {sdecl} %s<4>;\n  .reg {ddecl} %d<2>;\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<2>;\n\
         \x20 ld.param.u64 %rd1, [a];\n  ld.param.u64 %rd2, [b];\n  mov.u32 %r1, %tid.x;\n\
         \x20 mul.wide.u32 %rd3, %r1, 16;\n  add.s64 %rd1, %rd1, %rd3;\n  add.s64 %rd2, %rd2, %rd3;\n\
         {loads}{body}{store}  ret;\n}}\n"
    )
}

/// Counts of the floating-point SASS of the entry's fast path: (FP32, FP64, half FLOPs per
/// instruction, the instructions for the record). Predicated instructions (`@P0`, `@!P0`; not
/// `@PT`) and out-of-line subroutines are left out.
pub fn fast_path_flops(sass: &str) -> (f64, f64, f64, Vec<String>) {
    let (mut f32, mut f64, mut f16) = (0.0, 0.0, 0.0);
    let mut seen = Vec::new();
    for line in sass.lines() {
        let t = line.trim();
        // the entry comes first; out-of-line subroutines (slow paths) follow it
        if t.contains("$__internal") && (t.starts_with(".type") || t.ends_with(':')) {
            break;
        }
        let Some((guard, op)) = super::in_context::instruction(t) else {
            continue;
        };
        if let Some(g) = guard {
            seen.push(format!("(@{g} {op}): predicated"));
            continue;
        }
        let Some(flops) = super::in_context::opcode_flops(op) else {
            continue;
        };
        f32 += flops.f32;
        f64 += flops.f64;
        f16 += flops.f16;
        seen.push(op.to_string());
    }
    (f32, f64, f16, seen)
}

/// Probes every form for `arch` with `sass` (PTX text → SASS listing), the versions of the
/// tools in `tools`.
pub fn generate(
    arch: &str,
    tools: &str,
    sass: &dyn Fn(&str) -> Result<String, String>,
) -> Result<FlopTable, String> {
    let mut table = BTreeMap::new();
    for f in forms() {
        let run = |baseline: bool| -> Result<(f64, f64, f64, Vec<String>), String> {
            let ptx = probe_ptx(&f, baseline).replace("{arch}", arch);
            sass(&ptx).map(|s| fast_path_flops(&s))
        };
        let (f32, f64, f16, seen) = match run(false) {
            Ok(r) => r,
            // a form this ptxas does not take for the architecture (bf16 before sm_90, …)
            Err(_) => continue,
        };
        let (b32, b64, b16, _) = run(true)?;
        let lanes = if f.src.ends_with("x2") || f.dst.ends_with("x2") {
            2.0
        } else {
            1.0
        };
        let inst = kerncast_passes::ptx::Module::parse(&format!(
            ".version 8.5\n.target {arch}\n.address_size 64\n.visible .entry k()\n{{\n.reg .f32 %f<2>;\n{} %f0, %f1;\nret;\n}}\n",
            f.text
        ))
        .ok()
        .and_then(|m| {
            m.kernels()
                .next()
                .and_then(|k| k.instructions().next().map(super::form_key))
        })
        .unwrap_or_else(|| f.text.clone());
        table.insert(
            inst,
            Expansion {
                f32: f32 - b32,
                f64: f64 - b64,
                f16: (f16 - b16) * lanes,
                sass: seen.join(" "),
            },
        );
    }
    Ok(FlopTable {
        arch: arch.to_string(),
        source: format!(
            "kerncast flop-table --arch {arch}: one probe kernel per PTX form (operands loaded, the instruction, the result stored), compiled with {tools}; FP32 = FADD + FMUL + 2 FFMA, FP64 = DADD + DMUL + 2 DFMA, half = (HADD2 + HMUL2 + 2 HFMA2) per lane, on the path every thread runs (out-of-line slow paths and predicated range fix-ups left out), minus the same kernel without the instruction"
        ),
        forms: table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_path_leaves_out_predicated_instructions_and_the_slow_path() {
        let sass = "\
probe:
.text.probe:
        /*0080*/                   MUFU.RCP R4, R7 ;
        /*00a0*/                   FFMA R5, -R7, R4, 1 ;
        /*00b0*/              @!P0 FMUL R9, R4, R5 ;
        /*00c0*/               @PT FADD R6, R0, R9 ;
        /*00d0*/                   DFMA R8, R2, R4, R6 ;
        /*0120*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;
        .type           $__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath,@function
$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:
        /*0160*/                   FFMA R6, R7, R0, R1 ;
";
        let (f32, f64, f16, seen) = fast_path_flops(sass);
        assert_eq!((f32, f64, f16), (3.0, 2.0, 0.0), "{seen:?}");
    }

    #[test]
    fn probes_load_compute_and_store() {
        let p = probe_ptx(&form("div.rn.f32", 2, "f32", "f32"), false);
        assert!(p.contains("div.rn.f32 %d0, %s0, %s1;"), "{p}");
        assert!(p.contains("st.global.f32 [%rd2], %d0;"), "{p}");
        assert!(kerncast_passes::ptx::Module::parse(&p.replace("{arch}", "sm_86")).is_ok());
        let b = probe_ptx(&form("cvt.f32.f16", 1, "f16", "f32"), true);
        assert!(b.contains("st.global.b16 [%rd2], %s0;"), "{b}");
    }
}
