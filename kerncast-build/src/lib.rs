//! kerncast from a `build.rs`: analyse the crate's GPU kernels during `cargo build`, print the
//! predictions as `cargo:warning` lines, and fail the build on a predicted regression when asked.
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
//! Why a process and not a library call: like `cc` runs the C compiler, this crate runs the
//! `kerncast` tool (`$KERNCAST`, else `kerncast` on PATH). A build script then compiles in
//! seconds and does not link the analysis engine (LLVM, isl) into every crate that uses it.

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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tool { tool, message } => write!(
                f,
                "cannot run {}: {message} (set KERNCAST to the kerncast binary, or install it with `cargo install --path build-tool`)",
                tool.display()
            ),
            Error::Regression { output } => {
                write!(f, "kerncast: predicted regression\n{output}")
            }
            Error::Analysis { output } => write!(f, "kerncast: analysis failed\n{output}"),
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

    /// Runs kerncast, prints `cargo:rerun-if-changed` and `cargo:warning` lines.
    pub fn run(&self) -> Result<Outcome, Error> {
        let mut cmd = self.command();
        let tool = PathBuf::from(cmd.get_program());
        let args: Vec<PathBuf> = cmd.get_args().map(PathBuf::from).collect();
        let out_dir = args
            .iter()
            .position(|a| a.as_os_str() == "--out")
            .and_then(|i| args.get(i + 1).cloned())
            .unwrap_or_default();
        let config = args
            .iter()
            .position(|a| a.as_os_str() == "--config")
            .and_then(|i| args.get(i + 1).cloned())
            .unwrap_or_default();
        println!("cargo:rerun-if-changed={}", config.display());
        if let Some(b) = &self.baseline {
            let root = std::env::var_os("CARGO_MANIFEST_DIR")
                .map(PathBuf::from)
                .unwrap_or_default();
            println!("cargo:rerun-if-changed={}", root.join(b).display());
        }
        println!("cargo:rerun-if-env-changed=KERNCAST");
        let o = cmd.output().map_err(|e| Error::Tool {
            tool: tool.clone(),
            message: e.to_string(),
        })?;
        let text =
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
        for l in text.lines().filter(|l| !l.trim().is_empty()) {
            println!("cargo:warning=kerncast: {l}");
        }
        // Kernel sources named in the config: rebuild when they change.
        if let Ok(cfg) = std::fs::read_to_string(&config) {
            let base = config.parent().unwrap_or(Path::new("."));
            for l in cfg.lines() {
                let t = l.trim();
                if let Some(rest) = t.strip_prefix("path") {
                    if let Some(p) = rest.split('"').nth(1) {
                        println!("cargo:rerun-if-changed={}", base.join(p).display());
                    }
                }
            }
        }
        let code = o.status.code().unwrap_or(2);
        match code {
            0 => Ok(Outcome {
                exit_code: 0,
                out_dir,
            }),
            1 if !self.fail => Ok(Outcome {
                exit_code: 1,
                out_dir,
            }),
            1 => Err(Error::Regression { output: text }),
            _ => Err(Error::Analysis { output: text }),
        }
    }
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
    fn missing_tool_is_an_error_naming_it() {
        let e = Kerncast::new()
            .tool("/nonexistent/kerncast")
            .run()
            .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/kerncast"));
    }
}
