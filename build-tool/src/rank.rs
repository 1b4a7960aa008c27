//! `kerncast rank`: predict every combination of compile-time choices (`-D TILE=…`) and workload
//! values, and order them by time, energy or energy-delay product, for autotuners.
//!
//! Why this shape: an autotuner's search space is a product of macro values (each a separate
//! compile) and workload values (the same binary). So each macro combination is lowered and
//! prepared once, and every workload point reuses the prepared kernel; a `--vary` name that is a
//! workload parameter varies the workload, any other name is a `-D` macro. Macro values that are
//! integers are also visible to the workload's expressions (`block=(TILE,TILE)`).

use crate::annotations;
use crate::engine::{Blocks, Counter, Prepared, Target};
use crate::lower::LowerOptions;
use crate::params::{Given, Value};
use crate::pipeline::hosts::HostSide;
use crate::pipeline::workloads::Missing;
use crate::pipeline::{demangle, Job, Unit};
use crate::workload::WorkloadSpec;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    Time,
    Energy,
    /// Energy-delay product.
    Edp,
}

#[derive(Clone, Debug)]
pub struct RankOptions {
    pub file: PathBuf,
    pub kernel: Option<String>,
    /// Name and values, in the order given; the first value of each is the reference.
    pub vary: Vec<(String, Vec<String>)>,
    pub objective: Objective,
    pub device: String,
    pub model: String,
    pub lower: LowerOptions,
    /// Which annotated workload (name or index); the first by default.
    pub workload: Option<String>,
}

/// One ranked point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranked {
    pub rank: usize,
    /// The macro and workload values of this point.
    pub values: BTreeMap<String, String>,
    pub time_s: f64,
    pub energy_j: Option<f64>,
    pub edp: Option<f64>,
    /// Reference objective / this objective (> 1 is better than the reference).
    pub speedup: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failed {
    pub values: BTreeMap<String, String>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranking {
    pub kernel: String,
    pub device: String,
    pub objective: Objective,
    /// The values of the reference point (the first value of every `--vary`).
    pub reference: BTreeMap<String, String>,
    pub ranked: Vec<Ranked>,
    pub failed: Vec<Failed>,
    /// What the user should know about the ranking as a whole (a `--vary` macro that changes
    /// nothing).
    pub notes: Vec<String>,
}

/// One predicted point: its values, and its time and energy or why it failed.
type Point = (BTreeMap<String, String>, Result<(f64, Option<f64>), String>);

fn product(vary: &[(String, Vec<String>)]) -> Vec<BTreeMap<String, String>> {
    let mut out = vec![BTreeMap::new()];
    for (k, vals) in vary {
        let mut next = Vec::new();
        for o in &out {
            for v in vals {
                let mut m = o.clone();
                m.insert(k.clone(), v.clone());
                next.push(m);
            }
        }
        out = next;
    }
    out
}

fn objective_of(o: Objective, time: f64, energy: Option<f64>) -> Option<f64> {
    match o {
        Objective::Time => Some(time),
        Objective::Energy => energy,
        Objective::Edp => energy.map(|e| e * time),
    }
}

/// Evaluates every workload point of one prepared variant at the target's default clocks:
/// the reusable inner loop of rank (and its benchmark). `regs_per_thread` is ptxas's count for
/// the variant, where known. Returns (time, energy) per point.
pub fn predict_points(
    prepared: &dyn Prepared,
    regs_per_thread: Option<u32>,
    spec: &WorkloadSpec,
    params: &[String],
    points: &[BTreeMap<String, i64>],
    target: &Target,
    blocks: &Result<Blocks, String>,
) -> Vec<Result<(f64, Option<f64>), String>> {
    points
        .iter()
        .map(|o| {
            let mut b = prepared.bind_spec(spec, o, params)?;
            b.stats.regs_per_thread = regs_per_thread;
            let w = spec.resolve_launch(o)?;
            target.quick(&b.stats, blocks, &w.hints)
        })
        .collect()
}

/// Ranks every combination.
pub fn rank(opts: &RankOptions, counter: &dyn Counter) -> Result<Ranking, String> {
    let text =
        std::fs::read_to_string(&opts.file).map_err(|e| format!("{}: {e}", opts.file.display()))?;
    let src = annotations::scan(&text).map_err(|e| format!("{}:{e}", opts.file.display()))?;
    let target = Target::load(&opts.device, &opts.model)?;
    let pick = |cands: &[annotations::SourceKernel]| -> Result<annotations::SourceKernel, String> {
        let k = match &opts.kernel {
            Some(n) => cands.iter().find(|k| &k.name == n),
            None if cands.len() == 1 => cands.first(),
            None => None,
        };
        k.cloned().ok_or_else(|| {
            format!(
                "{}: choose a kernel with --kernel ({})",
                opts.file.display(),
                cands
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    };
    let sk = pick(&src)?;
    // an annotated workload, else the launches of the host code
    let annotated = if sk.workloads.is_empty() {
        None
    } else {
        Some(
            pick_workload(&sk.workloads, opts.workload.as_deref()).ok_or_else(|| {
                format!(
                    "{}:{}: kernel `{}` has no such `// kerncast: workload` annotation",
                    opts.file.display(),
                    sk.line,
                    sk.name
                )
            })?,
        )
    };
    // Split the varied names into host values (the host code reads them), workload
    // parameters, and macros.
    let host_names = match &annotated {
        Some(_) => Vec::new(),
        None => HostVariant::new(opts, &BTreeMap::new(), &target)?.names(),
    };
    let params: Vec<String> = match &annotated {
        Some(s) => s.params.iter().map(|(p, _)| p.clone()).collect(),
        None => sk.params.clone(),
    };
    let (wvary, mvary): (Vec<_>, Vec<_>) = opts
        .vary
        .iter()
        .cloned()
        .partition(|(k, _)| params.contains(k) || host_names.contains(k));
    let variants = product(&mvary);
    let points = product(&wvary);
    let reference: BTreeMap<String, String> = opts
        .vary
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.first()?.clone())))
        .collect();
    let per_variant: Vec<(Option<String>, Vec<Point>)> = variants
        .par_iter()
        .map(|defs| {
            let prepared = prepare_variant(opts, defs, &sk.name, counter, &target);
            let host = match (&annotated, &prepared) {
                (None, Ok(_)) => Some(HostVariant::new(opts, defs, &target)),
                _ => None,
            };
            let ptx = prepared.as_ref().ok().map(|v| v.ptx.clone());
            let results = points
                .iter()
                .map(|pt| {
                    let mut values = defs.clone();
                    values.extend(pt.clone());
                    let r = match &prepared {
                        Ok(v) => {
                            let spec = match (&annotated, &host) {
                                (Some(s), _) => Ok(s.clone()),
                                (None, Some(Ok(h))) => h.spec(v, pt, &host_names, opts),
                                (None, Some(Err(e))) => Err(e.clone()),
                                (None, None) => Err("no host code was read".into()),
                            };
                            let mut o: BTreeMap<String, i64> = BTreeMap::new();
                            for (k, val) in defs.iter().chain(pt.iter()) {
                                if host_names.contains(k) {
                                    continue;
                                }
                                if let Ok(i) = val.parse::<i64>() {
                                    o.insert(k.clone(), i);
                                }
                            }
                            spec.and_then(|spec| {
                                predict_points(
                                    v.prepared.as_ref(),
                                    v.regs,
                                    &spec,
                                    &sk.params,
                                    &[o],
                                    &target,
                                    &v.blocks,
                                )
                                .pop()
                                .unwrap_or_else(|| Err("no result".into()))
                            })
                        }
                        Err(e) => Err(e.clone()),
                    };
                    (values, r)
                })
                .collect::<Vec<_>>();
            (ptx, results)
        })
        .collect();
    let read = match &annotated {
        Some(s) => s.names_read(),
        None => Vec::new(),
    };
    let notes = match &annotated {
        Some(_) => idle_macros(&mvary, &variants, &per_variant, &read, &text),
        // the host code's launches may follow a macro the PTX does not
        None => Vec::new(),
    };
    let results: Vec<Point> = per_variant.into_iter().flat_map(|(_, r)| r).collect();
    let ref_obj = results
        .iter()
        .find(|(v, _)| *v == reference)
        .and_then(|(_, r)| r.as_ref().ok())
        .and_then(|(t, e)| objective_of(opts.objective, *t, *e));
    let mut ranked = Vec::new();
    let mut failed = Vec::new();
    for (values, r) in results {
        match r {
            Ok((t, e)) => match objective_of(opts.objective, t, e) {
                Some(obj) => ranked.push((
                    obj,
                    Ranked {
                        rank: 0,
                        values,
                        time_s: t,
                        energy_j: e,
                        edp: e.map(|e| e * t),
                        speedup: ref_obj.map(|r| r / obj).unwrap_or(f64::NAN),
                    },
                )),
                None => failed.push(Failed {
                    values,
                    message: "the device has no power data, so energy cannot be ranked".into(),
                }),
            },
            Err(message) => failed.push(Failed { values, message }),
        }
    }
    ranked.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then_with(|| a.1.values.cmp(&b.1.values))
    });
    let ranked = ranked
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut r))| {
            r.rank = i + 1;
            r
        })
        .collect();
    failed.sort_by(|a, b| a.values.cmp(&b.values));
    Ok(Ranking {
        kernel: sk.name.clone(),
        device: target.device.name.clone(),
        objective: opts.objective,
        reference,
        ranked,
        failed,
        notes,
    })
}

/// A note for each varied macro that changes neither the PTX (every two variants that differ
/// only in it lower to the same code) nor the workload (no launch or parameter expression names
/// it): its values rank as ties, and a plain `#define` in the source, which a `-D` does not
/// replace, is the usual cause.
fn idle_macros(
    mvary: &[(String, Vec<String>)],
    variants: &[BTreeMap<String, String>],
    per_variant: &[(Option<String>, Vec<Point>)],
    read: &[String],
    source: &str,
) -> Vec<String> {
    let mut notes = Vec::new();
    for (name, values) in mvary.iter().filter(|(_, v)| v.len() > 1) {
        if read.contains(name) {
            continue;
        }
        let others = |d: &BTreeMap<String, String>| {
            d.iter()
                .filter(|(k, _)| *k != name)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<BTreeMap<_, _>>()
        };
        let mut compared = false;
        let mut differs = false;
        for (i, a) in variants.iter().enumerate() {
            for (j, b) in variants.iter().enumerate().skip(i + 1) {
                if others(a) != others(b) {
                    continue;
                }
                if let (Some(pa), Some(pb)) = (&per_variant[i].0, &per_variant[j].0) {
                    compared = true;
                    differs |= pa != pb;
                }
            }
        }
        if compared && !differs {
            let used = source
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name);
            let why = if used {
                format!(
                    "a plain `#define {name}` in the source is not replaced by -D {name}=…; \
                     guard it with `#ifndef {name}`"
                )
            } else {
                format!("the source does not name {name}")
            };
            notes.push(format!(
                "{name}={} lower to the same PTX and no workload expression reads {name}: the \
                 values rank as ties ({why})",
                values.join(",")
            ));
        }
    }
    notes
}

/// The workload a `--workload` selects (an index or a name; the first without one).
fn pick_workload(specs: &[WorkloadSpec], which: Option<&str>) -> Option<WorkloadSpec> {
    match which {
        None => specs.first(),
        Some(w) => match w.parse::<usize>() {
            Ok(i) => specs.get(i),
            Err(_) => specs.iter().find(|s| s.name.as_deref() == Some(w)),
        },
    }
    .cloned()
}

/// One macro combination lowered: its unit, the kernel prepared, its registers per thread (a
/// tile size changes them, and with them how many blocks an SM holds), its scheduler blocks
/// and its PTX.
struct Variant {
    unit: Unit,
    entry: String,
    prepared: Box<dyn Prepared>,
    regs: Option<u32>,
    blocks: Result<Blocks, String>,
    ptx: String,
}

/// The job of the ranked file built with the macros `defs`.
fn variant_job(opts: &RankOptions, defs: &BTreeMap<String, String>, kernel: Option<&str>) -> Job {
    let mut lo = opts.lower.clone();
    lo.defines
        .extend(defs.iter().map(|(k, v)| (k.clone(), Some(v.clone()))));
    Job {
        path: opts.file.clone(),
        display_path: opts.file.display().to_string(),
        lower: lo,
        kernel: kernel.map(str::to_string),
        workloads: Vec::new(),
    }
}

fn prepare_variant(
    opts: &RankOptions,
    defs: &BTreeMap<String, String>,
    name: &str,
    counter: &dyn Counter,
    target: &Target,
) -> Result<Variant, String> {
    let unit = crate::pipeline::prepare_unit(&variant_job(opts, defs, Some(name)))
        .map_err(|f| format!("{} failed: {}", f.stage, f.message))?;
    let entry = unit
        .kernels
        .first()
        .map(|(e, _)| e.clone())
        .ok_or_else(|| format!("kernel `{name}` not in the PTX"))?;
    // A device without the scheduler's latencies still ranks with the other models.
    let blocks = target.blocks(&unit.module, &entry);
    let regs = unit.registers.of(&entry).ok().map(|r| r.regs_per_thread);
    Ok(Variant {
        prepared: counter.prepare(&unit.module, &entry)?,
        ptx: unit.ptx.clone(),
        unit,
        entry,
        regs,
        blocks,
    })
}

/// The host code of one macro combination, for a kernel without an annotated workload: its
/// launches, read with the combination's `-D` flags and each point's host values.
struct HostVariant {
    side: HostSide,
    opts: crate::pipeline::Options,
}

impl HostVariant {
    fn new(
        opts: &RankOptions,
        defs: &BTreeMap<String, String>,
        target: &Target,
    ) -> Result<HostVariant, String> {
        let job = variant_job(opts, defs, opts.kernel.as_deref());
        let popts = crate::pipeline::Options {
            devices: vec![opts.device.clone()],
            model: opts.model.clone(),
            ..crate::pipeline::Options::default()
        };
        let mut errors = Vec::new();
        let side = HostSide::new(&[job], &popts, std::slice::from_ref(target), &mut errors);
        match errors.first() {
            Some(f) => Err(f.message.clone()),
            None => Ok(HostVariant { side, opts: popts }),
        }
    }

    /// The names the host code leaves unknown or reads: those `--vary` gives it.
    fn names(&self) -> Vec<String> {
        self.side
            .first()
            .map(|r| match r.as_ref() {
                Ok(r) => r.assumptions.keys().cloned().collect(),
                Err(_) => Vec::new(),
            })
            .unwrap_or_default()
    }

    /// The workload of the variant `v` at the point `pt` (the host values among its names).
    fn spec(
        &self,
        v: &Variant,
        pt: &BTreeMap<String, String>,
        host_names: &[String],
        opts: &RankOptions,
    ) -> Result<WorkloadSpec, String> {
        let mut popts = self.opts.clone();
        for (k, val) in pt.iter().filter(|(k, _)| host_names.contains(k)) {
            popts.params.push(Given {
                kernel: None,
                name: k.clone(),
                value: Value::Float(
                    val.parse::<f64>()
                        .map_err(|_| format!("{k}={val}: not a number"))?,
                ),
            });
        }
        let target = Target::load(&opts.device, &opts.model)?;
        let answers = self.side.answers(std::slice::from_ref(&v.unit), &target);
        let mut found = crate::pipeline::workloads::Found::default();
        let sk = v.unit.kernels.first().and_then(|(_, sk)| sk.as_ref());
        let specs = crate::pipeline::workloads::of_kernel(
            &self.side,
            &v.unit,
            &v.entry,
            sk,
            (0, &target),
            answers.as_ref(),
            &popts,
            &mut found,
        )
        .map_err(|m| match m {
            Missing::NotLaunched(n) => format!("no workload: {}", n.why),
            Missing::Library(n) => n.why,
            Missing::Failed(f) => f.message,
        })?;
        pick_workload(&specs, opts.workload.as_deref()).ok_or_else(|| {
            format!(
                "kernel `{}` has no workload {}",
                demangle(&v.entry),
                opts.workload.as_deref().unwrap_or("0")
            )
        })
    }
}

/// The ranking as a table, best first.
pub fn render(r: &Ranking, top: usize) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "kernel {} on {}, objective {:?}; speed-up relative to {}",
        r.kernel,
        r.device,
        r.objective,
        r.reference
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = writeln!(
        s,
        "{:>4}  {:<28} {:>12} {:>12} {:>8}",
        "rank", "values", "time", "energy", "speedup"
    );
    for x in r.ranked.iter().take(top) {
        let vals = x
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = writeln!(
            s,
            "{:>4}  {:<28} {:>12} {:>12} {:>7.2}x",
            x.rank,
            vals,
            crate::report::fmt_time(x.time_s),
            crate::report::fmt_energy_opt(x.energy_j),
            x.speedup
        );
    }
    for f in &r.failed {
        let vals = f
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let _ = writeln!(
            s,
            "failed  {vals}: {}",
            f.message.lines().next().unwrap_or("")
        );
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_in_given_order() {
        let p = product(&[
            ("A".into(), vec!["1".into(), "2".into()]),
            ("B".into(), vec!["x".into(), "y".into()]),
        ]);
        assert_eq!(p.len(), 4);
        assert_eq!(p[0]["A"], "1");
        assert_eq!(p[0]["B"], "x");
        assert_eq!(p[3]["A"], "2");
        assert_eq!(p[3]["B"], "y");
        assert_eq!(objective_of(Objective::Edp, 2.0, Some(3.0)), Some(6.0));
        assert_eq!(objective_of(Objective::Energy, 2.0, None), None);
    }
}
