//! `kerncast.toml`: which kernels to analyse, with which workloads, for which devices and
//! models, and how much a prediction may grow before the gate fails.
//!
//! Why spans: a build tool's configuration is edited by people who are not reading our code, so
//! every error points into the TOML (`toml::Spanned` keeps byte ranges, miette draws them).
//! Values that are checked after parsing (front ends, expressions, paths) keep their spans for the
//! same reason.

use crate::workload::{self, Dims, WorkloadSpec};
use miette::{Diagnostic, NamedSource, SourceSpan};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Default relative growth of time and energy that the gate accepts (+5 %).
pub const DEFAULT_THRESHOLD: f64 = 0.05;

/// An error in a configuration file, with the span it refers to.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(kerncast::config))]
pub struct ConfigError {
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("here")]
    pub span: Option<SourceSpan>,
    /// `file:line` of the error, for plain-text consumers (logs, SARIF).
    pub location: String,
}

/// Relative thresholds per metric: `0.05` = fail when the prediction grows by more than 5 %.
#[derive(Clone, Debug, Deserialize, PartialEq, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    #[serde(default = "default_threshold")]
    pub time: f64,
    #[serde(default = "default_threshold")]
    pub energy: f64,
    /// Power is not gated unless set.
    #[serde(default)]
    pub power: Option<f64>,
}

fn default_threshold() -> f64 {
    DEFAULT_THRESHOLD
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            time: DEFAULT_THRESHOLD,
            energy: DEFAULT_THRESHOLD,
            power: None,
        }
    }
}

/// Per-kernel overrides of [`Thresholds`]; unset fields fall back to the global ones.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ThresholdOverride {
    pub time: Option<f64>,
    pub energy: Option<f64>,
    pub power: Option<f64>,
}

impl Thresholds {
    pub fn with(&self, o: &ThresholdOverride) -> Thresholds {
        Thresholds {
            time: o.time.unwrap_or(self.time),
            energy: o.energy.unwrap_or(self.energy),
            power: o.power.or(self.power),
        }
    }
}

/// A launch dimension as written in TOML: a number, an expression string, or a list of either.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum DimsToml {
    One(ExprToml),
    Many(Vec<ExprToml>),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum ExprToml {
    Int(i64),
    Expr(String),
}

impl ExprToml {
    fn text(&self) -> String {
        match self {
            ExprToml::Int(i) => i.to_string(),
            ExprToml::Expr(s) => s.clone(),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadToml {
    pub name: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, Spanned<ExprToml>>,
    pub grid: Spanned<DimsToml>,
    pub block: Spanned<DimsToml>,
    #[serde(default)]
    pub hints: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelToml {
    /// Kernel (function) name; when absent every kernel of the file is analysed.
    pub name: Option<String>,
    pub path: Spanned<String>,
    pub frontend: Option<Spanned<String>>,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub defines: BTreeMap<String, ExprToml>,
    #[serde(default)]
    pub include_dirs: Vec<String>,
    #[serde(default, rename = "workload")]
    pub workloads: Vec<WorkloadToml>,
    #[serde(default)]
    pub thresholds: ThresholdOverride,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigToml {
    #[serde(default)]
    devices: Vec<String>,
    #[serde(default)]
    models: Vec<String>,
    #[serde(default)]
    thresholds: Thresholds,
    #[serde(default)]
    arch: Option<String>,
    #[serde(default, rename = "kernel")]
    kernels: Vec<KernelToml>,
    #[serde(default)]
    budgets: Option<Spanned<kerncast_passes::budget::Overrides>>,
}

/// Which front end lowers a source file to PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Frontend {
    /// NVIDIA's nvcc (the project's toolchain).
    Nvcc,
    /// clang's CUDA or OpenCL front end.
    Clang,
    /// LLVM IR through the NVPTX back end.
    Llvm,
    /// The file is PTX already.
    Ptx,
}

impl Frontend {
    pub fn parse(s: &str) -> Option<Frontend> {
        Some(match s {
            "nvcc" => Frontend::Nvcc,
            "clang" => Frontend::Clang,
            "llvm" => Frontend::Llvm,
            "ptx" => Frontend::Ptx,
            _ => return None,
        })
    }

    /// The default front end for a file, by extension.
    pub fn for_path(p: &Path) -> Option<Frontend> {
        match p.extension()?.to_str()? {
            "cu" => Some(Frontend::Nvcc),
            "cl" => Some(Frontend::Clang),
            "ll" | "bc" => Some(Frontend::Llvm),
            "ptx" => Some(Frontend::Ptx),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Frontend::Nvcc => "nvcc",
            Frontend::Clang => "clang",
            Frontend::Llvm => "llvm",
            Frontend::Ptx => "ptx",
        }
    }
}

/// One kernel source to analyse, validated.
#[derive(Clone, Debug)]
pub struct KernelEntry {
    pub name: Option<String>,
    pub path: PathBuf,
    pub frontend: Frontend,
    pub flags: Vec<String>,
    pub defines: BTreeMap<String, String>,
    pub include_dirs: Vec<PathBuf>,
    /// Workloads from the TOML; when empty, the source's `// kerncast:` annotations are used.
    pub workloads: Vec<WorkloadSpec>,
    pub thresholds: Thresholds,
}

/// A validated `kerncast.toml`.
#[derive(Clone, Debug)]
pub struct Config {
    /// The file it was read from (paths inside are relative to its folder).
    pub file: Option<PathBuf>,
    pub devices: Vec<String>,
    pub models: Vec<String>,
    pub thresholds: Thresholds,
    pub arch: Option<String>,
    pub kernels: Vec<KernelEntry>,
    /// `[budgets]`: work limits of the counter and the emulator ([`kerncast_passes::budget`]).
    pub budgets: kerncast_passes::budget::Overrides,
}

impl Config {
    /// Reads and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config, Box<ConfigError>> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Box::new(ConfigError {
                message: format!("cannot read {}: {e}", path.display()),
                src: NamedSource::new(path.display().to_string(), String::new()),
                span: None,
                location: path.display().to_string(),
            })
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut c = Config::parse(&path.display().to_string(), &text, base)?;
        c.file = Some(path.to_path_buf());
        Ok(c)
    }

    /// Parses configuration text; `name` is used in errors, `base` resolves relative paths.
    pub fn parse(name: &str, text: &str, base: &Path) -> Result<Config, Box<ConfigError>> {
        let err = |message: String, span: Option<std::ops::Range<usize>>| {
            let line = span
                .as_ref()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1);
            Box::new(ConfigError {
                message,
                src: NamedSource::new(name, text.to_string()),
                span: span.map(|s| SourceSpan::from(s.start..s.end.max(s.start))),
                location: format!("{name}:{line}"),
            })
        };
        let raw: ConfigToml =
            toml::from_str(text).map_err(|e| err(e.message().to_string(), e.span()))?;
        if let Some(b) = &raw.budgets {
            if let Some(k) = b.get_ref().zero() {
                return Err(err(
                    format!("budget `{k}` must be at least 1 (every stage has a work limit)"),
                    Some(b.span()),
                ));
            }
        }
        for (what, v) in [
            ("time", raw.thresholds.time),
            ("energy", raw.thresholds.energy),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(err(
                    format!("threshold `{what}` must be a non-negative number, got {v}"),
                    None,
                ));
            }
        }
        let mut kernels = Vec::new();
        for k in raw.kernels {
            let path = base.join(k.path.get_ref());
            let frontend = match &k.frontend {
                Some(f) => Frontend::parse(f.get_ref()).ok_or_else(|| {
                    err(
                        format!(
                            "unknown front end `{}` (expected nvcc, clang, llvm or ptx)",
                            f.get_ref()
                        ),
                        Some(f.span()),
                    )
                })?,
                None => Frontend::for_path(&path).ok_or_else(|| {
                    err(
                        format!(
                            "cannot tell the front end of `{}` from its extension; set `frontend`",
                            k.path.get_ref()
                        ),
                        Some(k.path.span()),
                    )
                })?,
            };
            let mut workloads = Vec::new();
            for w in &k.workloads {
                let mut params = Vec::new();
                for (p, v) in &w.params {
                    let e = workload::Expr::parse(&v.get_ref().text())
                        .map_err(|m| err(format!("param `{p}`: {m}"), Some(v.span())))?;
                    params.push((p.clone(), e));
                }
                let grid =
                    dims(&w.grid).map_err(|m| err(format!("grid: {m}"), Some(w.grid.span())))?;
                let block =
                    dims(&w.block).map_err(|m| err(format!("block: {m}"), Some(w.block.span())))?;
                let spec = WorkloadSpec {
                    name: w.name.clone(),
                    params,
                    grid,
                    block,
                    hints: w.hints.clone(),
                    ..WorkloadSpec::empty()
                };
                // Evaluate once now so that an undefined name is reported against the TOML.
                spec.resolve()
                    .map_err(|m| err(m, Some(w.grid.span().start..w.block.span().end)))?;
                workloads.push(spec);
            }
            kernels.push(KernelEntry {
                name: k.name,
                path,
                frontend,
                flags: k.flags,
                defines: k
                    .defines
                    .iter()
                    .map(|(a, b)| (a.clone(), b.text()))
                    .collect(),
                include_dirs: k.include_dirs.iter().map(|d| base.join(d)).collect(),
                workloads,
                thresholds: raw.thresholds.with(&k.thresholds),
            });
        }
        Ok(Config {
            file: None,
            devices: raw.devices,
            models: raw.models,
            thresholds: raw.thresholds,
            arch: raw.arch,
            kernels,
            budgets: raw.budgets.map(|b| b.into_inner()).unwrap_or_default(),
        })
    }
}

fn dims(d: &Spanned<DimsToml>) -> Result<Dims, String> {
    let texts: Vec<String> = match d.get_ref() {
        DimsToml::One(e) => vec![e.text()],
        DimsToml::Many(v) => v.iter().map(ExprToml::text).collect(),
    };
    if texts.is_empty() || texts.len() > 3 {
        return Err(format!("expected 1 to 3 dimensions, got {}", texts.len()));
    }
    let mut out = Vec::new();
    for t in texts {
        out.push(workload::Expr::parse(&t)?);
    }
    Ok(Dims(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
devices = ["gtx-titan-x"]
[thresholds]
energy = 0.10

[[kernel]]
name = "saxpy"
path = "k/saxpy.cu"
defines = { TILE = 16 }
thresholds = { time = 0.02 }
[[kernel.workload]]
params = { n = 4096 }
grid = "n/256"
block = 256
"#;

    #[test]
    fn parses_kernels_workloads_and_thresholds() {
        let c = Config::parse("kerncast.toml", GOOD, Path::new("/p")).unwrap();
        assert_eq!(c.devices, vec!["gtx-titan-x"]);
        let k = &c.kernels[0];
        assert_eq!(k.path, Path::new("/p/k/saxpy.cu"));
        assert_eq!(k.frontend, Frontend::Nvcc);
        assert_eq!(k.defines["TILE"], "16");
        assert_eq!(k.thresholds.time, 0.02);
        assert_eq!(k.thresholds.energy, 0.10);
        let w = k.workloads[0].resolve().unwrap();
        assert_eq!(w.grid, [16, 1, 1]);
        assert_eq!(w.block, [256, 1, 1]);
    }

    #[test]
    fn errors_point_into_the_toml() {
        let bad = GOOD.replace(
            "path = \"k/saxpy.cu\"",
            "path = \"k/saxpy.cu\"\nfrontend = \"gcc\"",
        );
        let e = Config::parse("kerncast.toml", &bad, Path::new("/p")).unwrap_err();
        assert!(
            e.message.contains("unknown front end `gcc`"),
            "{}",
            e.message
        );
        assert_eq!(e.location, "kerncast.toml:9");
        let span = e.span.unwrap();
        assert_eq!(&bad[span.offset()..span.offset() + span.len()], "\"gcc\"");

        let undefined = GOOD.replace("grid = \"n/256\"", "grid = \"m/256\"");
        let e = Config::parse("kerncast.toml", &undefined, Path::new("/p")).unwrap_err();
        assert!(e.message.contains("`m`"), "{}", e.message);

        let syntax = GOOD.replace("block = 256", "block = ");
        let e = Config::parse("kerncast.toml", &syntax, Path::new("/p")).unwrap_err();
        assert!(e.span.is_some());
        assert!(e.location.starts_with("kerncast.toml:"));
    }
}
