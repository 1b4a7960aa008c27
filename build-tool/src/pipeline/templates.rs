//! Kernel templates that nothing instantiates: the compiler emits no code for them, so they
//! have nothing to predict, and the report lists them rather than pass them over.

use super::{demangle, Job, Unit};
use crate::annotations::{template_base, SourceKernel};
use crate::report::NotLaunched;

/// The unqualified template an entry is an instance of (`ns::fill<float>` → `fill`), or its
/// name.
fn template_of(entry: &str) -> String {
    let plain = demangle(entry);
    let base = template_base(&plain);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// The templates of `src_kernels` that no PTX entry of `entries` is an instance of.
pub(super) fn uninstantiated(
    job: &Job,
    src_kernels: &[SourceKernel],
    entries: &[String],
    instances: &str,
) -> Vec<NotLaunched> {
    let bases: Vec<String> = entries.iter().map(|e| template_of(e)).collect();
    src_kernels
        .iter()
        .filter(|k| k.template && !bases.contains(&k.name))
        .map(|k| NotLaunched {
            kernel: k.name.clone(),
            file: k.file.clone().unwrap_or_else(|| job.display_path.clone()),
            line: Some(k.line as u32),
            why: instances.replace("NAME", &k.name),
        })
        .collect()
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
