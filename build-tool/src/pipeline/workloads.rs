//! The workloads of one kernel on one device: kerncast.toml's, else the source's annotations,
//! else its launches in the host code ([`super::hosts`]), each with the command line's values
//! for the kernel's parameters; or why it has none (never launched at the host's values, a
//! library's kernel, or nothing launches it).

use super::hosts::{self, HostSide};
use super::{
    apply_defines, demangle, fail_at_kernel, library_definition, Options, SourceKernel, Unit,
};
use crate::engine::Target;
use crate::occupancy::Answers;
use crate::params::{self, Given, Value};
use crate::report::{Failure, NotLaunched};
use crate::workload::{Expr, WorkloadSpec};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Why a kernel has no workload.
pub enum Missing {
    /// Its every launch is one the program never makes at the host code's values.
    NotLaunched(NotLaunched),
    /// A library's kernel from its headers, which its own code launches.
    Library(NotLaunched),
    Failed(Failure),
}

/// What the kernels' workloads found so far: the kernels listed as not predicted, the values
/// of the command line that something read, and the names it could have named.
#[derive(Default)]
pub struct Found {
    not_launched: Vec<NotLaunched>,
    library: Vec<NotLaunched>,
    /// `--param`s something read, by their text.
    used: BTreeSet<String>,
    /// The names the program has: host names, kernel parameters, workload names.
    known: Vec<String>,
}

impl Found {
    pub fn not_launched(&mut self, n: NotLaunched) {
        if !self.not_launched.contains(&n) {
            self.not_launched.push(n);
        }
    }

    pub fn library(&mut self, n: NotLaunched) {
        if !self.library.contains(&n) {
            self.library.push(n);
        }
    }

    /// The kernels listed as never launched and as a library's.
    pub fn listed(self) -> (Vec<NotLaunched>, Vec<NotLaunched>) {
        (self.not_launched, self.library)
    }

    /// The error for the `--param`s nothing read (the first reading counts for those the host
    /// code reads without any kernel asking), listing the names the program has.
    pub fn param_errors(&mut self, given: &[Given], side: &HostSide) -> Vec<Failure> {
        // no value given, none to check: the first reading is not made for this alone
        let first = if given.is_empty() { None } else { side.first() };
        if let Some(first) = first.as_deref() {
            self.known.extend(hosts::host_names(first, None));
            for g in given.iter().filter(|g| hosts::read_value(first, g)) {
                self.used.insert(g.to_string());
            }
        }
        let unused: Vec<&Given> = given
            .iter()
            .filter(|g| !self.used.contains(&g.to_string()))
            .collect();
        params::unknown_names(&unused, &self.known)
            .map(hosts::param_failure)
            .into_iter()
            .collect()
    }
}

/// The workloads of `u`'s kernel `entry` (source kernel `sk`) on `target`, or why it has none.
#[allow(clippy::too_many_arguments)]
pub fn of_kernel(
    side: &HostSide,
    u: &Unit,
    entry: &str,
    sk: Option<&SourceKernel>,
    target: (usize, &Target),
    answers: Option<&Arc<Answers>>,
    opts: &Options,
    found: &mut Found,
) -> Result<Vec<WorkloadSpec>, Missing> {
    let demangled = demangle(entry);
    let given = params::for_kernel(&opts.params, &demangled);
    let info = hosts::kernel_info(u, entry, sk);
    let annotated = sk.map(|s| s.workloads.clone()).unwrap_or_default();
    let mut read_by_host: Vec<String> = Vec::new();
    let mut reading = None;
    let mut specs = if !u.job.workloads.is_empty() {
        u.job.workloads.clone()
    } else if !annotated.is_empty() {
        let mut v = annotated;
        for w in &mut v {
            apply_defines(w, &u.job.lower.defines);
        }
        v
    } else {
        let required = sk.and_then(|s| s.required_local_size);
        let extra = crate::host_workloads::required_local_size(required);
        match side.reading_for(Some(&demangled), &extra, target, answers) {
            None => Vec::new(),
            Some(r) => {
                found.known.extend(hosts::host_names(&r, Some(&info)));
                for g in &given {
                    if hosts::read_value(&r, g) {
                        found.used.insert(g.to_string());
                        read_by_host.push(g.name.clone());
                    }
                }
                let mut v = hosts::host_workloads(side, &r, &info)
                    .map_err(|m| Missing::Failed(hosts::reading_failure(&u.job, entry, m)))?;
                let by_requirement = !given.iter().any(|g| g.name == "local_size");
                if let (Some(s), true) = (required, by_requirement) {
                    for w in &mut v {
                        if let Some(o) = &mut w.origin {
                            o.push_str(&format!(
                                "; the work-group size is the kernel's reqd_work_group_size({}, {}, {}), as the launch leaves it to the runtime",
                                s[0], s[1], s[2]
                            ));
                        }
                    }
                }
                // the values the host code read, as the origin says
                for g in given.iter().filter(|g| read_by_host.contains(&g.name)) {
                    for w in &mut v {
                        if let Some(o) = &mut w.origin {
                            o.push_str(&format!(", with {} = {} from --param", g.name, g.value));
                        }
                    }
                }
                if let Some(a) = answers {
                    let told = a.notes_for(entry, &demangled);
                    for w in &mut v {
                        w.notes.extend(told.iter().cloned());
                    }
                }
                reading = Some(r);
                v
            }
        }
    };
    let fields = sk.map(|s| s.fields.clone()).unwrap_or_default();
    let settable: Vec<String> = info
        .params
        .iter()
        .cloned()
        .chain(fields.iter().map(|f| f.name.clone()))
        .collect();
    // the names a value can be given (a pointer's argument is a buffer)
    found.known.extend(
        info.params
            .iter()
            .zip(&info.pointers)
            .filter(|(_, pointer)| !**pointer)
            .map(|(p, _)| p.clone())
            .chain(fields.iter().map(|f| f.name.clone())),
    );
    // the values the host code did not read go to the kernel's parameters and workloads
    let rest: Vec<&Given> = given
        .iter()
        .copied()
        .filter(|g| !read_by_host.contains(&g.name))
        .collect();
    let ints: Vec<(String, Expr)> = rest
        .iter()
        .filter_map(|g| match &g.value {
            Value::Int(e) => Some((g.name.clone(), e.clone())),
            Value::Float(_) => None,
        })
        .collect();
    for w in &mut specs {
        found.known.extend(w.names_read());
        for name in w.set_values(&ints, &settable) {
            if let Some(g) = rest.iter().find(|g| g.name == name) {
                found.used.insert(g.to_string());
            }
        }
        for g in &rest {
            if let (Value::Float(x), true) = (&g.value, info.params.contains(&g.name)) {
                w.hints.insert(format!("param.{}", g.name), *x);
                found.used.insert(g.to_string());
                if let Some(o) = &mut w.origin {
                    o.push_str(&format!(", with {} = {x} from --param", g.name));
                }
            }
        }
        crate::param_fields::alias_fields(w, &fields, &info.params);
    }
    let specs = WorkloadSpec::merge_same_launches(specs);
    if !specs.is_empty() {
        return Ok(specs);
    }
    Err(missing(side, u, entry, sk, &info, reading.as_deref()))
}

/// Why a kernel has no workload.
fn missing(
    side: &HostSide,
    u: &Unit,
    entry: &str,
    sk: Option<&SourceKernel>,
    info: &crate::host_workloads::KernelInfo,
    reading: Option<&Result<kerncast_host::HostReading, String>>,
) -> Missing {
    let at = fail_at_kernel(u, sk, entry, "workload", String::new());
    let untaken = reading
        .map(|r| hosts::unreached(side, r, info))
        .unwrap_or_default();
    if !untaken.is_empty() {
        return Missing::NotLaunched(NotLaunched {
            kernel: demangle(entry),
            file: at.file,
            line: at.line,
            why: untaken.join("; "),
        });
    }
    if let Some((file, line)) = sk.is_none().then(|| library_definition(u, entry)).flatten() {
        return Missing::Library(NotLaunched {
            kernel: demangle(entry),
            file,
            line: Some(line),
            why: LIBRARY_KERNEL.into(),
        });
    }
    let unresolved = hosts::unresolved(side);
    let sites = if unresolved.is_empty() {
        String::new()
    } else {
        format!(
            " (the host code has launches whose kernel kerncast does not resolve, such as one through a function pointer: {})",
            unresolved.join("; ")
        )
    };
    let read = if side.hosts.is_some() {
        "no launch of it was found in the host code read"
    } else {
        "no file analysed is host code that launches it"
    };
    Missing::Failed(Failure {
        message: format!(
            "no workload for kernel `{}`: {read}{sites}, so add `// kerncast: workload n=... grid=... block=...` above it or a [[kernel.workload]] in kerncast.toml",
            demangle(entry)
        ),
        ..at
    })
}

/// Why a kernel of the compiled code that no analysed source defines is not predicted.
const LIBRARY_KERNEL: &str = "defined in a header kerncast does not analyse (a library's, such \
     as CUB's or Thrust's) and launched by that library's code; a [[kernel.workload]] in \
     kerncast.toml predicts it";
