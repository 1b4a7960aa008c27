//! `kerncast rank`: predict every combination of compile-time choices (`-D TILE=…`) and workload
//! values, and order them by time, energy or energy-delay product, for autotuners.
//!
//! Why this shape: an autotuner's search space is a product of macro values (each a separate
//! compile) and workload values (the same binary). So each macro combination is lowered and
//! prepared once, and every workload point reuses the prepared kernel; a `--vary` name that is a
//! workload parameter varies the workload, any other name is a `-D` macro. Macro values that are
//! integers are also visible to the workload's expressions (`block=(TILE,TILE)`).

use crate::annotations;
use crate::engine::{Counter, KernelBlocks, Prepared, Quick, Target};
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

impl Objective {
    /// The objective in words, as the table's header and the notes say it.
    pub fn noun(self) -> &'static str {
        match self {
            Objective::Time => "time",
            Objective::Energy => "energy",
            Objective::Edp => "energy-delay product",
        }
    }

    /// The name of the column holding [`Ranked::objective_ratio`]: a speed-up only where the
    /// ratio is one of times.
    pub fn ratio_name(self) -> &'static str {
        match self {
            Objective::Time => "speedup",
            Objective::Energy => "energy ratio",
            Objective::Edp => "EDP ratio",
        }
    }

    /// The ranked value of `r` as the table prints it: points that print alike are the ties a
    /// reader sees, whatever digits lie below the printed ones.
    pub fn shown(self, r: &Ranked) -> String {
        match self {
            Objective::Time => crate::report::fmt_time(r.time_s),
            Objective::Energy => crate::report::fmt_energy_opt(r.energy_j),
            Objective::Edp => fmt_edp(r.edp),
        }
    }
}

/// An energy-delay product, fixed to four significant digits like the times and energies.
fn fmt_edp(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3e} J·s"))
        .unwrap_or_else(|| "–".into())
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
    /// The reference's time / this one's (> 1 is faster), whatever the objective: a speed-up
    /// is a ratio of times, so under `energy` or `edp` this is not the ranked ratio.
    pub speedup: f64,
    /// The reference's objective / this one's (> 1 is better than the reference): the speed-up
    /// under `time`, the energy ratio under `energy`, the EDP ratio under `edp`.
    pub objective_ratio: f64,
    /// The part that limits this point (`dram`, `compute`, `l2` …), as the model names it:
    /// what explains points that tie.
    pub bottleneck: String,
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

/// One predicted point: its values, and its time, energy and bottleneck or why it failed.
type Point = (BTreeMap<String, String>, Result<Quick, String>);

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
/// the variant, where known. Returns time, energy and bottleneck per point.
pub fn predict_points(
    prepared: &dyn Prepared,
    regs_per_thread: Option<u32>,
    spec: &WorkloadSpec,
    params: &[String],
    points: &[BTreeMap<String, i64>],
    target: &Target,
    blocks: &KernelBlocks,
) -> Vec<Result<Quick, String>> {
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
            WorkloadSpec::pick(&sk.workloads, opts.workload.as_deref()).ok_or_else(|| {
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
    // Each variant is a compile; a long sweep shows it is alive in a CI log too.
    let bar = crate::progress::bar(
        variants.len() as u64,
        "{spinner} ranking variants [{bar:30}] {pos}/{len} {elapsed}",
    );
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
            bar.inc(1);
            (ptx, results)
        })
        .collect();
    bar.finish_and_clear();
    let read = match &annotated {
        Some(s) => s.names_read(),
        None => Vec::new(),
    };
    let idle = match &annotated {
        Some(_) => idle_macros(&mvary, &variants, &per_variant, &read, &text),
        // the host code's launches may follow a macro the PTX does not
        None => Vec::new(),
    };
    let results: Vec<Point> = per_variant.into_iter().flat_map(|(_, r)| r).collect();
    let ref_point = results
        .iter()
        .find(|(v, _)| *v == reference)
        .and_then(|(_, r)| r.as_ref().ok());
    let ref_obj = ref_point.and_then(|q| objective_of(opts.objective, q.time_s, q.energy_j));
    let ref_time = ref_point.map(|q| q.time_s);
    let mut ranked = Vec::new();
    let mut failed = Vec::new();
    for (values, r) in results {
        match r {
            Ok(q) => match objective_of(opts.objective, q.time_s, q.energy_j) {
                Some(obj) => ranked.push((
                    obj,
                    Ranked {
                        rank: 0,
                        values,
                        time_s: q.time_s,
                        energy_j: q.energy_j,
                        edp: q.energy_j.map(|e| e * q.time_s),
                        speedup: ref_time.map(|r| r / q.time_s).unwrap_or(f64::NAN),
                        objective_ratio: ref_obj.map(|r| r / obj).unwrap_or(f64::NAN),
                        bottleneck: q.bottleneck,
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
    let ranked: Vec<Ranked> = ranked
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut r))| {
            r.rank = i + 1;
            r
        })
        .collect();
    failed.sort_by(|a, b| a.values.cmp(&b.values));
    let idle_names: Vec<&str> = idle.iter().map(|(n, _)| n.as_str()).collect();
    let mut notes: Vec<String> = idle.iter().map(|(_, n)| n.clone()).collect();
    notes.extend(tie_notes(opts.objective, &opts.vary, &ranked, &idle_names));
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

/// A note (and the macro's name) for each varied macro that changes neither the PTX (every two variants that differ
/// only in it lower to the same code) nor the workload (no launch or parameter expression names
/// it): its values rank as ties, and a plain `#define` in the source, which a `-D` does not
/// replace, is the usual cause.
fn idle_macros(
    mvary: &[(String, Vec<String>)],
    variants: &[BTreeMap<String, String>],
    per_variant: &[(Option<String>, Vec<Point>)],
    read: &[String],
    source: &str,
) -> Vec<(String, String)> {
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
            notes.push((
                name.clone(),
                format!(
                    "{name}={} lower to the same PTX and no workload expression reads {name}: the \
                     values rank as ties ({why})",
                    values.join(",")
                ),
            ));
        }
    }
    notes
}

/// The most tied points a note names one by one; a long sweep's tie would fill the screen.
const MOST_TIED_NAMED: usize = 8;

/// A note for each run of points whose ranked value prints alike: which points tie and why,
/// from the part that limits each (all bound by DRAM bandwidth, which the varied values do not
/// move). Without it equal numbers read as a choice the ranking made. Points that differ only
/// in macros that change nothing (`idle`) already have their note, which names the cause.
fn tie_notes(
    o: Objective,
    vary: &[(String, Vec<String>)],
    ranked: &[Ranked],
    idle: &[&str],
) -> Vec<String> {
    let mut notes = Vec::new();
    let mut start = 0;
    while start < ranked.len() {
        let shown = o.shown(&ranked[start]);
        let end = ranked[start..]
            .iter()
            .position(|r| o.shown(r) != shown)
            .map_or(ranked.len(), |n| start + n);
        let group = &ranked[start..end];
        start = end;
        let Some(first) = group.first() else { break };
        if group.len() < 2 {
            continue;
        }
        let changed: Vec<&str> = vary
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| {
                group
                    .iter()
                    .any(|r| r.values.get(*k) != first.values.get(*k))
            })
            .collect();
        if changed.iter().all(|k| idle.contains(k)) {
            continue;
        }
        // in the order the values were given, not the table's
        let given = |r: &Ranked| -> Vec<usize> {
            changed
                .iter()
                .map(|k| {
                    vary.iter()
                        .find(|(n, _)| n == k)
                        .and_then(|(_, vs)| vs.iter().position(|v| Some(v) == r.values.get(*k)))
                        .unwrap_or(usize::MAX)
                })
                .collect()
        };
        let mut points: Vec<&Ranked> = group.iter().collect();
        points.sort_by_key(|r| given(r));
        let value = |r: &Ranked, k: &str| r.values.get(k).cloned().unwrap_or_default();
        let point = |r: &Ranked| {
            changed
                .iter()
                .map(|k| format!("{k}={}", value(r, k)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut who = match changed.as_slice() {
            [k] => format!(
                "{k}={}",
                points
                    .iter()
                    .take(MOST_TIED_NAMED)
                    .map(|r| value(r, k))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            _ => points
                .iter()
                .take(MOST_TIED_NAMED)
                .map(|r| point(r))
                .collect::<Vec<_>>()
                .join("; "),
        };
        if points.len() > MOST_TIED_NAMED {
            who.push_str(&format!(" … ({} points)", points.len()));
        }
        // the varied names the tied points share, where the sweep has other values of them
        let fixed: Vec<String> = vary
            .iter()
            .filter(|(k, vs)| vs.len() > 1 && !changed.contains(&k.as_str()))
            .map(|(k, _)| format!("{k}={}", value(first, k)))
            .collect();
        let at = if fixed.is_empty() {
            String::new()
        } else {
            format!(" (at {})", fixed.join(" "))
        };
        let names = changed.join(" or ");
        let mut bounds: Vec<&str> = group.iter().map(|r| r.bottleneck.as_str()).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let why = match bounds.as_slice() {
            [b] => format!(
                "each is bound by {b} ({}), so changing {names} does not move the predicted {}",
                bound_in_words(b),
                o.noun()
            ),
            _ => format!(
                "though bound by different parts ({}): the equal {} is a coincidence of the \
                 model's numbers, not one limit",
                points
                    .iter()
                    .take(MOST_TIED_NAMED)
                    .map(|r| format!("{} {}", point(r), r.bottleneck))
                    .collect::<Vec<_>>()
                    .join(", "),
                o.noun()
            ),
        };
        notes.push(format!("{who} tie at {shown}{at}: {why}"));
    }
    notes
}

/// What a model's bottleneck name stands for, for a reader who does not know the models' keys.
fn bound_in_words(b: &str) -> String {
    match b {
        "dram" => "the device's DRAM bandwidth".into(),
        "l2" => "the L2's bandwidth".into(),
        "dram latency" => "the latency of DRAM accesses, too few warps to hide it".into(),
        "l2 latency" => "the latency of L2 accesses, too few warps to hide it".into(),
        "compute" => "the SMs' instruction throughput".into(),
        "shared" => "shared-memory throughput".into(),
        "launch" => "the launch overhead".into(),
        "latency" => "instruction latency, too few warps to hide it".into(),
        "fp64" => "the fp64 units' throughput".into(),
        "tensor" => "the tensor cores' throughput".into(),
        other => format!("the model's `{other}` part"),
    }
}

/// One macro combination lowered: its unit, the kernel prepared, its registers per thread (a
/// tile size changes them, and with them how many blocks an SM holds), its scheduler blocks
/// and its PTX.
struct Variant {
    unit: Unit,
    entry: String,
    prepared: Box<dyn Prepared>,
    regs: Option<u32>,
    blocks: KernelBlocks,
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
        cache: None,
        sass_in_context: false,
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
    let blocks = target.blocks(&unit.module, &entry, &unit.sass_arch());
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
        WorkloadSpec::pick(&specs, opts.workload.as_deref()).ok_or_else(|| {
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
    let o = r.objective;
    // The ratio's column is named for what it divides, and the reference it divides by is
    // said once here: an EDP ratio headed `speedup` read as a ratio of times.
    let _ = writeln!(
        s,
        "kernel {} on {}, objective {}; {} = the reference's {} / each one's (> 1 is better), \
         reference {}",
        r.kernel,
        r.device,
        o.noun(),
        o.ratio_name(),
        o.noun(),
        r.reference
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let edp_head = match o {
        Objective::Edp => format!(" {:>14}", "EDP"),
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "{:>4}  {:<28} {:>12} {:>12}{edp_head}  {:<12} {:>12}",
        "rank",
        "values",
        "time",
        "energy",
        "bottleneck",
        o.ratio_name()
    );
    for x in r.ranked.iter().take(top) {
        let vals = x
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let edp = match o {
            Objective::Edp => format!(" {:>14}", fmt_edp(x.edp)),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "{:>4}  {:<28} {:>12} {:>12}{edp}  {:<12} {:>11.2}x",
            x.rank,
            vals,
            crate::report::fmt_time(x.time_s),
            crate::report::fmt_energy_opt(x.energy_j),
            x.bottleneck,
            x.objective_ratio
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
            crate::report::verbatim(&f.message, "        ")
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

    fn point(tile: &str, n: &str, time_s: f64, bottleneck: &str) -> Ranked {
        Ranked {
            rank: 0,
            values: [("TILE", tile), ("n", n)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            time_s,
            energy_j: None,
            edp: None,
            speedup: 1.0,
            objective_ratio: 1.0,
            bottleneck: bottleneck.into(),
        }
    }

    fn vary(tiles: &[&str], ns: &[&str]) -> Vec<(String, Vec<String>)> {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect();
        vec![("TILE".into(), v(tiles)), ("n".into(), v(ns))]
    }

    /// Times equal to the printed digits tie; the note names the points in the order given,
    /// the value they share, and the common bound; a lone point or an idle macro gets none.
    #[test]
    fn ties_are_named_with_their_bound() {
        let ranked = [
            point("32", "64", 1.23461e-6, "dram"),
            point("16", "64", 1.23459e-6, "dram"),
            point("8", "64", 2.0e-6, "compute"),
        ];
        let notes = tie_notes(
            Objective::Time,
            &vary(&["16", "32", "8"], &["64", "32"]),
            &ranked,
            &[],
        );
        assert_eq!(
            notes,
            [
                "TILE=16,32 tie at 1.235 µs (at n=64): each is bound by dram (the device's DRAM \
              bandwidth), so changing TILE does not move the predicted time"
            ]
        );
        let idle = tie_notes(
            Objective::Time,
            &vary(&["16", "32"], &["64"]),
            &ranked,
            &["TILE"],
        );
        assert!(idle.is_empty(), "{idle:?}");
    }

    #[test]
    fn ties_of_different_bounds_are_called_a_coincidence() {
        let ranked = [
            point("8", "64", 1.0e-6, "dram"),
            point("16", "32", 1.0e-6, "compute"),
        ];
        let notes = tie_notes(
            Objective::Time,
            &vary(&["8", "16"], &["64", "32"]),
            &ranked,
            &[],
        );
        assert_eq!(
            notes,
            [
                "TILE=8 n=64; TILE=16 n=32 tie at 1.000 µs: though bound by different parts \
              (TILE=8 n=64 dram, TILE=16 n=32 compute): the equal time is a coincidence of the \
              model's numbers, not one limit"
            ]
        );
    }

    /// A sweep's long tie names its first points and how many there are.
    #[test]
    fn a_long_tie_is_cut() {
        let tiles: Vec<String> = (1..=12).map(|t| t.to_string()).collect();
        let ranked: Vec<Ranked> = tiles.iter().map(|t| point(t, "64", 1e-3, "l2")).collect();
        let names: Vec<&str> = tiles.iter().map(String::as_str).collect();
        let notes = tie_notes(Objective::Time, &vary(&names, &["64"]), &ranked, &[]);
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with(
                "TILE=1,2,3,4,5,6,7,8 … (12 points) tie at 1.000 ms: each is bound by l2"
            ),
            "{notes:?}"
        );
    }

    #[test]
    fn the_ratio_is_named_for_the_objective() {
        assert_eq!(Objective::Time.ratio_name(), "speedup");
        assert_eq!(Objective::Energy.ratio_name(), "energy ratio");
        assert_eq!(Objective::Edp.ratio_name(), "EDP ratio");
        assert_eq!(fmt_edp(Some(4.6703e-2)), "4.670e-2 J·s");
    }
}
