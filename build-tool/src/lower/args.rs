//! The lowering flags every kerncast subcommand that accepts sources shares
//! (`#[command(flatten)] lower: LowerArgs`).

use super::{Frontend, LowerOptions, DEFAULT_ARCH};
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug)]
pub struct LowerArgs {
    /// Front end: nvcc, clang, llvm or ptx (default: nvcc for .cu when installed, else clang;
    /// clang for .cl; llvm for .ll/.bc; as-is for .ptx).
    #[arg(long, value_enum)]
    pub frontend: Option<Frontend>,
    /// Target architecture (default: the devices' compute capability, sm_75 or newer; sm_80
    /// where no device is given).
    #[arg(long)]
    pub arch: Option<String>,
    /// Preprocessor macro, NAME or NAME=VALUE (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VAL]")]
    pub define: Vec<String>,
    /// Include directory (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Optimisation level for clang and LLVM (0-3).
    #[arg(long = "opt-level", default_value_t = 3, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// Extra argument passed to the compiler verbatim (repeatable).
    #[arg(long = "compiler-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub compiler_arg: Vec<String>,
}

/// What the command line gives when no flag is passed, so that `cargo kerncast` and other
/// callers that build the flags in code lower as `kerncast analyze` does (clang at -O3, not -O0).
impl Default for LowerArgs {
    fn default() -> Self {
        LowerArgs {
            frontend: None,
            arch: None,
            define: Vec::new(),
            include: Vec::new(),
            opt_level: 3,
            compiler_arg: Vec::new(),
        }
    }
}

impl LowerArgs {
    pub fn options(&self) -> LowerOptions {
        LowerOptions {
            frontend: self.frontend,
            arch: self
                .arch
                .clone()
                .filter(|a| !a.is_empty())
                .unwrap_or_else(|| DEFAULT_ARCH.into()),
            arch_note: None,
            defines: self
                .define
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
            include_dirs: self.include.clone(),
            opt_level: self.opt_level,
            extra_args: self.compiler_arg.clone(),
            command: None,
        }
    }

    /// [`LowerArgs::options`] for predicting on `devices` (profile names or files): without
    /// `--arch`, the target is the devices' compute capability ([`arch_for`]).
    pub fn options_for(&self, devices: &[String]) -> LowerOptions {
        if self.arch.as_deref().is_some_and(|a| !a.is_empty()) {
            return self.options();
        }
        let loaded: Vec<kerncast_models::Device> = devices
            .iter()
            .filter_map(|d| kerncast_models::Device::load(d).ok())
            .collect();
        self.options_for_loaded(&loaded)
    }

    /// [`LowerArgs::options_for`] with the devices' profiles already loaded.
    pub fn options_for_loaded(&self, devices: &[kerncast_models::Device]) -> LowerOptions {
        let mut o = self.options();
        if self.arch.as_deref().is_none_or(str::is_empty) {
            let ccs: Vec<(String, Option<String>)> = devices
                .iter()
                .map(|d| {
                    (
                        d.name.clone(),
                        d.hw.compute_capability.as_ref().map(|c| c.value.clone()),
                    )
                })
                .collect();
            if let Some((arch, note)) = arch_for(&ccs) {
                o.arch = arch;
                o.arch_note = Some(note);
            }
        }
        o
    }
}

/// The oldest compute capability the bundled CUDA 13 nvcc and ptxas compile for.
pub const OLDEST_ARCH: (u32, u32) = (7, 5);

/// Compute capabilities whose architecture-specific target (`sm_90a`: `wgmma`, `setmaxnreg`)
/// the bundled nvcc and clang-19 compile for. Hopper kernels are built for it (CUTLASS takes
/// its `wgmma` paths only there), and its code runs on that compute capability alone.
const ARCH_SPECIFIC: [(u32, u32); 1] = [(9, 0)];

/// The architecture to lower for on devices of these (name, compute capability) pairs, and
/// why: the lowest compute capability among them (PTX for it runs on the newer ones), raised
/// to [`OLDEST_ARCH`]; its architecture-specific target ([`ARCH_SPECIFIC`]) where every
/// device has that compute capability. `None` when a device has no compute capability in its
/// profile.
pub fn arch_for(devices: &[(String, Option<String>)]) -> Option<(String, String)> {
    let parse = |cc: &str| -> Option<(u32, u32)> {
        let (major, minor) = cc.trim().split_once('.')?;
        Some((major.parse().ok()?, minor.parse().ok()?))
    };
    let ccs: Vec<(&str, (u32, u32))> = devices
        .iter()
        .map(|(n, cc)| Some((n.as_str(), parse(cc.as_deref()?)?)))
        .collect::<Option<_>>()?;
    let &(name, lowest) = ccs.iter().min_by_key(|(_, cc)| *cc)?;
    let target = lowest.max(OLDEST_ARCH);
    let specific = ARCH_SPECIFIC.contains(&target) && ccs.iter().all(|(_, cc)| *cc == target);
    let arch = format!(
        "sm_{}{}{}",
        target.0,
        target.1,
        if specific { "a" } else { "" }
    );
    let shown = |cc: (u32, u32)| format!("{}.{}", cc.0, cc.1);
    let of = if ccs.len() == 1 {
        format!("{name}'s compute capability {}", shown(lowest))
    } else {
        let all: Vec<String> = ccs
            .iter()
            .map(|(n, c)| format!("{n} {}", shown(*c)))
            .collect();
        format!(
            "the lowest compute capability of the devices ({})",
            all.join(", ")
        )
    };
    let note = if specific {
        format!(
            "lowered for {arch}, {of} with its architecture-specific features (`wgmma`), as \
             kernels for it are built (--arch sm_{}{} or `arch` in kerncast.toml sets the \
             portable target)",
            target.0, target.1
        )
    } else if target == lowest {
        format!("lowered for {arch}, {of}")
    } else {
        format!(
            "lowered for {arch}, not {of}: the bundled nvcc and ptxas 13 compile for sm_{}{} and \
             newer, so instructions and registers are {arch}'s (--arch or `arch` in kerncast.toml \
             sets another target)",
            OLDEST_ARCH.0, OLDEST_ARCH.1
        )
    };
    Some((arch, note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        lower: LowerArgs,
    }

    #[test]
    fn flags_become_options() {
        let cli = Cli::parse_from([
            "x",
            "--frontend",
            "clang",
            "-D",
            "N=4",
            "-DFAST",
            "-I",
            "inc",
            "--arch",
            "sm_90",
        ]);
        let o = cli.lower.options();
        assert_eq!(o.frontend, Some(Frontend::Clang));
        assert_eq!(o.arch, "sm_90");
        assert_eq!(
            o.defines,
            vec![("N".into(), Some("4".into())), ("FAST".into(), None)]
        );
        assert_eq!(o.include_dirs, vec![PathBuf::from("inc")]);
        assert_eq!(o.opt_level, 3);
    }

    #[test]
    fn the_default_is_what_the_command_line_gives_without_flags() {
        assert_eq!(
            format!("{:?}", LowerArgs::default()),
            format!("{:?}", Cli::parse_from(["x"]).lower)
        );
    }

    #[test]
    fn the_devices_choose_the_arch_no_older_than_the_toolchain_allows() {
        let d = |n: &str, cc: &str| (n.to_string(), Some(cc.to_string()));
        let (arch, note) = arch_for(&[d("rtx-3080", "8.6")]).unwrap();
        assert_eq!(arch, "sm_86");
        assert_eq!(note, "lowered for sm_86, rtx-3080's compute capability 8.6");
        let (arch, note) = arch_for(&[d("a100", "8.0"), d("t4", "7.5")]).unwrap();
        assert_eq!(arch, "sm_75");
        assert!(note.contains("lowest compute capability of the devices (a100 8.0, t4 7.5)"));
        let (arch, note) = arch_for(&[d("gtx-titan-x", "5.2")]).unwrap();
        assert_eq!(arch, "sm_75");
        assert!(note.starts_with("lowered for sm_75, not gtx-titan-x's compute capability 5.2"));
        // Hopper alone: its architecture-specific target, for `wgmma`
        let (arch, note) = arch_for(&[d("h100", "9.0")]).unwrap();
        assert_eq!(arch, "sm_90a");
        assert!(note.starts_with("lowered for sm_90a, h100's compute capability 9.0 with its architecture-specific features"), "{note}");
        let (arch, _) = arch_for(&[d("h100", "9.0"), d("a100", "8.0")]).unwrap();
        assert_eq!(arch, "sm_80");
        assert!(arch_for(&[("x".into(), None)]).is_none());
        assert!(arch_for(&[]).is_none());
    }
}
