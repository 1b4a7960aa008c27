//! Per-kernel resources from `ptxas -v`: registers per thread, static shared memory, barriers,
//! stack and spills. The performance models need registers and shared memory for occupancy, and
//! only the assembler knows the register count, so it is asked rather than estimated.

use super::{tools::find_tool, LowerError};
use std::collections::BTreeMap;
use std::process::Command;

/// What ptxas reports for one kernel (or device function).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Resources {
    pub regs_per_thread: u32,
    /// Static shared memory (`.shared` declarations), bytes.
    pub shared_bytes: u64,
    /// Named barriers used (`bar.sync 0` counts as one).
    pub barriers: u32,
    pub stack_frame_bytes: u64,
    pub spill_store_bytes: u64,
    pub spill_load_bytes: u64,
    /// Local memory per thread, bytes.
    pub local_bytes: u64,
    /// Constant bank 0 (kernel parameters and literals), bytes.
    pub const_bytes: u64,
}

/// The outcome of asking ptxas: per-kernel resources, or why they are not available.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ResourceProbe {
    Measured(BTreeMap<String, Resources>),
    Unavailable { reason: String },
}

impl ResourceProbe {
    pub fn kernels(&self) -> Option<&BTreeMap<String, Resources>> {
        match self {
            ResourceProbe::Measured(m) => Some(m),
            ResourceProbe::Unavailable { .. } => None,
        }
    }

    pub fn kernel(&self, name: &str) -> Option<&Resources> {
        self.kernels()?.get(name)
    }
}

/// Run `ptxas -arch=<arch> -v` on `ptx`. An absent ptxas is not an error (`Unavailable`); PTX
/// that ptxas rejects is, with ptxas's `line N` diagnostics.
pub fn ptxas_resources(ptx: &str, arch: &str) -> Result<ResourceProbe, LowerError> {
    ptxas_resources_with_sass(ptx, arch, false, false).map(|(probe, _)| probe)
}

/// [`ptxas_resources`] for relocatable code (`ptxas -c`), which may call functions it does not
/// define (an OpenCL built-in libclc lacks, a device function of another file).
pub fn ptxas_resources_relocatable(ptx: &str, arch: &str) -> Result<ResourceProbe, LowerError> {
    ptxas_resources_with_sass(ptx, arch, true, false).map(|(probe, _)| probe)
}

/// [`ptxas_resources`] (relocatable or not) with, when `sass`, the SASS of the same assembly:
/// `nvdisasm -gp -c` of a cubin assembled with `-lineinfo` (which changes no instruction), each
/// SASS instruction marked with its PTX line; `Err(reason)` where there is no listing.
pub fn ptxas_resources_with_sass(
    ptx: &str,
    arch: &str,
    relocatable: bool,
    sass: bool,
) -> Result<(ResourceProbe, Result<String, String>), LowerError> {
    let Some(ptxas) = find_tool("ptxas") else {
        let reason = "ptxas not found ($KERNCAST_TOOLCHAIN/bin, .toolchain/bin, PATH); \
                      install it with `cargo xtask bootstrap`";
        let probe = ResourceProbe::Unavailable {
            reason: reason.into(),
        };
        return Ok((probe, Err(reason.into())));
    };
    let io = |context: &str| {
        let context = context.to_string();
        move |source| LowerError::Io { context, source }
    };
    let dir = tempfile::tempdir().map_err(io("creating a temp dir for ptxas"))?;
    let input = dir.path().join("input.ptx");
    std::fs::write(&input, ptx).map_err(io("writing PTX for ptxas"))?;
    let cubin = dir.path().join("out.cubin");
    let mut cmd = Command::new(&ptxas);
    cmd.arg(format!("-arch={arch}")).arg("-v");
    if relocatable {
        cmd.arg("-c");
    }
    if sass {
        cmd.arg("-lineinfo");
    }
    cmd.arg("-o").arg(&cubin).arg(&input);
    let command = super::render_command(&cmd).replace(&*dir.path().to_string_lossy(), "$TMP");
    let output = cmd.output().map_err(io(&format!("starting `{command}`")))?;
    let text = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(LowerError::Compile {
            path: "<ptx>".into(),
            frontend: super::Frontend::Ptx,
            status: output.status.to_string(),
            command,
            diagnostics: text.replace(&*input.to_string_lossy(), "<ptx>"),
        });
    }
    let probe = ResourceProbe::Measured(parse_ptxas_report(&text));
    let listing = if sass {
        disassemble(&cubin)
    } else {
        Err("no SASS listing asked for".to_string())
    };
    Ok((probe, listing))
}

/// `nvdisasm -gp -c CUBIN`, or why not.
fn disassemble(cubin: &std::path::Path) -> Result<String, String> {
    let nvdisasm = find_tool("nvdisasm").ok_or_else(|| {
        "nvdisasm not found ($KERNCAST_TOOLCHAIN/bin, .toolchain/bin, PATH); install it with \
         `cargo xtask bootstrap`"
            .to_string()
    })?;
    let out = Command::new(nvdisasm)
        .args(["-gp", "-c"])
        .arg(cubin)
        .output()
        .map_err(|e| format!("could not run nvdisasm: {e}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "nvdisasm -gp -c failed: {}",
            said.lines().next().unwrap_or_default()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Parse the `ptxas info` lines of `ptxas -v` into per-function resources.
pub fn parse_ptxas_report(text: &str) -> BTreeMap<String, Resources> {
    let mut out: BTreeMap<String, Resources> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let l = line.trim();
        if let Some(rest) = l
            .split("Compiling entry function '")
            .nth(1)
            .or_else(|| l.split("Function properties for ").nth(1))
        {
            let name = rest.split('\'').next().unwrap_or(rest).trim().to_string();
            out.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let Some(name) = &current else { continue };
        let r = out.entry(name.clone()).or_default();
        if l.contains("bytes stack frame") {
            for item in l.split(',') {
                let n = leading_number(item);
                if item.contains("stack frame") {
                    r.stack_frame_bytes = n;
                } else if item.contains("spill stores") {
                    r.spill_store_bytes = n;
                } else if item.contains("spill loads") {
                    r.spill_load_bytes = n;
                }
            }
        } else if let Some(rest) = l.split("Used ").nth(1) {
            r.regs_per_thread = leading_number(rest) as u32;
            for item in rest.split(',') {
                let item = item.trim();
                let n = leading_number(item.trim_start_matches("used "));
                if item.contains("barriers") {
                    r.barriers = n as u32;
                } else if item.ends_with("bytes smem") {
                    r.shared_bytes = n;
                } else if item.contains("bytes lmem") {
                    r.local_bytes = n;
                } else if item.contains("cmem[0]") {
                    r.const_bytes = n;
                }
            }
        }
    }
    out
}

fn leading_number(s: &str) -> u64 {
    let s = s.trim();
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_ptxas_v_report() {
        let text = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'matmul' for 'sm_80'\n\
ptxas info    : Function properties for matmul\n\
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 31 registers, used 1 barriers, 2048 bytes smem, 384 bytes cmem[0]\n";
        let m = parse_ptxas_report(text);
        let r = &m["matmul"];
        assert_eq!(r.regs_per_thread, 31);
        assert_eq!(r.barriers, 1);
        assert_eq!(r.shared_bytes, 2048);
        assert_eq!(r.const_bytes, 384);
        assert_eq!(r.stack_frame_bytes, 8);
        assert_eq!(r.spill_load_bytes, 4);
        assert_eq!(m.len(), 1);
    }
}
