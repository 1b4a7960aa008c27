//! The lowering flags every kerncast subcommand that accepts sources shares
//! (`#[command(flatten)] lower: LowerArgs`).

use super::{Frontend, LowerOptions};
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct LowerArgs {
    /// Front end: nvcc, clang, llvm or ptx (default: nvcc for .cu when installed, else clang;
    /// clang for .cl; llvm for .ll/.bc; as-is for .ptx).
    #[arg(long, value_enum)]
    pub frontend: Option<Frontend>,
    /// Target architecture.
    #[arg(long, default_value = "sm_80")]
    pub arch: String,
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

impl LowerArgs {
    pub fn options(&self) -> LowerOptions {
        LowerOptions {
            frontend: self.frontend,
            arch: if self.arch.is_empty() {
                "sm_80".into()
            } else {
                self.arch.clone()
            },
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
        }
    }
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
}
