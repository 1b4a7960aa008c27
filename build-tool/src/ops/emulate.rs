//! `kerncast emulate`: run one kernel in the functional PTX emulator on a small, generated input
//! and print what executed (every feature count, block executions) and the mean trips of every
//! loop, as hint lines to paste into kerncast.toml or a `// kerncast: hint` annotation. Why: a
//! data-dependent loop (SpMV's row loop, a while loop) has no static trip count; running the
//! kernel on a representative small input is the honest way to get one.

use super::workload_args::{Flag, WorkloadArgs};
use crate::annotations::SourceKernel;
use crate::lower::LowerArgs;
use crate::param_fields;
use crate::param_fields::scalar_arg;
use crate::workload::Workload;
use crate::Error;
use kerncast_passes::emu::{self, KernelArg};
use kerncast_passes::ptx::{Function, Module};
use kerncast_passes::stats::Launch;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PTX file, or a source file (.cu, .cl, .ll, .bc) lowered first.
    pub file: PathBuf,
    /// Kernel (PTX or source name); default: the module's only kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Bytes of a zero-filled buffer that has no --buffer (default: 16 per thread + 64 KiB).
    #[arg(long)]
    pub default_buffer_bytes: Option<u64>,
    /// Dynamic shared memory per block, bytes: for `extern __shared__` arrays, and for each
    /// OpenCL `__local` argument.
    #[arg(long, default_value_t = 0)]
    pub dynamic_shared: u64,
    /// Seed of the `rand`/`cumsum` generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub lower: LowerArgs,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
pub struct EmulateReport {
    pub kernel: String,
    pub launch: Launch,
    pub params: BTreeMap<String, i64>,
    /// Float parameters as given (`--param a=2.5`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub float_params: BTreeMap<String, f64>,
    /// Feature key (as printed by `Feature`'s Display) → count.
    pub features: BTreeMap<String, f64>,
    /// Block index → (thread executions, warp executions).
    pub block_execs: BTreeMap<usize, (f64, f64)>,
    pub loops: Vec<LoopOut>,
    /// Hint key → mean trips per entry.
    pub hints: BTreeMap<String, f64>,
}

#[derive(Debug, Serialize)]
pub struct LoopOut {
    pub header_block: usize,
    pub ptx_line: u32,
    /// `file:line` of the loop header.
    pub at: Option<String>,
    pub entries: u64,
    pub iterations: u64,
    pub mean_trips: f64,
    pub hint_key: String,
}

/// What `kerncast emulate` prints (text or JSON).
pub fn output(args: &Args) -> crate::Result<String> {
    let (name, text) = super::ptx::load(&args.file, &args.lower)?;
    let m = super::ptx::parse_for_analysis(&name, &text)?;
    let source = std::fs::read_to_string(&args.file).unwrap_or_default();
    let kernels = crate::annotations::scan(&source).unwrap_or_default();
    let report =
        emulate(&m, &kernels, args).map_err(|e| Error::Analysis(format!("{name}: {e}")))?;
    Ok(if args.json {
        serde_json::to_string_pretty(&report).map_err(|e| Error::Output(e.to_string()))? + "\n"
    } else {
        render(&report)
    })
}

/// Run the emulator as the flags say and collect the report.
pub fn emulate(m: &Module, src: &[SourceKernel], args: &Args) -> Result<EmulateReport, String> {
    let f = super::ptx::pick_kernel(m, args.kernel.as_deref())?;
    let dynamic = m.kernel_shared(f).dynamic;
    if !dynamic.is_empty() && args.dynamic_shared == 0 {
        return Err(format!(
            "the kernel uses dynamic shared memory (`extern __shared__` {}); give its bytes per block with --dynamic-shared",
            dynamic.join(", ")
        ));
    }
    let sk = crate::pipeline::source_kernel(src, &f.name);
    let names: Vec<String> = (0..f.params.len())
        .map(|i| {
            sk.and_then(|s| s.params.get(i).cloned())
                .unwrap_or_else(|| f.params[i].name.clone())
        })
        .collect();
    let locals = emu::local_args::local_pointer_params(f);
    if !locals.is_empty() && args.dynamic_shared == 0 {
        let listed: Vec<String> = locals.iter().map(|i| format!("`{}`", names[*i])).collect();
        return Err(format!(
            "{} {} OpenCL `__local` argument{}, sized by the host; give the bytes each gets per block with --dynamic-shared",
            listed.join(", "),
            if locals.len() == 1 { "is an" } else { "are" },
            if locals.len() == 1 { "" } else { "s" }
        ));
    }
    args.workload.refuse("emulate", &[Flag::Hint])?;
    let mut overrides = BTreeMap::new();
    // A float parameter's value runs as given; workloads are integer, so it stays out of them.
    let mut floats: BTreeMap<String, f64> = BTreeMap::new();
    let kernels: Vec<String> = m
        .kernels()
        .map(|k| crate::names::demangle(&k.name))
        .collect();
    for p in &args
        .workload
        .params_for(&crate::names::demangle(&f.name), &kernels)?
    {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| format!("--param `{p}`: expected NAME=VALUE"))?;
        let k = canonical(k.trim(), f, &names);
        let index = names.iter().position(|n| *n == k);
        let float_param = index.is_some_and(|i| matches!(f.params[i].ty.as_str(), "f32" | "f64"));
        match (v.trim().parse::<i64>(), v.trim().parse::<f64>()) {
            (_, Ok(x)) if float_param => {
                floats.insert(k, x);
            }
            (Ok(x), _) => {
                overrides.insert(k, x);
            }
            (Err(_), Ok(_)) => {
                let what = match index {
                    Some(_) => format!("`{k}` is an integer parameter, and"),
                    None => "workload values are integer:".to_string(),
                };
                return Err(format!(
                    "--param `{p}`: {what} `{}` is not an integer",
                    v.trim()
                ));
            }
            (Err(_), Err(_)) => {
                return Err(format!("--param `{p}`: `{}` is not a number", v.trim()))
            }
        }
    }
    let w = workload(sk, f, args, &overrides)?;
    let launch = Launch {
        grid: w.grid,
        block: w.block,
    };
    let mut gen: BTreeMap<String, &str> = BTreeMap::new();
    for b in &args.workload.buffers {
        let (k, v) = b
            .split_once('=')
            .ok_or_else(|| format!("--buffer `{b}`: expected NAME=TYPE:GEN"))?;
        gen.insert(canonical(k.trim(), f, &names), v.trim());
    }
    let threads = launch.blocks().saturating_mul(launch.threads_per_block());
    let default_bytes = args
        .default_buffer_bytes
        .unwrap_or(threads.saturating_mul(16).saturating_add(65536));
    let mut kargs = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let n = &names[i];
        if locals.contains(&i) {
            kargs.push(KernelArg::Local(args.dynamic_shared));
        } else if let Some(spec) = gen.get(n) {
            kargs.push(KernelArg::Buffer(crate::buffers::generate(
                spec, &w.params, args.seed,
            )?));
        } else if p.is_aggregate() {
            let fields = sk.map(|s| s.fields.as_slice()).unwrap_or_default();
            let (bytes, unset) = param_fields::struct_bytes(f, i, |off| {
                w.params.iter().find_map(|(k, v)| {
                    (param_fields::field_of_key(k, f, &names, fields) == Some((i, off)))
                        .then_some(param_fields::FieldValue::Int(*v))
                })
            });
            if let Some(fd) = unset.first() {
                let key = param_fields::offset_key(n, fd.offset);
                return Err(format!(
                    "field `{key}` of the by-value parameter `{n}` has no value: give --param {key}=… (or its source field name)"
                ));
            }
            kargs.push(KernelArg::Bytes(bytes));
        } else if let Some(x) = floats.get(n) {
            kargs.push(match p.ty.as_str() {
                "f64" => KernelArg::F64(*x),
                _ => KernelArg::F32(*x as f32),
            });
        } else if let Some(v) = w.params.get(n) {
            kargs.push(scalar_arg(p.ty, *v));
        } else if p.ty.bits() == 64 {
            let what =
                format!("the zero-filled buffer `{n}` (--default-buffer-bytes, or --buffer {n}=…)");
            emu::check_zeroed(&what, default_bytes).map_err(|e| e.to_string())?;
            kargs.push(KernelArg::Zeros(default_bytes));
        } else {
            return Err(format!(
                "parameter `{n}` has no value: give --param {n}=… (or a workload annotation)"
            ));
        }
    }
    let opts = emu::Options {
        // `__local` arguments take their bytes as arguments, not as this region
        dynamic_shared: if dynamic.is_empty() {
            0
        } else {
            args.dynamic_shared
        },
        ..emu::Options::default()
    };
    let r =
        crate::progress::emulate(m, &f.name, &launch, &kargs, &opts).map_err(|e| e.to_string())?;
    let keys = emu::loops::hint_keys(&r.loops);
    let loops: Vec<LoopOut> = r
        .loops
        .iter()
        .zip(keys)
        .map(|(l, hint_key)| LoopOut {
            header_block: l.header,
            ptx_line: l.ptx_line,
            at: l.at.clone(),
            entries: l.entries,
            iterations: l.header_execs,
            mean_trips: l.mean_trips,
            hint_key,
        })
        .collect();
    Ok(EmulateReport {
        kernel: f.name.clone(),
        launch,
        params: w.params.clone(),
        float_params: floats,
        features: r
            .stats
            .features
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect(),
        block_execs: r
            .stats
            .block_execs
            .iter()
            .map(|(b, e)| (*b, (e.threads, e.warps)))
            .collect(),
        hints: loops
            .iter()
            .map(|l| (l.hint_key.clone(), round3(l.mean_trips)))
            .collect(),
        loops,
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A PTX parameter name (`k_param_2`) or index-free source name → the source name used in
/// workloads.
fn canonical(k: &str, f: &Function, names: &[String]) -> String {
    match f.params.iter().position(|p| p.name == k) {
        Some(i) => names[i].clone(),
        None => k.to_string(),
    }
}

/// The launch to run: the chosen annotated workload with the flags laid over it.
fn workload(
    sk: Option<&SourceKernel>,
    f: &Function,
    args: &Args,
    overrides: &BTreeMap<String, i64>,
) -> Result<Workload, String> {
    let spec = args.workload.annotated_spec(sk, f, overrides)?;
    if spec.grid.0.is_empty() || spec.block.0.is_empty() {
        return Err("no launch: give --grid and --block (or a workload annotation)".into());
    }
    spec.resolve_launch(overrides)
}

/// The text rendering.
pub fn render(r: &EmulateReport) -> String {
    let mut s = String::new();
    let l = &r.launch;
    let _ = writeln!(
        s,
        "kernel {}  grid {}x{}x{}  block {}x{}x{}",
        r.kernel, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]
    );
    if !r.params.is_empty() || !r.float_params.is_empty() {
        let ints = r.params.iter().map(|(k, v)| format!("{k}={v}"));
        let floats = r.float_params.iter().map(|(k, v)| format!("{k}={v}"));
        let p: Vec<String> = ints.chain(floats).collect();
        let _ = writeln!(s, "params {}", p.join(" "));
    }
    let _ = writeln!(s, "\ncounts");
    let w = r.features.keys().map(|k| k.len()).max().unwrap_or(0);
    for (k, v) in &r.features {
        let _ = writeln!(s, "  {k:<w$}  {v:.0}");
    }
    let _ = writeln!(s, "\nblock executions (threads, warps)");
    for (b, (t, wp)) in &r.block_execs {
        let _ = writeln!(s, "  bb{b:<4} {t:>10.0} {wp:>8.0}");
    }
    if r.loops.is_empty() {
        let _ = writeln!(s, "\nno loops ran");
        return s;
    }
    let _ = writeln!(s, "\nloops (trips per entry)");
    for lp in &r.loops {
        let at = lp
            .at
            .clone()
            .unwrap_or_else(|| format!("PTX line {}", lp.ptx_line));
        let _ = writeln!(
            s,
            "  bb{} ({at}): {} entries, {} iterations, mean {:.3}",
            lp.header_block, lp.entries, lp.iterations, lp.mean_trips
        );
    }
    let _ = writeln!(s, "\nhints (kerncast.toml, in a [[kernel.workload]]):");
    let h: Vec<String> = r
        .hints
        .iter()
        .map(|(k, v)| format!("\"{k}\" = {v}"))
        .collect();
    let _ = writeln!(s, "  hints = {{ {} }}", h.join(", "));
    let _ = writeln!(s, "hints (in-source annotation):");
    for (k, v) in &r.hints {
        let _ = writeln!(s, "  // kerncast: hint {k}={v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y[i] = x[i] where x[i] > t: a float parameter decides how many threads store.
    const CLIP: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry clip(.param .u64 clip_param_0, .param .u64 clip_param_1, .param .f32 clip_param_2)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [clip_param_0];
    ld.param.u64 %rd2, [clip_param_1];
    ld.param.f32 %f1, [clip_param_2];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f2, [%rd4];
    setp.gt.f32 %p1, %f2, %f1;
    @!%p1 bra DONE;
    add.s64 %rd5, %rd2, %rd3;
    st.global.f32 [%rd5], %f2;
DONE:
    ret;
}
"#;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(v: &[&str]) -> Args {
        <Cli as clap::Parser>::try_parse_from(v).unwrap().args
    }

    #[test]
    fn a_float_parameter_takes_a_decimal_value() {
        let m = kerncast_passes::ptx::parse(CLIP).unwrap();
        let stores = |t: &str| {
            let args = parse(&[
                "emulate",
                "clip.ptx",
                "--grid",
                "1",
                "--block",
                "256",
                "--param",
                &format!("clip_param_2={t}"),
                "--buffer",
                "clip_param_0=f32:ramp(256, 0, 1)",
            ]);
            let r = emulate(&m, &[], &args).unwrap();
            assert_eq!(r.float_params.get("clip_param_2").copied(), t.parse().ok());
            r.features
                .iter()
                .find(|(k, _)| k.starts_with("mem.global.store") && k.ends_with(".thread"))
                .map_or(0.0, |(_, v)| *v)
        };
        // x = 0, 1, …, 255: 255 − 99 values exceed 99.5, 255 − 199 exceed 199.5
        assert_eq!(stores("99.5"), 156.0);
        assert_eq!(stores("199.5"), 56.0);
        let args = parse(&[
            "emulate",
            "clip.ptx",
            "--grid",
            "1",
            "--block",
            "1",
            "--param",
            "clip_param_0=0.5",
        ]);
        let err = emulate(&m, &[], &args).unwrap_err();
        assert!(err.contains("integer parameter"), "{err}");
    }
}
