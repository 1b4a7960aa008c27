//! Kernel templates that nothing instantiates: the compiler emits no code for them, so they
//! have nothing to predict, and the report lists them rather than pass them over. A unit
//! finds its own here; the analysis keeps those no other unit instantiates
//! ([`super::run`]).

use crate::annotations::{template_base, SourceKernel};
use crate::names::demangle;
use crate::report::NotLaunched;

/// The unqualified template an entry is an instance of (`ns::fill<float>` → `fill`), or its
/// name.
pub(super) fn template_of(entry: &str) -> String {
    let plain = demangle(entry);
    let base = template_base(&plain);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// The templates of `src_kernels` that no PTX entry of `entries` is an instance of.
pub(super) fn uninstantiated(
    display_path: &str,
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
            file: k.file.clone().unwrap_or_else(|| display_path.to_string()),
            line: Some(k.line as u32),
            why: instances.replace("NAME", &k.name),
        })
        .collect()
}
