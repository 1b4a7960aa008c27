//! `kerncast count`: the exact static counts of one kernel — symbolic closed forms in the grid
//! size and kernel parameters (`--symbolic`), or numbers for a workload (`--grid`, `--block`,
//! `--param`). The engine is `kerncast_passes::count`; this is the thin front.

use super::workload_args::{Flag, WorkloadArgs};
use crate::lower::LowerArgs;
use crate::param_fields::{field_of_key, SourceField};
use crate::workload::{Dims, Expr, WorkloadSpec};
use crate::Error;
use kerncast_passes::affine::param_field_symbol;
use kerncast_passes::count::{analyze_kernel_with, Options, Workload};
use kerncast_passes::reuse::{Reuse, ReuseProfile};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// PTX file, or a source file (.cu, .cl, .ll, .bc) lowered first.
    pub file: PathBuf,
    /// Kernel (PTX or source name); default: the module's only kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    /// The launch to count (without one, or with --symbolic, the closed forms are printed);
    /// the closed forms are exact for the block given, else the block of the kernel's first
    /// workload (annotation, or launch in the file).
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Print the closed forms (quasi-polynomials) instead of numbers.
    #[arg(long)]
    pub symbolic: bool,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub lower: LowerArgs,
}

fn pairs<T: std::str::FromStr>(v: &[String], flag: &str) -> crate::Result<BTreeMap<String, T>> {
    let mut m = BTreeMap::new();
    for p in v {
        let (k, val) = p
            .split_once('=')
            .ok_or_else(|| Error::Flag(format!("--{flag} `{p}`: expected NAME=VALUE")))?;
        let val = val
            .trim()
            .parse()
            .map_err(|_| match val.trim().parse::<f64>() {
                // only `--param` is integer; a float parameter's value changes no count
                Ok(_) => Error::Flag(format!(
                    "--{flag} `{p}`: `{val}` is not an integer: counts take integer values; leave a float parameter out (counts read a float only through the branches that test it, which are listed assumptions)"
                )),
                Err(_) => Error::Flag(format!("--{flag} `{p}`: `{val}` is not a number")),
            })?;
        m.insert(k.trim().to_string(), val);
    }
    Ok(m)
}

/// Parameters named as in the source become positions, which `bind` takes beside PTX names.
/// A struct's field (`d.m`, `d+4`) becomes the symbol the counter gives it (`p0_4`).
fn by_position(
    given: BTreeMap<String, i64>,
    f: &kerncast_passes::ptx::Function,
    source_names: &[String],
    source_fields: &[SourceField],
) -> BTreeMap<String, i64> {
    given
        .into_iter()
        .map(|(k, v)| {
            if let Some((i, off)) = field_of_key(&k, f, source_names, source_fields) {
                return (param_field_symbol(i, off), v);
            }
            match source_names.iter().position(|n| *n == k) {
                Some(i) if f.params.iter().all(|p| p.name != k) => (i.to_string(), v),
                _ => (k, v),
            }
        })
        .collect()
}

/// The module's kernels, demangled.
fn kernels_of(m: &kerncast_passes::ptx::Module) -> Vec<String> {
    m.kernels()
        .map(|k| crate::names::demangle(&k.name))
        .collect()
}

/// The block a workload resolves to, its grid aside (a block's expressions read parameters
/// only).
fn block_of(spec: &WorkloadSpec, ints: &BTreeMap<String, i64>) -> Result<[u64; 3], String> {
    let mut spec = spec.clone();
    spec.grid = Dims(vec![Expr::Int(1)]);
    spec.resolve_with(ints).map(|w| w.block)
}

/// The block of the kernel's first annotated workload.
fn workload_block(sk: &crate::annotations::SourceKernel) -> Option<[u64; 3]> {
    sk.workloads.first()?.resolve().ok().map(|w| w.block)
}

/// The device-independent figures of a reuse profile (the models add the device's L2 and
/// occupancy to them).
fn reuse_line(p: &ReuseProfile) -> String {
    let pct = |x: f64| 100.0 * x / p.requests.max(1.0);
    let by_distance: Vec<String> = p
        .reuse
        .iter()
        .fold(BTreeMap::<u64, f64>::new(), |mut m, b| {
            *m.entry(b.min_distance).or_default() += b.requests;
            m
        })
        .into_iter()
        .map(|(d, n)| format!("{d}: {:.1} %", pct(n)))
        .collect();
    let mib = p
        .footprint
        .last()
        .map_or(0.0, |f| f.sectors * 32.0 / 1048576.0);
    format!(
        "l2 reuse profile: first {} of {} blocks walked (outer loops {:.1} % of their trips), {:.0} sector requests, {:.1} % first touches, re-touches by block distance {}; {:.2} MiB touched",
        p.blocks_walked,
        p.blocks,
        100.0 * p.outer_share,
        p.requests,
        pct(p.first_touches),
        by_distance.join(", "),
        mib
    )
}

/// What `kerncast count` prints: the closed forms, or the counts at a launch.
pub fn output(args: &Args) -> crate::Result<String> {
    let mut out = String::new();
    let (name, text) = super::ptx::load(&args.file, &args.lower)?;
    let m = super::ptx::parse_for_analysis(&name, &text)?;
    let f = super::ptx::pick_kernel(&m, args.kernel.as_deref())
        .map_err(|e| Error::Workload(format!("{name}: {e}")))?;
    let kernel = f.name.clone();
    // Source names of the parameters (from the source file, when it is one) → positions.
    let source = std::fs::read_to_string(&args.file).unwrap_or_default();
    let kernels = crate::annotations::scan(&source).unwrap_or_default();
    let sk = crate::pipeline::source_kernel(&kernels, &kernel);
    let wa = &args.workload;
    wa.refuse("count", &[Flag::Buffer])
        .map_err(|e| Error::Flag(e.to_string()))?;
    let ints = pairs::<i64>(
        &wa.params_for(&crate::names::demangle(&kernel), &kernels_of(&m))
            .map_err(|e| Error::Flag(format!("{name}: {e}")))?,
        "param",
    )?;
    let in_workload = |e: String| Error::Workload(format!("{name}: kernel `{kernel}`: {e}"));
    // The workload the flags write out or pick; its launch is counted, unless --symbolic asks
    // for the closed forms (which are printed too when there is none).
    let chosen = (wa.grid.is_some() || wa.pick.is_some())
        .then(|| wa.annotated_spec(sk, f, &ints))
        .transpose()
        .map_err(in_workload)?;
    // Closed forms are exact for one block shape: the chosen workload's, else the one given,
    // else the block of the kernel's first workload (annotation, else its first launch in the
    // file), else the analysis default.
    let given_block = match (&chosen, &wa.block) {
        (Some(spec), _) if !spec.block.0.is_empty() => Some(block_of(spec, &ints)),
        (None, Some(b)) => {
            let mut spec = WorkloadSpec::empty();
            spec.block = Dims::parse(b).map_err(|e| Error::Flag(format!("--block: {e}")))?;
            Some(block_of(&spec, &ints))
        }
        _ => None,
    }
    .transpose()
    .map_err(|e| Error::Flag(format!("{}: --block: {e}", args.file.display())))?;
    let block = given_block.or_else(|| {
        sk.and_then(workload_block).or_else(|| {
            crate::host_workloads::first_block(&args.file, &args.lower.options(), &kernel)
        })
    });
    if let Some(b) = block {
        // before the analysis, which is per block size
        crate::workload::check_launch([1; 3], b)
            .map_err(|e| Error::Flag(format!("{}: --block: {e}", args.file.display())))?;
    }
    let source_names = sk.map(|sk| sk.params.clone()).unwrap_or_default();
    let source_fields = sk.map(|sk| sk.fields.clone()).unwrap_or_default();
    let stats = analyze_kernel_with(
        &m,
        &kernel,
        &Options {
            block,
            ..Default::default()
        },
    )
    .map_err(|e| Error::Analysis(format!("{name}: {e}")))?;
    let Some(mut spec) = chosen.filter(|_| !args.symbolic) else {
        if args.json {
            let s =
                serde_json::to_string_pretty(&stats).map_err(|e| Error::Output(e.to_string()))?;
            out += &format!("{s}\n");
        } else {
            out += &stats.symbolic_text();
        }
        return Ok(out);
    };
    if spec.block.0.is_empty() {
        spec.block = Dims(stats.block.iter().map(|b| Expr::Int(*b as i64)).collect());
    }
    let resolved = spec.resolve_launch(&ints).map_err(|e| {
        Error::Workload(format!(
            "{name}: kernel `{kernel}`: workload: {e}{}",
            spec.how_to_set(&e)
        ))
    })?;
    let w = Workload {
        grid: resolved.grid,
        block: resolved.block,
        params: by_position(resolved.params, f, &source_names, &source_fields),
        hints: wa.hint_values().map_err(|e| Error::Flag(e.to_string()))?,
        reuse: true,
    };
    let bound = stats.bind(&w).map_err(|e| match e {
        kerncast_passes::count::AnalyzeError::MissingParam { name: p, .. } => {
            Error::Workload(format!(
                "{name}: kernel `{kernel}`: {}",
                crate::symbolic::missing_param_message(&p, Some(f), &source_names)
            ))
        }
        e => Error::Analysis(format!("{name}: {e}")),
    })?;
    if args.json {
        let s = serde_json::to_string_pretty(&bound).map_err(|e| Error::Output(e.to_string()))?;
        out += &format!("{s}\n");
    } else {
        out += &format!(
            "kernel {}  grid {:?} block {:?}\n",
            bound.kernel, w.grid, w.block
        );
        for (k, v) in &bound.features {
            out += &format!("{k} = {v:.0}\n");
        }
        match &bound.reuse {
            Some(Reuse::Profile(p)) => out += &format!("{}\n", reuse_line(p)),
            Some(Reuse::Unavailable(why)) => out += &format!("l2 reuse profile: none ({why})\n"),
            None => {}
        }
        for a in &bound.assumptions {
            out += &format!(
                "assumption {} {}: {}\n",
                a.hint_key,
                a.value_label(),
                a.what
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without --block the closed forms are for the block the file launches the kernel with.
    #[test]
    fn the_block_comes_from_the_kernels_launch() {
        let src = "#define T 16\n__global__ void k(float *a, int n) {}\nint main() {\n  dim3 b(T, T);\n  k<<<dim3(4, 4), b>>>(0, 64);\n}\n";
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.cu");
        std::fs::write(&file, src).unwrap();
        let lower = crate::lower::LowerOptions::default();
        assert_eq!(
            crate::host_workloads::first_block(&file, &lower, "_Z1kPfi"),
            Some([16, 16, 1])
        );
        // an annotation's block wins
        let ks = crate::annotations::scan(
            "// kerncast: workload grid=1 block=(8,8)\n__global__ void k(float *a, int n) {}\n",
        )
        .unwrap();
        assert_eq!(workload_block(&ks[0]), Some([8, 8, 1]));
    }

    #[test]
    fn source_names_become_positions_and_ptx_names_stay() {
        let m = kerncast_passes::ptx::Module::parse(
            ".version 7.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1, .param .u32 k_param_2)\n{\nret;\n}\n",
        )
        .unwrap();
        let names = ["a".to_string(), "nx".to_string(), "ny".to_string()];
        let given = [("nx", 7), ("k_param_2", 9), ("p0", 1)]
            .map(|(k, v)| (k.to_string(), v))
            .into();
        let got = by_position(given, &m.functions[0], &names, &[]);
        let want: BTreeMap<String, i64> = [("1", 7), ("k_param_2", 9), ("p0", 1)]
            .map(|(k, v)| (k.to_string(), v))
            .into();
        assert_eq!(got, want);
    }
}
