//! Launches through the CUDA driver API, read as [`LaunchSite`]s, as the driver samples
//! (`vectorAddDrv`) and NVRTC programs make them:
//!
//! ```text
//! CUfunction f;
//! cuModuleGetFunction(&f, module, "VecAdd_kernel");
//! void *args[] = {&d_A, &d_B, &d_C, &N};
//! cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
//! ```
//!
//! The kernel is the one the function handle was last got for before the launch (its name a
//! literal or a string the file fixes); the grid and block are the six sizes, the dynamic shared
//! memory the seventh argument, and the kernel's arguments the array of their addresses, as for
//! `cudaLaunchKernel` ([`super::runtime_api`]). Arguments packed in `extra`
//! (`CU_LAUNCH_PARAM_BUFFER_POINTER`) are not read.

use super::c_text::{arg_texts, one_line};
use super::runtime_api::{address_array, blank_array_addresses};
use super::{callers, LaunchSite};
use regex::Regex;
use std::sync::LazyLock;

static LAUNCH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bcu(?:LaunchKernel|LaunchCooperativeKernel)\s*\(").unwrap());
static GET_FUNCTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bcuModuleGetFunction\s*\(").unwrap());

/// Whether `text` launches through the driver API at all.
pub(super) fn mentions(text: &str) -> bool {
    text.contains("cuLaunchKernel") || text.contains("cuLaunchCooperativeKernel")
}

/// Every driver-API launch of `text` (`code` is `text` with comments and strings blanked).
pub(super) fn launches(text: &str, code: &str) -> Vec<LaunchSite> {
    let handles = function_handles(text, code);
    let mut out = Vec::new();
    for m in LAUNCH.find_iter(code) {
        let Some((close, args)) = arg_texts(code, m.end() - 1) else {
            continue;
        };
        let [f, gx, gy, gz, bx, by, bz, shared, _stream, array, ..] = &args[..] else {
            continue;
        };
        let handle: String = f.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(kernel) = handles
            .iter()
            .rev()
            .find(|(var, at, _)| *var == handle && *at < m.start())
            .map(|(_, _, name)| name.clone())
        else {
            continue;
        };
        let scope = callers::scope_of(code, m.start());
        let values = address_array(code, &scope, array);
        let read = values
            .as_ref()
            .map(|v| {
                let addresses: Vec<String> = v.iter().map(|a| format!("&{a}")).collect();
                format!("; {} = {{{}}}", array.trim(), addresses.join(", "))
            })
            .unwrap_or_default();
        out.push(LaunchSite {
            line: code[..m.start()].matches('\n').count() + 1,
            at: m.start(),
            config: vec![
                format!("dim3({gx}, {gy}, {gz})"),
                format!("dim3({bx}, {by}, {bz})"),
                shared.to_string(),
            ],
            args: values.unwrap_or_default(),
            call: Some(format!(
                "{}{read}; {handle} = cuModuleGetFunction(…, \"{kernel}\")",
                one_line(&text[m.start()..=close])
            )),
            in_call: None,
            picked_by: Vec::new(),
            kernel,
        });
    }
    out
}

/// `cuModuleGetFunction(&f, module, "name")`s: (handle as written, offset, kernel name), for
/// names the file fixes, and for the lowered names of NVRTC's name expressions
/// (`scale<float, 3>`).
fn function_handles(text: &str, code: &str) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for m in GET_FUNCTION.find_iter(code) {
        let Some((_, args)) = super::c_text::call_args(code, m.end() - 1) else {
            continue;
        };
        let [handle, _module, name, ..] = &args[..] else {
            continue;
        };
        let name = &text[name.clone()];
        let Some(name) = super::cl_build::fixed_string(text, code, name)
            .ok()
            .or_else(|| super::nvrtc::lowered_name(text, code, name))
        else {
            continue;
        };
        let handle: String = code[handle.clone()]
            .trim()
            .trim_start_matches('&')
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        out.push((handle, m.start(), name));
    }
    out
}

/// `code` with the `&`s of the argument arrays the launches read blanked, offsets kept.
pub(super) fn blank_read_only_addresses(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    for m in LAUNCH.find_iter(code) {
        blank_array_addresses(code, &mut out, m.end() - 1, 9);
    }
    String::from_utf8(out).unwrap_or_else(|_| code.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::HostFile;

    #[test]
    fn a_driver_launch_takes_its_kernel_from_the_handle_and_its_arguments_from_the_array() {
        let src = r#"
#define KERNEL "VecAdd_kernel"
int main() {
    int N = 50000;
    CUfunction vecAdd;
    cuModuleGetFunction(&vecAdd, module, KERNEL);
    int threads = 256;
    int blocks = (N + threads - 1) / threads;
    void *args[] = {&d_A, &d_B, &d_C, &N};
    cuLaunchKernel(vecAdd, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
}
"#;
        let params: Vec<String> = ["A", "B", "C", "n"].map(String::from).to_vec();
        let specs = HostFile::new(src, None).workloads("VecAdd_kernel", &params, &[]);
        assert_eq!(specs.len(), 1, "{specs:?}");
        let w = specs[0].resolve().unwrap();
        assert_eq!((w.grid, w.block), ([196, 1, 1], [256, 1, 1]));
        assert_eq!(w.params["n"], 50000);
        let origin = specs[0].origin.as_deref().unwrap();
        assert!(
            origin.contains(
                "args = {&d_A, &d_B, &d_C, &N}; vecAdd = cuModuleGetFunction(…, \"VecAdd_kernel\")"
            ),
            "{origin}"
        );
        // another kernel's name gets nothing from it
        assert!(HostFile::new(src, None)
            .workloads("other", &params, &[])
            .is_empty());
    }
}
