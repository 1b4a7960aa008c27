//! `kerncast ptx`: a per-kernel static summary of a PTX module (instruction counts per opcode
//! family, declared registers, shared/local memory, parameters, `.loc` coverage), as text or JSON.
//! Also home of the two helpers every PTX-reading subcommand shares: [`load`] (read or lower a
//! file), [`parse_named`] (parse, with malformed PTX rendered by miette with a caret) and
//! [`parse_for_analysis`] (parse and inline device-function calls).

pub use crate::error::render as render_report;
use crate::error::PtxSyntaxError;
use crate::lower::{self, LowerArgs, SourceKind};
use crate::Error;
use kerncast_passes::ptx::{self, Function, Inst, Module, StateSpace};
use miette::NamedSource;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PTX file, or a source file (.cu, .cl, .ll, .bc) lowered first.
    pub file: PathBuf,
    /// Only this kernel (or device function).
    #[arg(long)]
    pub kernel: Option<String>,
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub lower: LowerArgs,
}

/// Reads a `.ptx` file, or lowers a source file to PTX. Returns a display name and the PTX text.
pub fn load(file: &Path, lower_args: &LowerArgs) -> crate::Result<(String, String)> {
    let name = file.display().to_string();
    if SourceKind::of(file) == Some(SourceKind::Ptx) || SourceKind::of(file).is_none() {
        let text = std::fs::read_to_string(file)
            .map_err(|e| Error::Input(format!("{name}: cannot read: {e}")))?;
        return Ok((name, text));
    }
    let lowered =
        lower::lower_file(file, &lower_args.options()).map_err(|e| Error::Lower(e.to_string()))?;
    Ok((format!("{name} (via {})", lowered.frontend), lowered.ptx))
}

/// Parses and verifies PTX text ([`ptx::verify`]: what ptxas would reject); an error becomes a
/// [`PtxSyntaxError`] naming `name`, line and column.
pub fn parse_named(name: &str, text: &str) -> crate::Result<Module> {
    ptx::parse(text)
        .and_then(|m| ptx::verify(&m).map(|()| m))
        .map_err(|e| {
            let len = e.span.end.saturating_sub(e.span.start).max(1);
            Error::from(PtxSyntaxError {
                file: name.to_string(),
                line: e.span.line,
                col: e.span.col,
                message: e.message.clone(),
                src: NamedSource::new(name, text.to_string()),
                at: (
                    e.span.start.min(text.len()),
                    len.min(text.len() - e.span.start.min(text.len())),
                )
                    .into(),
            })
        })
}

/// Parses PTX text for analysis: device-function calls inlined, and each call that stays a call
/// reported on stderr (its callee's work is not counted).
pub fn parse_for_analysis(name: &str, text: &str) -> crate::Result<Module> {
    let inlined = kerncast_passes::inline::inline_calls(&parse_named(name, text)?);
    for c in &inlined.not_inlined {
        eprintln!("note: {name}: {c}");
    }
    Ok(inlined.module)
}

#[derive(Debug, Serialize)]
pub struct ModuleSummary {
    pub version: Option<String>,
    pub target: Vec<String>,
    pub address_size: Option<u32>,
    pub functions: Vec<FunctionSummary>,
}

#[derive(Debug, Serialize)]
pub struct FunctionSummary {
    pub name: String,
    /// `entry` or `func`.
    pub kind: &'static str,
    pub params: Vec<ParamSummary>,
    /// Registers declared per type (`.reg .f32 %f<5>` counts 5).
    pub registers: BTreeMap<String, u32>,
    pub shared_bytes: u64,
    /// Unsized (`extern __shared__`) arrays the kernel names, sized by the launch.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dynamic_shared: Vec<String>,
    pub local_bytes: u64,
    /// Tuning directives (`maxntid` → `256 1 1`).
    pub tuning: BTreeMap<String, String>,
    pub instructions: usize,
    pub families: BTreeMap<String, usize>,
    pub loc: LocCoverage,
}

#[derive(Debug, Serialize)]
pub struct ParamSummary {
    pub name: String,
    /// Declaration without the name, e.g. `.u64` or `.align 8 .b8[16]`.
    pub ty: String,
}

#[derive(Debug, Serialize)]
pub struct LocCoverage {
    pub with_loc: usize,
    pub total: usize,
    /// Distinct (file, line) pairs the instructions map to.
    pub source_lines: usize,
    pub files: Vec<String>,
}

/// Opcode family: memory operations by state space (`ld.global`, `st.shared`, `atom.generic`),
/// everything else by base opcode.
pub fn family(i: &Inst) -> String {
    match i.opcode.as_str() {
        "ld" | "ldu" | "st" | "atom" | "red" | "prefetch" | "prefetchu" => {
            let sp = i.state_space().map_or("generic", StateSpace::as_str);
            format!("{}.{sp}", i.opcode)
        }
        _ => i.opcode.clone(),
    }
}

fn summarize_function(m: &Module, f: &Function) -> FunctionSummary {
    let params = f
        .params
        .iter()
        .map(|p| {
            let mut d = p.clone();
            d.name = String::new();
            let full = d.to_string();
            let ty = full
                .trim_start_matches(".param")
                .trim_start_matches(".reg")
                .trim()
                .to_string();
            ParamSummary {
                name: p.name.clone(),
                ty: ty.replace("  ", " "),
            }
        })
        .collect();
    let mut registers = BTreeMap::new();
    for r in f.reg_decls() {
        *registers.entry(format!(".{}", r.ty.as_str())).or_insert(0) +=
            r.count.unwrap_or(1) * r.vector.unwrap_or(1);
    }
    let local_bytes = f
        .var_decls()
        .filter(|d| d.space == StateSpace::Local)
        .map(|d| d.size_bytes().unwrap_or(0))
        .sum();
    let tuning = f
        .perf
        .iter()
        .map(|p| {
            let vals: Vec<String> = p
                .values
                .iter()
                .map(u64::to_string)
                .chain(p.strings.iter().map(|s| format!("{s:?}")))
                .collect();
            (p.name.clone(), vals.join(" "))
        })
        .collect();
    let mut families = BTreeMap::new();
    let mut total = 0;
    let mut with_loc = 0;
    let mut lines = BTreeSet::new();
    let mut files = BTreeSet::new();
    for i in f.instructions() {
        total += 1;
        *families.entry(family(i)).or_insert(0) += 1;
        if let Some(l) = &i.loc {
            // `.loc N 0 0` marks compiler-generated code with no source line.
            if l.line != 0 {
                with_loc += 1;
                lines.insert((l.file_index, l.line));
                files.insert(
                    m.file_name(l.file_index)
                        .map(short_name)
                        .unwrap_or_else(|| format!("#{}", l.file_index)),
                );
            }
        }
    }
    let shared = m.kernel_shared(f);
    FunctionSummary {
        name: f.name.clone(),
        kind: if f.is_entry { "entry" } else { "func" },
        params,
        registers,
        shared_bytes: shared.static_bytes,
        dynamic_shared: shared.dynamic,
        local_bytes,
        tuning,
        instructions: total,
        families,
        loc: LocCoverage {
            with_loc,
            total,
            source_lines: lines.len(),
            files: files.into_iter().collect(),
        },
    }
}

/// File name without directories, so summaries do not depend on where the PTX was lowered.
fn short_name(p: &str) -> String {
    p.rsplit(['/', '\\']).next().unwrap_or(p).to_string()
}

/// Summaries of the functions with bodies (only `kernel` when given).
pub fn summarize(m: &Module, kernel: Option<&str>) -> Result<ModuleSummary, String> {
    let defined: Vec<&Function> = m.functions.iter().filter(|f| !f.is_declaration).collect();
    let chosen: Vec<&Function> = match kernel {
        Some(k) => {
            let v: Vec<&Function> = defined.iter().copied().filter(|f| f.name == k).collect();
            if v.is_empty() {
                let names: Vec<&str> = defined.iter().map(|f| f.name.as_str()).collect();
                return Err(format!(
                    "no kernel or function `{k}`; the module defines: {}",
                    names.join(", ")
                ));
            }
            v
        }
        None => defined,
    };
    Ok(ModuleSummary {
        version: m.version.map(|v| format!("{}.{}", v.major, v.minor)),
        target: m.target.clone(),
        address_size: m.address_size,
        functions: chosen
            .into_iter()
            .map(|f| summarize_function(m, f))
            .collect(),
    })
}

/// The JSON view (pretty, keys in a fixed order).
pub fn render_json(m: &Module, kernel: Option<&str>) -> Result<String, String> {
    let s = summarize(m, kernel)?;
    serde_json::to_string_pretty(&s)
        .map(|j| j + "\n")
        .map_err(|e| e.to_string())
}

/// The text view.
pub fn render(name: &str, m: &Module, kernel: Option<&str>) -> Result<String, String> {
    use std::fmt::Write;
    let s = summarize(m, kernel)?;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{name}: .version {}, .target {}, .address_size {}",
        s.version.as_deref().unwrap_or("?"),
        s.target.join(","),
        s.address_size.map_or("?".into(), |a| a.to_string())
    );
    for f in &s.functions {
        let _ = writeln!(
            o,
            "\n{} {}",
            if f.kind == "entry" {
                "kernel"
            } else {
                "function"
            },
            f.name
        );
        let _ = writeln!(o, "  params ({}):", f.params.len());
        for p in &f.params {
            let _ = writeln!(o, "    {:<32} {}", p.name, p.ty);
        }
        let nregs: u32 = f.registers.values().sum();
        let regs: Vec<String> = f
            .registers
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        let _ = writeln!(o, "  registers declared: {nregs} ({})", regs.join(", "));
        let dynamic = if f.dynamic_shared.is_empty() {
            String::new()
        } else {
            format!(
                ", dynamic {} (sized by the launch: dynamic_shared_bytes)",
                f.dynamic_shared.join(", ")
            )
        };
        let _ = writeln!(o, "  shared memory: {} B static{dynamic}", f.shared_bytes);
        let _ = writeln!(o, "  local memory: {} B", f.local_bytes);
        for (k, v) in &f.tuning {
            let _ = writeln!(o, "  .{k} {v}");
        }
        let _ = writeln!(o, "  instructions: {} static", f.instructions);
        for (fam, n) in &f.families {
            let _ = writeln!(o, "    {fam:<24} {n:>6}");
        }
        let pct = if f.loc.total == 0 {
            0.0
        } else {
            100.0 * f.loc.with_loc as f64 / f.loc.total as f64
        };
        let _ = writeln!(
            o,
            "  .loc coverage: {}/{} instructions ({pct:.1}%), {} source lines in {}",
            f.loc.with_loc,
            f.loc.total,
            f.loc.source_lines,
            if f.loc.files.is_empty() {
                "no files".to_string()
            } else {
                f.loc.files.join(", ")
            }
        );
    }
    Ok(o)
}

/// The kernel `want` names, as `predict` and `analyze` select it (PTX, demangled or template
/// name: `tiled_sum<128>`, or `tiled_sum` when it has one instantiation), or the only one; the
/// error lists the kernels there are.
pub fn pick_kernel<'m>(m: &'m Module, want: Option<&str>) -> Result<&'m Function, String> {
    let all: Vec<&Function> = m.kernels().collect();
    if want.is_none() && all.len() > 1 {
        let names: Vec<String> = all
            .iter()
            .map(|f| format!("`{}`", crate::pipeline::demangle(&f.name)))
            .collect();
        return Err(format!(
            "the module defines {} kernels ({}); pick one with --kernel",
            all.len(),
            names.join(", ")
        ));
    }
    let entries: Vec<String> = all.iter().map(|f| f.name.clone()).collect();
    let picked = crate::pipeline::select_entries(&entries, want)?;
    if picked.len() > 1 {
        // overloads share a demangled name; their PTX names tell them apart
        return Err(format!(
            "kernel `{}` names {} entries; give one of their PTX names: {}",
            want.unwrap_or_default(),
            picked.len(),
            picked.join(", ")
        ));
    }
    all.into_iter()
        .find(|f| picked.first() == Some(&f.name))
        .ok_or_else(|| "no kernel entry in the PTX".to_string())
}

#[cfg(test)]
mod tests {
    use super::pick_kernel;
    use kerncast_passes::ptx::Module;

    fn module(entries: &[&str]) -> Module {
        let body: String = entries
            .iter()
            .map(|e| format!(".visible .entry {e}()\n{{\nret;\n}}\n"))
            .collect();
        Module::parse(&format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n{body}"
        ))
        .unwrap()
    }

    /// `count` and `emulate` pick a kernel as `predict` does: by PTX, demangled or template
    /// name, the only kernel without a name; whatever is ambiguous is an error that lists the
    /// candidates, never the first of them.
    #[test]
    fn kernels_are_picked_as_predict_picks_them() {
        let pick = |m: &Module, want: Option<&str>| pick_kernel(m, want).map(|f| f.name.clone());
        let one = module(&["_Z3revPfi"]);
        assert_eq!(pick(&one, None).unwrap(), "_Z3revPfi");
        assert_eq!(pick(&one, Some("rev")).unwrap(), "_Z3revPfi");
        let tmpl = module(&["_Z7scale_tILi256EfEvPKT0_PS0_S0_i"]);
        assert_eq!(
            pick(&tmpl, Some("scale_t")).unwrap(),
            "_Z7scale_tILi256EfEvPKT0_PS0_S0_i"
        );
        let two = module(&[
            "_Z7scale_tILi256EfEvPKT0_PS0_S0_i",
            "_Z7scale_tILi128EdEvPKT0_PS0_S0_i",
        ]);
        assert_eq!(
            pick(&two, Some("scale_t<128, double>")).unwrap(),
            "_Z7scale_tILi128EdEvPKT0_PS0_S0_i"
        );
        let err = pick(&two, Some("scale_t")).unwrap_err();
        assert!(err.contains("ambiguous"), "{err}");
        let err = pick(&two, None).unwrap_err();
        assert!(
            err.contains("2 kernels (`scale_t<256, float>`, `scale_t<128, double>`)"),
            "{err}"
        );
        let overloads = module(&["_Z1fPf", "_Z1fPi"]);
        let err = pick(&overloads, Some("f")).unwrap_err();
        assert!(err.contains("_Z1fPf, _Z1fPi"), "{err}");
        assert_eq!(pick(&overloads, Some("_Z1fPi")).unwrap(), "_Z1fPi");
    }
}
