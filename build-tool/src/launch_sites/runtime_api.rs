//! Launches through the CUDA runtime's functions instead of `<<<…>>>`, read as [`LaunchSite`]s:
//!
//! ```text
//! void *args[] = {&n, &a, &x, &y};
//! cudaLaunchKernel((void *)saxpy, grid, block, args, shared_bytes, stream);
//! cudaLaunchCooperativeKernel((void *)reduce, grid, block, args, shared_bytes, stream);
//!
//! cudaLaunchConfig_t cfg = {0};
//! cfg.gridDim = grid; cfg.blockDim = block; cfg.dynamicSmemBytes = bytes;
//! cudaLaunchKernelEx(&cfg, saxpy, n, a, x, y);
//! ```
//!
//! `cudaLaunchKernel`'s arguments are the array of their addresses, read from its initializer;
//! the function only reads through them, so [`blank_read_only_addresses`] hides those `&`s from
//! the rule that a variable whose address is taken may change. `cudaLaunchKernelEx`'s grid,
//! block and dynamic shared memory are the members of its configuration, assigned once each
//! (or given by designator) in the function that launches.

use super::c_text::{arg_texts, bracket_after_once, matching_close, one_line, strip_parens};
use super::callers;
use super::LaunchSite;
use crate::workload::split_top;
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

/// `cudaLaunchKernel(`, `cudaLaunchCooperativeKernel(` (`array`: arguments by address) and
/// `cudaLaunchKernelEx(` (arguments by value).
static LAUNCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:(?P<array>cudaLaunchKernel|cudaLaunchCooperativeKernel)|(?P<ex>cudaLaunchKernelEx))\s*(?:<[^;()]*>\s*)?\(",
    )
    .unwrap()
});
/// A cast of the kernel to a pointer: `(void *)`, `(const void*)`, `reinterpret_cast<void *>(…)`.
static CAST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\(\s*(?:const\s+)?void\s*\*\s*\)\s*|^(?:reinterpret_cast|static_cast)\s*<[^>]*>\s*",
    )
    .unwrap()
});

/// Whether `text` launches through the runtime API at all.
pub(super) fn mentions(text: &str) -> bool {
    text.contains("cudaLaunchKernel") || text.contains("cudaLaunchCooperativeKernel")
}

/// Every runtime-API launch of `text` (`code` is `text` with comments and strings blanked).
pub(super) fn launches(text: &str, code: &str) -> Vec<LaunchSite> {
    let mut out = Vec::new();
    for m in LAUNCH.captures_iter(code) {
        let whole = m.get(0).unwrap();
        let Some((close, args)) = arg_texts(code, whole.end() - 1) else {
            continue;
        };
        let scope = callers::scope_of(code, whole.start());
        let (kernel, config, values, read) = if m.name("array").is_some() {
            let [kernel, grid, block, array, rest @ ..] = &args[..] else {
                continue;
            };
            let values = address_array(code, &scope, array);
            let read = values
                .as_ref()
                .map(|v| {
                    format!(
                        "; {} = {{{}}}",
                        array.trim(),
                        v.iter()
                            .map(|a| format!("&{a}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .unwrap_or_default();
            let mut config = vec![grid.to_string(), block.to_string()];
            config.extend(rest.first().map(|s| s.to_string()));
            (*kernel, config, values.unwrap_or_default(), read)
        } else {
            let [cfg, kernel, rest @ ..] = &args[..] else {
                continue;
            };
            let cfg = cfg.trim().trim_start_matches('&').trim();
            let member = |name: &str| config_member(code, &scope, cfg, name);
            let config = vec![
                member("gridDim").unwrap_or_else(|| format!("{cfg}.gridDim")),
                member("blockDim").unwrap_or_else(|| format!("{cfg}.blockDim")),
                member("dynamicSmemBytes").unwrap_or_else(|| "0".into()),
            ];
            let read = format!(
                "; {cfg}.gridDim = {}, {cfg}.blockDim = {}",
                config[0], config[1]
            );
            (
                *kernel,
                config,
                rest.iter().map(|a| a.to_string()).collect(),
                read,
            )
        };
        let kernel = CAST.replace(kernel.trim(), "");
        let kernel = strip_parens(kernel.trim())
            .trim_start_matches('&')
            .trim()
            .to_string();
        if kernel.is_empty() || !kernel.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            continue;
        }
        out.push(LaunchSite {
            line: code[..whole.start()].matches('\n').count() + 1,
            at: whole.start(),
            config,
            args: values,
            call: Some(format!("{}{read}", one_line(&text[whole.start()..=close]))),
            in_call: None,
            picked_by: Vec::new(),
            kernel,
        });
    }
    out
}

/// `code` with the `&`s of the argument arrays the launches read blanked, offsets kept.
pub(super) fn blank_read_only_addresses(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    for m in LAUNCH
        .captures_iter(code)
        .filter(|m| m.name("array").is_some())
    {
        blank_array_addresses(code, &mut out, m.get(0).unwrap().end() - 1, 3);
    }
    String::from_utf8(out).unwrap_or_else(|_| code.to_string())
}

/// Blanks in `out` (a copy of `code`) the `&`s of the initializer of the argument array that
/// the call whose `(` is at `open` passes as its argument `index`.
pub(super) fn blank_array_addresses(code: &str, out: &mut [u8], open: usize, index: usize) {
    let Some((_, args)) = arg_texts(code, open) else {
        return;
    };
    let Some(array) = args.get(index) else {
        return;
    };
    let scope = callers::scope_of(code, open);
    if let Some(init) = array_initializer(code, &scope, array) {
        for c in &mut out[init] {
            if *c == b'&' {
                *c = b' ';
            }
        }
    }
}

/// The values whose addresses the array `name` holds: `{&n, (void *)&x}` gives `[n, x]`.
pub(super) fn address_array(code: &str, scope: &Range<usize>, name: &str) -> Option<Vec<String>> {
    let init = array_initializer(code, scope, name)?;
    let inner = &code[init.start + 1..init.end - 1];
    Some(
        split_top(inner)
            .iter()
            .map(|a| {
                let a = CAST.replace(a.trim(), "");
                match a.trim().strip_prefix('&') {
                    Some(v) => strip_parens(v.trim()).to_string(),
                    None => String::new(),
                }
            })
            .collect(),
    )
}

/// The braces of `void *name[] = {…}` in `scope`, when it is declared there once.
pub(super) fn array_initializer(
    code: &str,
    scope: &Range<usize>,
    name: &str,
) -> Option<Range<usize>> {
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let re = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{}\s*\[[^\]]*\]\s*=\s*\{{",
        regex::escape(name)
    ))
    .ok()?;
    bracket_after_once(code, scope, &re)
}

/// The value of `cfg.member` in `scope`: assigned once (`cfg.gridDim = grid;`), or given by
/// designator in its initializer (`cudaLaunchConfig_t cfg = {.gridDim = grid, …}`).
fn config_member(code: &str, scope: &Range<usize>, cfg: &str, member: &str) -> Option<String> {
    let text = &code[scope.clone()];
    let (c, m) = (regex::escape(cfg), regex::escape(member));
    let assigned = crate::launch_sites::c_text::cached_regex(&format!(
        r"\b{c}\s*(?:\.|->)\s*{m}\s*=([^=;][^;]*);"
    ))
    .ok()?;
    let mut found = assigned.captures_iter(text);
    if let Some(a) = found.next() {
        return found.next().is_none().then(|| a[1].trim().to_string());
    }
    let init = crate::launch_sites::c_text::cached_regex(&format!(r"\b{c}\s*=\s*\{{")).ok()?;
    let open = init.find(text)?.end() - 1;
    let close = matching_close(text.as_bytes(), open)?;
    split_top(&text[open + 1..close]).iter().find_map(|d| {
        let v = d
            .trim()
            .strip_prefix('.')?
            .strip_prefix(member)?
            .trim_start();
        Some(v.strip_prefix('=')?.trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::super::HostFile;
    use crate::workload::Workload;

    fn one(src: &str, kernel: &str, params: &[&str]) -> (Workload, String) {
        let params: Vec<String> = params.iter().map(|s| s.to_string()).collect();
        let s = HostFile::new(src, None).workloads(kernel, &params, &[]);
        assert_eq!(s.len(), 1, "{s:?}");
        (s[0].resolve().unwrap(), s[0].origin.clone().unwrap())
    }

    #[test]
    fn cuda_launch_kernel_reads_its_argument_array() {
        let src = r#"
int main() {
    const int n = 1 << 20;
    float a = 2.0f, *x, *y;
    dim3 block(256), grid((n + 255) / 256);
    void *args[] = {(void *)&n, &a, &x, &y};
    cudaLaunchKernel((const void *)saxpy, grid, block, args, 0, 0);
    cudaMemcpy(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
}
"#;
        let (w, origin) = one(src, "saxpy", &["n", "a", "x", "y"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([4096, 1, 1], [256, 1, 1], 1 << 20)
        );
        assert!(
            origin.contains(
                "cudaLaunchKernel((const void *)saxpy, grid, block, args, 0, 0); \
                             args = {&n, &a, &x, &y}"
            ),
            "{origin}"
        );
    }

    #[test]
    fn a_cooperative_launch_and_its_shared_memory() {
        let src = "void go(float *x) {\n  const int n = 4096, threads = 128;\n  \
                   void *kargs[] = {&x, (void *)&n};\n  \
                   cudaLaunchCooperativeKernel((void *)reduce<float>, n / threads, threads, kargs, threads * sizeof(float), s);\n}\n";
        let (w, _) = one(src, "reduce<float>", &["x", "n"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([32, 1, 1], [128, 1, 1], 4096)
        );
        assert_eq!(w.hints[kerncast_passes::count::DYNAMIC_SHARED_BYTES], 512.0);
    }

    #[test]
    fn cuda_launch_kernel_ex_reads_its_configuration() {
        let src = r#"
void run(float *x, int m) {
    cudaLaunchConfig_t cfg = {0};
    cfg.gridDim = dim3(m / 64, 2);
    cfg.blockDim = 64;
    cudaLaunchKernelEx(&cfg, scale, x, m);
}
void designated(float *x) {
    const int n = 1000;
    cudaLaunchConfig_t c = {.gridDim = (n + 127) / 128, .blockDim = 128, .dynamicSmemBytes = 0};
    cudaLaunchKernelEx(&c, fill, x, n);
}
int main() { run(x, 4096); }
"#;
        let (w, origin) = one(src, "scale", &["x", "n"]);
        assert_eq!(
            (w.grid, w.block, w.params["n"]),
            ([64, 2, 1], [64, 1, 1], 4096)
        );
        assert!(
            origin.contains("cfg.gridDim = dim3(m / 64, 2), cfg.blockDim = 64"),
            "{origin}"
        );
        let (w, _) = one(src, "fill", &["x", "n"]);
        assert_eq!((w.grid, w.block), ([8, 1, 1], [128, 1, 1]));
    }
}
