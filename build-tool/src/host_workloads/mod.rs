//! Workloads from host code: the program's C, C++, CUDA and Python files are read by
//! `kerncast-host` (libclang and an abstract interpreter; ruff's parser for Python), and each
//! launch it finds becomes a workload of the kernel it runs ([`spec`]).
//!
//! A reading depends on the device (the host code may ask for its SM count), on the values the
//! command line gives names the host leaves unknown (`--param n=4096`, or scoped to a kernel,
//! `--param gelu_forward:block_size=128`), and on the occupancy API's answers for the kernels
//! compiled ([`crate::occupancy::Answers`]); the program is read once for each distinct set.

pub mod program;
pub mod spec;

pub use program::{is_host_code, is_python, HostFile, HostProgram, ReadFor, RunSpec};
pub use spec::KernelInfo;

use crate::params::{self, Given};
use kerncast_host::HostReading;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The host code of an analysis and the values given for it.
pub struct Hosts {
    pub program: HostProgram,
    given: Vec<Given>,
}

impl Hosts {
    /// The host code of `files` (`None` where none of them is host code), its readings kept
    /// between runs in `reading_cache` (`None`: not kept).
    pub fn new(
        files: &[HostFile<'_>],
        run: &RunSpec,
        given: &[Given],
        reading_cache: Option<PathBuf>,
    ) -> Result<Option<Hosts>, String> {
        Ok(HostProgram::new(files, run)?.map(|program| Hosts {
            program: program.with_reading_cache(reading_cache),
            given: given.to_vec(),
        }))
    }

    /// The host values for the launches of the kernel `demangled` (all kernels: `None`): the
    /// numbers given unscoped, then those scoped to it, then `extra` where nothing is given.
    pub fn values(
        &self,
        demangled: Option<&str>,
        extra: &[(String, f64)],
    ) -> BTreeMap<String, f64> {
        let given: Vec<&Given> = match demangled {
            Some(k) => params::for_kernel(&self.given, k),
            None => self.given.iter().filter(|g| g.kernel.is_none()).collect(),
        };
        let mut out: BTreeMap<String, f64> = extra.iter().cloned().collect();
        for g in given {
            if let Some(v) = g.value.number() {
                out.insert(g.name.clone(), v);
            }
        }
        out
    }

    /// The program read for `what`.
    pub fn read(&self, what: &ReadFor) -> Arc<Result<HostReading, String>> {
        self.program.read(what)
    }

    /// The workloads of the kernel `k` in a reading: one per launch of it, launches that
    /// predict alike merged.
    pub fn workloads(
        &self,
        reading: &HostReading,
        k: &KernelInfo,
    ) -> Vec<crate::workload::WorkloadSpec> {
        let launches: Vec<&kerncast_host::Launch> = reading
            .launches
            .iter()
            .filter(|l| spec::runs(l, k))
            .collect();
        let mut specs = spec::workloads(&launches, k, &self.program);
        // what the reading assumed of the values a workload's fields come from
        for w in &mut specs {
            let bases: Vec<String> = w
                .params
                .iter()
                .filter_map(|(p, _)| p.split_once('.').map(|(b, _)| format!("`{b}.")))
                .collect();
            for n in &reading.notes {
                if bases.iter().any(|b| n.starts_with(b.as_str())) && !w.notes.contains(n) {
                    w.notes.push(n.clone());
                }
            }
        }
        specs
    }
}

/// Why the launches of the kernel `k` that a reading found are not predicted: each site that
/// names it and that the program never reached, with why.
pub fn unreached(reading: &HostReading, k: &KernelInfo, host: &HostProgram) -> Vec<String> {
    reading
        .unreached
        .iter()
        .filter(|u| u.symbol.as_deref() == Some(k.entry.as_str()))
        .map(|u| {
            format!(
                "the launch at {}:{} is {}",
                host.shown(&u.file),
                u.line,
                u.reason
            )
        })
        .collect()
}

/// The launch sites of a reading whose kernel clang does not resolve (a launch through a
/// function pointer), as `file:line`, for a kernel none of whose launches was found.
pub fn unresolved_sites(reading: &HostReading, host: &HostProgram) -> Vec<String> {
    reading
        .unreached
        .iter()
        .filter(|u| u.symbol.is_none())
        .map(|u| format!("{}:{} ({})", host.shown(&u.file), u.line, u.reason))
        .collect()
}

/// The names `--param` can give the launches of `k` in a reading: those its launches leave
/// unknown where they count (not a pointer's), and the given values the reading read.
pub fn host_names(reading: &HostReading, k: Option<&KernelInfo>) -> Vec<String> {
    let unknown = k.into_iter().flat_map(|k| {
        reading
            .launches
            .iter()
            .filter(|l| spec::runs(l, k))
            .flat_map(|l| spec::unknown_names(l, k))
            .collect::<Vec<_>>()
    });
    unknown.chain(reading.params_used.iter().cloned()).collect()
}

/// The kernel's `reqd_work_group_size` as the host values of a launch that leaves the size to
/// the runtime ([`kerncast_host::LOCAL_SIZE_NAMES`]).
pub fn required_local_size(size: Option<[u64; 3]>) -> Vec<(String, f64)> {
    size.map(|s| {
        kerncast_host::LOCAL_SIZE_NAMES
            .iter()
            .zip(s)
            .map(|(n, v)| (n.to_string(), v as f64))
            .collect()
    })
    .unwrap_or_default()
}

/// The block of the first launch of the kernel `entry` (a PTX entry) in the host code of
/// `file` alone, where the host reading gives it numbers (`kerncast count`'s default block).
pub fn first_block(
    file: &std::path::Path,
    lower: &crate::lower::LowerOptions,
    entry: &str,
) -> Option<[u64; 3]> {
    let shown = file.display().to_string();
    let program = HostProgram::new(
        &[HostFile {
            path: file,
            shown: &shown,
            lower,
        }],
        &RunSpec::default(),
    )
    .ok()??;
    let reading = program.read(&ReadFor::default());
    let demangled = crate::names::demangle(entry);
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    reading
        .as_ref()
        .as_ref()
        .ok()?
        .launches
        .iter()
        .find_map(|l| {
            let runs =
                l.symbol == entry || (l.by_name && squeeze(&l.symbol) == squeeze(&demangled));
            runs.then(|| l.dims_known()).flatten().map(|(_, b)| b)
        })
}
