//! Launches through a variable that holds a kernel:
//!
//! ```text
//! auto kernel = use_fast ? k_fast : k_slow;
//! kernel<<<(n + 255) / 256, 256>>>(x, n);            // launches k_fast where use_fast is true
//! void (*step)(float *, int) = &k_slow;
//! cudaLaunchKernel((void *)step, grid, block, args, 0, 0);
//! ```
//!
//! A launch whose kernel is a name the file gives one value, and that value a kernel name (`&`,
//! template arguments and parentheses aside) or a conditional `c ? a : b` of them, launches each
//! kernel the value may be: one site per alternative, each picked by the conditions that lead
//! to it ([`LaunchSite::picked_by`]). The host's values decide those as they decide an `if`
//! around a launch: an alternative they rule out is listed as not launched, with the reason.

use super::branches::{conditional, Guard};
use super::c_text::{matching_open, strip_parens};
use super::host_defs::assignments;
use super::LaunchSite;

/// `sites` with each launch through a kernel variable replaced by one per kernel it may hold.
pub(super) fn resolve(code: &str, sites: Vec<LaunchSite>) -> Vec<LaunchSite> {
    sites
        .into_iter()
        .flat_map(|site| match held_kernels(code, &site.kernel) {
            Some(kernels) => kernels
                .into_iter()
                .map(|(kernel, picked_by)| LaunchSite {
                    call: Some(format!(
                        "{}, where {} = {}",
                        site.shown(),
                        site.kernel,
                        kernel
                    )),
                    kernel,
                    picked_by,
                    ..site.clone()
                })
                .collect(),
            None => vec![site],
        })
        .collect()
}

/// The kernels the variable `name` may hold, each with the conditions that pick it; `None`
/// where `name` is not a variable the file declares once, with a value, as `auto` or as a
/// function pointer, and never changes.
fn held_kernels(code: &str, name: &str) -> Option<Vec<(String, Vec<Guard>)>> {
    let plain = name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !plain || assignments(code, name).is_none_or(|n| n > 1) {
        return None;
    }
    // `auto k = …;`, `auto *k = &…;`, `void (*k)(float *, int) = …;`
    let n = regex::escape(name);
    let defined = crate::launch_sites::c_text::cached_regex(&format!(
        r"\bauto\s*(?:const\s*)?\*?\s*{n}\s*=([^=;][^;]*);|\(\s*\*\s*{n}\s*\)\s*\([^;{{}}]*\)\s*=([^=;][^;]*);"
    ))
    .ok()?;
    let found: Vec<regex::Captures> = defined.captures_iter(code).collect();
    let [one] = &found[..] else {
        return None;
    };
    let value = one.get(1).or(one.get(2))?.as_str();
    alternatives(value, Vec::new())
}

/// The kernel names `value` may be, with the guards that pick each.
fn alternatives(value: &str, guards: Vec<Guard>) -> Option<Vec<(String, Vec<Guard>)>> {
    let v = strip_parens(value.trim());
    if let Some((question, colon)) = conditional(v) {
        let cond = v[..question].trim().to_string();
        let pick = |holds: bool| {
            let mut g = guards.clone();
            g.push(Guard {
                cond: cond.clone(),
                holds,
            });
            g
        };
        let mut out = alternatives(&v[question + 1..colon], pick(true))?;
        out.extend(alternatives(&v[colon + 1..], pick(false))?);
        return Some(out);
    }
    // a name, with template arguments that close the value (`k<4>`, not `make<int>(p, "k")`)
    let kernel = strip_parens(v.trim_start_matches('&').trim());
    let (base, targs) = kernel.split_once('<').unwrap_or((kernel, ""));
    let base = base.trim();
    let is_name = !base.is_empty()
        && base
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
        && !base.starts_with(|c: char| c.is_ascii_digit())
        && (targs.is_empty()
            || kernel.ends_with('>')
                && matching_open(kernel.as_bytes(), kernel.len() - 1) == Some(base.len()));
    is_name.then(|| vec![(kernel.to_string(), guards)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(kernel: &str, at: usize) -> LaunchSite {
        LaunchSite {
            kernel: kernel.into(),
            line: 1,
            at,
            config: vec!["1".into(), "32".into()],
            args: vec!["x".into()],
            call: None,
            in_call: None,
            picked_by: Vec::new(),
        }
    }

    #[test]
    fn a_kernel_variable_launches_each_kernel_it_may_hold() {
        let code = "auto kernel = use_fast ? k_fast : (wide ? &k_wide<4> : k_slow);\n\
                    void (*step)(float *, int) = &k_step;\nkernel<<<1, 32>>>(x);\n\
                    step<<<1, 32>>>(x);\nauto moved = k_a;\nmoved = k_b;\nmoved<<<1, 32>>>(x);\n\
                    int scale = factor;\nscale<<<1, 32>>>(x);\n\
                    auto add = cl::KernelFunctor<int>(program, \"add\");\nadd<<<1, 32>>>(x);\n";
        let sites = resolve(
            code,
            vec![
                site("kernel", 90),
                site("step", 110),
                site("moved", 150),
                site("scale", 190),
                site("add", 250),
            ],
        );
        let picked: Vec<(String, Vec<(String, bool)>)> = sites
            .iter()
            .map(|s| {
                let guards = s
                    .picked_by
                    .iter()
                    .map(|g| (g.cond.clone(), g.holds))
                    .collect();
                (s.kernel.clone(), guards)
            })
            .collect();
        let g = |c: &str, h: bool| (c.to_string(), h);
        assert_eq!(
            picked,
            [
                ("k_fast".to_string(), vec![g("use_fast", true)]),
                (
                    "k_wide<4>".into(),
                    vec![g("use_fast", false), g("wide", true)]
                ),
                (
                    "k_slow".into(),
                    vec![g("use_fast", false), g("wide", false)]
                ),
                ("k_step".into(), vec![]),
                // given two values, or not a kernel's type: not read, as before
                ("moved".into(), vec![]),
                ("scale".into(), vec![]),
                ("add".into(), vec![]),
            ]
        );
        assert_eq!(
            sites[0].call.as_deref(),
            Some("kernel<<<1, 32>>>(x), where kernel = k_fast")
        );
    }
}
