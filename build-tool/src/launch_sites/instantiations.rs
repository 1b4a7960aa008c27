//! Which of a template's instantiations a launch is for: `fill<float><<<…>>>` launches
//! `fill<float>`, not `fill<double>`.

use crate::workload::{split_top, WorkloadSpec};
use std::collections::BTreeMap;

/// The workloads of `specs` that are for the template instantiation `entry` (`fill<float>`, as
/// the demangled PTX entry names it): `fill<float><<<…>>>` launches `fill<float>`, not
/// `fill<double>`. A launch whose arguments are not all literal types or numbers (`fill<T>` in
/// a template helper, `k<B>` over a constant) or that has none (deduced) may be any
/// instantiation and counts for each, after those that name it. Workloads not read from a
/// launch are all kept, first.
pub fn for_instantiation(specs: Vec<WorkloadSpec>, entry: &str) -> Vec<WorkloadSpec> {
    let want = template_args(entry, &BTreeMap::new());
    let mut out: Vec<(bool, WorkloadSpec)> = Vec::new();
    for s in specs {
        let launched = s
            .launched_as
            .as_deref()
            .and_then(|k| template_args(k, &s.macros));
        let (names_it, other) = match (&want, &launched) {
            (Some(w), Some(l)) if l == w => (true, false),
            (Some(_), Some(l)) => (false, l.iter().all(|a| literal_template_arg(a))),
            _ => (s.launched_as.is_none(), false),
        };
        if !other {
            out.push((names_it, s));
        }
    }
    // stable: the file's order within each group
    out.sort_by_key(|(names_it, _)| !names_it);
    // one workload per launch size; for the template itself (no arguments to pick by), one
    // per instantiation launched, which the entries pick from later
    let mut kept: Vec<WorkloadSpec> = Vec::new();
    for (_, s) in out {
        let same = |o: &WorkloadSpec| {
            o.same_launch(&s) && (want.is_some() || o.launched_as == s.launched_as)
        };
        if !kept.iter().any(same) {
            kept.push(s);
        }
    }
    kept
}

/// `kernel` as launched (`scale<BS>`) with each template argument that the host's values give a
/// number or a built-in type (`value`) written as that (`scale<128>` where `BS` is 128,
/// `scale<float>` where a call binds `T` to `float`), so that the launch picks its
/// instantiation.
pub fn with_values(kernel: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    let base = crate::annotations::template_base(kernel);
    let Some(inner) = kernel[base.len()..]
        .strip_prefix('<')
        .and_then(|r| r.strip_suffix('>'))
    else {
        return kernel.to_string();
    };
    let args: Vec<String> = split_top(inner)
        .into_iter()
        .map(|a| {
            if literal_template_arg(&a) {
                return a;
            }
            value(&a).unwrap_or(a)
        })
        .collect();
    format!("{base}<{}>", args.join(", "))
}

/// A template argument that can only be one instantiation's: a number or a built-in type.
pub(super) fn literal_template_arg(a: &str) -> bool {
    let digits = a.trim_end_matches(['u', 'U', 'l', 'L']);
    digits.parse::<i64>().is_ok()
        || a == "true"
        || a == "false"
        || crate::param_fields::is_builtin_type(a)
}

/// The template arguments of `name` (`fill<float, 16>`), spaces collapsed and integer macros
/// replaced by their values, as the demangled instantiation spells them; `None` without any.
fn template_args(name: &str, macros: &BTreeMap<String, i64>) -> Option<Vec<String>> {
    let base = crate::annotations::template_base(name);
    let inner = name[base.len()..].strip_prefix('<')?.strip_suffix('>')?;
    Some(
        split_top(inner)
            .iter()
            .map(|a| {
                let a = super::c_text::one_line(a);
                // the demangler writes `(unsigned int)256` where the source has `256`
                let a = match a.strip_prefix('(').and_then(|r| r.split_once(')')) {
                    Some((_, v)) if v.trim().parse::<i64>().is_ok() => v.trim().to_string(),
                    _ => a,
                };
                macros.get(&a).map_or(a, |v| v.to_string())
            })
            .collect(),
    )
}
