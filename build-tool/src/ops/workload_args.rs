//! The workload flags `count`, `emulate` and `predict` share: which launch of a kernel to
//! analyse (an annotated workload, or for `predict` a launch in host code), or one written out
//! on the command line, with its parameter values, hints and buffer contents. One set of
//! flags, read one way, so a flag means the same in every command that takes it; a flag a
//! command cannot honour is refused by name ([`WorkloadArgs::refuse`]), never ignored.

use crate::annotations::SourceKernel;
use crate::param_fields::{self, SourceField};
use crate::params::Value;
use crate::workload::{Dims, Div, Expr, WorkloadSpec};
use kerncast_passes::ptx::Function;
use std::collections::BTreeMap;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct WorkloadArgs {
    /// Workload by name or index (default: the first): the source's `// kerncast: workload`
    /// annotations, and for `predict` the kernel's launches in host code too.
    #[arg(long = "workload", value_name = "NAME|INDEX")]
    pub pick: Option<String>,
    /// Grid X[,Y[,Z]] in blocks, each an integer expression over the parameters (`4`,
    /// `(n/16,n/16)`; `/` rounds up). Replaces the chosen workload's.
    #[arg(long)]
    pub grid: Option<String>,
    /// Block X[,Y[,Z]] in threads (`256`, `(16,16)`). Replaces the chosen workload's.
    #[arg(long)]
    pub block: Option<String>,
    /// Parameter [KERNEL:]NAME=VALUE (repeatable): a kernel parameter by source name, PTX
    /// name or `p<i>`, a by-value struct's field as `d.m` or `d+4`, or a name the workload
    /// reads. Integer, or a decimal for a float parameter; `KERNEL:` limits it to one kernel.
    #[arg(long = "param", value_name = "[KERNEL:]NAME=VALUE")]
    pub params: Vec<String>,
    /// Hint KEY=VALUE for a data-dependent quantity the counts cannot decide, e.g. a loop's
    /// mean trips (repeatable; the keys are the ones the output's assumptions name).
    #[arg(long = "hint", value_name = "KEY=VALUE")]
    pub hints: Vec<String>,
    /// Buffer contents NAME=TYPE:GEN for the emulator (repeatable). TYPE: i8 u8 i16 u16 i32
    /// u32 i64 u64 f32 f64. GEN: zeros(N), fill(N,V), ramp(N,START,STEP), rand(N,LO,HI)
    /// (integers in LO..=HI; for f32 and f64 uniform reals in [LO,HI)), randint(N,LO,HI)
    /// (integers in LO..=HI for any type), pick(N,A,B,…) (each element one of A, B, …),
    /// cumsum(N,LO,HI) (prefix sums of random steps in LO..=HI starting at 0, e.g. CSR row
    /// pointers), list(A,B,…). Arguments are integer expressions over the parameters, or real
    /// numbers for f32 and f64 elements. Other buffers are zero-filled.
    #[arg(long = "buffer", value_name = "NAME=TYPE:GEN")]
    pub buffers: Vec<String>,
}

/// A flag of [`WorkloadArgs`] that a command may not honour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    Hint,
    Buffer,
}

impl WorkloadArgs {
    /// An error naming the first of `flags` that was given, why `command` cannot honour it and
    /// which command does.
    pub fn refuse(&self, command: &str, flags: &[Flag]) -> Result<(), String> {
        for flag in flags {
            match flag {
                Flag::Hint if !self.hints.is_empty() => {
                    return Err(format!(
                        "--hint: `kerncast {command}` runs the kernel's data-dependent loops, so it takes no hints; `count` and `predict` do"
                    ))
                }
                Flag::Buffer if !self.buffers.is_empty() => {
                    return Err(format!(
                        "--buffer: `kerncast {command}` does not run the kernel, so buffer contents change nothing; `emulate` and `predict` take them"
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The `--param`s that apply to the kernel `demangled` as `NAME=VALUE`, scopes removed
    /// and constant expressions evaluated (`1<<20` is `1048576`): unscoped ones, and those
    /// scoped to it (which win). A scope that names none of the module's `kernels` (demangled)
    /// is an error, as a misspelt one would otherwise be dropped.
    pub fn params_for(&self, demangled: &str, kernels: &[String]) -> Result<Vec<String>, String> {
        let given = crate::params::parse(&self.params)?;
        if let Some(g) = given.iter().find(|g| {
            g.kernel
                .as_deref()
                .is_some_and(|k| !kernels.iter().any(|d| crate::params::scope_names(k, d)))
        }) {
            return Err(format!(
                "--param {g}: no kernel `{}` here (the kernels: {})",
                g.kernel.as_deref().unwrap_or_default(),
                kernels.join(", ")
            ));
        }
        Ok(crate::params::for_kernel(&given, demangled)
            .iter()
            .map(|g| {
                let value = match &g.value {
                    Value::Int(e) => e
                        .eval(&BTreeMap::new(), Div::Floor)
                        .map_or_else(|_| e.to_string(), |v| v.to_string()),
                    Value::Float(x) => x.to_string(),
                };
                format!("{}={value}", g.name)
            })
            .collect())
    }

    /// `--hint`s by key.
    pub fn hint_values(&self) -> Result<BTreeMap<String, f64>, String> {
        let mut out = BTreeMap::new();
        for h in &self.hints {
            let (k, v) = h
                .split_once('=')
                .ok_or_else(|| format!("--hint `{h}`: expected KEY=VALUE"))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("--hint `{h}`: `{}` is not a number", v.trim()))?;
            out.insert(k.trim().to_string(), v);
        }
        Ok(out)
    }

    /// The workload `--workload` picks from the kernel's annotations (`sk`), by name or
    /// index (none given: the first, if any), with `--grid`, `--block` and the integer
    /// parameter values `ints` laid over it. Without an annotation it is the launch the flags
    /// write out, which may still lack a grid or block.
    pub fn annotated_spec(
        &self,
        sk: Option<&SourceKernel>,
        f: &Function,
        ints: &BTreeMap<String, i64>,
    ) -> Result<WorkloadSpec, String> {
        let base = match (&self.pick, sk) {
            (Some(wn), Some(s)) => {
                Some(WorkloadSpec::pick(&s.workloads, Some(wn)).ok_or_else(|| {
                    format!(
                        "no workload `{wn}` in the annotations (it has {})",
                        s.workloads.len()
                    )
                })?)
            }
            (Some(wn), None) => return Err(format!("no annotations, so no workload `{wn}`")),
            (None, s) => s.and_then(|s| s.workloads.first().cloned()),
        };
        let mut spec = base.unwrap_or_else(WorkloadSpec::empty);
        for (k, v) in ints {
            if !spec.params.iter().any(|(n, _)| n == k) {
                spec.params.push((k.clone(), Expr::Int(*v)));
            }
        }
        if let Some(g) = &self.grid {
            spec.grid = Dims::parse(g).map_err(|e| format!("--grid: {e}"))?;
        }
        if let Some(b) = &self.block {
            spec.block = Dims::parse(b).map_err(|e| format!("--block: {e}"))?;
        }
        // a misspelt --param would otherwise leave its parameter unset, and counted as 0
        let (source, fields): (&[String], &[SourceField]) =
            sk.map_or((&[], &[]), |s| (&s.params, &s.fields));
        if let Some(e) = unknown_param(&spec, f, source, fields) {
            return Err(e);
        }
        Ok(spec)
    }
}

/// The first `--param` that names no parameter of the kernel (by its PTX name, its source name,
/// `p<i>` or its position) and that no other expression of the workload reads: a misspelt or
/// source-only name on a PTX file would otherwise leave the parameter unset, and counted as 0.
/// A struct passed by value is set field by field (`d.m`, or `d+4` by offset), and only the
/// fields the kernel reads.
pub fn unknown_param(
    spec: &WorkloadSpec,
    f: &Function,
    source: &[String],
    fields: &[SourceField],
) -> Option<String> {
    let read = spec.names_read();
    let n = f.params.len();
    let names = |i: usize| {
        [
            Some(f.params[i].name.clone()),
            source.get(i).cloned(),
            Some(format!("p{i}")),
            Some(i.to_string()),
        ]
    };
    let named = |i: usize, k: &str| names(i).iter().flatten().any(|n| n == k);
    let label = |i: usize| source.get(i).unwrap_or(&f.params[i].name).clone();
    let read_fields = f.param_fields();
    let read_at = |i: usize, off: u64| read_fields.iter().any(|r| r.param == i && r.offset == off);
    // the keys the counters read (`param_fields::field_values`), for a field the kernel reads
    let is_field = |k: &str| {
        param_fields::field_of_key(k, f, source, fields).is_some_and(|(i, off)| read_at(i, off))
    };
    let field_list = |i: usize| -> String {
        let list: Vec<String> = read_fields
            .iter()
            .filter(|r| r.param == i)
            .map(|r| {
                let key = param_fields::offset_key(&label(i), r.offset);
                match fields
                    .iter()
                    .find(|fd| fd.param == i && fd.offset == r.offset)
                {
                    Some(fd) => format!("{} ({key}, {})", fd.name, r.ty.as_str()),
                    None => format!("{key} ({})", r.ty.as_str()),
                }
            })
            .collect();
        if list.is_empty() {
            "none".into()
        } else {
            list.join(", ")
        }
    };
    for (k, _) in &spec.params {
        if let Some(i) = (0..n).find(|&i| f.params[i].is_aggregate() && named(i, k)) {
            return Some(format!(
                "--param {k}: `{}` is passed by value as a struct; set the fields the kernel reads: {}",
                label(i),
                field_list(i)
            ));
        }
    }
    let (bad, _) = spec
        .params
        .iter()
        .find(|(k, _)| !(0..n).any(|i| named(i, k)) && !is_field(k) && !read.contains(k))?;
    let list: Vec<String> = (0..n)
        .map(|i| {
            let ptx = &f.params[i].name;
            let fields = if f.params[i].is_aggregate() {
                format!("; fields {}", field_list(i))
            } else {
                String::new()
            };
            match source.get(i) {
                Some(s) if s != ptx => format!("{s} ({ptx}, {i}{fields})"),
                _ => format!("{ptx} ({i}{fields})"),
            }
        })
        .collect();
    Some(format!(
        "--param {bad}: no such parameter; the kernel's parameters: {}",
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(params: &[&str]) -> WorkloadArgs {
        WorkloadArgs {
            params: params.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_scoped_param_applies_to_its_kernel_only_and_wins_there() {
        let kernels = ["saxpy".to_string(), "gemm<float>".to_string()];
        let a = with(&["n=1", "saxpy:n=2", "gemm:m=1<<4", "eps=1e-5"]);
        assert_eq!(
            a.params_for("saxpy", &kernels).unwrap(),
            ["eps=0.00001", "n=2"]
        );
        assert_eq!(
            a.params_for("gemm<float>", &kernels).unwrap(),
            ["n=1", "eps=0.00001", "m=16"]
        );
        let e = with(&["gemv:n=2"])
            .params_for("saxpy", &kernels)
            .unwrap_err();
        assert!(e.contains("no kernel `gemv` here"), "{e}");
    }

    #[test]
    fn a_flag_the_command_cannot_honour_is_refused_by_name() {
        let a = WorkloadArgs {
            buffers: vec!["x=f32:zeros(4)".into()],
            ..Default::default()
        };
        let e = a.refuse("count", &[Flag::Hint, Flag::Buffer]).unwrap_err();
        assert!(e.starts_with("--buffer: `kerncast count`"), "{e}");
        assert!(a.refuse("emulate", &[Flag::Hint]).is_ok());
    }

    #[test]
    fn a_workload_is_picked_by_index_or_name() {
        let ks = crate::annotations::scan(
            "// kerncast: workload name=small n=32 grid=1 block=32\n// kerncast: workload name=big n=2048 grid=8 block=256\n__global__ void k(float *a, int n) {}\n",
        )
        .unwrap();
        let by_name = WorkloadSpec::pick(&ks[0].workloads, Some("big")).unwrap();
        let by_index = WorkloadSpec::pick(&ks[0].workloads, Some("1")).unwrap();
        assert_eq!(by_name.name.as_deref(), Some("big"));
        assert_eq!(by_index.name, by_name.name);
        assert!(WorkloadSpec::pick(&ks[0].workloads, Some("2")).is_none());
        assert_eq!(
            WorkloadSpec::pick(&ks[0].workloads, None)
                .unwrap()
                .name
                .as_deref(),
            Some("small")
        );
    }
}
