//! `kerncast lower`: the lowering pass on its own. Prints (or writes) the PTX a source lowers
//! to, the command that produced it, and optionally ptxas's per-kernel resources, so the first
//! arrow of the pipeline can be inspected like every other one. `cargo xtask regen` drives it.

use crate::lower::{LowerArgs, LowerOptions};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Source file: .cu, .cl, .ll, .bc or .ptx.
    pub file: PathBuf,
    #[command(flatten)]
    pub lower: LowerArgs,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Emit LLVM IR text instead of PTX (clang front end only).
    #[arg(long)]
    pub emit_llvm: bool,
    /// Also run `ptxas -v` and print registers, shared memory and barriers per kernel (stderr).
    #[arg(long)]
    pub resources: bool,
    /// Print SASS (ptxas + nvdisasm) instead of PTX.
    #[arg(long, conflicts_with = "emit_llvm")]
    pub sass: bool,
    /// Print the compiler command that ran (stderr).
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// A compilation database (`compile_commands.json`): a CUDA file it compiles is lowered
    /// with its own command (compiler, architecture, flags; device side only), as `analyze`
    /// and `realcode` lower it, unless --frontend or --arch is given.
    #[arg(long, value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,
}

impl Args {
    /// The lowering options: the command line's, and the file's own compile command where
    /// `--compile-commands` has one for it. A database that cannot be read, or that does not
    /// compile the file, is an error naming both.
    pub fn options(&self) -> crate::Result<LowerOptions> {
        let mut opts = self.lower.options();
        let Some(db) = &self.compile_commands else {
            return Ok(opts);
        };
        let commands = crate::lower::compile_command::read_database(db)
            .map_err(|e| crate::Error::Input(e.to_string()))?;
        let Some(c) = crate::lower::compile_command::command_for(&commands, &self.file) else {
            return Err(crate::Error::Input(format!(
                "{}: no command compiles {}",
                db.display(),
                self.file.display()
            )));
        };
        let chosen = self.lower.frontend.is_some() || self.lower.arch.is_some();
        crate::lower::compile_command::follow(&mut opts, c, chosen);
        Ok(opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::path::Path;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// A database compiling `k.cu` for sm_86 in `dir`, and the parsed `kerncast lower` line.
    fn lower_line(dir: &Path, extra: &[&str]) -> Args {
        std::fs::write(dir.join("k.cu"), "__global__ void k() {}\n").unwrap();
        std::fs::write(dir.join("other.cu"), "__global__ void o() {}\n").unwrap();
        let db = serde_json::json!([{
            "directory": dir,
            "file": "k.cu",
            "command": "clang++ -DWIDTH=4 --cuda-gpu-arch=sm_86 -x cuda -c k.cu",
        }]);
        let db_path = dir.join("compile_commands.json");
        std::fs::write(&db_path, db.to_string()).unwrap();
        let mut line = vec!["lower".to_string()];
        line.extend(
            extra
                .iter()
                .map(|s| s.replace("DIR", &dir.to_string_lossy())),
        );
        line.extend(["--compile-commands".into(), db_path.display().to_string()]);
        Cli::parse_from(line).args
    }

    #[test]
    fn a_file_the_database_compiles_is_lowered_with_its_own_command() {
        let dir = tempfile::tempdir().unwrap();
        let opts = lower_line(dir.path(), &["DIR/k.cu"]).options().unwrap();
        assert_eq!(opts.arch, "sm_86");
        let command = opts.command.expect("the database's command is followed");
        assert!(command.words.iter().any(|w| w == "-DWIDTH=4"));
    }

    #[test]
    fn an_architecture_on_the_command_line_wins_over_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let opts = lower_line(dir.path(), &["DIR/k.cu", "--arch", "sm_75"])
            .options()
            .unwrap();
        assert_eq!(opts.arch, "sm_75");
        assert!(opts.command.is_none());
    }

    #[test]
    fn a_file_the_database_does_not_compile_is_an_error_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let err = lower_line(dir.path(), &["DIR/other.cu"])
            .options()
            .unwrap_err()
            .to_string();
        assert!(err.contains("compile_commands.json"), "{err}");
        assert!(err.contains("other.cu"), "{err}");
    }
}
