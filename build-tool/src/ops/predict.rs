//! `kerncast predict FILE --device D [--model M] [--clocks CORE,MEM | --sweep] [--json]`: time,
//! power, energy, breakdown, bottleneck and error band of one kernel for one workload, or the
//! whole DVFS grid with the minimum-energy / minimum-EDP pairs and the Pareto set.
//!
//! Thin: lowering, annotations and ptxas's registers come from `crate::pipeline`, counts from
//! `crate::engine`'s default counter (symbolic, with the emulator as its fallback), per-block
//! instructions from `kerncast_models::schedule::adapter`, predictions and text from
//! `kerncast_models`.

use super::workload_args::{unknown_param, WorkloadArgs};
use crate::annotations;
use crate::engine;
use crate::lower::LowerArgs;
use crate::ops::analyze::HostArgs;
use crate::param_fields;
use crate::params::{self, Given, Value};
use crate::pipeline::hosts::HostSide;
use crate::pipeline::workloads::{self, Missing};
use crate::pipeline::{self, Job, Unit};
use crate::symbolic::DATA_DEPENDENT;
use crate::workload::{Dims, Expr, WorkloadSpec};
use crate::Error;
use kerncast_models::model::MODEL_HINTS;
use kerncast_models::power::PhysicalPowerParams;
use kerncast_models::{auto, render, sweep, Clocks};
use kerncast_passes::stats::{Assumption, Feature, Launch};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Parser, Debug)]
pub struct Args {
    /// Kernel source (.cu, .cl, .ll, .bc) or PTX.
    pub file: PathBuf,
    /// Kernel (source or PTX name); default: the first kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    #[arg(long, default_value = "gtx-titan-x")]
    pub device: String,
    /// auto, linear, schedule, dvfs or roofline.
    #[arg(long, default_value = "auto")]
    pub model: String,
    /// Core and memory clock in MHz (default: the device's default pair).
    #[arg(long, value_name = "CORE,MEM", conflicts_with = "sweep")]
    pub clocks: Option<String>,
    /// Every clock pair of the device's DVFS grid.
    #[arg(long)]
    pub sweep: bool,
    /// JSON: the prediction (or the sweep) with the kernel, workload, counter and counts.
    #[arg(long)]
    pub json: bool,
    /// The workload: with both --grid and --block the launch is the command line's alone;
    /// otherwise the chosen workload, with a --grid or --block given replacing its own.
    #[command(flatten)]
    pub workload: WorkloadArgs,
    /// Host code that launches the kernel (repeatable): an OpenCL program's main.c, or the .cu
    /// or .cpp file with the `<<<…>>>`. Its launches are the workloads when the kernel's own
    /// file has no annotation or launch of it.
    #[arg(long = "host", value_name = "FILE")]
    pub hosts: Vec<PathBuf>,
    #[command(flatten)]
    pub host: HostArgs,
    #[command(flatten)]
    pub lower: LowerArgs,
    /// Do not read or write the cache of lowered PTX and ptxas resources ($KERNCAST_CACHE or
    /// target/kerncast-cache), which `analyze` shares.
    #[arg(long)]
    pub no_cache: bool,
}

fn dims(s: &str) -> crate::Result<Dims> {
    Dims::parse(s).map_err(|e| Error::Flag(format!("bad dimensions: {e} (expected X[,Y[,Z]])")))
}

/// The unit of the file predicted (`job`): its own, or (host code) the program its strings
/// carry that defines the kernel asked for; the host files read with it are `side`'s, and
/// `launches_wanted` whether the workload will come from them.
fn unit_of(job: &Job, jobs: &[Job], side: &HostSide, launches_wanted: bool) -> crate::Result<Unit> {
    let own = |u: &Result<Unit, crate::report::Failure>| match u {
        Ok(u) => u.job.path == job.path,
        Err(f) => f.file == job.display_path,
    };
    let kernel_jobs: Vec<&Job> = match pipeline::is_host_source(&job.path) {
        true => Vec::new(),
        false => vec![job],
    };
    let failed = |f: &crate::report::Failure| {
        let at = f.line.map_or(String::new(), |l| format!(":{l}"));
        Error::at_stage(
            &f.stage,
            format!("{}{at}: {} failed: {}", f.file, f.stage, f.message),
        )
    };
    let mut first_err = None;
    for u in side
        .units(jobs, &kernel_jobs, launches_wanted)
        .into_iter()
        .filter(own)
    {
        match u {
            Ok(u) => return Ok(u),
            Err(f) => {
                first_err.get_or_insert(f);
            }
        }
    }
    match first_err {
        Some(f) => Err(failed(&f)),
        None => pipeline::prepare_unit(job).map_err(|f| failed(&f)),
    }
}

/// The workloads the host code or the annotations give the kernel, and the note that says
/// which of them is predicted; or why it has none.
fn chosen_workload(
    args: &Args,
    side: &HostSide,
    unit: &Unit,
    entry: &str,
    sk: Option<&annotations::SourceKernel>,
    target: &engine::Target,
    opts: &pipeline::Options,
) -> crate::Result<WorkloadSpec> {
    let path = args.file.display().to_string();
    let shown = pipeline::demangle(entry);
    let answers = side.answers(std::slice::from_ref(unit), target);
    let mut found = workloads::Found::default();
    let specs = workloads::of_kernel(
        side,
        unit,
        entry,
        sk,
        (0, target),
        answers.as_ref(),
        opts,
        &mut found,
    );
    if let Some(f) = found.param_errors(&opts.params, side).first() {
        return Err(Error::Flag(format!(
            "{path}: kernel `{shown}`: {}",
            f.message
        )));
    }
    let specs = match specs {
        Ok(s) => s,
        Err(Missing::NotLaunched(n)) => {
            return Err(Error::Workload(format!(
                "{path}: kernel `{shown}` has no workload: {}; give --grid and --block",
                n.why
            )))
        }
        Err(Missing::Library(_)) | Err(Missing::Failed(_)) => {
            if let Some(f) = side.failures().first() {
                return Err(Error::at_stage(
                    &f.stage,
                    format!("{}: {}", f.file, f.message),
                ));
            }
            let files = if args.hosts.is_empty() && !crate::host_workloads::is_host_code(&args.file)
            {
                "this file; give --host FILE for the host code that launches it, or --grid and --block".to_string()
            } else {
                let mut read: Vec<String> = vec![path.clone()];
                read.extend(args.hosts.iter().map(|h| h.display().to_string()));
                format!(
                    "{}; give --host FILE for other host code, or --grid and --block",
                    read.join(", ")
                )
            };
            return Err(Error::Workload(format!(
                "{path}: kernel `{shown}` has no such workload (no annotation, and no launch of it in {files})"
            )));
        }
    };
    // the host code's launches, of which only the first is predicted here
    let others = (args.workload.pick.is_none() && specs.len() > 1).then(|| {
        let labels: Vec<String> = specs
            .iter()
            .enumerate()
            .map(|(i, s)| match s.resolve() {
                Ok(w) => format!("{i}: {}", w.name),
                Err(_) => format!("{i}: unresolved"),
            })
            .collect();
        format!(
            "; it is the first of {} workloads ({}), and `--workload N` predicts another",
            specs.len(),
            labels.join(", ")
        )
    });
    let mut spec = WorkloadSpec::pick(&specs, args.workload.pick.as_deref()).ok_or_else(|| {
        Error::Workload(format!(
            "{path}: kernel `{shown}` has no workload {} (it has {})",
            args.workload.pick.as_deref().unwrap_or("0"),
            specs.len()
        ))
    })?;
    if let (Some(o), Some(others)) = (&mut spec.origin, &others) {
        o.push_str(others);
    }
    Ok(spec)
}

/// What `kerncast predict` prints (text or JSON).
pub fn output(args: &Args) -> crate::Result<String> {
    let path = args.file.display().to_string();
    // the device's profile, loaded once: it also decides the architecture to lower for
    let target = engine::Target::load(&args.device, &args.model)
        .map_err(|e| Error::Device(e.to_string()))?;
    let lower = args
        .lower
        .options_for_loaded(std::slice::from_ref(&target.device));
    let job = Job {
        path: args.file.clone(),
        display_path: path.clone(),
        lower: lower.clone(),
        kernel: args.kernel.clone(),
        workloads: Vec::new(),
        // a second predict of an unchanged file neither lowers nor assembles it again
        cache: (!args.no_cache).then(crate::cache::Cache::default_dir),
        sass_in_context: false,
    };
    let mut jobs = vec![job.clone()];
    for h in &args.hosts {
        if !h.is_file() {
            return Err(Error::Flag(format!("--host {}: no such file", h.display())));
        }
        jobs.push(Job {
            path: h.clone(),
            display_path: h.display().to_string(),
            lower: lower.clone(),
            kernel: None,
            workloads: Vec::new(),
            cache: job.cache.clone(),
            sass_in_context: false,
        });
    }
    let given = params::parse(&args.workload.params).map_err(|e| Error::Flag(e.to_string()))?;
    let opts = pipeline::Options {
        devices: vec![args.device.clone()],
        model: args.model.clone(),
        params: given.clone(),
        run: args.host.run_spec(std::slice::from_ref(&args.file)),
        ..pipeline::Options::default()
    };
    let mut setup = Vec::new();
    let side = HostSide::new(&jobs, &opts, std::slice::from_ref(&target), &mut setup);
    if let Some(f) = setup.first() {
        return Err(Error::at_stage(
            &f.stage,
            format!("{}: {}", f.file, f.message),
        ));
    }
    // --grid and --block together are the workload: no launch is taken from the host code
    let launches_wanted = args.workload.grid.is_none() || args.workload.block.is_none();
    let unit = unit_of(&job, &jobs, &side, launches_wanted)?;
    if let (Some(want), [_, _, ..]) = (&args.kernel, unit.kernels.as_slice()) {
        let names: Vec<&str> = unit.kernels.iter().map(|(k, _)| k.as_str()).collect();
        return Err(Error::Flag(format!(
            "{path}: --kernel {want} names {} kernels (overloads): {}; give the mangled name",
            names.len(),
            names.join(", ")
        )));
    }
    let (kname, sk) = unit
        .kernels
        .first()
        .cloned()
        .ok_or_else(|| Error::Workload(format!("{path}: no kernel")))?;
    let f = unit
        .module
        .kernels()
        .find(|k| k.name == kname)
        .ok_or_else(|| Error::Workload(format!("{path}: kernel `{kname}` not in the PTX")))?;
    // messages name the kernel as its source does
    let shown = pipeline::demangle(&kname);
    let mut spec: WorkloadSpec = match (&args.workload.grid, &args.workload.block) {
        (Some(g), Some(b)) => {
            let ints: Vec<(String, Expr)> = params::for_kernel(&given, &shown)
                .iter()
                .filter_map(|g| match &g.value {
                    Value::Int(e) => Some((g.name.clone(), e.clone())),
                    Value::Float(_) => None,
                })
                .collect();
            let mut spec = WorkloadSpec {
                name: Some("command line".into()),
                params: ints,
                grid: dims(g)?,
                block: dims(b)?,
                // the source's integer #defines, as its annotations see them
                macros: unit
                    .source_text
                    .as_deref()
                    .map(annotations::int_macros)
                    .unwrap_or_default(),
                ..WorkloadSpec::empty()
            };
            spec.hints.extend(floats(&given, &shown));
            pipeline::apply_defines(&mut spec, &lower.defines);
            let source_params = sk.as_ref().map(|s| s.params.clone()).unwrap_or_default();
            let source_fields = sk.as_ref().map(|s| s.fields.clone()).unwrap_or_default();
            unknown_param(&spec, f, &source_params, &source_fields).map_or(Ok(()), |e| {
                Err(Error::Flag(format!("{path}: kernel `{shown}`: {e}")))
            })?;
            spec
        }
        (grid, block) => {
            let mut spec =
                chosen_workload(args, &side, &unit, &kname, sk.as_ref(), &target, &opts)?;
            if let Some(g) = grid {
                spec.grid = dims(g)?;
            }
            if let Some(b) = block {
                spec.block = dims(b)?;
            }
            spec
        }
    };
    let source_params = sk.as_ref().map(|s| s.params.clone()).unwrap_or_default();
    let source_fields = sk.as_ref().map(|s| s.fields.clone()).unwrap_or_default();
    param_fields::alias_fields(&mut spec, &source_fields, &source_params);
    let given = args
        .workload
        .hint_values()
        .map_err(|e| Error::Flag(e.to_string()))?;
    spec.hints.extend(given.clone());
    // a buffer size given by a pointer field's name replaces the host's, keyed by offset by now
    param_fields::alias_buffer_hints(
        &mut spec.hints,
        &given,
        &source_fields,
        &source_params,
        true,
    );
    for b in &args.workload.buffers {
        let (name, gen) = b
            .split_once('=')
            .ok_or_else(|| Error::Flag(format!("--buffer `{b}`: expected NAME=TYPE:GEN")))?;
        let name = name.trim();
        let pointer = f.params.iter().enumerate().any(|(i, p)| {
            (p.name == name || source_params.get(i).is_some_and(|s| s == name)) && p.ty.bits() == 64
        });
        if !pointer {
            return Err(Error::Flag(format!(
                "{path}: kernel `{shown}`: --buffer `{name}`: no pointer parameter of that name"
            )));
        }
        spec.buffers
            .insert(name.to_string(), gen.trim().to_string());
    }
    let d = target.device.clone();
    let w = spec.resolve_launch(&Default::default()).map_err(|e| {
        let at = sk
            .as_ref()
            .map_or(String::new(), |s| format!(":{}", s.line));
        let how = spec.how_to_set(&e);
        let from = spec
            .origin
            .as_ref()
            .map_or(String::new(), |o| format!(" (the workload of {o})"));
        Error::Workload(format!(
            "{path}{at}: kernel `{shown}`: workload: {e}{how}{from}"
        ))
    })?;
    let counter = engine::default_counter();
    // What the models read of the code and the tables they load do not depend on the counts:
    // made while the kernel is counted, which runs on one core for much of a short `predict`.
    let arch = unit.sass_arch();
    let (bound, blocks) = std::thread::scope(|s| {
        let blocks = s.spawn(|| {
            if let Some(m) = auto::by_name(&args.model) {
                m.prepare(&d);
            }
            engine::KernelBlocks::of(f, &d, &arch)
        });
        let bound = counter
            .prepare(&unit.module, &kname)
            .and_then(|p| p.bind_spec(&spec, &BTreeMap::new(), &source_params));
        (bound, blocks.join())
    });
    let blocks = blocks.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let bound = bound.map_err(|e| {
        Error::Analysis(format!(
            "{path}: kernel `{shown}`: counting ({}) failed: {}",
            counter.name(),
            spec.why_unset(e.to_string())
        ))
    })?;
    let stats = bound.stats;
    let counted_by = bound.counter;

    let model = auto::by_name(&args.model).ok_or_else(|| {
        Error::Device(format!(
            "unknown model `{}` (auto, linear, schedule, dvfs, roofline)",
            args.model
        ))
    })?;
    let mut stats = stats;
    stats.launch.get_or_insert(Launch {
        grid: w.grid,
        block: w.block,
    });
    let mut notes = spec.host_notes();
    notes.extend(bound.notes);
    notes.extend(unit.notes.iter().cloned());
    notes.extend(unit.arch_note());
    notes.extend(unit.registers.apply(&kname, &mut stats));
    notes.extend(crate::registers::launch_fails(&stats, &d));
    // What the counts hold but no model reads, so a user sees what the prediction leaves out.
    notes.extend(
        unit.not_inlined
            .iter()
            .filter(|c| c.kernel == kname)
            .map(|c| c.to_string()),
    );
    if let Some(n) = unclassified_note(&stats.features) {
        notes.push(n);
    }
    let emulated = counted_by == "emulator";
    notes.extend(unread_hints(&w.hints, &stats.assumptions, emulated));
    // What the counter assumed where the workload said nothing, so a guess never passes silently.
    notes.extend(once_each(
        stats.assumptions.iter().filter(|a| !a.from_user).map(|a| {
            if a.settable() {
                format!(
                    "assumed `{}` = {} (default; set it with --hint {}=VALUE): {}",
                    a.hint_key, a.default, a.hint_key, a.what
                )
            } else {
                format!("not resolved ({}): {}", a.hint_key, a.what)
            }
        }),
    ));
    let input = engine::model_input(&stats, &blocks, &w.hints);
    let power = PhysicalPowerParams::from_device(&d).ok();
    let heading = if shown == kname {
        kname.clone()
    } else {
        format!("{shown} ({kname})")
    };
    let header = format!(
        "{path} kernel {heading}, workload {} (grid {:?}, block {:?}), device {}, counts: {}\n",
        w.name, w.grid, w.block, d.name, counted_by
    );
    let fail = |e: kerncast_models::ModelError| {
        Error::Analysis(format!("{path}: kernel `{shown}` on {}: {e}", d.name))
    };
    let mut out = String::new();
    if args.sweep {
        let mut sw = sweep::sweep(model.as_ref(), &input, &d, power.as_ref()).map_err(fail)?;
        if let Some(p) = sw.points.first_mut() {
            p.notes.extend(notes);
        }
        if args.json {
            let doc = JsonOutput::new(None, &w, &counted_by, &input.stats.features, &sw);
            out = serde_json::to_string_pretty(&doc).map_err(|e| Error::Output(e.to_string()))?;
            out.push('\n');
        } else {
            out.push_str(&header);
            out.push_str(&render::render_sweep(&sw));
        }
    } else {
        let clocks = match &args.clocks {
            Some(c) => {
                let v: Vec<f64> = c
                    .split(',')
                    .map(|x| x.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| Error::Flag(format!("--clocks `{c}`: {e}")))?;
                let pair = match v.as_slice() {
                    [core, mem] => Clocks::new(*core, *mem),
                    _ => return Err(Error::Flag(format!("--clocks `{c}`: expected CORE,MEM"))),
                };
                d.check_clocks(pair)
                    .map_err(|e| Error::Flag(format!("--clocks `{c}`: {e}")))?;
                pair
            }
            None => d
                .default_clocks()
                .map_err(|e| Error::Device(e.to_string()))?,
        };
        let mut p = sweep::predict_full(model.as_ref(), &input, &d, clocks, power.as_ref())
            .map_err(fail)?;
        p.notes.extend(notes);
        p.notes.extend(spec.runs_note(p.time_s, p.energy_j));
        if args.json {
            let names = Some((kname.as_str(), shown.as_str(), d.name.as_str()));
            let doc = JsonOutput::new(names, &w, &counted_by, &input.stats.features, &p);
            out = serde_json::to_string_pretty(&doc).map_err(|e| Error::Output(e.to_string()))?;
            out.push('\n');
        } else {
            out.push_str(&header);
            out.push_str(&render::render_prediction(&p));
        }
    }
    Ok(out)
}

/// `--json`: the model's output with what it was made from, under the names `analyze`'s report
/// gives them: the kernel and device (a sweep names them itself), the workload, the counter and
/// the counts the model read.
#[derive(serde::Serialize)]
struct JsonOutput<'a, T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<&'a str>,
    workload: &'a crate::workload::Workload,
    counter: &'a str,
    counts: BTreeMap<String, f64>,
    #[serde(flatten)]
    result: &'a T,
}

impl<'a, T> JsonOutput<'a, T> {
    fn new(
        names: Option<(&'a str, &'a str, &'a str)>,
        workload: &'a crate::workload::Workload,
        counter: &'a str,
        features: &BTreeMap<Feature, f64>,
        result: &'a T,
    ) -> Self {
        JsonOutput {
            kernel: names.map(|n| n.0),
            display_name: names.map(|n| n.1),
            device: names.map(|n| n.2),
            workload,
            counter,
            counts: features.iter().map(|(f, v)| (f.to_string(), *v)).collect(),
            result,
        }
    }
}

/// The unclassified instructions the kernel executes (`Feature::Unknown`, calls left out: their
/// own note names them), with their executions; no model prices them.
fn unclassified_note(features: &BTreeMap<Feature, f64>) -> Option<String> {
    let list: Vec<String> = features
        .iter()
        .filter_map(|(f, v)| match f {
            Feature::Unknown { opcode } if !opcode.starts_with("call:") && *v > 0.0 => {
                Some(format!("{opcode} x{v:.0}"))
            }
            _ => None,
        })
        .collect();
    (!list.is_empty()).then(|| {
        format!(
            "not modelled: unclassified instructions ({}); their time, memory traffic and power are not in the prediction",
            list.join(", ")
        )
    })
}

/// The floating-point `--param`s for the kernel `shown`, as the `param.NAME` values the
/// emulator runs it with.
fn floats(given: &[Given], shown: &str) -> Vec<(String, f64)> {
    params::for_kernel(given, shown)
        .iter()
        .filter_map(|g| match g.value {
            Value::Float(x) => Some((format!("param.{}", g.name), x)),
            Value::Int(_) => None,
        })
        .collect()
}

/// A note for each hint nothing reads: a model's key ([`MODEL_HINTS`]), the emulator's
/// (`param.*`, `buffer_bytes.*`, `dynamic_shared_bytes`), or the key of an assumption the count
/// made that a value can replace. A misspelt hint would otherwise change nothing, silently.
/// When the emulator counted, the symbolic counter's data-dependence keys (`trip.*`, `branch.*`,
/// `pred.*`) were read by a count that was not used, and the note says that instead.
fn unread_hints(
    hints: &BTreeMap<String, f64>,
    assumptions: &[Assumption],
    emulated: bool,
) -> Vec<String> {
    let read = |k: &str| {
        MODEL_HINTS.contains(&k)
            || k == kerncast_passes::count::DYNAMIC_SHARED_BYTES
            || k.starts_with("param.")
            || k.starts_with("buffer_bytes.")
            || assumptions.iter().any(|a| a.settable() && a.hint_key == k)
    };
    let symbolic_only = |k: &str| DATA_DEPENDENT.iter().any(|p| k.starts_with(p));
    hints
        .keys()
        .filter(|k| !read(k))
        .map(|k| {
            if emulated && symbolic_only(k) {
                format!(
                    "hint `{k}` is for the symbolic counter, which did not count this kernel \
                     (see why in its note); the emulator's counts do not use it"
                )
            } else {
                format!(
                    "hint `{k}` is read by nothing here and changes nothing (read: {}, \
                     dynamic_shared_bytes, param.NAME, buffer_bytes.NAME and the keys of the \
                     assumptions listed)",
                    MODEL_HINTS.join(", ")
                )
            }
        })
        .collect()
}

/// Each distinct line once, in first-seen order, with how often it came when more than once
/// (sixteen accesses with the same unresolved stride make one note, not sixteen).
fn once_each(lines: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for l in lines {
        match seen.iter_mut().find(|(s, _)| *s == l) {
            Some((_, n)) => *n += 1,
            None => seen.push((l, 1)),
        }
    }
    seen.into_iter()
        .map(|(l, n)| if n > 1 { format!("{l} ({n} times)") } else { l })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{once_each, unread_hints};
    use kerncast_passes::stats::Assumption;
    use std::collections::BTreeMap;

    #[test]
    fn a_hint_is_unread_unless_a_model_the_emulator_or_an_assumption_reads_it() {
        let hints: BTreeMap<String, f64> = [
            "l2_hit_rate",
            "l2_hitrate",
            "param.n",
            "trip.k.cu:4",
            "branch.k.cu:9",
            "stride",
        ]
        .into_iter()
        .map(|k| (k.to_string(), 1.0))
        .collect();
        let assumed = |key: &str| Assumption {
            hint_key: key.into(),
            what: String::new(),
            default: 0.0,
            from_user: true,
            at: None,
        };
        let listed = [assumed("trip.k.cu:4"), assumed("stride")];
        let keys = |notes: Vec<String>| -> Vec<String> {
            notes
                .iter()
                .map(|n| n.split('`').nth(1).unwrap().to_string())
                .collect()
        };
        // Symbolic counts: branch.k.cu:9 is no assumption of theirs, stride is not settable.
        let symbolic = unread_hints(&hints, &listed, false);
        assert_eq!(keys(symbolic), ["branch.k.cu:9", "l2_hitrate", "stride"]);
        // Emulated: the data-dependence keys were the symbolic counter's, and the note says so.
        let emulated = unread_hints(&hints, &[], true);
        assert_eq!(
            keys(emulated.clone()),
            ["branch.k.cu:9", "l2_hitrate", "stride", "trip.k.cu:4"]
        );
        assert!(
            emulated[0].contains("is for the symbolic counter"),
            "{emulated:?}"
        );
        assert!(emulated[1].contains("read by nothing"), "{emulated:?}");
    }

    #[test]
    fn repeated_notes_are_counted_once() {
        let lines = ["a", "b", "a", "c", "a"].map(String::from).into_iter();
        assert_eq!(once_each(lines), ["a (3 times)", "b", "c"]);
    }
}
