//! `cargo kerncast`: run kerncast on every workspace package that declares
//! `[package.metadata.kerncast]` (found with cargo_metadata), so a workspace gates all its
//! kernels with one command.
//!
//! ```toml
//! [package.metadata.kerncast]
//! config = "kerncast.toml"              # default
//! baseline = "kerncast-baseline.json"   # default
//! ```

use kerncast::lower::LowerArgs;
use kerncast::ops::analyze::Inputs;
use kerncast::ops::check::{check, Args as CheckArgs};
use std::path::PathBuf;

/// One package to analyse.
#[derive(Clone, Debug, PartialEq)]
pub struct KerncastPackage {
    pub name: String,
    pub config: PathBuf,
    pub baseline: PathBuf,
    pub out: PathBuf,
}

/// Packages of the workspace at `manifest` (or the current directory) with kerncast metadata.
pub fn packages(manifest: Option<&PathBuf>) -> Result<Vec<KerncastPackage>, String> {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(m) = manifest {
        cmd.manifest_path(m);
    }
    let md = cmd.exec().map_err(|e| format!("cargo metadata: {e}"))?;
    let mut out = Vec::new();
    for p in md.workspace_packages() {
        let Some(meta) = p.metadata.get("kerncast") else {
            continue;
        };
        let dir = p
            .manifest_path
            .parent()
            .map(|d| d.as_std_path().to_path_buf())
            .unwrap_or_default();
        let get = |k: &str, d: &str| dir.join(meta.get(k).and_then(|v| v.as_str()).unwrap_or(d));
        out.push(KerncastPackage {
            name: p.name.to_string(),
            config: get("config", "kerncast.toml"),
            baseline: get("baseline", "kerncast-baseline.json"),
            out: md
                .target_directory
                .as_std_path()
                .join("kerncast")
                .join(p.name.as_str()),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Runs `mode` (`analyze`, `check` or `update-baseline`) for every package; returns the worst
/// exit code and the text printed.
pub fn run_all(mode: &str, manifest: Option<&PathBuf>, devices: &[String]) -> (i32, String) {
    let pkgs = match packages(manifest) {
        Ok(p) => p,
        Err(e) => return (2, format!("error: {e}\n")),
    };
    if pkgs.is_empty() {
        return (
            2,
            "error: no workspace package has [package.metadata.kerncast]\n".into(),
        );
    }
    let mut worst = 0;
    let mut text = String::new();
    for p in pkgs {
        text.push_str(&format!("== {} ({})\n", p.name, p.config.display()));
        let args = CheckArgs {
            inputs: Inputs {
                files: vec![],
                config: Some(p.config.clone()),
                devices: devices.to_vec(),
                model: None,
                jobs: 0,
                no_cache: false,
                lower: LowerArgs::default(),
                params: vec![],
                size_chart: false,
                sass_in_context: false,
                host: Default::default(),
            },
            baseline: p.baseline.clone(),
            update_baseline: mode == "update-baseline",
            sarif: (mode == "check").then(|| p.out.join("kerncast.sarif")),
            time_threshold: None,
            energy_threshold: None,
            out: Some(p.out.clone()),
        };
        if mode == "analyze" {
            match kerncast::ops::analyze::analyze(&args.inputs, Some(&p.out)) {
                Ok(r) => {
                    text.push_str(&kerncast::report::table::render(&r));
                    text.push_str(&format!("reports: {}\n", p.out.display()));
                    if !r.errors.is_empty() {
                        worst = worst.max(2);
                    }
                }
                Err(e) => {
                    text.push_str(&format!("error: {}", kerncast::error::render(&e)));
                    worst = 2;
                }
            }
        } else {
            let r = check(&args);
            text.push_str(&r.text);
            worst = worst.max(r.exit_code);
        }
    }
    (worst, text)
}
