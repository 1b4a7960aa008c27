//! The host code of an analysis, read once by `kerncast-host` ([`crate::host_workloads`]): the
//! programs it compiles at run time become units, and each kernel's launches its workloads,
//! per device (the host code may size launches by the device) and per the values the command
//! line gives (`--param`, scoped to a kernel or not).

use super::host_programs::{is_file_of, prepare_compiled_file, prepare_embedded};
use super::{demangle, fail, prepare_unit, Job, LaunchKey, Options, SourceKernel, Unit};
use crate::cache::Cache;
use crate::engine::Target;
use crate::host_workloads::{self, HostFile, Hosts, KernelInfo, ReadFor};
use crate::occupancy::{Answers, KernelOnDevice};
use crate::params::Given;
use crate::report::Failure;
use crate::workload::WorkloadSpec;
use kerncast_host::{EmbeddedSource, HostReading};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An analysis's host code and its first reading (at the first device, without occupancy
/// answers), which says what programs the host compiles at run time; read when first needed.
pub struct HostSide {
    pub hosts: Option<Arc<Hosts>>,
    first: std::sync::OnceLock<Option<Arc<Result<HostReading, String>>>>,
    first_device: Option<kerncast_models::Device>,
    /// Whether the units need the first reading: some file is host code only, or two files
    /// are host code (one may compile the other at run time).
    units_need_it: bool,
    /// Answers to the occupancy API the first reading was given (none yet): whether it asked.
    empty_answers: Arc<Answers>,
    /// The host code's compile errors and reading failures, each once.
    failures: std::sync::Mutex<Vec<Failure>>,
    /// Whether the first reading was made ahead ([`HostSide::read_ahead`]).
    read_ahead: std::sync::atomic::AtomicBool,
}

impl HostSide {
    /// The host code among `jobs`; a failure to set it up is an error of the report.
    pub fn new(
        jobs: &[Job],
        opts: &Options,
        targets: &[Target],
        errors: &mut Vec<Failure>,
    ) -> HostSide {
        let files: Vec<HostFile> = jobs
            .iter()
            .map(|j| HostFile {
                path: &j.path,
                shown: &j.display_path,
                lower: &j.lower,
            })
            .collect();
        // readings are kept with the analysis's other cached results, and not where it keeps none
        let reading_cache = opts.cache.as_ref().map(|c| Cache::host_readings_dir(c));
        let hosts = match Hosts::new(&files, &opts.run, &opts.params, reading_cache) {
            Ok(h) => h.map(Arc::new),
            Err(message) => {
                errors.push(Failure {
                    file: "(host code)".into(),
                    line: None,
                    kernel: None,
                    stage: "host".into(),
                    message,
                });
                None
            }
        };
        let host_code = jobs
            .iter()
            .filter(|j| host_workloads::is_host_code(&j.path))
            .count();
        let units_need_it = host_code > 1 || jobs.iter().any(|j| super::is_host_source(&j.path));
        HostSide {
            hosts,
            first: std::sync::OnceLock::new(),
            first_device: targets.first().map(|t| t.device.clone()),
            units_need_it,
            empty_answers: Arc::new(Answers::default()),
            failures: std::sync::Mutex::new(Vec::new()),
            read_ahead: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The first reading: at the first device, with the unscoped values.
    pub fn first(&self) -> Option<Arc<Result<HostReading, String>>> {
        self.first
            .get_or_init(|| {
                let h = self.hosts.as_ref()?;
                Some(self.noted(h.read(&self.first_what(h))))
            })
            .clone()
    }

    /// What the first reading is for: the first device, the unscoped values, no answers.
    fn first_what(&self, h: &Hosts) -> ReadFor {
        read_for(
            self.first_device.as_ref(),
            h.values(None, &[]),
            &self.empty_answers,
            0,
        )
    }

    /// Starts the first reading, to run while the device code of `jobs` is lowered, where a
    /// kernel will take its launches from it (no job has workloads of its own: kerncast.toml,
    /// annotations) and the units do not need it anyway. Nothing waits for it but what reads it
    /// (a lowering that fails is reported at once). The reading is kept, not noted: the report
    /// gains its failures only where something asks for it, as without the reading ahead.
    fn read_ahead(&self, jobs: &[Job]) {
        // where the units need it, [`HostSide::embedded`] makes it
        let Some(h) = self.hosts.as_ref().filter(|_| !self.units_need_it) else {
            return;
        };
        let own_workloads = |j: &Job| {
            !j.workloads.is_empty()
                || std::fs::read_to_string(&j.path)
                    .is_ok_and(|text| crate::annotations::gives_workloads(&text))
        };
        if jobs.iter().any(own_workloads) {
            return;
        }
        let (h, what) = (Arc::clone(h), self.first_what(h));
        std::thread::spawn(move || h.read(&what));
        self.read_ahead
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// `r`, its failure or compile errors kept for the report.
    fn noted(&self, r: Arc<Result<HostReading, String>>) -> Arc<Result<HostReading, String>> {
        let new = match r.as_ref() {
            Ok(reading) => diagnostics(reading, self.hosts.as_deref()),
            Err(message) => vec![Failure {
                file: "(host code)".into(),
                line: None,
                kernel: None,
                stage: "host".into(),
                message: message.clone(),
            }],
        };
        if let Ok(mut f) = self.failures.lock() {
            for n in new {
                if !f.contains(&n) {
                    f.push(n);
                }
            }
        }
        r
    }

    /// The host code's compile errors and reading failures.
    pub fn failures(&self) -> Vec<Failure> {
        self.failures.lock().map(|f| f.clone()).unwrap_or_default()
    }

    /// The programs the host code compiles at run time.
    pub fn embedded(&self) -> Vec<EmbeddedSource> {
        if !self.units_need_it {
            return Vec::new();
        }
        match self.first().as_deref() {
            Some(Ok(r)) => r
                .embedded
                .iter()
                .filter(|s| crate::embedded::Language::of(&s.language).is_some())
                .cloned()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The file as the reports show it.
    pub fn shown(&self, file: &str) -> String {
        match &self.hosts {
            Some(h) => h.program.shown(file),
            None => file.to_string(),
        }
    }

    /// The units of `kernel_jobs` (each lowered with the options of the host call that
    /// compiles it, where one does) and of the programs the host carries in its strings.
    ///
    /// The host reading needs no device code, so it runs beside the lowering (on a small
    /// program each takes seconds): the first reading, where the units need it, or where
    /// `launches_wanted` (the caller takes launches from the host code) a reading started
    /// ahead ([`HostSide::read_ahead`]). A file the reading finds compiled by a host call
    /// (rare) is lowered again with that call's options.
    pub fn units(
        &self,
        jobs: &[Job],
        kernel_jobs: &[&Job],
        launches_wanted: bool,
    ) -> Vec<Result<Unit, Failure>> {
        if launches_wanted {
            self.read_ahead(jobs);
        }
        let (embedded, lowered) = std::thread::scope(|s| {
            let reading = s.spawn(|| self.embedded());
            let lowered: Vec<Result<Unit, Failure>> =
                kernel_jobs.par_iter().map(|j| prepare_unit(j)).collect();
            let embedded = reading
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            (embedded, lowered)
        });
        let compiled = |j: &Job| embedded.iter().find(|s| is_file_of(s, &j.path));
        let carried: Vec<(Job, &EmbeddedSource)> = embedded
            .iter()
            .filter(|s| !kernel_jobs.iter().any(|j| is_file_of(s, &j.path)))
            .map(|s| (self.job_of(&s.file, jobs), s))
            .collect();
        kernel_jobs
            .par_iter()
            .zip(lowered)
            .map(|(j, unit)| match compiled(j) {
                Some(s) => prepare_compiled_file(j, s, &self.shown(&s.file)),
                None => unit,
            })
            .chain(carried.par_iter().map(|(j, s)| prepare_embedded(j, s)))
            .collect()
    }

    /// Of `kernel_jobs`, those that may define a kernel of the launches `wanted`: a unit is
    /// left unlowered where the host reading saw its translation unit (every header included)
    /// define none of their kernels, and its compile command keeps device code whole (not
    /// relocatable: no other unit can call its device functions). Such a unit's device
    /// compile gives nothing asked for, and can be most of a program's cost (bitcracker's
    /// `attack.cu`, 4 of its 11 s). Waits for the first reading; a unit the reading says
    /// nothing of, a job with no compile command, and every unit where a launch names its
    /// kernel by a symbol the demangler left mangled, are kept.
    pub fn defining<'j>(&self, kernel_jobs: Vec<&'j Job>, wanted: &[LaunchKey]) -> Vec<&'j Job> {
        let Some(reading) = self.first() else {
            return kernel_jobs;
        };
        let Some(defined) = reading
            .as_ref()
            .as_ref()
            .ok()
            .and_then(|r| r.kernels_defined.as_ref())
        else {
            return kernel_jobs;
        };
        // a name left mangled (the demangler did not take `_Z12block_strideI7__half2Tn…`)
        // is not the one the reading gives: nothing can be left out for it
        let plain = |n: &str| {
            !n.starts_with("_Z") && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !wanted.iter().all(|w| plain(&w.kernel)) {
            return kernel_jobs;
        }
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let defined: BTreeMap<PathBuf, &BTreeSet<String>> =
            defined.iter().map(|(f, k)| (canonical(f), k)).collect();
        let unwanted = |j: &Job| {
            let whole = j
                .lower
                .command
                .as_ref()
                .is_some_and(|c| !c.relocatable_device_code());
            let none_wanted = defined
                .get(&canonical(&j.path))
                .is_some_and(|kernels| !wanted.iter().any(|w| kernels.contains(&w.kernel)));
            whole && none_wanted
        };
        kernel_jobs.into_iter().filter(|j| !unwanted(j)).collect()
    }

    /// The job of a host file the reading names: the analysis's, or one made for a file the
    /// host code reached (a module a script imports) with the first job's options.
    fn job_of(&self, file: &str, jobs: &[Job]) -> Job {
        let canonical = |p: &Path| std::fs::canonicalize(p).ok();
        if let Some(j) = jobs
            .iter()
            .find(|j| canonical(&j.path) == canonical(Path::new(file)))
        {
            return j.clone();
        }
        Job {
            path: file.into(),
            display_path: self.shown(file),
            lower: jobs.first().map(|j| j.lower.clone()).unwrap_or_default(),
            kernel: None,
            workloads: Vec::new(),
            cache: jobs.first().and_then(|j| j.cache.clone()),
            sass_in_context: jobs.first().is_some_and(|j| j.sass_in_context),
        }
    }

    /// The files whose strings carry a program (not a kernel file of `kernel_jobs` that they
    /// read and compile), as shown.
    pub fn carrying_programs(&self, kernel_jobs: &[&Job]) -> Vec<String> {
        self.embedded()
            .iter()
            .filter(|s| !kernel_jobs.iter().any(|j| is_file_of(s, &j.path)))
            .map(|s| self.shown(&s.file))
            .collect()
    }

    /// The occupancy API's answers for the kernels of `units` on `target`, where the first
    /// reading asked for them; `None` where it did not.
    pub fn answers(&self, units: &[Unit], target: &Target) -> Option<Arc<Answers>> {
        let h = self.hosts.as_ref()?;
        // no kernel takes launches from it: the reading ahead need not be waited for
        if units.iter().all(|u| u.kernels.is_empty()) {
            return None;
        }
        // the first reading, where it was made (needed by the units, or read ahead: waited
        // for here), tells whether the host asks
        let ahead = self.read_ahead.load(std::sync::atomic::Ordering::Acquire);
        if ahead {
            h.read(&self.first_what(h));
        }
        if (self.units_need_it || ahead) && !self.empty_answers.was_asked() {
            return None;
        }
        let mut a = Answers::default();
        for u in units {
            for (entry, _) in &u.kernels {
                let max_ntid = u
                    .module
                    .kernels()
                    .find(|k| &k.name == entry)
                    .and_then(|k| k.perf_values("maxntid"))
                    .map(|v| v.iter().map(|&d| d.max(1)).product());
                let k = KernelOnDevice::new(&target.device, u.registers.of(entry), max_ntid);
                a.add(entry, &demangle(entry), k);
            }
        }
        Some(Arc::new(a))
    }

    /// The reading the kernel `k` takes its launches from on `target` (index `ti`), with the
    /// values given for it and `extra` where none is given.
    pub fn reading_for(
        &self,
        k: Option<&str>,
        extra: &[(String, f64)],
        target: (usize, &Target),
        answers: Option<&Arc<Answers>>,
    ) -> Option<Arc<Result<HostReading, String>>> {
        let h = self.hosts.as_ref()?;
        let values = h.values(k, extra);
        let what = match answers {
            Some(a) => read_for(Some(&target.1.device), values, a, target.0 + 1),
            None => read_for(Some(&target.1.device), values, &self.empty_answers, 0),
        };
        Some(self.noted(h.read(&what)))
    }
}

/// What a reading is for: the device (its name and properties), the host values, and the
/// occupancy answers, labelled (`answers_id`) so that equal ones share a reading.
fn read_for(
    device: Option<&kerncast_models::Device>,
    values: std::collections::BTreeMap<String, f64>,
    answers: &Arc<Answers>,
    answers_id: usize,
) -> ReadFor {
    ReadFor {
        device: device.map(|d| d.name.clone()),
        props: device
            .map(host_workloads::program::device_props)
            .unwrap_or_default(),
        values,
        occupancy: Some(answers.clone() as Arc<dyn kerncast_host::OccupancyOracle>),
        answers_id,
    }
}

/// The compiler's errors in the host code: its launches may be missing where it does not
/// compile (a missing header), so each is an error of the report, at its file and line.
fn diagnostics(reading: &HostReading, hosts: Option<&Hosts>) -> Vec<Failure> {
    reading
        .diagnostics
        .iter()
        .map(|d| {
            let mut parts = d.splitn(4, ':');
            let (file, line) = (parts.next().unwrap_or(""), parts.next());
            Failure {
                file: hosts.map_or(file.to_string(), |h| h.program.shown(file)),
                line: line.and_then(|l| l.trim().parse().ok()),
                kernel: None,
                stage: "host".into(),
                message: format!("the host code does not compile, so launches may be missing: {d}"),
            }
        })
        .collect()
}

/// What the workloads of a kernel need to know of it (`u`'s entry `entry`, with its source
/// kernel `sk`).
pub fn kernel_info(u: &Unit, entry: &str, sk: Option<&SourceKernel>) -> KernelInfo {
    let f = u.module.kernels().find(|k| k.name == entry);
    let ptx_params: Vec<&kerncast_passes::ptx::VarDecl> =
        f.map(|f| f.params.iter().collect()).unwrap_or_default();
    let source = sk.filter(|s| s.params.len() == ptx_params.len() || ptx_params.is_empty());
    let params = match source {
        Some(s) => s.params.clone(),
        None => ptx_params.iter().map(|p| p.name.clone()).collect(),
    };
    let pointers = (0..params.len())
        .map(|i| match source.and_then(|s| s.param_types.get(i)) {
            Some(ty) => ty.contains('*') || ty.contains('['),
            None => ptx_params.get(i).is_some_and(|p| p.ptr.is_some()),
        })
        .collect();
    let deciding_set: BTreeSet<usize> = f
        .map(kerncast_passes::taint::params_deciding_counts)
        .unwrap_or_default();
    let deciding = (0..params.len())
        .map(|i| f.is_none() || deciding_set.contains(&i))
        .collect();
    let dynamic_shared = f.is_some_and(|f| !u.module.kernel_shared(f).dynamic.is_empty());
    KernelInfo {
        entry: entry.to_string(),
        demangled: demangle(entry),
        params,
        pointers,
        deciding,
        dynamic_shared,
        file: sk
            .and_then(|s| s.file.clone())
            .unwrap_or_else(|| u.job.display_path.clone()),
    }
}

/// The workloads of a kernel from a reading, or the reading's failure.
pub fn host_workloads(
    side: &HostSide,
    reading: &Result<HostReading, String>,
    k: &KernelInfo,
) -> Result<Vec<WorkloadSpec>, String> {
    let h = side
        .hosts
        .as_ref()
        .ok_or_else(|| "no host code was read".to_string())?;
    match reading {
        Ok(r) => Ok(h.workloads(r, k)),
        Err(e) => Err(e.clone()),
    }
}

/// Why the kernel `k` has no launch in a reading: its launch sites the program never
/// reached, with why; empty where it has none.
pub fn unreached(
    side: &HostSide,
    reading: &Result<HostReading, String>,
    k: &KernelInfo,
) -> Vec<String> {
    match (&side.hosts, reading) {
        (Some(h), Ok(r)) => host_workloads::unreached(r, k, &h.program),
        _ => Vec::new(),
    }
}

/// The launch sites whose kernel clang does not resolve, for the error of a kernel none of
/// whose launches was found.
pub fn unresolved(side: &HostSide) -> Vec<String> {
    match (&side.hosts, side.first().as_deref()) {
        (Some(h), Some(Ok(r))) => host_workloads::unresolved_sites(r, &h.program),
        _ => Vec::new(),
    }
}

/// The names `--param` can give in a reading: the unknowns of `k`'s launches (none where
/// `None`), and the given values it read.
pub fn host_names(reading: &Result<HostReading, String>, k: Option<&KernelInfo>) -> Vec<String> {
    match reading {
        Ok(r) => host_workloads::host_names(r, k),
        Err(_) => Vec::new(),
    }
}

/// Whether a reading read the value `g` gave.
pub fn read_value(reading: &Result<HostReading, String>, g: &Given) -> bool {
    matches!(reading, Ok(r) if r.params_used.contains(&g.name))
}

/// A failure of the command line's `--param`s.
pub fn param_failure(message: String) -> Failure {
    Failure {
        file: "(command line)".into(),
        line: None,
        kernel: None,
        stage: "param".into(),
        message,
    }
}

/// A failure of a kernel's host reading.
pub fn reading_failure(job: &Job, entry: &str, message: String) -> Failure {
    fail(job, None, Some(entry), "host", message)
}
