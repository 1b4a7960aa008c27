//! kerncast from a `build.rs`: analyse the crate's GPU kernels during `cargo build`, print the
//! predictions as `cargo:warning` lines, and fail the build on a predicted regression when asked.
//!
//! In `Cargo.toml` (a path or git dependency until kerncast is on crates.io):
//!
//! ```toml
//! [build-dependencies]
//! kerncast-build = { git = "https://github.com/…/kerncast" }   # or { path = "…/kerncast/kerncast-build" }
//! ```
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     kerncast_build::Kerncast::new()
//!         .config("kerncast.toml")
//!         .baseline("kerncast-baseline.json")
//!         .fail_on_regression(true)
//!         .run()
//!         .unwrap_or_else(|e| panic!("{e}"));
//! }
//! ```
//!
//! The first build writes the baseline (one `cargo:warning` says so; commit the file); later
//! builds are quiet unless a prediction regresses. Under CI a missing baseline is an error.
//!
//! Why a process and not a library call: like `cc` runs the C compiler, this crate runs the
//! `kerncast` tool (`$KERNCAST`, else `kerncast` on PATH). A build script then compiles in
//! seconds and does not link the analysis engine (LLVM, isl) into every crate that uses it.

// The example above is a whole build.rs: its `fn main` is what a user copies, not noise.
#![allow(clippy::needless_doctest_main)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What went wrong.
#[derive(Debug)]
pub enum Error {
    /// The kerncast tool could not be started.
    Tool { tool: PathBuf, message: String },
    /// kerncast ran and found a regression (exit 1) with `fail_on_regression`.
    Regression { output: String },
    /// kerncast ran and reported an analysis error (exit 2).
    Analysis { output: String },
    /// The baseline does not exist, under CI (elsewhere the first build writes it).
    NoBaseline { baseline: PathBuf, command: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tool { tool, message } => write!(
                f,
                "cannot run {}: {message} (set KERNCAST to the kerncast binary, or install it with `cargo install --path cli`)",
                tool.display()
            ),
            Error::Regression { output } => {
                write!(f, "kerncast: predicted regression\n{output}")
            }
            Error::Analysis { output } => write!(f, "kerncast: analysis failed\n{output}"),
            Error::NoBaseline { baseline, command } => write!(
                f,
                "kerncast: {}: no baseline to gate against (CI is set, so the build does not \
                 write one); write it with `{command}` and commit it",
                baseline.display()
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The outcome of a run that did not fail the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// kerncast's exit code (0 ok, 1 regression when not failing on it).
    pub exit_code: i32,
    /// Where the reports were written.
    pub out_dir: PathBuf,
    /// What kerncast printed (also in `kerncast.log` in `out_dir`).
    pub output: String,
    /// Whether this run wrote the baseline, which did not exist.
    pub baseline_created: bool,
}

/// Builder for one kerncast run.
#[derive(Debug, Clone, Default)]
pub struct Kerncast {
    config: Option<PathBuf>,
    baseline: Option<PathBuf>,
    fail: bool,
    out: Option<PathBuf>,
    devices: Vec<String>,
    tool: Option<PathBuf>,
}

impl Kerncast {
    pub fn new() -> Self {
        Self::default()
    }
    /// kerncast.toml, relative to the crate root (default `kerncast.toml`).
    pub fn config(mut self, p: impl AsRef<Path>) -> Self {
        self.config = Some(p.as_ref().to_path_buf());
        self
    }
    /// Compare with this baseline (`kerncast check`); without one, only `kerncast analyze` runs.
    pub fn baseline(mut self, p: impl AsRef<Path>) -> Self {
        self.baseline = Some(p.as_ref().to_path_buf());
        self
    }
    /// Fail the build when a prediction regresses beyond the thresholds.
    pub fn fail_on_regression(mut self, yes: bool) -> Self {
        self.fail = yes;
        self
    }
    /// Where reports go (default `$OUT_DIR/kerncast`).
    pub fn out_dir(mut self, p: impl AsRef<Path>) -> Self {
        self.out = Some(p.as_ref().to_path_buf());
        self
    }
    /// Analyse for this device (repeatable; default: the config's devices).
    pub fn device(mut self, d: impl Into<String>) -> Self {
        self.devices.push(d.into());
        self
    }
    /// The kerncast binary (default `$KERNCAST`, else `kerncast` on PATH).
    pub fn tool(mut self, p: impl AsRef<Path>) -> Self {
        self.tool = Some(p.as_ref().to_path_buf());
        self
    }

    /// The command line this run executes (for tests and logs).
    pub fn command(&self) -> Command {
        let tool = self.tool.clone().unwrap_or_else(|| {
            std::env::var_os("KERNCAST")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("kerncast"))
        });
        let root = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_default();
        let out = self.out.clone().unwrap_or_else(|| {
            std::env::var_os("OUT_DIR")
                .map(|d| PathBuf::from(d).join("kerncast"))
                .unwrap_or_else(|| PathBuf::from("target/kerncast"))
        });
        let config = root.join(self.config.as_deref().unwrap_or(Path::new("kerncast.toml")));
        let mut c = Command::new(tool);
        c.current_dir(if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &root
        });
        match &self.baseline {
            Some(b) => {
                c.arg("check")
                    .arg("--baseline")
                    .arg(root.join(b))
                    .arg("--out")
                    .arg(&out);
            }
            None => {
                c.arg("analyze").arg("--out").arg(&out);
            }
        }
        c.arg("--config").arg(&config);
        for d in &self.devices {
            c.arg("--device").arg(d);
        }
        c.env("CI", "true"); // no progress bar in build logs
        c
    }

    /// Runs kerncast and prints `cargo:rerun-if-changed` lines. Quiet when all is well: the
    /// only `cargo:warning` lines are a regression (when not failing on it) and, once, the
    /// baseline written on the first build. What kerncast printed is in [`Outcome::output`]
    /// and in `kerncast.log` beside the reports.
    ///
    /// A baseline that does not exist yet is written from this build's predictions, with one
    /// warning saying so (commit it: later builds are gated against it). Under CI (`$CI` set,
    /// as GitHub Actions, GitLab and most CI systems set it) a missing baseline is an error
    /// instead, since a gate that writes its own baseline passes whatever it is given.
    pub fn run(&self) -> Result<Outcome, Error> {
        let mut cmd = self.command();
        let tool = PathBuf::from(cmd.get_program());
        let args: Vec<PathBuf> = cmd.get_args().map(PathBuf::from).collect();
        let after = |flag: &str| {
            args.iter()
                .position(|a| a.as_os_str() == flag)
                .and_then(|i| args.get(i + 1).cloned())
                .unwrap_or_default()
        };
        let out_dir = after("--out");
        let config = after("--config");
        println!("cargo:rerun-if-changed={}", config.display());
        let baseline = self.baseline.as_ref().map(|_| after("--baseline"));
        if let Some(b) = &baseline {
            println!("cargo:rerun-if-changed={}", b.display());
        }
        println!("cargo:rerun-if-env-changed=KERNCAST");
        // Kernel sources named in the config: rebuild when they change.
        if let Ok(cfg) = std::fs::read_to_string(&config) {
            let base = config.parent().unwrap_or(Path::new("."));
            for p in config_paths(&cfg) {
                println!("cargo:rerun-if-changed={}", base.join(p).display());
            }
        }
        let first = baseline.as_ref().filter(|b| !b.exists());
        if let Some(b) = first {
            if in_ci() {
                return Err(Error::NoBaseline {
                    baseline: b.clone(),
                    command: update_command(&cmd),
                });
            }
            cmd.arg("--update-baseline");
        }
        let o = cmd.output().map_err(|e| Error::Tool {
            tool: tool.clone(),
            message: e.to_string(),
        })?;
        let text =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        if !out_dir.as_os_str().is_empty() {
            let _ = std::fs::create_dir_all(&out_dir);
            let _ = std::fs::write(out_dir.join("kerncast.log"), &text);
        }
        let code = o.status.code().unwrap_or(2);
        let outcome = |exit_code| Outcome {
            exit_code,
            out_dir: out_dir.clone(),
            output: text.clone(),
            baseline_created: first.is_some() && exit_code == 0,
        };
        match code {
            0 => {
                if let Some(b) = first {
                    let written = text
                        .lines()
                        .find(|l| l.starts_with("baseline written"))
                        .unwrap_or("baseline written");
                    println!(
                        "cargo:warning=kerncast: no baseline yet, so this build wrote one from its \
                         predictions ({written}); commit {}: later builds are gated against it",
                        b.display()
                    );
                }
                Ok(outcome(0))
            }
            1 if !self.fail => {
                for l in text.lines().filter(|l| !l.trim().is_empty()) {
                    println!("cargo:warning=kerncast: {l}");
                }
                Ok(outcome(1))
            }
            1 => Err(Error::Regression { output: text }),
            _ => Err(Error::Analysis { output: text }),
        }
    }
}

/// Whether this build runs under CI (`$CI` set to anything but `false` or `0`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The command that writes the missing baseline, for the error that asks for it.
fn update_command(cmd: &Command) -> String {
    let mut s = String::new();
    if let Some(d) = cmd.get_current_dir() {
        s.push_str(&format!("cd {} && ", d.display()));
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s.push_str(" --update-baseline");
    s
}

/// The `path = "…"` values of a kerncast.toml (its kernel sources and folders).
fn config_paths(cfg: &str) -> Vec<&str> {
    cfg.lines()
        .filter_map(|l| {
            let rest = l
                .trim()
                .strip_prefix("path")?
                .trim_start()
                .strip_prefix('=')?;
            rest.split('"').nth(1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_for_check_and_analyze() {
        let c = Kerncast::new()
            .tool("/bin/kc")
            .config("k.toml")
            .baseline("b.json")
            .out_dir("/o")
            .device("t4")
            .command();
        let args: Vec<String> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(c.get_program(), "/bin/kc");
        assert_eq!(args[0], "check");
        assert!(args.iter().any(|a| a.ends_with("b.json")));
        assert!(args.windows(2).any(|w| w[0] == "--device" && w[1] == "t4"));
        let a = Kerncast::new().tool("/bin/kc").out_dir("/o").command();
        assert_eq!(a.get_args().next().unwrap(), "analyze");
    }

    #[test]
    fn config_paths_are_the_kernel_sources() {
        let cfg = "devices = [\"t4\"]\n[[kernel]]\npath = \"kernels/a.cu\"\n  path=\"b\"\npathological = 1\n";
        assert_eq!(config_paths(cfg), ["kernels/a.cu", "b"]);
    }

    #[test]
    fn the_update_command_is_the_check_with_update_baseline() {
        let c = Kerncast::new()
            .tool("/bin/kc")
            .config("k.toml")
            .baseline("b.json")
            .out_dir("/o")
            .command();
        let u = update_command(&c);
        assert!(u.starts_with("cd "), "{u}");
        assert!(u.contains("/bin/kc check --baseline"), "{u}");
        assert!(u.ends_with("--update-baseline"), "{u}");
    }

    #[test]
    fn missing_tool_is_an_error_naming_it() {
        let e = Kerncast::new()
            .tool("/nonexistent/kerncast")
            .run()
            .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/kerncast"));
    }
}
