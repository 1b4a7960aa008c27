//! Analysing a set of jobs: each unit prepared once, every kernel's workloads found and
//! predicted on a thread pool, the results assembled into one report.

use super::templates::template_of;
use super::*;
use crate::report::NotLaunched;
use std::collections::BTreeSet;

/// Analyses every job for every device.
pub fn analyze(jobs: &[Job], opts: &Options, counter: &dyn Counter) -> Report {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build();
    match pool {
        Ok(pool) => pool.install(|| analyze_in_pool(jobs, opts, counter)),
        Err(e) => Report::new(
            vec![],
            vec![Failure {
                file: String::new(),
                line: None,
                kernel: None,
                stage: "setup".into(),
                message: format!("cannot start {} worker threads: {e}", opts.jobs),
            }],
        ),
    }
}

/// One kernel's share of an analysis: (unit, kernel, its runs as (target, workload)).
type KernelRuns = (usize, usize, Vec<(usize, WorkloadSpec)>);

fn analyze_in_pool(jobs: &[Job], opts: &Options, counter: &dyn Counter) -> Report {
    let mut errors = Vec::new();
    let mut targets = Vec::new();
    for d in &opts.devices {
        match Target::load(d, &opts.model) {
            Ok(t) => targets.push(t),
            Err(message) => errors.push(Failure {
                file: format!("devices/{d}.toml"),
                line: None,
                kernel: None,
                stage: "device".into(),
                message,
            }),
        }
    }
    let side = hosts::HostSide::new(jobs, opts, &targets, &mut errors);
    let mut kernel_jobs: Vec<&Job> = jobs.iter().filter(|j| !is_host_source(&j.path)).collect();
    if let Some(wanted) = &opts.only_launches {
        kernel_jobs = side.defining(kernel_jobs, wanted);
    }
    let units = side.units(jobs, &kernel_jobs, true);
    let cache = opts.cache.as_ref().map(|d| Cache::new(d.clone()));
    let mut ok_units = Vec::new();
    for u in units {
        match u {
            Ok(u) => ok_units.push(u),
            Err(f) => errors.push(f),
        }
    }
    super::link::link_units(&mut ok_units);
    let not_instantiated = not_instantiated(&ok_units);
    // a host file that carries a program is also a kernel file, whether or not it compiles
    let carry_programs = side.carrying_programs(&kernel_jobs);
    let mut host_only: Vec<String> = ok_units
        .iter()
        .filter(|u| u.kernels.is_empty())
        .filter(|u| {
            let display = &u.job.display_path;
            !not_instantiated.iter().any(|n| &n.file == display)
        })
        .map(|u| u.job.display_path.clone())
        .chain(
            jobs.iter()
                .filter(|j| is_host_source(&j.path))
                .map(|j| j.display_path.clone()),
        )
        .filter(|display| !carry_programs.contains(display))
        .collect();
    host_only.sort();
    host_only.dedup();
    let answers: Vec<_> = targets.iter().map(|t| side.answers(&ok_units, t)).collect();
    let mut found = workloads::Found::default();
    let mut items = Vec::new();
    let mut kept = BTreeSet::new();
    for (ui, u) in ok_units.iter().enumerate() {
        for (ki, (entry, sk)) in u.kernels.iter().enumerate() {
            for (ti, t) in targets.iter().enumerate() {
                let specs = workloads::of_kernel(
                    &side,
                    u,
                    entry,
                    sk.as_ref(),
                    (ti, t),
                    answers[ti].as_ref(),
                    opts,
                    &mut found,
                );
                match specs {
                    Ok(specs) => items.extend(
                        specs
                            .into_iter()
                            .filter(|s| wanted(opts, entry, s, &mut kept))
                            .map(|s| (ui, ki, ti, s)),
                    ),
                    Err(workloads::Missing::NotLaunched(n)) => found.not_launched(n),
                    Err(workloads::Missing::Library(n)) => found.library(n),
                    Err(workloads::Missing::Failed(f)) => errors.push(f),
                }
            }
        }
    }
    errors.extend(found.param_errors(&opts.params, &side));
    // the host code's compile errors in a file whose lowering failed say nothing more
    let unlowered: Vec<String> = errors
        .iter()
        .filter(|f| f.stage == "lower")
        .map(|f| f.file.clone())
        .collect();
    errors.extend(
        side.failures()
            .into_iter()
            .filter(|f| !unlowered.contains(&f.file)),
    );
    let (not_launched, library_kernels) = found.listed();
    let bar = progress_bar(items.len() as u64, opts.progress);
    // One task per kernel: it is prepared once (its symbolic analysis serves every workload and
    // device), its workloads run, and it is dropped before the worker takes the next kernel, so
    // memory holds the kernels in progress, not every kernel analysed so far.
    let mut per_kernel: Vec<KernelRuns> = Vec::new();
    // a kernel's items come together (the loop above goes file, kernel, device)
    for (ui, ki, ti, spec) in items {
        match per_kernel
            .last_mut()
            .filter(|(u, k, _)| (*u, *k) == (ui, ki))
        {
            Some((_, _, runs)) => runs.push((ti, spec)),
            None => per_kernel.push((ui, ki, vec![(ti, spec)])),
        }
    }
    let results: Vec<Result<KernelReport, Failure>> = per_kernel
        .par_iter()
        .flat_map_iter(|(ui, ki, runs)| {
            let u = &ok_units[*ui];
            let prepared = counter.prepare(&u.module, &u.kernels[*ki].0);
            let out: Vec<Result<KernelReport, Failure>> = runs
                .iter()
                .map(|(ti, spec)| {
                    let r = match &prepared {
                        Ok(p) => one(
                            u,
                            *ki,
                            spec,
                            &targets[*ti],
                            p.as_ref(),
                            counter,
                            opts,
                            cache.as_ref(),
                        ),
                        Err(m) => Err(fail(
                            &u.job,
                            None,
                            Some(&u.kernels[*ki].0),
                            "count",
                            m.clone(),
                        )),
                    };
                    bar.inc(1);
                    r
                })
                .collect();
            out
        })
        .collect();
    bar.finish_and_clear();
    let mut kernels = Vec::new();
    for r in results {
        match r {
            Ok(k) => kernels.push(k),
            Err(f) => errors.push(f),
        }
    }
    let mut report = Report::new(kernels, crate::report::Failure::merge_repeated(errors));
    report.host_only = host_only;
    report.not_launched = not_launched;
    report.not_instantiated = not_instantiated;
    report.library_kernels = library_kernels;
    report
}

/// Whether `opts.only_launches` keeps workload `s` of kernel `entry`: the first of the
/// kernel's workloads at each listed launch (`kept` holds those taken), since a measured
/// launch is compared with the first prediction at its sizes. A workload whose sizes cannot be
/// worked out is kept: its analysis says why.
fn wanted(
    opts: &Options,
    entry: &str,
    s: &WorkloadSpec,
    kept: &mut BTreeSet<(String, [u64; 3], [u64; 3])>,
) -> bool {
    let Some(keys) = &opts.only_launches else {
        return true;
    };
    let Ok(w) = s.resolve_launch(&Default::default()) else {
        return true;
    };
    let demangled = crate::pipeline::demangle(entry);
    let name = crate::pipeline::launch_base_name(&demangled);
    let args = crate::names::template_args(&demangled);
    let instance_of = |k: &LaunchKey| match (&k.instance, &args) {
        (Some(want), Some(got)) => crate::names::same_instance(want, got),
        _ => true,
    };
    keys.iter()
        .any(|k| k.kernel == name && k.grid == w.grid && k.block == w.block && instance_of(k))
        && kept.insert((entry.to_string(), w.grid, w.block))
}

fn progress_bar(n: u64, want: bool) -> indicatif::ProgressBar {
    if !want {
        return indicatif::ProgressBar::hidden();
    }
    crate::progress::bar(
        n,
        "{spinner} analysing kernels [{bar:30}] {pos}/{len} {elapsed}",
    )
}

#[allow(clippy::too_many_arguments)]
fn one(
    u: &Unit,
    ki: usize,
    spec: &WorkloadSpec,
    t: &Target,
    prepared: &dyn Prepared,
    counter: &dyn Counter,
    opts: &Options,
    cache: Option<&Cache>,
) -> Result<KernelReport, Failure> {
    let (entry, sk) = &u.kernels[ki];
    let src_line = sk.as_ref().map(|s| s.line as u32);
    let err = |stage: &str, m: String| fail_at_kernel(u, sk.as_ref(), entry, stage, m);
    let w = spec.resolve_launch(&Default::default()).map_err(|m| {
        let how = spec.how_to_set(&m);
        match &spec.origin {
            Some(o) => err("workload", format!("{m}{how} (the workload of {o})")),
            None => err("workload", format!("{m}{how}")),
        }
    })?;
    let params: Vec<String> = sk.as_ref().map(|s| s.params.clone()).unwrap_or_default();
    let key = Cache::key(&[
        &u.ptx_sha256,
        &u.linked_sha256,
        entry,
        &serde_json::to_string(&w).unwrap_or_default(),
        &params.join(","),
        &t.device.name,
        &serde_json::to_string(&t.device).unwrap_or_default(),
        &t.model_name,
        counter.name(),
        // a budget decides whether a kernel is counted or refused
        &format!("{:?}", kerncast_passes::budget::get()),
        env!("CARGO_PKG_VERSION"),
        &Cache::tool_fingerprint(),
        &u.job.display_path,
        &format!("{:?}", u.registers.of(entry)),
        // the notes the host code gives (where the launch is, how often it runs) change with
        // the host file, which the kernel's PTX does not
        &format!("{:?} {:?}", spec.origin, spec.launches),
        // a report made without the size chart has none to give
        &format!("size_chart={}", opts.size_chart),
    ]);
    if let Some(hit) = cache.and_then(|c| c.get(&key)) {
        return Ok(hit);
    }
    let bound = prepared
        .bind_spec(spec, &BTreeMap::new(), &params)
        .map_err(|m| err("count", spec.why_unset(m)))?;
    let mut stats = bound.stats;
    let mut notes = spec.host_notes();
    notes.extend(
        u.not_inlined
            .iter()
            .filter(|c| c.kernel == *entry)
            .map(|c| c.to_string()),
    );
    notes.extend(u.notes.iter().cloned());
    notes.extend(u.arch_note());
    notes.extend(u.registers.apply(entry, &mut stats));
    notes.extend(crate::registers::launch_fails(&stats, &t.device));
    let blocks = t.blocks(&u.module, entry, &u.sass_arch());
    let p = t
        .predict(&stats, &blocks, &w.hints)
        .map_err(|m| err("model", m))?;
    let f = u
        .module
        .kernels()
        .find(|k| k.name == *entry)
        .ok_or_else(|| err("count", format!("kernel `{entry}` vanished from the PTX")))?;
    let src_name = Path::new(&u.job.display_path)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let file_of = |ptx_file: &str| -> String {
        let base = Path::new(ptx_file)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if base == src_name || ptx_file.is_empty() {
            u.job.display_path.clone()
        } else {
            ptx_file.to_string()
        }
    };
    let breakdown: BTreeMap<String, f64> = p
        .breakdown
        .iter()
        .map(|c| (c.name.clone(), c.time_s))
        .collect();
    let mut hot = hotlines::attribute(
        f,
        &stats,
        &breakdown,
        p.energy_j,
        p.time_s,
        &file_of,
        opts.hot_lines,
    );
    let texts = u
        .source_text
        .iter()
        .map(|t| (u.job.display_path.as_str(), t.as_str()))
        .chain(
            u.headers
                .iter()
                .map(|h| (h.display.as_str(), h.text.as_str())),
        );
    for (file, text) in texts {
        for h in hot.iter_mut().filter(|h| h.loc.file == file) {
            h.text = (h.loc.line as usize)
                .checked_sub(1)
                .and_then(|i| text.lines().nth(i))
                .map(|l| l.trim().to_string());
        }
    }
    let scaling = if opts.size_chart {
        scaling(
            spec,
            prepared,
            &params,
            t,
            &blocks,
            &w,
            stats.regs_per_thread,
        )
    } else {
        None
    };
    let mut counts = BTreeMap::new();
    let mut unknowns = BTreeMap::new();
    for (f, v) in &stats.features {
        if let kerncast_passes::stats::Feature::Unknown { opcode } = f {
            unknowns.insert(opcode.clone(), *v);
        }
        counts.insert(f.to_string(), *v);
    }
    // the dependent chains a warp runs through, for the scheduler form's fit to read back
    if let Some(c) = kerncast_models::schedule::chain::per_warp(&stats, &blocks.chains) {
        counts.insert(kerncast_models::sched_terms::CHAIN_ALU.to_string(), c.alu);
        counts.insert(kerncast_models::sched_terms::CHAIN_GMEM.to_string(), c.gmem);
    }
    // the atomics' serial executions, for the same
    let serial = kerncast_models::schedule::atomics::serial_lanes(&stats, &blocks.atomics);
    counts.insert(
        kerncast_models::sched_terms::SERIAL_ATOMICS.to_string(),
        serial.global,
    );
    counts.insert(
        kerncast_models::sched_terms::SPIN_LANES.to_string(),
        serial.shared_spin,
    );
    // the linear model's features (Stevens & Klöckner's), for `kerncast fit` to read back
    for (k, v) in kerncast_models::linear::features(&stats) {
        counts.insert(format!("linear.{k}"), v);
    }
    // FLOPs as Nsight counts them on SASS (the PTX-level counts stay under their own keys)
    if !stats.block_execs.is_empty() {
        let arch = u.sass_arch();
        match crate::sass_flops::FlopTable::for_arch(&arch) {
            Ok((table, note)) => {
                // ptxas's own SASS by line, where it assembled for this architecture
                let lines = u.registers.sass_lines.as_ref().filter(|l| l.arch == arch);
                let s = crate::sass_flops::count(f, &stats, table, lines);
                counts.insert("flops.f32".into(), s.f32);
                counts.insert("flops.f64".into(), s.f64);
                counts.insert("flops.f16".into(), s.f16);
                counts.insert("flops.ptx.f32".into(), s.ptx_f32);
                counts.insert("flops.ptx.f64".into(), s.ptx_f64);
                notes.extend(note);
                if u.job.sass_in_context && lines.is_none() {
                    let why = u.registers.sass_unread.as_deref().unwrap_or(
                        "the PTX ptxas assembled is linked from several files, whose lines are \
                         not the ones counted",
                    );
                    notes.push(format!(
                        "SASS FLOPs from the {arch} expansion table, not ptxas's own SASS: {why}"
                    ));
                }
                if !s.unlisted.is_empty() {
                    notes.push(format!(
                        "SASS FLOPs: forms the {arch} expansion table lacks, counted at the PTX level: {}",
                        s.unlisted.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            Err(e) => notes.push(format!("no SASS FLOPs: {e}")),
        }
    }
    notes.extend(p.notes.iter().cloned());
    notes.extend(bound.notes);
    notes.extend(spec.runs_note(p.time_s, p.energy_j));
    if !hot.is_empty() {
        notes.push("energy per source line assumes constant power over the kernel".into());
    }
    let dram = t.dram_traffic(&stats, &w.hints);
    let roofline = t.roofline(&stats, &dram, p.time_s);
    let report = KernelReport {
        kernel: entry.clone(),
        // the instantiation (`block_sum<256>`), even where its template's annotation applies
        display_name: demangle(entry),
        source: Some(SourceLoc {
            file: sk
                .as_ref()
                .and_then(|s| s.file.clone())
                .unwrap_or_else(|| u.job.display_path.clone()),
            line: src_line.unwrap_or(1),
        }),
        frontend: u.frontend.clone(),
        ptx_sha256: u.ptx_sha256.clone(),
        device: t.device.name.clone(),
        model: p.model.clone(),
        workload: w,
        prediction: Prediction {
            time_s: p.time_s,
            power_w: p.power_w,
            energy_j: p.energy_j,
            bottleneck: p.bottleneck.clone(),
            error_band: p.error_band,
        },
        breakdown: p.breakdown,
        roofline,
        dram: Some(dram),
        dvfs: p.dvfs,
        scaling,
        hot_lines: hot,
        counts,
        unknowns,
        assumptions: stats.assumptions.clone(),
        resources: Resources {
            regs_per_thread: stats.regs_per_thread,
            shared_bytes_per_block: stats.shared_bytes_per_block,
        },
        notes,
        counter: bound.counter,
        models: p.models,
        host_runs: spec.host_runs(),
    };
    if let Some(c) = cache {
        c.put(&key, &report);
    }
    Ok(report)
}

/// Predicted time for the size parameter at 1/16 … 4× its value (symbolic counts) or 1/16 … 1×
/// (emulated counts, which run the kernel). Sizes that fail to count or predict end the series.
fn scaling(
    spec: &WorkloadSpec,
    prepared: &dyn Prepared,
    params: &[String],
    t: &Target,
    blocks: &crate::engine::KernelBlocks,
    w: &crate::workload::Workload,
    regs_per_thread: Option<u32>,
) -> Option<Scaling> {
    let param = spec.size_param()?;
    let base = *w.params.get(&param)?;
    if base <= 0 {
        return None;
    }
    let factors: &[f64] = if prepared.cheap() {
        &[1.0 / 16.0, 1.0 / 8.0, 0.25, 0.5, 1.0, 2.0, 4.0]
    } else {
        &[1.0 / 16.0, 1.0 / 8.0, 0.25, 0.5, 1.0]
    };
    let scales: Vec<f64> = factors
        .iter()
        .copied()
        .filter(|f| ((base as f64) * f).round() >= 1.0)
        .collect();
    let mut points = Vec::new();
    if let Ok(bounds) = prepared.bind_sizes(spec, &BTreeMap::new(), params, &scales) {
        for (f, mut b) in scales.iter().zip(bounds) {
            let v = ((base as f64) * f).round() as i64;
            b.stats.regs_per_thread = regs_per_thread;
            let Ok(q) = t.quick(&b.stats, blocks, &w.hints) else {
                break;
            };
            if points.iter().all(|p: &ScalingPoint| p.value != v) {
                points.push(ScalingPoint {
                    value: v,
                    time_s: q.time_s,
                    energy_j: q.energy_j.unwrap_or(0.0),
                });
            }
        }
    }
    (points.len() >= 2).then_some(Scaling { param, points })
}

/// The templates no unit instantiates. A header's template that one file leaves alone and
/// another instantiates has its code, so only those that no unit seeing their file has an
/// instance of are listed, once each.
pub(super) fn not_instantiated(units: &[Unit]) -> Vec<NotLaunched> {
    let instantiated = |file: &str, name: &str| {
        units
            .iter()
            .filter(|u| u.job.display_path == file || u.headers.iter().any(|h| h.display == file))
            .flat_map(|u| u.module.kernels())
            .any(|k| template_of(&k.name) == name)
    };
    let mut out: Vec<NotLaunched> = Vec::new();
    for n in units.iter().flat_map(|u| &u.uninstantiated) {
        let listed = out
            .iter()
            .any(|o| (&o.file, o.line, &o.kernel) == (&n.file, n.line, &n.kernel));
        if !listed && !instantiated(&n.file, &n.kernel) {
            out.push(n.clone());
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Dims;

    fn launch(grid: &str, block: &str) -> WorkloadSpec {
        WorkloadSpec {
            grid: Dims::parse(grid).unwrap(),
            block: Dims::parse(block).unwrap(),
            ..WorkloadSpec::empty()
        }
    }

    #[test]
    fn only_the_first_workload_at_each_listed_launch_is_analysed() {
        let opts = Options {
            only_launches: Some(vec![LaunchKey {
                kernel: "scale".into(),
                grid: [8, 1, 1],
                block: [256, 1, 1],
                instance: None,
            }]),
            ..Options::default()
        };
        let mut kept = BTreeSet::new();
        let entry = "_ZN2ns5scaleIfEEvPT_i";
        let mut take = |s: &WorkloadSpec| wanted(&opts, entry, s, &mut kept);
        assert!(take(&launch("8", "256")), "the listed launch is analysed");
        assert!(
            !take(&launch("8", "256")),
            "a second one at the same sizes is not"
        );
        assert!(!take(&launch("16", "256")), "an unlisted grid is not");
        assert!(
            take(&launch("n / 256", "256")),
            "sizes not worked out: kept, to say why"
        );
        let only_double = Options {
            only_launches: Some(vec![LaunchKey {
                kernel: "scale".into(),
                grid: [8, 1, 1],
                block: [256, 1, 1],
                instance: Some("double".into()),
            }]),
            ..Options::default()
        };
        assert!(
            !wanted(
                &only_double,
                entry,
                &launch("8", "256"),
                &mut BTreeSet::new()
            ),
            "another template instance at the listed sizes is not analysed"
        );
        assert!(wanted(
            &only_double,
            "_ZN2ns5scaleIdEEvPT_i",
            &launch("8", "256"),
            &mut BTreeSet::new()
        ));
        let all = Options::default();
        assert!(wanted(
            &all,
            entry,
            &launch("16", "256"),
            &mut BTreeSet::new()
        ));
    }
}
